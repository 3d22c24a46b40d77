// How many candidates there are and how many each step selected.

MATCH (e:Evidence)
WHERE $concept_ids IS NULL OR e.concept_id IN $concept_ids
RETURN count(e) AS candidates, count(DISTINCT e.concept_id) AS concepts,
       count(CASE WHEN e.reason = 'alpha' THEN 1 END) AS alpha,
       count(CASE WHEN e.reason = 'beta' THEN 1 END) AS beta;
