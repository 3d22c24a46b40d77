"""The triplet graph of DB-GPT's GraphRAG, on the same lexical graph (cypher/kg/): entities and
relations extracted from every chunk (extract.py), their Leiden communities with reports
(communities.py); the prompts in prompts.py, the answer shapes in schema.py, the offline
providers in extractive.py."""
