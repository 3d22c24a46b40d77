// read: the question prompts for one object ask: its ontology plugin's (none when no plugin gives one).
// Browser: :param object_id => 'patient-a'

MATCH (o:Object {id: $object_id})
OPTIONAL MATCH (o)-[:CONCERNS]->(c:Concept)
OPTIONAL MATCH (ontology:Ontology {id: c.ontology}) WHERE ontology.question <> ''
RETURN collect(DISTINCT ontology.question)[0] AS question;
