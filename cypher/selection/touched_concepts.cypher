// The concepts whose percentiles an object's candidates take part in.

MATCH (e:Evidence) WHERE e.object_id IN $object_ids
RETURN DISTINCT e.concept_id AS concept_id;
