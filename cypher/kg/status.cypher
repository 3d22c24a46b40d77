// read: how far the triplet graph is: chunks extracted (with this prompt version), entities,
// relations, concept links, communities, their reports, and communities of at least $min_size
// members without one (new, or withdrawn because their documents changed), and reports written
// before their sentences were kept (global search cites through those), and entities the offline
// extractor typed as a loaded concept that no longer is one (its ontology was removed or changed
// since `kg extract`), and entities whose descriptions are not written from their chunks as they
// are now (an extraction or a removal interrupted before it wrote them).
// Browser: :param version => 'triplets-...'; :param min_size => 5

RETURN COUNT { (:Chunk) } AS chunks,
       COUNT { (t:Chunk) WHERE t.kg_version = $version } AS extracted,
       COUNT { (:__Entity__) } AS entities,
       COUNT { (:__Entity__)-[r]->(:__Entity__) WHERE r.chunks IS NOT NULL } AS relations,
       COUNT { (:__Entity__)-[:IS_CONCEPT]->(:Concept) } AS concept_links,
       COUNT { (e:__Entity__ {type: 'OntologyConcept'}) WHERE NOT EXISTS { (e)-[:IS_CONCEPT]->(:Concept) } }
         AS stale_concepts,
       COUNT { (:__Entity__ {dirty: true}) } AS undescribed,
       COUNT { (:Community) } AS communities,
       COUNT { (c:Community) WHERE c.summary IS NOT NULL } AS reports,
       COUNT { (c:Community) WHERE c.summary IS NULL AND c.size >= $min_size } AS unreported,
       COUNT { (c:Community) WHERE c.summary IS NOT NULL AND NOT EXISTS { (c)-[:HAS_SENTENCE]->(:ReportSentence) } }
         AS without_sentences;
