"""Prompts built by search over the graph: vector RAG over the chunk index (vector.py), the
baseline of the paper's comparison."""
