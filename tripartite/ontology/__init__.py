"""The ontology part of the graph: concept classes and concepts, from plugin folders or
ontology YAML files (reader.py, plugins.py), written by store.py through cypher/ontology/."""
