// read: how many of an object's concepts a set of chunks covers: a concept (one the object
// CONCERNS) is covered when at least one of the chunks carries an extract of it.
// Browser: :param object_id => 'patient-b'; :param chunk_ids => ['...']

MATCH (o:Object {id: $object_id})-[:CONCERNS]->(c:Concept)
RETURN count(c) AS total,
       count(CASE WHEN EXISTS { MATCH (c)-[:MENTIONED_IN]->(t:Chunk) WHERE t.id IN $chunk_ids } THEN 1 END) AS covered;
