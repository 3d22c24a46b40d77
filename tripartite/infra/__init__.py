"""Infrastructure apart from the graph's parts: settings, errors, the Neo4j connection and
Cypher script runner, migrations, the local server, the embedding model, and the LLM runner."""
