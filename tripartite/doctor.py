"""`tripartite doctor`: a checklist of everything the pipeline needs. It asks every part of the
graph, so it stands at the top of the house, beside the pipeline, not in infra/."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from urllib.parse import urlsplit

import neo4j

from tripartite.infra import migrations
from tripartite.infra.config import Settings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph, neo4j_error_line, open_driver
from tripartite.infra.secrets import mask_userinfo

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
        for name in ("Neo4j version >= 5.23", "APOC core", "migrations current"):
            checks.append(Check(name, False, "skipped: Neo4j not reachable"))
    else:
        with driver:
            graph = Graph(driver, settings.neo4j_database)
            checks.append(Check("Neo4j reachable", True, f"{settings.neo4j_uri_shown}, database {settings.neo4j_database}"))
            version, edition = _one(driver, "CALL dbms.components() YIELD name, versions, edition "
                                            "WHERE name = 'Neo4j Kernel' RETURN versions[0], edition") or ("unknown", "")
            checks.append(Check("Neo4j version >= 5.23", version_tuple(version) >= MIN_NEO4J, f"{version} {edition}"))
            checks.extend(offered_checks(driver, settings))
            try:
                graph.run("infra/database_answers")
            except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
                line = neo4j_error_line(exc, settings.neo4j_uri_shown, settings.neo4j_database)
                checks.append(Check(f"database {settings.neo4j_database} answers", False, line))
                checks.append(Check("migrations current", False, "skipped: the database does not answer"))
            else:
                checks.append(_migrations_check(graph, settings))
                checks.append(_analysis_check(graph))
                checks.append(_provenance_check(graph, settings))
                checks.append(_selection_check(graph, settings))
                checks.append(_chunk_vectors_check(graph, settings))
                checks.append(_triplet_graph_check(graph))
    checks.append(_embedding_check(settings))
    checks.append(_llm_check(settings))
    if settings.llm.configured and checks[-1].ok:
        checks.append(_llm_answers_check(settings))
    return checks


def _selection_check(graph: Graph, settings: Settings) -> Check:
    """The selection store's version, and which path runs the selection's steps."""
    from tripartite.selection.engine import choose

    try:
        store = graph.one("selection/store_state")
        engine = choose(graph, settings.selection.engine)
    except TripartiteError as exc:
        return Check("selection", False, str(exc), required=False)
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError):
        return Check("selection", False, "skipped: the database does not answer", required=False)
    if store["version"] < 2:
        return Check("selection", False, f"store version 1 ({store['old_evidence']:,} Evidence nodes, one per "
                                         "candidate): run `tripartite migrate`, which converts it", required=False)
    detail = (f"store version 2 (scores per (object, concept) pair; {store['evidence']:,} Evidence nodes, one per "
              f"pair with what it selects); steps and prompts run by {engine.reason}")
    fresh = graph.one("selection/freshness", object_id=None)  # as prompts ask it, for the whole graph
    nothing_to_select = fresh["freshness"] == "none" and not fresh["objects"]
    if fresh["freshness"] != "fresh" and not nothing_to_select:
        return Check("selection", False, f"{fresh['hint']} (prompts refuse until then); {detail}", required=False)
    return Check("selection", True, detail, required=False)


def _chunk_vectors_check(graph: Graph, settings: Settings) -> Check:
    """Which embedding model made which vectors (chunks, extracts, community reports), and
    whether any lacks one from the configured models: a graph ingested by an older version, or
    before the model changed, until `tripartite embed` runs (`--dry-run` says how much)."""
    from tripartite.infra.embeddings import local_embedder, make_embedder
    from tripartite.lexical.embed import pending_line

    chunks = settings.embeddings.model if settings.embeddings.provider == "openai" else make_embedder(settings).name
    wanted = {"chunks": chunks, "communities": chunks, "extracts": local_embedder(settings, fetch=False).name}
    try:
        missing = pending_line(graph, chunks)
        rows = graph.run("pipeline/vectors_by_model")
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError):
        return Check("vectors embedded", False, "skipped: the database does not answer", required=False)
    made = "; ".join(f"{r['kind']} {r['items']:,} by {r['model'] or 'none (not embedded)'}" for r in rows)
    stale = sorted({r["kind"] for r in rows if r["model"] != wanted[r["kind"]]})
    if not rows:
        return Check("vectors embedded", True, "nothing embedded yet", required=False)
    if missing or stale:
        fix = missing or (f"{', '.join(stale)} embedded by another model than the configured one: run `tripartite "
                          "embed` (`--dry-run` first says how much and how long)")
        return Check("vectors embedded", False, f"{fix} ({made})", required=False)
    return Check("vectors embedded", True, f"every vector is from the configured models: {made}", required=False)


def _triplet_graph_check(graph: Graph) -> Check:
    """What local, global and hybrid search would say their triplet graph lacks (search/gaps.py):
    chunks not extracted, communities without a report, entities naming concepts no longer loaded."""
    from tripartite.kg.extract import status
    from tripartite.search.gaps import triplet_graph_gaps

    try:
        found = status(graph)
        gaps = triplet_graph_gaps(graph, found)
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError):
        return Check("triplet graph", False, "skipped: the database does not answer", required=False)
    if not found["entities"]:
        return Check("triplet graph", True, "not built (local, global and hybrid search need it: "
                                            "`tripartite kg extract`, then `tripartite kg communities`)", required=False)
    if gaps:
        return Check("triplet graph", False, gaps, required=False)
    return Check("triplet graph", True, f"{found['extracted']:,} of {found['chunks']:,} chunks extracted, "
                                        f"{found['entities']:,} entities, {found['reports']:,} community reports",
                 required=False)


def _analysis_check(graph: Graph) -> Check:
    """Whether every chunk and object was analysed for every loaded concept: what was not has
    no extracts, so prompts leave it out."""
    try:
        found = graph.one("analysis/unanalysed")
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError):
        return Check("analysis complete", False, "skipped: the database does not answer", required=False)
    if not found["concepts"]:
        return Check("analysis complete", True, "no ontology loaded yet", required=False)
    if not found["unanalysed"] and not found["unanalysed_objects"]:
        return Check("analysis complete", True, f"{found['chunks']:,} chunks and {found['objects']:,} objects analysed "
                                                "for every loaded concept", required=False)
    return Check("analysis complete", False, f"{found['unanalysed']:,} of {found['chunks']:,} chunks and "
                                             f"{found['unanalysed_objects']:,} of {found['objects']:,} objects not "
                                             "analysed for every loaded concept; prompts leave them out: "
                                             "`tripartite analyze`, then `tripartite select`", required=False)


def _provenance_check(graph: Graph, settings: Settings) -> Check:
    """How much of the pre-analysis and the triplet graph another provider or model made than
    the configured one (for example the offline providers', before a model was configured)."""
    from tripartite.analysis.extractive import ExtractiveProvider
    from tripartite.kg.extractive import ReportWriter, TripletExtractor
    from tripartite.kg.prompts import version

    def configured(offline) -> str:
        return f"openai/{settings.llm.model}" if settings.llm.configured else f"{offline.name}/{offline.model}"

    try:
        analysis = graph.run("analysis/provenance")
        kg = graph.run("kg/provenance", version=version())
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError):
        return Check("made by the configured provider", False, "skipped: the database does not answer", required=False)
    expected = {"chunk": configured(ExtractiveProvider), "object": configured(ExtractiveProvider),
                "extraction": configured(TripletExtractor), "report": configured(ReportWriter),
                "summary": configured(ReportWriter)}
    commands = {"chunk": "analyze", "object": "analyze", "extraction": "kg extract", "report": "kg communities",
                "summary": "kg communities"}
    others = [r for r in [*analysis, *kg] if r["by"] and r["by"] != expected[r["stage"]]]
    who = f"openai/{settings.llm.model}" if settings.llm.configured else "the offline providers"
    if not others:
        return Check("made by the configured provider", True, f"everything analysed and extracted so far: {who}",
                     required=False)
    made = "; ".join(f"{r['items']} {r['stage']}{'s' if r['items'] != 1 else ''} by {r['by']}" for r in others)
    redo = ", ".join(f"`tripartite {c} --redo`" for c in dict.fromkeys(commands[r["stage"]] for r in others))
    return Check("made by the configured provider", False, f"not by {who}: {made}; {redo} redo them",
                 required=False)


def offered_checks(driver: neo4j.Driver, settings: Settings) -> list[Check]:
    """What the server offers and what needs it: APOC core (required), APOC Extended (the
    Browser procedures), GDS (kg communities), whether it is Aura, and whether the URI routes."""
    aura = is_aura(settings.neo4j_uri)
    apoc = _one(driver, "RETURN apoc.version()")
    extended = _one(driver, "SHOW PROCEDURES YIELD name WHERE name = 'apoc.custom.installProcedure' RETURN name")
    gds = _one(driver, "RETURN gds.version()")
    return [
        Check("APOC core", apoc is not None, f"APOC {apoc[0]}" if apoc else
              "apoc.version() is unknown: only the Browser procedures need it (with APOC Extended); "
              "the CLI and the scripts in cypher/ do not", required=False),
        Check("APOC Extended", extended is not None,
              "present: the Browser procedures custom.tripartite.* are installed by migrate" if extended else
              "absent" + (" (Aura offers none)" if aura else "") + ": migrate skips the Browser procedures "
              "custom.tripartite.*; every CLI command and the scripts in cypher/ work without them", required=False),
        Check("Graph Data Science", gds is not None, f"GDS {gds[0]}" if gds else
              "gds.version() is unknown: `kg communities` needs the graph-data-science plugin "
              + ("(Aura: a Professional instance with Graph Analytics)" if aura else
                 "(the local server and docker/compose.yaml have it)") + "; everything else works without it",
              required=False),
        Check("Aura", True, "yes: managed by Neo4j (APOC core only; see the README's Aura section)" if aura else
              "no: a self-managed server", required=False),
        _routing_check(driver, settings),
    ]


ROUTING_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc")
AURA_HOSTS = (".databases.neo4j.io",)


def is_aura(uri: str) -> bool:
    host = (urlsplit(uri).hostname or "").lower()
    return host.endswith(AURA_HOSTS)


def _routing_check(driver: neo4j.Driver, settings: Settings) -> Check:
    scheme = urlsplit(settings.neo4j_uri).scheme
    if scheme not in ROUTING_SCHEMES:
        return Check("URI routes", True, f"no: {scheme}:// talks to this one server; use neo4j:// (or neo4j+s://) for a "
                                         "cluster, so reads go to its secondaries", required=False)
    table = _one(driver, "CALL dbms.routing.getRoutingTable({}, $database) YIELD servers "
                         "RETURN [s IN servers WHERE s.role = 'READ' | size(s.addresses)][0], "
                         "[s IN servers WHERE s.role = 'WRITE' | size(s.addresses)][0]", database=settings.neo4j_database)
    found = (f": {table[0]} reader(s) and {table[1]} writer(s) for database {settings.neo4j_database}"
             if table else "")
    return Check("URI routes", True, f"yes: {scheme}:// sends reads to readers and writes to the leader{found}",
                 required=False)


def _one(driver: neo4j.Driver, query: str, **params) -> tuple | None:
    """The first row of a one-line check, or None where the server lacks what it calls."""
    try:
        records, _, _ = driver.execute_query(query, params, routing_="r")
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
        from tripartite.infra.embeddings import local_embedder  # onnxruntime loads slowly: only here

        embedder = local_embedder(settings)
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
        try:
            found = runner.answer_format()
        except TripartiteError as exc:  # the chat endpoint is not the API's (a proxy's page)
            return Check("LLM structured answers", False, str(exc))
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
    except (ValueError, AttributeError, TypeError):
        return Check("LLM endpoint reachable", False, f"{where} answered /models with something that is not the OpenAI "
                                                      "API's JSON (a web page or a proxy's?); check OPENAI_BASE_URL: it "
                                                      "should be the API's base, usually ending in /v1")
    except Exception as exc:
        return Check("LLM endpoint reachable", False, f"{where}: {type(exc).__name__}; check OPENAI_BASE_URL")
    listed = "listed" if settings.llm.model in models else "not in the endpoint's model list"
    return Check("LLM endpoint reachable", settings.llm.model in models or not models,
                 f"{where}; model {settings.llm.model} {listed}")
