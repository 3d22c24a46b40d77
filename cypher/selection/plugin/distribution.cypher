// write: step 2 through the procedure plugin (procedures/, Distribution.java): the same as
// ../distribution.cypher.
// Browser: :param concept_ids => null; :param alpha => 0.9; :param beta => 0.5

CALL tripartite.selection.distribution($concept_ids, $alpha, $beta) YIELD count
RETURN count AS concepts;
