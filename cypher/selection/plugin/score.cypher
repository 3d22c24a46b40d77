// write: step 1 through the procedure plugin (procedures/, Score.java): the same as
// ../score.cypher, each embedding read once and only changed lists written.
// Browser: :param object_ids => null

CALL tripartite.selection.score($object_ids) YIELD count
RETURN count AS pairs;
