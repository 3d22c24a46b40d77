"""The fault suite, continued: the triplet graph after changes. Documents removed or changed,
extractions interrupted or built in steps, reports that outlive their content, search that cites
what it quotes, and who made what. Each case asserts what a user sees and what the graph holds."""
import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import cli_env, empty, kill_when, load_sample
from fake_openai import FakeOpenAI
from tripartite.kg.extractive import TripletExtractor
from tripartite.cli import cli
from tripartite.infra.paths import samples_dir
from tripartite.lexical.sentences import sentences_of

pytestmark = pytest.mark.neo4j
GUIDELINES = samples_dir() / "guidelines"


def invoke(args, env, ok=True):
    result = CliRunner().invoke(cli, args, env=env)
    if ok:
        assert result.exit_code == 0, (args, result.output)
    return result


def rows(driver, query, **params):
    records, _, _ = driver.execute_query(query, params)
    return [dict(r) for r in records]


def one(driver, query, **params):
    return rows(driver, query, **params)[0]


def build(env, *documents, communities=True, min_size="3"):
    """Migrate, ingest, load the ontology, extract the triplet graph (and its communities)."""
    invoke(["migrate"], env)
    invoke(["ingest", *map(str, documents)], env)
    invoke(["ontology", "load", "cardiology"], env)
    invoke(["kg", "extract"], env)
    if communities:
        invoke(["kg", "communities", "--min-size", min_size], env)


def dump(driver) -> dict:
    """Everything the triplet graph says, in a form two builds can be compared by."""
    return {
        "entities": rows(driver, "MATCH (e:__Entity__) RETURN e.key AS key, e.name AS name, e.description AS d, "
                                 "labels(e) AS labels ORDER BY key"),
        "relations": rows(driver, "MATCH (a:__Entity__)-[r]->(b:__Entity__) WHERE r.chunks IS NOT NULL "
                                  "RETURN a.key AS a, type(r) AS type, b.key AS b, r.chunks AS chunks, "
                                  "r.description AS d, r.descriptions AS ds ORDER BY a, type, b"),
        "communities": rows(driver, "MATCH (c:Community) RETURN c.id AS id, c.size AS size, c.summary AS summary "
                                    "ORDER BY id"),
        "sentences": rows(driver, "MATCH (s:ReportSentence) RETURN s.community_id AS c, s.n AS n, s.text AS text, "
                                  "s.chunks AS chunks ORDER BY c, n"),
    }


def only_in(document: str) -> list[str]:
    """Sentences of one sample guideline that no other one holds (a piece of each, long enough
    to be unmistakable)."""
    others = " ".join(p.read_text() for p in GUIDELINES.glob("*.md") if p.stem != document)
    own = [s for p in sentences_of((GUIDELINES / f"{document}.md").read_text()) for s in p
           if len(s) > 60 and not s.startswith("#")]
    return [s[:45] for s in own if s[:45] not in others]


def quoted_anywhere(driver) -> str:
    """All the text the triplet graph and its reports hold."""
    parts = [one(driver, "MATCH (e:__Entity__) RETURN reduce(t = '', e2 IN collect(e) | "
                         "t + ' ' + coalesce(e2.description, '')) AS t")["t"],
             one(driver, "MATCH (:__Entity__)-[r]->(:__Entity__) WHERE r.chunks IS NOT NULL RETURN reduce(t = '', "
                         "x IN collect(coalesce(r.description, '') + ' ' + reduce(u = '', d IN coalesce(r.descriptions, "
                         "[]) | u + ' ' + d)) | t + ' ' + x) AS t")["t"],
             one(driver, "MATCH (c:Community) RETURN reduce(t = '', x IN collect(coalesce(c.report, '')) | "
                         "t + ' ' + x) AS t")["t"],
             one(driver, "MATCH (s:ReportSentence) RETURN reduce(t = '', x IN collect(s.text) | t + ' ' + x) AS t")["t"]]
    return " ".join(parts)


def consistent(driver) -> None:
    """No entity without a chunk, no relation citing a chunk that is gone."""
    assert one(driver, "MATCH (e:__Entity__) WHERE NOT (e)-[:FROM_CHUNK]->(:Chunk) RETURN count(e) AS n")["n"] == 0
    assert one(driver, """MATCH (:__Entity__)-[r]->(:__Entity__) WHERE r.chunks IS NOT NULL
        AND any(id IN r.chunks WHERE NOT EXISTS { (:Chunk {id: id}) }) RETURN count(r) AS n""")["n"] == 0


@pytest.fixture
def env(neo4j_db, tmp_path):
    return cli_env(neo4j_db, tmp_path)


def run_cli(args, env, timeout=240):
    """The command in its own process (so a hang is a failed test, not a stuck suite)."""
    full = {**os.environ, **env}
    full.pop("TRIPARTITE_CONFIG", None)
    return subprocess.run([sys.executable, "-m", "tripartite", *args], env=full, capture_output=True, text=True,
                          timeout=timeout)


# ---- removed and changed documents ------------------------------------------------------------------
def test_a_removed_document_leaves_nothing_that_search_could_quote(env, driver):
    build(env, GUIDELINES)
    gone = only_in("hypertension")
    assert gone and any(piece in quoted_anywhere(driver) for piece in gone)  # the graph quoted it before
    invoke(["documents", "remove", "hypertension"], env)
    consistent(driver)
    assert not [piece for piece in gone if piece in quoted_anywhere(driver)]
    for mode in ("local", "global"):
        searched = invoke(["search", mode, "Who is at risk of high blood pressure and how is it treated?",
                           "--format", "json"], env, ok=False)
        if searched.exit_code:  # global search may find every report withdrawn: it says so in one line
            assert mode == "global" and "no community reports yet" in searched.output
            assert one(driver, "MATCH (c:Community) WHERE c.summary IS NOT NULL RETURN count(c) AS n")["n"] == 0
            continue
        found = json.loads(searched.stdout)
        assert not [piece for piece in gone if piece in found["prompt"]]
        assert all(ref["document"] != "Hypertension" for ref in found["references"])
    finished = run_cli(["kg", "extract"], env)  # it hung here, on prune.cypher's IN TRANSACTIONS
    assert finished.returncode == 0, finished.stderr
    invoke(["kg", "communities", "--min-size", "3"], env)
    consistent(driver)
    assert not [piece for piece in gone if piece in quoted_anywhere(driver)]
    assert one(driver, "MATCH (c:Community) WHERE c.size >= 3 AND c.summary IS NULL RETURN count(c) AS n")["n"] == 0
    rebuilt = json.loads(invoke(["search", "global", "Who is at risk of high blood pressure and how is it treated?",
                                 "--format", "json"], env).stdout)
    assert rebuilt["references"] and not [piece for piece in gone if piece in rebuilt["prompt"]]
    assert all(ref["document"] != "Hypertension" for ref in rebuilt["references"])
    # Every document removed: the communities go with the graph, rather than asking for reports forever.
    invoke(["documents", "remove", "heart-failure"], env)
    invoke(["documents", "remove", "atrial-fibrillation"], env)
    empty = invoke(["kg", "communities"], env, ok=False)
    assert empty.exit_code == 1 and "nothing to group" in empty.output
    assert one(driver, "MATCH (c:Community) RETURN count(c) AS n")["n"] == 0
    assert "kg communities" not in invoke(["kg", "status"], env).output


def test_chunks_deleted_by_hand_are_pruned_without_a_hang(env, driver):
    """Chunks deleted outside `documents remove` (in Browser, say): the next `kg extract` repairs
    the relations that cite them and drops the entities they alone described (the statement of
    prune.cypher that once waited on its own transaction)."""
    build(env, GUIDELINES, communities=False)
    cited = one(driver, """MATCH (:__Entity__)-[r]->(:__Entity__) WHERE size(r.chunks) >= 1
        WITH r.chunks[0] AS id, count(r) AS relations ORDER BY relations DESC, id LIMIT 1
        MATCH (t:Chunk {id: id}) DETACH DELETE t RETURN id, relations""")
    assert cited["relations"] >= 1
    assert one(driver, """MATCH (:__Entity__)-[r]->(:__Entity__) WHERE $id IN r.chunks
        RETURN count(r) AS n""", id=cited["id"])["n"] == cited["relations"]  # left behind
    finished = run_cli(["kg", "extract"], env)
    assert finished.returncode == 0, finished.stderr
    consistent(driver)


def test_a_changed_sentence_leaves_the_triplet_graph_with_the_document(env, driver, tmp_path):
    source = (GUIDELINES / "heart-failure.md").read_text()
    old = "Weigh yourself every morning"
    build(env, GUIDELINES)
    assert old in source and old in quoted_anywhere(driver)
    changed = tmp_path / "heart-failure.md"
    changed.write_text(source.replace(old, "Check your ankles every evening"))
    invoke(["ingest", str(changed), "--replace"], env)
    assert old not in quoted_anywhere(driver)
    finished = run_cli(["kg", "extract"], env)
    assert finished.returncode == 0, finished.stderr
    invoke(["kg", "communities", "--min-size", "3"], env)
    consistent(driver)
    assert old not in quoted_anywhere(driver) and "Check your ankles every evening" in quoted_anywhere(driver)


# ---- built in steps, or interrupted: the same graph --------------------------------------------------
def said_by_status_doctor_and_search(env, says: str) -> None:
    """What the triplet graph lacks is said by kg status, doctor (a warning) and local search."""
    assert says in invoke(["kg", "status"], env).output
    assert f"[warn] triplet graph: {says}" in invoke(["doctor"], env, ok=False).output
    assert says in json.loads(invoke(["search", "local", "What raises blood pressure?", "--format", "json"],
                                     env).stdout)["note"]


def test_an_ontology_removed_or_loaded_beside_the_triplet_graph_is_said_and_relinked(env, driver):
    """The offline extractor types an entity naming a loaded concept OntologyConcept: after that
    ontology is removed, remove, status and search say the triplet graph is behind, kg extract
    puts it right; loading it again links the entities at once, before any kg extract."""
    build(env, GUIDELINES, communities=False)
    linked = one(driver, "RETURN COUNT { (:__Entity__)-[:IS_CONCEPT]->(:Concept) } AS n")["n"]
    typed = one(driver, "RETURN COUNT { (:__Entity__ {type: 'OntologyConcept'}) } AS n")["n"]
    assert linked > 0 and typed > 0
    removed = invoke(["ontology", "remove", "cardiology"], env).output
    assert f"the triplet graph names {typed} entities as its concepts: run `tripartite kg extract`" in removed
    says = f"{typed} entities were extracted as concepts of an ontology no longer loaded"
    said_by_status_doctor_and_search(env, says)
    invoke(["kg", "extract"], env)
    assert one(driver, "RETURN COUNT { (:__Entity__ {type: 'OntologyConcept'}) } AS n")["n"] == 0
    assert "ontology no longer loaded" not in invoke(["kg", "status"], env).output
    assert "[ok  ] triplet graph: 24 of 24 chunks extracted" in invoke(["doctor"], env, ok=False).output
    invoke(["ontology", "load", "cardiology"], env)
    assert one(driver, "RETURN COUNT { (:__Entity__)-[:IS_CONCEPT]->(:Concept) } AS n")["n"] > 0
    assert "chunks were extracted offline with another ontology or corpus" in invoke(["kg", "status"], env).output
    invoke(["kg", "extract"], env)
    assert one(driver, "RETURN COUNT { (:__Entity__)-[:IS_CONCEPT]->(:Concept) } AS n")["n"] == linked
    assert "another ontology" not in invoke(["kg", "status"], env).output


def test_a_graph_built_in_steps_equals_one_built_at_once(env, driver, tmp_path, neo4j_db):
    first = tmp_path / "first"
    first.mkdir()
    for name in ("atrial-fibrillation.md", "heart-failure.md"):
        (first / name).write_text((GUIDELINES / name).read_text())
    build(env, first)
    invoke(["ingest", str(GUIDELINES / "hypertension.md")], env)
    invoke(["kg", "extract"], env)
    invoke(["kg", "communities", "--min-size", "3"], env)
    in_steps = dump(driver)
    invoke(["documents", "remove", "hypertension"], env)  # and back again: removal is a step too
    invoke(["kg", "extract"], env)
    invoke(["kg", "communities", "--min-size", "3"], env)
    removed = dump(driver)
    empty(neo4j_db)
    build(env, first, GUIDELINES / "hypertension.md")
    assert dump(driver) == in_steps
    empty(neo4j_db)
    build(env, first)
    assert dump(driver) == removed


def test_an_interrupted_extraction_resumes_to_what_an_uninterrupted_one_makes(env, driver, neo4j_db, tmp_path):
    """Communities built on the interrupted graph say what is missing, and once the extraction
    has resumed, a second `kg communities` converges to the uninterrupted graph and reports."""
    with FakeOpenAI(delay=0.1) as server:
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        build(model, GUIDELINES, communities=False)
        prompts = sorted(r["body"]["messages"][0]["content"] for r in server.chat_requests())
        invoke(["kg", "communities", "--min-size", "3"], model)
        whole = dump(driver)
        assert any(c["summary"] for c in whole["communities"])
        empty(neo4j_db)
        server.requests.clear()
        fresh = {**model, "TRIPARTITE_LLM_CACHE": str(tmp_path / "another-cache.sqlite")}
        for args in (["migrate"], ["ingest", str(GUIDELINES)], ["ontology", "load", "cardiology"]):
            invoke(args, fresh)
        full = {**os.environ, **fresh}
        full.pop("TRIPARTITE_CONFIG")
        kill_when([sys.executable, "-m", "tripartite", "kg", "extract", "--concurrency", "1"], full,
                  lambda: len(server.chat_requests()) >= 8)
        done = one(driver, "MATCH (t:Chunk) WHERE t.kg_version IS NOT NULL RETURN count(t) AS n")["n"]
        assert 0 < done < 24
        before = len(server.chat_requests())
        partial = invoke(["kg", "communities", "--min-size", "3"], fresh)
        assert f"{24 - done} of 24 chunks are not extracted yet" in partial.stderr
        reports = server.chat_requests()[before:]  # the partial graph's reports, not extractions
        invoke(["kg", "extract"], fresh)
        resumed = sorted(set(r["body"]["messages"][0]["content"] for r in server.chat_requests()
                             if r not in reports))
        invoke(["kg", "communities", "--min-size", "3"], fresh)
    assert resumed == sorted(set(prompts))  # the context does not depend on what was extracted first
    assert dump(driver) == whole


# ---- reports follow their content; what is missing is said --------------------------------------------
def test_a_report_is_written_again_when_its_members_content_changes(env, driver):
    build(env, GUIDELINES)
    community = one(driver, """MATCH (c:Community) WHERE c.summary IS NOT NULL
        MATCH (e:__Entity__)-[:IN_COMMUNITY]->(:Community)-[:PARENT*0..]->(c)
        WITH c, collect(e.key)[0] AS member
        RETURN c.id AS id, c.report_input AS input, member ORDER BY c.level, c.id LIMIT 1""")
    assert not json.loads(invoke(["kg", "communities", "--dry-run", "--json", "--min-size", "3"], env).output)["calls"]
    driver.execute_query("""MATCH (e:__Entity__ {key: $key})-[f:FROM_CHUNK]->() SET f.description =
        'It was renamed in the 2026 revision of the guideline.', e.dirty = true""", key=community["member"])
    redone = json.loads(invoke(["kg", "communities", "--json", "--min-size", "3"], env).output)
    assert redone["reports"] >= 1
    after = one(driver, "MATCH (c:Community {id: $id}) RETURN c.report_input AS input, c.summary AS summary",
                id=community["id"])
    assert after["summary"] and after["input"] != community["input"]


def test_communities_and_search_say_what_an_interrupted_extraction_left_out(env, driver):
    build(env, GUIDELINES)
    driver.execute_query("""MATCH (t:Chunk {document_id: 'hypertension'}) WITH t ORDER BY t.index LIMIT 3
        OPTIONAL MATCH (t)<-[f:FROM_CHUNK]-() DELETE f REMOVE t.kg_version""")
    detected = invoke(["kg", "communities", "--min-size", "3"], env)
    assert "3 of 24 chunks are not extracted yet" in detected.stderr
    searched = invoke(["search", "local", "What raises blood pressure?", "--format", "json"], env)
    assert "3 of 24 chunks are not extracted yet" in json.loads(searched.stdout)["note"]
    assert "3 of 24 chunks are not extracted yet" in invoke(["search", "global", "What raises blood pressure?"],
                                                            env).stderr
    assert "[warn] triplet graph: 3 of 24 chunks are not extracted yet" in invoke(["doctor"], env, ok=False).output


def test_descriptions_left_unwritten_by_an_interrupted_removal_are_said_and_written(env, driver):
    build(env, GUIDELINES, communities=False)
    # As a `documents remove` killed after it forgot the chunks and before it wrote the
    # descriptions again: the entities it touched are marked, their text is stale.
    driver.execute_query("MATCH (e:__Entity__) WITH e ORDER BY e.key LIMIT 2 SET e.dirty = true, e.description = 'stale'")
    says = "2 entities' descriptions are not written from their chunks as they are now"
    said_by_status_doctor_and_search(env, says)
    invoke(["kg", "extract"], env)
    assert one(driver, "MATCH (e:__Entity__) WHERE e.dirty OR e.description = 'stale' RETURN count(e) AS n")["n"] == 0
    assert "descriptions are not written" not in invoke(["kg", "status"], env).output


def test_communities_before_any_extraction_is_one_line(env):
    for args in (["migrate"], ["ingest", str(GUIDELINES)]):
        invoke(args, env)
    result = invoke(["kg", "communities"], env, ok=False)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert "build it first with `tripartite kg extract`" in result.output and "Traceback" not in result.output


# ---- search cites what it quotes ---------------------------------------------------------------------
def test_search_lists_only_what_its_prompt_holds_and_points_cite_their_own_chunks(env, driver):
    build(env, GUIDELINES)
    summaries = {r["id"]: r["summary"] for r in rows(driver, "MATCH (c:Community) RETURN c.id AS id, c.summary AS summary")}
    listed = {}
    for tokens in ("600", "4000"):
        local = json.loads(invoke(["search", "local", "Which medicines and lifestyle changes lower blood pressure?",
                                   "--format", "json", "--max-tokens", tokens], env).stdout)
        section = local["prompt"].split("Communities:\n", 1)[-1].split("\n\n", 1)[0] if local["communities"] else ""
        assert all(f"- {c['title']}: " in section for c in local["communities"])
        listed[tokens] = {c["id"]: line.split(": ", 1)[1] for c in local["communities"]
                          for line in section.splitlines() if line.startswith(f"- {c['title']}: ")}
    assert listed["4000"]  # the question reaches communities, and each one listed is shown...
    assert any(len(shown) < len(summaries[cid]) for cid, shown in listed["600"].items()) or \
        len(listed["600"]) < len(listed["4000"])  # ...trimmed or left out, not listed unseen, when room is short
    chunks = {r["id"]: r["text"] for r in rows(driver, "MATCH (t:Chunk) RETURN t.id AS id, t.text AS text")}
    found = json.loads(invoke(["search", "global", "What should people with heart disease do every day?",
                               "--format", "json"], env).stdout)
    cited = {ref["n"]: ref["chunk_id"] for ref in found["references"]}
    points = [line for line in found["prompt"].splitlines() if line.startswith("- (")]
    assert points
    checked = 0
    for line in points:
        numbers = [int(n) for n in re.findall(r"\[(\d+)\]", line)]
        text = re.sub(r"^- \([\d.]+\) ", "", re.sub(r"(\[\d+\])+$", "", line)).strip()
        pieces = [p.strip() for p in re.split(r"\.\.\.|: ", text) if len(p.strip()) >= 20]
        quoted = [p for p in pieces if any(p in t for t in chunks.values())]
        if quoted:  # a point whose words are a chunk's cites a chunk that holds them
            assert numbers and any(p in chunks[cited[n]] for n in numbers for p in quoted), line
            checked += 1
    assert checked >= len(points) // 2, points  # most offline points quote a chunk
    sized = rows(driver, "MATCH (c:Community) WHERE c.summary STARTS WITH 'A community of ' "
                         "RETURN c.size AS size, c.summary AS summary")
    assert sized
    for c in sized:
        assert c["summary"].startswith(f"A community of {c['size']} entities")
    # A model's points cite the chunks of the report sentences closest to them.
    sources = {r["id"]: set(r["chunks"]) for r in rows(driver, """MATCH (c:Community)-[:HAS_SENTENCE]->(s:ReportSentence)
        UNWIND s.chunks AS chunk RETURN c.id AS id, collect(DISTINCT chunk) AS chunks""")}
    with FakeOpenAI() as server:
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        answered = json.loads(invoke(["search", "global", "What should people with heart disease do every day?",
                                      "--format", "json"], model).stdout)
        assert server.chat_requests()
    behind = set().union(*(sources.get(c["id"], set()) for c in answered["communities"]))
    assert answered["references"] and {ref["chunk_id"] for ref in answered["references"]} <= behind


def test_a_global_query_embeds_only_itself(env, neo4j_db):
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import LanguageRoutedEmbedder, local_embedder
    from tripartite.infra.graph import Graph
    from tripartite.infra.llm.runner import LLMRunner
    from tripartite.search.global_search import PointRanker, global_search

    build(env, GUIDELINES)
    members = list(local_embedder(load_settings(env={})).members.values())
    embedded: list[str] = []  # every text any model was given

    class Recording:
        def __init__(self, model):
            self.model = model

        def __getattr__(self, name):
            return getattr(self.model, name)

        def embed(self, texts):
            embedded.extend(texts)
            return self.model.embed(texts)

    class Counting(LanguageRoutedEmbedder):
        def __init__(self):
            super().__init__([Recording(m) for m in members])

    question = "What lowers the risk of a stroke?"
    with neo4j_db.driver() as driver:
        graph = Graph(driver, neo4j_db.database)
        found = global_search(graph, question, Counting(), LLMRunner(PointRanker(), None))
        # The question alone, read once by each model (an English question by the Chinese model too).
        assert found["prompt"] and embedded == [question, question] and not found["note"]
        # Reports an older version wrote, without stored sentences: the same points, found by
        # embedding the sentences now, and a note saying how to store them.
        driver.execute_query("MATCH (s:ReportSentence) DETACH DELETE s")
        embedded.clear()
        older = global_search(graph, question, Counting(), LLMRunner(PointRanker(), None))
        assert len(set(embedded) - {question}) > 2 and "reports have no stored sentences" in older["note"], older["note"]
        assert "`tripartite kg communities` stores them" in older["note"]
        points = lambda prompt: [line.split(") ", 1)[1].rsplit(" [", 1)[0] for line in prompt.splitlines()
                                 if line.startswith("- (")]
        assert len(points(older["prompt"])) >= 3 and points(older["prompt"])[:3] == points(found["prompt"])[:3]
        invoke(["kg", "communities", "--min-size", "3"], env)
        assert not global_search(graph, question, Counting(), LLMRunner(PointRanker(), None))["note"]


# ---- entity types that name other parts of the graph -----------------------------------------------
def test_analyze_beside_a_triplet_graph_whose_types_name_the_other_parts(env, driver, tmp_path):
    """A model types entities Concept, Document, Chunk, Evidence, Community, and relations
    "concerns", "mentioned in", "parent": none becomes that label or relationship type, so analyze
    (a dry run, a run, a run after a new document, a batch) reads only the ontology's concepts, kg
    status counts only real concept links, and the graph's counts only the analysis' edges."""
    from tripartite.kg.schema import RESERVED_LABELS, RESERVED_RELATION_TYPES

    load_sample(env)
    with FakeOpenAI(structured=True) as server:
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
                 "OPENAI_API_KEY": "sk-test"}
        server.always = "reserved"
        invoke(["kg", "extract"], model)
        server.always = None
        typed = one(driver, """MATCH (e:__Entity__) RETURN count(e) AS all,
            count(CASE WHEN any(l IN labels(e) WHERE l IN $reserved) THEN 1 END) AS reserved,
            count(CASE WHEN e:ConceptEntity THEN 1 END) AS concept_typed""", reserved=sorted(RESERVED_LABELS))
        assert typed["all"] > 0 and typed["reserved"] == 0 and typed["concept_typed"] > 0, typed
        related = rows(driver, "MATCH (:__Entity__)-[r]->(:__Entity__) RETURN DISTINCT type(r) AS type")
        types = {r["type"] for r in related}
        assert not types & RESERVED_RELATION_TYPES and "CONCERNS_RELATION" in types and "PARENT_RELATION" in types
        # Nothing is analysed yet: select says so, whatever relations the triplet graph holds.
        assert "note: no object was analysed: `tripartite analyze`" in invoke(["select"], env).output
        status = json.loads(invoke(["kg", "status", "--json"], env).output)
        links = one(driver, "MATCH (:__Entity__)-[l:IS_CONCEPT]->(c:Concept) WHERE c.id IS NOT NULL RETURN count(l) AS n")
        assert status["concept_links"] == links["n"]
        concepts = one(driver, "MATCH (c:Concept) RETURN count(c) AS n, count(c.id) AS with_id")
        assert concepts["n"] == concepts["with_id"]  # every Concept is the ontology's

        dry = json.loads(invoke(["analyze", "--dry-run", "--json"], env).output)
        assert dry["chunk"]["calls"] > 0 and dry["object"]["calls"] > 0
        invoke(["analyze"], env)
        extra = tmp_path / "palpitations.md"
        extra.write_text("# Palpitations\n\nPalpitations with atrial fibrillation call for an ECG and a "
                         "review of anticoagulation.\n", encoding="utf-8")
        invoke(["ingest", str(extra)], env)
        invoke(["analyze"], env)
        patient = tmp_path / "patient-z.md"
        patient.write_text("Palpitations and atrial fibrillation; takes an anticoagulant.\n", encoding="utf-8")
        invoke(["objects", "add", str(patient), "--kind", "anamnesis"], env)
        sent = json.loads(invoke(["analyze", "--batch", "--json"], model).output)
        assert sent["id"] and sent["requests"] > 0, sent


# ---- who made what -------------------------------------------------------------------------------------
def test_what_the_offline_providers_made_is_named_and_redone_with_a_model(env, driver):
    build(env, GUIDELINES)
    with FakeOpenAI() as server:
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
                 "OPENAI_API_KEY": "sk-test"}
        quiet = invoke(["kg", "extract"], model)
        assert not server.chat_requests()
        offline = f"extractive/{TripletExtractor.model}"
        assert f"24 extractions by {offline}" in quiet.stderr and "--redo" in quiet.stderr
        dry = invoke(["kg", "extract", "--dry-run"], model)
        assert f"24 extractions by {offline}" in dry.stderr and "\n0 calls" in "\n" + dry.stdout
        status = invoke(["kg", "status"], model).output
        assert f"24 extractions by {offline}, not the configured openai/fake-chat" in status
        assert "reports by extractive/reports-extractive-v1" in status
        doctor = invoke(["doctor"], model, ok=False).output
        assert "made by the configured provider" in doctor and "`tripartite kg extract --redo`" in doctor
        # A model configured after an offline build rewrites no report without --redo (nor in
        # its dry run): it says whose they are.
        for args in (["kg", "communities", "--min-size", "3", "--dry-run"], ["kg", "communities", "--min-size", "3"]):
            kept = invoke(args, model)
            assert "reports by extractive/" in kept.stderr and "`tripartite kg communities --redo`" in kept.stderr
            assert "--dry-run" not in args or "\n0 calls" in "\n" + kept.stdout
        assert not server.chat_requests()
        assert one(driver, "MATCH (c:Community) WHERE c.summary IS NOT NULL "
                           "RETURN collect(DISTINCT c.report_provider) AS by")["by"] == ["extractive"]
        redone = invoke(["kg", "extract", "--redo"], model)
        assert "redo: 24 chunks to extract, 24 calls" in redone.stderr
        assert len(server.chat_requests()) == 24
        invoke(["kg", "communities", "--redo", "--min-size", "3"], model)
        made = {r["stage"]: r["by"] for r in rows(driver, """MATCH (t:Chunk) RETURN 'extraction' AS stage,
            collect(DISTINCT t.kg_by) AS by UNION ALL MATCH (c:Community) WHERE c.summary IS NOT NULL
            RETURN 'report' AS stage, collect(DISTINCT c.report_provider + '/' + c.report_model) AS by""")}
        assert made == {"extraction": ["openai/fake-chat"], "report": ["openai/fake-chat"]}
        assert "not the configured" not in invoke(["kg", "status"], model).output
        # Nor does the offline writer overwrite the model's reports.
        assert json.loads(invoke(["kg", "communities", "--min-size", "3", "--offline", "--json"],
                                 model).stdout)["reports"] == 0
        assert one(driver, "MATCH (c:Community) WHERE c.summary IS NOT NULL "
                           "RETURN collect(DISTINCT c.report_provider) AS by")["by"] == ["openai"]


@pytest.mark.parametrize("body", ["html", "notjson"])
def test_an_endpoint_that_does_not_answer_json_is_one_line(env, body):
    build(env, GUIDELINES)
    invoke(["objects", "add", str(samples_dir() / "objects"), "--kind", "anamnesis"], env)
    with FakeOpenAI() as server:
        server.always = body
        model = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
                 "OPENAI_API_KEY": "sk-test"}
        def one_line(args, env):
            result = invoke(args, env, ok=False)
            errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
            assert result.exit_code == 1 and "Traceback" not in result.output, (args, result.output)
            assert errors and "not the OpenAI API's JSON" in errors[0] and "OPENAI_BASE_URL" in errors[0], result.output

        for args in (["analyze"], ["kg", "extract", "--redo"], ["search", "global", "What is AF?", "--answer"]):
            one_line(args, model)
        doctor = invoke(["doctor"], model, ok=False)
        assert "not the OpenAI API's JSON" in doctor.output and "Traceback" not in doctor.output

        # A proxy that lets /models through and answers every POST with its page: the schema
        # probe says so (and is not remembered), and so do the Batch API's uploads.
        server.posts_only, server.structured = True, True
        one_line(["analyze"], model)
        one_line(["kg", "extract", "--redo", "--batch"], {**model, "TRIPARTITE_LLM_STRUCTURED": "off"})
        server.always = None
        assert "JSON schemas honoured (concept ids from an enum" in invoke(["doctor"], model, ok=False).output
        # A batch sent while the endpoint worked, followed and collected through the proxy's page.
        invoke(["kg", "extract", "--redo", "--batch", "--yes"], model)
        server.always, server.posts_only = body, False
        one_line(["batches", "status"], model)
        one_line(["batches", "collect"], model)
