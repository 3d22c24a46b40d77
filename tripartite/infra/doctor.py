"""`tripartite doctor`: a checklist of everything the pipeline needs."""
from __future__ import annotations

from dataclasses import asdict, dataclass

import neo4j

from tripartite.infra import migrations
from tripartite.infra.config import Settings, mask_userinfo
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph, neo4j_error_line, open_driver

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
            graph = Graph(driver, settings.neo4j_database)
            checks.append(Check("Neo4j reachable", True, f"{settings.neo4j_uri_shown}, database {settings.neo4j_database}"))
            version, edition = _one(driver, "CALL dbms.components() YIELD name, versions, edition "
                                            "WHERE name = 'Neo4j Kernel' RETURN versions[0], edition") or ("unknown", "")
            checks.append(Check("Neo4j version >= 5.23", version_tuple(version) >= MIN_NEO4J, f"{version} {edition}"))
            apoc = _one(driver, "RETURN apoc.version()")
            checks.append(Check("APOC present", apoc is not None, f"APOC {apoc[0]}" if apoc else
                                "apoc.version() is unknown; install APOC core in the server's plugins"))
            gds = _one(driver, "RETURN gds.version()")
            checks.append(Check("Graph Data Science", gds is not None, f"GDS {gds[0]}" if gds else
                                "gds.version() is unknown: `kg communities` needs the graph-data-science plugin "
                                "(the local server and docker/compose.yaml have it)", required=False))
            try:
                graph.run("infra/database_answers")
            except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
                line = neo4j_error_line(exc, settings.neo4j_uri_shown, settings.neo4j_database)
                checks.append(Check(f"database {settings.neo4j_database} answers", False, line))
                checks.append(Check("migrations current", False, "skipped: the database does not answer"))
            else:
                checks.append(_migrations_check(graph, settings))
    checks.append(_embedding_check(settings))
    checks.append(_llm_check(settings))
    if settings.llm.configured and checks[-1].ok:
        checks.append(_llm_answers_check(settings))
    return checks


def _one(driver: neo4j.Driver, query: str) -> tuple | None:
    """The first row of a one-line check, or None where the server lacks what it calls."""
    try:
        records, _, _ = driver.execute_query(query, routing_="r")
    except neo4j.exceptions.ClientError:
        return None
    return tuple(records[0].values()) if records else None


def version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _migrations_check(graph: Graph, settings: Settings) -> Check:
    try:
        states = migrations.status(graph, settings.migrations_dir)
    except TripartiteError as exc:
        return Check("migrations current", False, str(exc))
    bad = [s for s in states if s.state not in ("applied", "optional", "superseded")]
    if not bad:
        return Check("migrations current", True, f"{len(states)} applied")
    summary = ", ".join(f"{s.label} {s.state}" for s in bad)
    if any(s.state in ("changed", "missing") for s in bad):
        return Check("migrations current", False, f"{summary}: an applied migration was edited or removed; restore "
                                                  "it as applied and put changes in a new migration")
    return Check("migrations current", False, f"{summary}; run `tripartite migrate`")


def _embedding_check(settings: Settings) -> Check:
    try:
        from tripartite.infra.embeddings import MiniLMEmbedder  # onnxruntime loads slowly: only here

        embedder = MiniLMEmbedder(settings.cache_dir)
        vector = embedder.embed(["doctor"])[0]
        return Check("embedding model loadable", True, f"{embedder.name}, {vector.shape[0]} dimensions")
    except TripartiteError as exc:
        return Check("embedding model loadable", False, str(exc))
    except Exception as exc:  # onnxruntime or tokenizers failing to load is reported, not raised
        return Check("embedding model loadable", False, f"{type(exc).__name__}: {exc}")


def _llm_answers_check(settings: Settings) -> Check:
    """Whether the endpoint honours JSON schemas (one small probe, cached like every answer),
    and how many requests the runner keeps in flight against it."""
    from tripartite.infra.llm import open_runner
    from tripartite.infra.llm.providers import JSON_ONLY, STRUCTURED

    with open_runner(settings) as runner:
        found = runner.answer_format()
        slots = runner.provider.server_slots()
        concurrency = runner.concurrency
    how = {STRUCTURED: "honoured (concept ids from an enum, lengths bounded)",
           JSON_ONLY: "not honoured: JSON mode, answers validated and repaired once"}.get(
        found, "honoured without length limits (concept ids from an enum)")
    if settings.llm.structured != "auto":
        how += f" (set to {settings.llm.structured} by TRIPARTITE_LLM_STRUCTURED / [llm] structured)"
    served = f"; the server serves {slots} at once" if slots else ""
    in_flight = f"{concurrency} request{'s' if concurrency != 1 else ''} in flight"
    return Check("LLM structured answers", True, f"JSON schemas {how}; {in_flight}{served}",
                 required=False)


def _llm_check(settings: Settings) -> Check:
    if not settings.llm.configured:
        return Check("LLM endpoint", True, "none configured: the offline extractive provider is used", required=False)
    import openai

    where = mask_userinfo(settings.llm.base_url) or "the OpenAI API"
    try:
        client = openai.OpenAI(base_url=settings.llm.base_url or None, api_key=settings.llm.api_key or "not-needed",
                               timeout=10, max_retries=0)
        models = [m.id for m in client.models.list()]
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        # Never the reply's body: it may echo the key.
        return Check("LLM endpoint reachable", False, f"{where} refused the API key (HTTP {exc.status_code}); "
                                                      "set OPENAI_API_KEY")
    except openai.APIStatusError as exc:
        return Check("LLM endpoint reachable", False, f"{where} answered HTTP {exc.status_code} to /models")
    except Exception as exc:
        return Check("LLM endpoint reachable", False, f"{where}: {type(exc).__name__}; check OPENAI_BASE_URL")
    listed = "listed" if settings.llm.model in models else "not in the endpoint's model list"
    return Check("LLM endpoint reachable", settings.llm.model in models or not models,
                 f"{where}; model {settings.llm.model} {listed}")
