// read: the concepts whose distributions an object's candidates take part in.
// Browser: :param object_ids => ['patient-a']

UNWIND $object_ids AS object_id
MATCH (e:Evidence) WHERE e.object_id = object_id AND e.chunk_id IS NOT NULL AND e.concept_id IS NOT NULL
RETURN DISTINCT e.concept_id AS concept_id;
