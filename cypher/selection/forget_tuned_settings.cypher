// write: forget the settings `tripartite tune --store` kept (the configured defaults apply again).

OPTIONAL MATCH (s:TunedSelection {id: 'current'})
WITH s, s IS NOT NULL AS forgotten
DETACH DELETE s
RETURN forgotten;
