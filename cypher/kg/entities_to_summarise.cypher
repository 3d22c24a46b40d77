// read: entities whose chunks' descriptions were too long to join: they get a summary; with
// $redo_by, also entities whose summary another provider/model wrote (only $only_provider's).
// Browser: :param redo_by => null; :param only_provider => null

MATCH (e:__Entity__)
WHERE e.needs_summary
   OR ($redo_by IS NOT NULL AND e.summarised AND coalesce(e.summary_by, '') <> $redo_by
       AND ($only_provider IS NULL OR split(coalesce(e.summary_by, ''), '/')[0] = $only_provider))
CALL (e) {
  MATCH (e)-[f:FROM_CHUNK]->(t:Chunk)
  WITH f.description AS description, t ORDER BY t.document_id, t.index
  WITH description WHERE description <> ''
  RETURN collect(DISTINCT description) AS descriptions
}
RETURN e.key AS key, e.name AS name, descriptions
ORDER BY key;
