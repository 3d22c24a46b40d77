// read: reports written before their sentences were kept (global search cites a point's own
// chunks through them): `kg communities` gives them their sentences, with no LLM call.

MATCH (c:Community)
WHERE c.summary IS NOT NULL AND NOT EXISTS { (c)-[:HAS_SENTENCE]->(:ReportSentence) }
RETURN c.id AS id, c.summary AS summary, c.findings AS findings
ORDER BY c.id;
