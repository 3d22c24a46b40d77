"""The graph as a Text2Cypher model should see it: the domain's labels, relationships and the
properties worth asking about, in the layout of neo4j-graphrag's own schema text. Not what
`neo4j_graphrag.schema.get_schema` reads from the database, which also lists the project's
bookkeeping (migration history, locks, the selection's state and score bins, analysis runs),
every vector property, and each relation type of the triplet graph one by one (the offline
extractor's verbs: over a hundred on a real corpus). Under 1,500 tokens (cl100k_base;
tests/test_graphrag.py measures it). Use:

    Text2CypherRetriever(driver, llm, neo4j_schema=TEXT2CYPHER_SCHEMA, examples=TEXT2CYPHER_EXAMPLES)
"""
from __future__ import annotations

TEXT2CYPHER_SCHEMA = """\
Node properties:
Document {id: STRING, title: STRING, path: STRING, format: STRING}
Section {id: STRING, title: STRING, level: INTEGER, order: INTEGER, path: LIST<STRING>, document_id: STRING}
Chunk {id: STRING, index: INTEGER, text: STRING, token_count: INTEGER, document_id: STRING, section_id: STRING}
Ontology {id: STRING, version: STRING, description: STRING, question: STRING}
ConceptClass {id: STRING, name: STRING, description: STRING, ontology: STRING}
Concept {id: STRING, name: STRING, synonyms: LIST<STRING>, abbreviations: LIST<STRING>, description: STRING, ontology: STRING, class_id: STRING, xrefs: LIST<STRING>}
Object {id: STRING, kind: STRING, title: STRING, text: STRING}
Evidence {object_id: STRING, concept_id: STRING, chunk_ids: LIST<STRING>, w: LIST<FLOAT>, reasons: LIST<STRING>}
__Entity__ {name: STRING, type: STRING, description: STRING}
Community {id: STRING, level: INTEGER, size: INTEGER, title: STRING, summary: STRING, rating: FLOAT, findings: LIST<STRING>}
Relationship properties:
CONCERNS {summary: STRING}
MENTIONED_IN {summary: STRING}
FROM_CHUNK {name: STRING, description: STRING}
The relationships:
(:Document)-[:HAS_SECTION]->(:Section)
(:Section)-[:HAS_SUBSECTION]->(:Section)
(:Section)-[:NEXT_SECTION]->(:Section)
(:Section)-[:HAS_CHUNK]->(:Chunk)
(:Chunk)-[:FROM_DOCUMENT]->(:Document)
(:Chunk)-[:NEXT_CHUNK]->(:Chunk)
(:ConceptClass)-[:IN_ONTOLOGY]->(:Ontology)
(:Concept)-[:IN_CLASS]->(:ConceptClass)
(:Concept)-[:BROADER]->(:Concept)
(:Concept)-[:MENTIONED_IN]->(:Chunk)
(:Object)-[:CONCERNS]->(:Concept)
(:__Entity__)-[:FROM_CHUNK]->(:Chunk)
(:__Entity__)-[:IS_CONCEPT]->(:Concept)
(:__Entity__)-[:IN_COMMUNITY]->(:Community)
(:Community)-[:PARENT]->(:Community)
(:__Entity__)-[]->(:__Entity__)
Notes:
- Document > Section > Chunk is the documents' text: a chunk's section path is Section.path (the headings from the top), its place in reading order Chunk.index.
- An ontology's concepts (Concept, with synonyms) belong to concept classes. Concept.name is how a concept is written; match names case-insensitively (toLower) and look in synonyms too.
- Object is a case under investigation (e.g. a patient's history). (:Object)-[:CONCERNS {summary}]->(:Concept): what the object says about the concept; (:Concept)-[:MENTIONED_IN {summary}]->(:Chunk): what the chunk says about it.
- Evidence: the chunks selected for an object and concept (Evidence.chunk_ids, each with its score in w and its reason: alpha, beta or floor at the same position); it has no relationships, join it by Object.id, Concept.id and Chunk.id.
- __Entity__ is the triplet graph extracted from the chunks; each also has a label of its type (e.g. :Term). A relationship between two __Entity__ nodes is a relation the text states; its type is the relation's verb in upper case (e.g. TREAT, REDUCE), with the properties description and weight; use type(r) to read it.
- Community is a group of related entities with a report (title, summary, findings); level 0 is the finest, PARENT leads to the next level up.
"""

TEXT2CYPHER_EXAMPLES = [
    "USER INPUT: 'Which concepts does patient-b concern?' QUERY: "
    "MATCH (o:Object {id: 'patient-b'})-[r:CONCERNS]->(c:Concept) RETURN c.name AS concept, r.summary AS says",
    "USER INPUT: 'Which documents mention heart failure?' QUERY: "
    "MATCH (c:Concept)-[:MENTIONED_IN]->(t:Chunk)-[:FROM_DOCUMENT]->(d:Document) "
    "WHERE toLower(c.name) = 'heart failure' OR 'heart failure' IN [s IN c.synonyms | toLower(s)] "
    "RETURN DISTINCT d.title AS document",
    "USER INPUT: 'Which concepts are medications?' QUERY: "
    "MATCH (c:Concept)-[:IN_CLASS]->(k:ConceptClass) WHERE toLower(k.name) CONTAINS 'medication' "
    "RETURN c.name AS concept, k.name AS class",
]
