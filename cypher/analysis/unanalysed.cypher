// read: how many chunks and objects were not analysed for every loaded concept (a document or
// object added or changed, or a concept loaded or reworded, since the last `tripartite analyze`,
// or an analysis that failed): their extracts are missing from any prompt built from extracts,
// so select and search say so.

MATCH (k:Concept)
WITH collect(k.id) AS concept_ids
CALL (concept_ids) {
  MATCH (c:Chunk)
  RETURN count(c) AS chunks,
         count(CASE WHEN any(id IN concept_ids WHERE NOT id IN coalesce(c.analysed_concepts, [])) THEN 1 END)
           AS unanalysed
}
CALL (concept_ids) {
  MATCH (o:Object)
  RETURN count(o) AS objects,
         count(CASE WHEN any(id IN concept_ids WHERE NOT id IN coalesce(o.analysed_concepts, [])) THEN 1 END)
           AS unanalysed_objects
}
RETURN size(concept_ids) AS concepts, chunks, unanalysed, objects, unanalysed_objects;
