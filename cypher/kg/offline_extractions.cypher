// read: the chunks the offline extractor extracted with this prompt version whose fingerprint was
// taken in another context (another corpus or ontology): its answer may have changed since.
// Browser: :param version => 'triplets-...'; :param by => 'extractive/triplets-extractive-v2'; :param context => '...'

MATCH (t:Chunk)
WHERE t.kg_version = $version AND t.kg_by = $by AND NOT coalesce(t.kg_fingerprint, '') STARTS WITH $context + ':'
RETURN t.id AS id, t.text AS text, t.kg_fingerprint AS fingerprint
ORDER BY t.document_id, t.index;
