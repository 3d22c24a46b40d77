// read: whether the Evidence nodes come from before migration V006 (one sampled node tells: that
// version wrote p and selected = false on every node).

OPTIONAL MATCH (e:Evidence)
WITH e LIMIT 1
RETURN coalesce(e.p IS NOT NULL OR e.selected = false, false) AS old;
