// read: the text of one object, and the question its prompts ask (its ontology plugin's, when it has one).
// Browser: :param object_id => 'patient-a'

MATCH (o:Object {id: $object_id})
OPTIONAL MATCH (o)-[:CONCERNS]->(c:Concept)
OPTIONAL MATCH (ontology:Ontology {id: c.ontology}) WHERE ontology.question <> ''
WITH o, collect(DISTINCT ontology.question) AS questions
RETURN o.text AS text, o.kind AS kind, questions[0] AS question;
