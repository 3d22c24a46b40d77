// read: the paper's classification graph G'(o), on demand: every candidate (o, c, t) of some
// objects, selected or not, with its score w, its percentile p = P_c(w) (read from the concept's
// histogram, as in prompt_material), x (selected by alpha or the blanket), the reason, and
// whether it is its pair's floor. The store keeps only the selected ones; the others are
// listed from their pair's scores. For inspection in the Browser (custom.tripartite.candidates)
// and the tests' comparison with the NumPy reference.
// Browser: :param object_ids => ['patient-a']   (null lists every object's candidates)

MATCH (o:Object)-[oc:CONCERNS]->(k:Concept)
WHERE ($object_ids IS NULL OR o.id IN $object_ids) AND size(coalesce(oc.scores, [])) > 0
MATCH (s:ScoreDistribution {concept_id: k.id})
OPTIONAL MATCH (e:Evidence {object_id: o.id, concept_id: k.id})
WITH o, k, s, e, oc.scores AS scores, s.chunks AS chunks
UNWIND range(0, size(scores) - 1) AS i
WITH o, k, s, scores[i] AS w, chunks[i] AS chunk_id, e
WITH o, k, s, w, chunk_id, e, [j IN range(0, size(coalesce(e.chunk_ids, [])) - 1) WHERE e.chunk_ids[j] = chunk_id][0] AS j,
     toInteger(floor(1000 * w)) AS bin, coalesce(s.unbinned, []) AS unbinned
// P_c(w) as percentiles.cypher reads it: the bins' scores under w's bin, its own up to w, the unbinned up to w.
OPTIONAL MATCH (b:ScoreBin {concept_id: s.concept_id, bin: bin})
WITH o, k, s, w, chunk_id, e, j, size([v IN b.w WHERE v <= w]) AS i, b.upto AS upto,
     size([v IN unbinned WHERE v <= w]) AS late,
     CASE WHEN s.low IS NULL OR bin < s.low THEN 0
          WHEN bin - s.low >= size(s.below) THEN s.n - size(unbinned)
          ELSE s.below[bin - s.low] END AS under
WITH o, k, chunk_id, w, toFloat(under + CASE WHEN i > 0 THEN upto[i - 1] ELSE 0 END + late) / s.n AS p,
     CASE WHEN j IS NULL THEN null ELSE e.reasons[j] END AS reason, j = 0 AS floor
RETURN o.id AS object_id, k.id AS concept_id, chunk_id, w, p, coalesce(reason IN ['alpha', 'beta'], false) AS selected,
       CASE WHEN reason IN ['alpha', 'beta'] THEN reason END AS reason, coalesce(floor, false) AS best
ORDER BY object_id, concept_id, chunk_id;
