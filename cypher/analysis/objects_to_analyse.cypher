// read: objects with concepts they were not yet analysed for; with $redo (see
// chunks_to_analyse), also those analysed by another provider or model, for every concept.

MATCH (o:Object)
WITH o, coalesce(o.analysed_by, head([(o)-[r:CONCERNS]->(:Concept) | r.provider + '/' + r.model])) AS by
WITH o, CASE
  WHEN $redo IS NOT NULL AND by IS NOT NULL AND by <> $redo.current
       AND ($redo.only_provider IS NULL OR by STARTS WITH $redo.only_provider + '/') THEN $concept_ids
  ELSE [id IN $concept_ids WHERE NOT id IN coalesce(o.analysed_concepts, [])] END AS missing
WHERE size(missing) > 0
RETURN o.id AS id, o.kind AS kind, o.text AS text, missing
ORDER BY id;
