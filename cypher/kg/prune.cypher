// write: repair what chunks deleted outside `tripartite documents remove` and `ingest` (by hand,
// or by a version before they kept the triplet graph in step) left behind: relations citing
// chunks that are gone lose those ids (and go when none is left), entities described by no
// chunk go (their communities marked withdraw), and entities that lost a relation are marked for a
// new description. retract_reports.cypher runs next.

MATCH (a:__Entity__)-[r]->(b:__Entity__)
WHERE r.chunks IS NOT NULL AND any(id IN r.chunks WHERE NOT EXISTS { (:Chunk {id: id}) })
WITH collect({a: a, b: b, r: r}) AS stale
UNWIND stale AS x
WITH x.a AS a, x.b AS b, x.r AS r
WITH a, b, r, [i IN range(0, size(r.chunks) - 1) WHERE EXISTS { (:Chunk {id: r.chunks[i]}) }] AS kept
SET a.dirty = true, b.dirty = true, a.lost = true, b.lost = true
SET r.chunk_descriptions = [i IN kept | coalesce(r.chunk_descriptions[i], '')],
    r.chunks = [i IN kept | r.chunks[i]], r.weight = size(kept), r.dirty = true
WITH r WHERE r.chunks = []
DELETE r;

MATCH (e:__Entity__)
WHERE NOT EXISTS { (e)-[:FROM_CHUNK]->(:Chunk) }
OPTIONAL MATCH (e)-[:IN_COMMUNITY]->(c:Community)
SET c.withdraw = true
WITH DISTINCT e
DETACH DELETE e;
