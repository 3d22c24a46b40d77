// write: steps 3 and 4 and the floor through the procedure plugin (procedures/, Classify.java):
// the same as ../classify.cypher.
// Browser: :param object_ids => null

CALL tripartite.selection.classify($object_ids) YIELD count
RETURN count AS objects;
