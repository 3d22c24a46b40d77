"""The lexical part of the graph: documents, heading sections and chunks in reading order."""
