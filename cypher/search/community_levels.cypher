// read: the levels of the community hierarchy that have reports: how many, how many entities
// their reported communities hold, and their reports' total size in characters (global search
// maps the level whose reports cover the most entities).

MATCH (c:Community) WHERE c.summary IS NOT NULL
RETURN c.level AS level, count(c) AS communities, sum(c.size) AS members, sum(size(c.report)) AS characters
ORDER BY level;
