"""`tripartite doctor`: a checklist of everything the pipeline needs."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from tripartite import migrations
from tripartite.config import Settings
from tripartite.db import open_driver, server_info, version_tuple
from tripartite.errors import TripartiteError

MIN_NEO4J = (5, 23)  # CALL (x) { ... } subqueries; IN CONCURRENT TRANSACTIONS (5.21); vector functions (5.18)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    required: bool = True

    def as_dict(self) -> dict:
        return asdict(self)


def run_checks(settings: Settings) -> list[Check]:
    checks: list[Check] = []
    try:
        driver = open_driver(settings, connect_timeout=5)
    except TripartiteError as exc:
        checks.append(Check("Neo4j reachable", False, str(exc)))
        for name in ("Neo4j version >= 5.23", "APOC present", "migrations current"):
            checks.append(Check(name, False, "skipped: Neo4j not reachable"))
    else:
        with driver:
            checks.append(Check("Neo4j reachable", True, f"{settings.neo4j_uri}, database {settings.neo4j_database}"))
            info = server_info(driver, settings.neo4j_database)
            checks.append(Check("Neo4j version >= 5.23", version_tuple(info.version) >= MIN_NEO4J,
                                f"{info.version} {info.edition}"))
            checks.append(Check("APOC present", info.apoc_version is not None,
                                f"APOC {info.apoc_version}" if info.apoc_version else
                                "apoc.version() is unknown; install APOC core in the server's plugins"))
            checks.append(_migrations_check(driver, settings))
    checks.append(_embedding_check(settings))
    checks.append(_llm_check(settings))
    return checks


def _migrations_check(driver, settings: Settings) -> Check:
    try:
        states = migrations.status(driver, settings.neo4j_database, settings.migrations_dir)
    except TripartiteError as exc:
        return Check("migrations current", False, str(exc))
    bad = [s for s in states if s.state not in ("applied", "optional", "superseded")]
    if not bad:
        return Check("migrations current", True, f"{len(states)} applied")
    summary = ", ".join(f"{s.label} {s.state}" for s in bad)
    return Check("migrations current", False, f"{summary}; run `tripartite migrate`")


def _embedding_check(settings: Settings) -> Check:
    try:
        from tripartite.embeddings import MiniLMEmbedder

        embedder = MiniLMEmbedder(settings.cache_dir)
        vector = embedder.embed(["doctor"])[0]
        return Check("embedding model loadable", True, f"{embedder.name}, {vector.shape[0]} dimensions")
    except TripartiteError as exc:
        return Check("embedding model loadable", False, str(exc))
    except Exception as exc:  # onnxruntime or tokenizers failing to load is reported, not raised
        return Check("embedding model loadable", False, f"{type(exc).__name__}: {exc}")


def _llm_check(settings: Settings) -> Check:
    if not settings.llm.configured:
        return Check("LLM endpoint", True, "none configured: the offline extractive provider is used", required=False)
    try:
        import openai

        client = openai.OpenAI(base_url=settings.llm.base_url or None, api_key=settings.llm.api_key or "not-needed",
                               timeout=10, max_retries=0)
        models = [m.id for m in client.models.list()]
    except Exception as exc:
        where = settings.llm.base_url or "the OpenAI API"
        return Check("LLM endpoint reachable", False, f"{where}: {type(exc).__name__}: {str(exc)[:120]}")
    listed = "listed" if settings.llm.model in models else "not in the endpoint's model list"
    return Check("LLM endpoint reachable", settings.llm.model in models or not models,
                 f"{settings.llm.base_url or 'OpenAI'}; model {settings.llm.model} {listed}")
