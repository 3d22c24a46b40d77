// Step 2: P_c, the empirical CDF of concept c's scores over all objects and chunks:
// p = (number of candidates of c with w' <= w) / (number of candidates of c).
// Equal scores share the same p (the highest rank of their group).
// One transaction per concept; must run as an auto-commit query (in the Browser: :auto).
// Browser: :param concept_ids => null   (or ['cardiology:hypertension'])

MATCH (k:Concept)
WHERE $concept_ids IS NULL OR k.id IN $concept_ids
CALL (k) {
  MATCH (e:Evidence {concept_id: k.id})
  WITH e ORDER BY e.w
  WITH collect(e) AS ranked
  UNWIND range(0, size(ranked) - 1) AS i
  WITH ranked[i] AS e, toFloat(i + 1) / size(ranked) AS p
  SET e.p = p
  WITH e.w AS w, collect(e) AS tied, max(p) AS p
  FOREACH (x IN tied | SET x.p = p)
} IN TRANSACTIONS OF 1 ROWS;
