// write: entities' names and descriptions: their chunks' descriptions joined, cut short when long
// (then needs_summary marks them for `kg communities`, which has them summarised), or the summary.
// Browser: :param rows => [{key: 'neo4j|Name', name: 'Neo4j', description: '...', needs_summary: false, summarised: false, by: null}]

UNWIND $rows AS row
MATCH (e:__Entity__ {key: row.key})
SET e.name = coalesce(row.name, e.name), e.description = row.description, e.summarised = row.summarised,
    e.needs_summary = CASE WHEN row.needs_summary THEN true END, e.summary_by = row.by
REMOVE e.dirty;
