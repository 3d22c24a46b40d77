"""Tripartite-GraphRAG: ontology-anchored GraphRAG in Neo4j."""

__version__ = "0.1.0"
