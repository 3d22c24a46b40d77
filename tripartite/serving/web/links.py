"""Links from the page's nodes to Neo4j Browser: the Browser opens on the database with the
query that shows the node in its editor (its `dbms`, `db`, `cmd=edit` and `arg` URL
parameters). The query is the user's to run, so the id stands in it as a quoted literal."""
from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

from tripartite.infra.config import Settings

QUERIES = {
    "object": "MATCH (o:Object {{id: {id}}})-[r:CONCERNS]->(c:Concept) RETURN o, r, c",
    "concept": "MATCH (c:Concept {{id: {id}}}) OPTIONAL MATCH (c)-[m:MENTIONED_IN]->(t:Chunk) RETURN c, m, t LIMIT 50",
    "chunk": "MATCH p = (:Document)-[:HAS_SECTION]->(:Section)-[:HAS_SUBSECTION*0..]->(:Section)-[:HAS_CHUNK]->"
             "(:Chunk {{id: {id}}}) RETURN p",
    "document": "MATCH (d:Document {{id: {id}}})-[r:HAS_SECTION]->(s:Section) RETURN d, r, s",
}


def cypher_string(value: str) -> str:
    """A Cypher string literal holding `value`."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def browser_base(settings: Settings, given: str | None = None) -> str:
    """Neo4j Browser's address: given, or the HTTP port of the server the Bolt URI names (the
    local server's own for a loopback URI)."""
    if given:
        return given.rstrip("/") + "/"
    host = urlsplit(settings.neo4j_uri).hostname or "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.server.http_port}/browser/"


class BrowserLinks:
    def __init__(self, settings: Settings, base: str | None = None):
        self.base = browser_base(settings, base)
        parts = urlsplit(settings.neo4j_uri)  # without user and password: the Browser asks for them
        self.dbms = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        self.database = settings.neo4j_database

    def to(self, kind: str, node_id: str) -> str:
        query = QUERIES[kind].format(id=cypher_string(node_id))
        return self.base + "?" + urlencode({"dbms": self.dbms, "db": self.database, "cmd": "edit", "arg": query})
