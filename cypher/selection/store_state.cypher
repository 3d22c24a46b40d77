// read: the selection store's version and size: 2 keeps scores per (object, concept) pair and
// Evidence per pair with what is selected; 1 kept one Evidence node per candidate.

OPTIONAL MATCH (s:SelectionState {id: 'current'})
OPTIONAL MATCH (e:Evidence) WHERE e.chunk_id IS NOT NULL
WITH s, count(e) AS old
RETURN CASE WHEN old > 0 THEN 1 ELSE coalesce(s.store, 2) END AS version, s.state AS state, old AS old_evidence,
       COUNT { (:Evidence) } AS evidence;
