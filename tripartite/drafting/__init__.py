"""`tripartite ontology draft`: an ontology proposed from the ingested documents, offline (key
phrases: offline.py) or by an LLM (llm.py), to curate and load. It reads the documents as the
triplet graph's extractor and the pre-analysis read them, so it stands above both."""
