// read: communities of at least $min_size members without a report yet, finest level first.
// Browser: :param min_size => 3

MATCH (c:Community)
WHERE c.size >= $min_size AND c.summary IS NULL
RETURN c.id AS id, c.level AS level, c.size AS size
ORDER BY c.level, c.size DESC, c.id;
