"""Writing a validated ontology to Neo4j (cypher/ontology/), and listing what is loaded."""
from __future__ import annotations

import neo4j

from tripartite import scripts
from tripartite.ontology import Ontology


def load_ontology(driver: neo4j.Driver, database: str, ontology: Ontology, force: bool = False) -> bool:
    """Write `ontology` in one transaction; False if it was loaded unchanged already."""
    state = scripts.query(driver, database, "ontology/ontology_state", ontology_id=ontology.name)
    if state and state[0]["checksum"] == ontology.checksum and not force:
        return False
    classes = [{"id": ontology.class_id(c.key), "key": c.key, "name": c.name, "description": c.description}
               for c in ontology.classes]
    concepts = [{"id": ontology.concept_id(c.key), "key": c.key, "name": c.name,
                 "class_id": ontology.class_id(c.class_key), "synonyms": list(c.synonyms),
                 "description": c.description, "broader": [ontology.concept_id(b) for b in c.broader]}
                for c in ontology.concepts]
    meta = {"id": ontology.name, "version": ontology.version, "description": ontology.description,
            "source": ontology.source, "checksum": ontology.checksum}
    scripts.write(driver, database, "ontology/write_ontology", ontology=meta, classes=classes, concepts=concepts)
    return True


def list_ontologies(driver: neo4j.Driver, database: str) -> list[dict]:
    return scripts.query(driver, database, "ontology/list_ontologies")
