// write: note that the selection's inputs changed (documents, ontologies, chunk extracts): every
// object's candidates may differ, so prompts wait for a full `tripartite select`. Run in the
// same transaction as the change it notes.
// Browser: :param what => 'documents'

MERGE (v:InputsVersion {id: 'current'})
SET v.version = coalesce(v.version, 0) + 1, v.changed_at = datetime(), v.what = $what;
