// read: who made the triplet graph: per provider/model, how many chunks it extracted (with this
// prompt version), how many community reports and entity summaries it wrote.
// Browser: :param version => 'triplets-...'

CALL () {
  MATCH (t:Chunk) WHERE t.kg_version = $version
  RETURN 'extraction' AS stage, coalesce(t.kg_by, 'unknown') AS by, count(t) AS items
  UNION ALL
  MATCH (c:Community) WHERE c.summary IS NOT NULL
  RETURN 'report' AS stage, coalesce(c.report_provider + '/' + c.report_model, 'unknown') AS by, count(c) AS items
  UNION ALL
  MATCH (e:__Entity__) WHERE e.summarised
  RETURN 'summary' AS stage, coalesce(e.summary_by, 'unknown') AS by, count(e) AS items
}
RETURN stage, by, items
ORDER BY stage, by;
