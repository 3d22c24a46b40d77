// write: withdraw the reports of communities whose members lost text (entities marked lost by
// forget_documents, forget_chunks or prune, and communities marked withdraw because a member of
// theirs went), and of the communities above them: a report may quote what is gone, so search
// stops using it, and the next `tripartite kg communities` writes a new one.

CALL () {
  MATCH (:__Entity__ {lost: true})-[:IN_COMMUNITY]->(:Community)-[:PARENT*0..]->(c:Community)
  RETURN c
  UNION
  MATCH (:Community {withdraw: true})-[:PARENT*0..]->(c:Community)
  RETURN c
}
WITH DISTINCT c
OPTIONAL MATCH (c)-[:HAS_SENTENCE]->(s:ReportSentence)
DETACH DELETE s
WITH DISTINCT c
REMOVE c.title, c.summary, c.rating, c.rating_explanation, c.findings, c.report, c.report_provider,
       c.report_model, c.report_input, c.reported_at, c.embedding, c.withdraw;

MATCH (e:__Entity__ {lost: true})
REMOVE e.lost;
