// Triplet-graph entities never carry a label of another part of the graph: an entity whose type
// became such a label (the offline extractor typed ontology terms "Concept", so they passed for
// ontology concepts and broke the analysis) gets "<label>Entity" instead, as new extractions do
// (tripartite/kg/schema.py, RESERVED_LABELS). Where that key is taken already, the entity goes
// and its chunks are extracted again by the next `tripartite kg extract`.

UNWIND ['Concept', 'ConceptClass', 'Ontology', 'Document', 'Section', 'Chunk', 'Object', 'Evidence', 'Community',
        'ReportSentence', 'ScoreDistribution', 'ScoreBlock', 'SelectionState', 'InputsVersion', 'TunedSelection',
        'AnalysisRun'] AS reserved
MATCH (e:__Entity__) WHERE reserved IN labels(e)
WITH e, reserved, split(e.key, '|')[0] + '|' + reserved + 'Entity' AS key
OPTIONAL MATCH (taken:__Entity__ {key: key}) WHERE taken <> e
CALL (e, reserved, key, taken) {
  WITH e, reserved, key WHERE taken IS NULL
  REMOVE e:$(reserved)
  SET e:$(reserved + 'Entity'), e.key = key
}
CALL (e, taken) {
  WITH e WHERE taken IS NOT NULL
  OPTIONAL MATCH (e)-[:FROM_CHUNK]->(t:Chunk)
  REMOVE t.kg_version
  WITH DISTINCT e
  DETACH DELETE e
};

// A graph where two runs of `tripartite select` once raced keeps one selection state, marked
// unfinished so prompts wait for the next select (migration V011 then makes it unique).
MATCH (s:SelectionState {id: 'current'})
WITH collect(s) AS states WHERE size(states) > 1
UNWIND tail(states) AS extra
DETACH DELETE extra
WITH DISTINCT head(states) AS kept
SET kept.state = 'running', kept.run = 'merged-by-V010';

MATCH (v:InputsVersion {id: 'current'})
WITH collect(v) AS versions WHERE size(versions) > 1
WITH versions, reduce(top = 0, v IN versions | CASE WHEN v.version > top THEN v.version ELSE top END) AS top
UNWIND tail(versions) AS extra
DETACH DELETE extra
WITH DISTINCT head(versions) AS kept, top
SET kept.version = top + 1;
