// read: the communities of at least $min_size members that a report is due for or may be: each
// with whether it has one, what that one was written from (a hash of its input) and by whom.
// Finest level first.
// Browser: :param min_size => 3

MATCH (c:Community)
WHERE c.size >= $min_size
RETURN c.id AS id, c.summary IS NOT NULL AS reported, c.report_input AS input,
       CASE WHEN c.report_provider IS NOT NULL THEN c.report_provider + '/' + c.report_model END AS by
ORDER BY c.level, c.size DESC, c.id;
