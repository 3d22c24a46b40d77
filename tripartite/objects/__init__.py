"""The object part of the graph: the objects under investigation (reader.py reads a file,
store.py writes and lists them through cypher/objects/)."""
