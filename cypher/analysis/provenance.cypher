// read: who analysed the chunks and objects: per stage and provider/model, how many items, and
// how many carry a failure from the last run that tried them. An item analysed before this was
// recorded counts under the provider and model of its extracts.

CALL () {
  MATCH (t:Chunk) WHERE t.analysed_concepts IS NOT NULL OR t.analysis_error IS NOT NULL
  RETURN 'chunk' AS stage, t AS item,
         coalesce(t.analysed_by, head([(:Concept)-[m:MENTIONED_IN]->(t) | m.provider + '/' + m.model])) AS by
  UNION ALL
  MATCH (o:Object) WHERE o.analysed_concepts IS NOT NULL OR o.analysis_error IS NOT NULL
  RETURN 'object' AS stage, o AS item,
         coalesce(o.analysed_by, head([(o)-[r:CONCERNS]->(:Concept) | r.provider + '/' + r.model])) AS by
}
RETURN stage, by, count(item) AS items, count(item.analysis_error) AS failed,
       collect(CASE WHEN item.analysis_error IS NOT NULL THEN item.id + ': ' + item.analysis_error END)[0..3] AS errors
ORDER BY stage, by;
