// read: how far the triplet graph is: chunks extracted (with this prompt version), entities,
// relations, concept links, communities and their reports.
// Browser: :param version => 'triplets-...'

RETURN COUNT { (:Chunk) } AS chunks,
       COUNT { (t:Chunk) WHERE t.kg_version = $version } AS extracted,
       COUNT { (:__Entity__) } AS entities,
       COUNT { (:__Entity__)-[r]->(:__Entity__) WHERE r.chunks IS NOT NULL } AS relations,
       COUNT { (:__Entity__)-[:IS_CONCEPT]->(:Concept) } AS concept_links,
       COUNT { (:Community) } AS communities,
       COUNT { (c:Community) WHERE c.summary IS NOT NULL } AS reports;
