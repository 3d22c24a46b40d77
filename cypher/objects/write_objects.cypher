// write: objects under investigation (an anamnesis, a fault report), in a batch. A changed object
// loses what was derived from its old text: its CONCERNS extracts (with their scores), and the
// record of the concepts it was analysed for, so `analyze` reads it again. Its Evidence stays
// until the next `select` (of the object or all): that run needs it to know which concepts'
// score distributions the object leaves, and then sweeps it.
// Parameters: $objects [{id, kind, title, text, path, content_hash}]

UNWIND $objects AS row
MATCH (o:Object {id: row.id})
WHERE o.content_hash <> row.content_hash OR o.kind <> row.kind
REMOVE o.analysed_concepts, o.analysed_by, o.analysis_error, o.analysis_failed_at
WITH o
OPTIONAL MATCH (o)-[r:CONCERNS]->(k)
// Its scores leave the concept's histogram with it: the next select rebuilds that.
OPTIONAL MATCH (s:ScoreDistribution {concept_id: k.id}) WHERE r.scores IS NOT NULL
SET s.current = false
DELETE r;

// New and changed objects wait for `tripartite select --object` (see selection/freshness); one
// only read from another path (the same text) keeps its selection.
UNWIND $objects AS row
MERGE (o:Object {id: row.id})
SET o.selection_stale = CASE WHEN o.content_hash = row.content_hash AND o.kind = row.kind
                             THEN coalesce(o.selection_stale, false) ELSE true END
SET o.kind = row.kind, o.title = row.title, o.text = row.text, o.path = row.path,
    o.content_hash = row.content_hash, o.added_at = datetime();
