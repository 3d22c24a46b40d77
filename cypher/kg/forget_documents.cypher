// write: before documents' chunks are deleted (a removed or changed document), forget what they
// contributed to the triplet graph: entities they described are marked for a new description
// (and as having lost text),
// their ids leave the relations that cite them (a relation left with none goes), and entities
// described by no other chunk go (their communities marked withdraw). Reports that may quote the forgotten text are withdrawn by
// retract_reports.cypher, which runs right after in the same transaction.
// Browser: :param document_ids => ['hypertension']

MATCH (t:Chunk) WHERE t.document_id IN $document_ids
MATCH (e:__Entity__)-[:FROM_CHUNK]->(t)
SET e.dirty = true, e.lost = true;

MATCH (t:Chunk) WHERE t.document_id IN $document_ids
WITH collect(t.id) AS gone
UNWIND gone AS id
MATCH (:Chunk {id: id})<-[:FROM_CHUNK]-(:__Entity__)-[r]-(:__Entity__)
WHERE r.chunks IS NOT NULL AND id IN r.chunks
// Collected before any is changed: a relation is reached from each of its chunks.
WITH gone, collect(DISTINCT r) AS relations
UNWIND relations AS r
WITH r, [i IN range(0, size(r.chunks) - 1) WHERE NOT r.chunks[i] IN gone] AS kept
SET r.chunk_descriptions = [i IN kept | coalesce(r.chunk_descriptions[i], '')],
    r.chunks = [i IN kept | r.chunks[i]], r.weight = size(kept), r.dirty = true
WITH r WHERE r.chunks = []
DELETE r;

MATCH (t:Chunk) WHERE t.document_id IN $document_ids
MATCH (e:__Entity__)-[:FROM_CHUNK]->(t)
WITH DISTINCT e
WHERE NOT EXISTS { (e)-[:FROM_CHUNK]->(other:Chunk) WHERE NOT other.document_id IN $document_ids }
OPTIONAL MATCH (e)-[:IN_COMMUNITY]->(c:Community)
SET c.withdraw = true
WITH DISTINCT e
DETACH DELETE e;
