// write: chunks whose offline answer is the same in the new context keep their extraction and
// record the context it now holds for.
// Browser: :param rows => [{id: '...', fingerprint: 'context:answer'}]

UNWIND $rows AS row
MATCH (t:Chunk {id: row.id})
SET t.kg_fingerprint = row.fingerprint;
