// read: how many chunks were not analysed for every loaded concept (a document ingested or
// changed, or a concept loaded, since the last `tripartite analyze`, or an analysis that failed):
// their extracts are missing from any prompt built from chunk extracts, so search says so.

MATCH (k:Concept)
WITH collect(k.id) AS concept_ids
MATCH (c:Chunk)
RETURN count(c) AS chunks,
       count(CASE WHEN any(id IN concept_ids WHERE NOT id IN coalesce(c.analysed_concepts, [])) THEN 1 END)
         AS unanalysed;
