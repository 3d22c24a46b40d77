"""Local and global search over the triplet graph (DB-GPT's GraphRAG): the CLI, its budgets and
references, its refusals, the Browser procedure, the LLM steps through an OpenAI-compatible
server, the four ways to build an object's prompt, and DB-GPT's benchmark document."""
import json
import re
import time
from pathlib import Path

import pytest
import yaml

from conftest import as_json, cli_env, ingest_documents, invoke, ok
from fake_openai import FakeOpenAI
from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.llm.tasks import InvalidAnswer
from tripartite.infra.paths import samples_dir
from tripartite.infra.quoting import quote
from tripartite.infra.tokens import count_tokens, truncate_to_tokens
from tripartite.search.global_search import MapTask, choose_level, map_tasks
from tripartite.search.keywords import offline_keywords
from tripartite.search.layout import SearchPrompt

REPO = Path(__file__).resolve().parents[1]
DBGPT = REPO.parent / "shared" / "corpus" / "dbgpt" / "graphrag-test.md"


def citations_have_references(result: dict) -> None:
    """Every number the prompt cites is a numbered reference, listed under References with its
    Document > Section trail, and the JSON references are the same."""
    body, _, listed = result["prompt"].rpartition("References:\n")
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", body)}
    numbers = [r["n"] for r in result["references"]]
    assert numbers == list(range(1, len(numbers) + 1))
    assert cited <= set(numbers)
    for ref in result["references"]:
        assert ref["document"] and isinstance(ref["section_path"], list)
        assert isinstance(ref["index"], int)  # the chunk's place in its document, as the line names it
        assert re.search(rf"^\[{ref['n']}\] .*\(chunk {ref['index']}\)$", listed, re.MULTILINE)


# Units: keywords, the layout's budget, the map step.

def test_offline_keywords_name_concepts_technical_names_content_words_and_cjk_runs():
    concepts = [ConceptInfo("cardio:af", "Atrial fibrillation", ("AFib",), ""),
                ConceptInfo("cardio:hf", "Heart failure", (), "")]
    words = offline_keywords("What does AFib do to the heart with GPT-4 and DB-GPT?", concepts)
    assert words[0] == "Atrial fibrillation" and "GPT-4" in words and "DB-GPT" in words
    assert "What" not in words and "does" not in words and "the" not in words and "Heart failure" not in words
    assert "层次" in offline_keywords("AWEL 的三个层次是什么？", [])
    assert offline_keywords("what is it?", []) == []


def test_the_layout_keeps_the_budget_and_rolls_back():
    prompt = SearchPrompt("Why?", 300, "Answer from the sources.")
    assert prompt.add_section("Entities", [f"- entity {i}: " + "word " * 20 for i in range(40)]) < 40
    saved = prompt.checkpoint()
    chunk = {"chunk_id": "d:1", "text": "A sentence. " * 10, "document": "Doc", "section_path": ["Doc", "Part"]}
    number = prompt.add_source(chunk)
    assert number in (None, 1)
    prompt.rollback(saved)
    assert prompt.sources == [] and count_tokens(prompt.text()) <= 300
    wide = SearchPrompt("Why?", 5000)
    assert wide.add_source(chunk) == 1 and wide.add_source(dict(chunk)) == 1  # a chunk is numbered once
    assert wide.add_source({**chunk, "chunk_id": "d:2", "text": None}) == 2    # a reference only
    assert "[2] A sentence" not in wide.text() and "Doc:\n[1] Part (chunk d:1)\n[2] Part (chunk d:2)" in wide.text()


def test_quoted_text_keeps_its_own_citation_numbers_out_of_the_references_brackets():
    assert quote("Salt raises it [12]. Trials agree [3, 4] and [5-7]; [a] and [^2] stay.") == \
        "Salt raises it (12). Trials agree (3, 4) and (5-7); [a] and [^2] stay."
    assert quote("[1 2], [1,2,], [12a] and \uff3b10\uff3d; `buf[16]` is code") == \
        "(1 2), (1,2,), (12a) and (10); `buf[16]` is code"
    assert quote("the interval [0, 1] and a[0]") == "the interval [0, 1] and a[0]"  # no citation counts from 0
    assert count_tokens(quote("as shown in [12] and [3, 4]")) == count_tokens("as shown in [12] and [3, 4]")
    prompt = SearchPrompt("Why?", 500)
    prompt.add_source({"chunk_id": "d:1", "text": "Salt raises it [2].", "document": "Doc", "section_path": ["Doc"]})
    assert "[1] Salt raises it (2)." in prompt.text()  # [2] would be a reference the prompt does not have


def test_map_tasks_stay_within_the_map_budget_and_parse_scored_points():
    reports = [{"id": f"c{i}", "title": f"T{i}", "summary": "s", "report": f"# T{i}\n" + "Some finding. " * 150}
               for i in range(8)]
    tasks = map_tasks("What matters?", reports, map_tokens=1200)
    assert tasks and sum(count_tokens(t.prompt) for t in tasks) <= 1200
    numbers = [n for t in tasks for n, _, _ in t.reports]
    assert numbers == list(range(1, len(numbers) + 1))  # the most relevant first, numbered across batches
    task = tasks[0]
    points = task.parse('{"points": [{"description": " A ", "score": 80, "reports": [1, 99]}]}')
    assert points == [{"description": "A", "score": 80.0, "reports": [1]}]  # unknown report numbers dropped
    for bad in ('{"points": [{"description": "A", "score": 130}]}', '{"points": "x"}', '[]'):
        with pytest.raises(InvalidAnswer):
            task.parse(bad)
    assert isinstance(task, MapTask) and task.query == "What matters?"
    levels = [{"level": 0, "communities": 16, "members": 230}, {"level": 1, "communities": 13, "members": 326},
              {"level": 2, "communities": 4, "members": 124}, {"level": 3, "communities": 2, "members": 400}]
    assert choose_level(levels) == 1  # the most entities among levels of 4 reports or more
    assert choose_level([{"level": 0, "communities": 2, "members": 20}, {"level": 1, "communities": 1,
                                                                          "members": 20}]) == 1
    cut = truncate_to_tokens("第一句话。" * 400, 50)
    assert count_tokens(cut) <= 50 and cut.endswith("…") and "\ufffd" not in cut
    assert truncate_to_tokens("Heart failure is a weak pump.", 1) == ""  # nothing left is no text, not " …"


# The CLI on the sample corpus's triplet graph.

@pytest.fixture
def triplets(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    for args in (["migrate"], ["ingest", str(samples_dir() / "guidelines")], ["ontology", "load", "cardiology"],
                 ["kg", "extract", "--offline"]):
        ok(args, env)
    return env


def test_local_search_finds_entities_relations_chunks_and_communities(triplets, driver):
    ok(["kg", "communities", "--offline"], triplets)
    question = "Which blood thinners lower the stroke risk in atrial fibrillation?"
    result = as_json(["search", "local", question], triplets)
    assert set(result) >= {"mode", "question", "tokens", "total_tokens", "prompt", "references"}
    assert result["mode"] == "local" and result["question"] == question
    assert result["tokens"] == count_tokens(result["prompt"]) <= 4000 and result["total_tokens"] == result["tokens"]
    assert "Atrial fibrillation" in result["keywords"] and "Atrial fibrillation" in result["entities"]
    assert "Entities:" in result["prompt"] and "Relations:" in result["prompt"] and not result["note"]
    citations_have_references(result)
    # The sources are the chunks the found entities came from, traced to their sections.
    sources = {r["chunk_id"] for r in result["references"]}
    records, _, _ = driver.execute_query(
        "MATCH (e:__Entity__)-[:FROM_CHUNK]->(t:Chunk) WHERE e.name IN $names RETURN collect(DISTINCT t.id) AS ids",
        names=result["entities"])
    assert sources and sources <= set(records[0]["ids"])
    assert result["communities"]  # the found entities' communities, with reports
    tight = as_json(["search", "local", question, "--max-tokens", "600"], triplets)
    assert tight["tokens"] <= 600 and len(tight["references"]) <= len(result["references"])
    citations_have_references(tight)
    # A budget too small for the summaries: none listed as a stub (title, then nothing).
    for budget in ("150", "250"):
        small = as_json(["search", "local", question, "--max-tokens", budget], triplets)
        assert small["references"] or small["note"].startswith(f"no source fits the budget of {budget} tokens")
        lines = small["prompt"].split("Communities:", 1)[-1].splitlines() if "Communities:" in small["prompt"] else []
        stubs = [line for line in lines if line.startswith("- ") and len(line.split(": ", 1)[-1].split()) < 4]
        assert not stubs and len(small["communities"]) == sum(1 for line in lines if line.startswith("- "))
    dry = ok(["search", "local", question, "--dry-run"], triplets)
    assert f"{result['total_tokens']:,} prompt tokens" in dry and "nothing was sent" in dry
    text = invoke(["search", "local", question], triplets)
    assert text.exit_code == 0 and text.output.startswith(f"Question: {question}") and "References:" in text.output


def test_local_sources_are_ranked_by_closeness_to_the_question_and_the_entities_they_mention(triplets, driver, neo4j_db):
    from tripartite.infra.graph import Graph
    from tripartite.search.local_search import CHUNK_LIMIT, MENTION_WEIGHT, retrieve

    vector = [1.0] + [0.0] * 895  # any vector in the chunks' space will do: the ranking is what is checked
    keywords = ["Atrial fibrillation", "stroke", "Heart failure"]
    found = retrieve(Graph(driver, neo4j_db.database), keywords, vector)
    seeds = [e["name"] for e in found["entities"]]
    records, _, _ = driver.execute_query(
        "MATCH (e:__Entity__)-[:FROM_CHUNK]->(t:Chunk) WHERE e.name IN $names "
        "RETURN t.id AS id, count(DISTINCT e) AS mentions, vector.similarity.cosine(t.embedding, $v) AS cosine",
        names=seeds, v=vector, database_=neo4j_db.database)
    rank = {r["id"]: (0.0 if r["cosine"] is None else 2 * r["cosine"] - 1) + MENTION_WEIGHT * r["mentions"] / len(seeds)
            for r in records}  # the index's (1 + cos) / 2 back to the cosine
    got = [c["chunk_id"] for c in found["chunks"]]
    assert len(got) == min(CHUNK_LIMIT, len(rank)) > 1
    assert [round(rank[i], 9) for i in got] == sorted((round(rank[i], 9) for i in got), reverse=True)
    assert min(rank[i] for i in got) >= max((v for i, v in rank.items() if i not in got), default=-1.0) - 1e-9
    # Without a vector the found entities mentioned rank alone (the Browser procedure's default).
    plain = retrieve(Graph(driver, neo4j_db.database), keywords)
    counts = {r["id"]: r["mentions"] for r in records}
    assert [counts[c["chunk_id"]] for c in plain["chunks"]] == sorted((counts[c["chunk_id"]] for c in plain["chunks"]),
                                                                       reverse=True)


def test_local_search_leaves_out_only_sources_that_do_not_fit(triplets, driver, neo4j_db):
    """A source too long for what is left makes way for a shorter one after it: every candidate
    source not in the prompt costs more than the budget left over."""
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import make_embedder
    from tripartite.infra.graph import Graph
    from tripartite.search.local_search import local_search, retrieve
    from tripartite.lexical.trails import reference_cost

    graph, embedder = Graph(driver, neo4j_db.database), make_embedder(load_settings(env={}))
    question = "Which blood thinners lower the stroke risk in atrial fibrillation?"
    for budget in (500, 700, 900):
        result = local_search(graph, question, embedder, max_tokens=budget)
        found = retrieve(graph, result["keywords"], embedder.embed([question])[0].tolist())
        cited = {r["chunk_id"] for r in result["references"]}
        assert cited and result["tokens"] <= budget
        n = len(cited) + 1
        for chunk in found["chunks"]:
            if chunk["chunk_id"] not in cited:
                documents = {r["document"] or "" for r in result["references"]}
                cost = count_tokens(f"[{n}] {quote(chunk['text'])}") + 1 + reference_cost(n, chunk, documents)
                assert cost > budget - result["tokens"], (budget, chunk["chunk_id"])


def test_local_search_without_known_keywords_falls_back_to_the_vector_index(triplets):
    result = as_json(["search", "local", "What should happen next?"], triplets)
    assert "no entity of the knowledge graph matches" in result["note"] and result["references"]
    citations_have_references(result)
    plain = invoke(["search", "local", "What should happen next?"], triplets)
    assert "note: no entity of the knowledge graph matches" in plain.output
    # A long question's keywords: the note names twelve and counts the rest.
    words = [f"zq{chr(97 + n)}xv" for n in range(20)]
    long = as_json(["search", "local", f"What do {' '.join(words)} do?"], triplets)
    assert words[0] in long["note"] and words[11] in long["note"] and words[12] not in long["note"]
    assert "and 8 more" in long["note"]


def test_bad_questions_get_one_line(triplets):
    for mode in ("local", "global"):
        empty = invoke(["search", mode, "  "], triplets)
        assert empty.exit_code == 1 and f'the question is empty; ask something, e.g. tripartite search {mode} "How' \
            in empty.output
    missing = invoke(["search", "global", "What are the themes?"], triplets)
    assert missing.exit_code == 1 and "`tripartite kg communities`" in missing.output
    assert len(missing.output.strip().splitlines()) == 1
    no_llm = invoke(["search", "local", "Heart failure?", "--answer"], triplets)
    assert no_llm.exit_code == 1 and "--answer needs an LLM" in no_llm.output


def test_local_search_before_the_triplet_graph_names_the_command(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    ok(["migrate"], env)
    ok(["ingest", str(samples_dir() / "guidelines")], env)
    result = as_json(["search", "local", "Heart failure treatment"], env)
    assert "`tripartite kg extract`" in result["note"] and result["references"]


def test_global_search_maps_the_most_relevant_reports_within_its_budgets(triplets):
    ok(["kg", "communities", "--offline"], triplets)
    question = "What are the main themes of these guides?"
    result = as_json(["search", "global", question], triplets)
    assert result["mode"] == "global" and result["map_calls"] >= 1
    assert result["total_tokens"] == result["map_tokens"] + result["tokens"] <= 4000 + 3000
    assert result["tokens"] == count_tokens(result["prompt"]) and "Points:" in result["prompt"]
    assert result["communities"] and result["references"]
    citations_have_references(result)
    small = as_json(["search", "global", question, "--max-tokens", "400", "--map-tokens", "800"], triplets)
    assert small["tokens"] <= 400 and small["map_tokens"] <= 800
    starved = as_json(["search", "global", question, "--map-tokens", "200"], triplets)  # below one map prompt
    assert starved["map_calls"] == 0 and not starved["references"]
    assert starved["note"].startswith("the map budget of 200 tokens holds no map prompt (the most relevant report's "
                                      "takes ") and "give --map-tokens" in starved["note"]
    dry = ok(["search", "global", question, "--dry-run"], triplets)
    assert "would spend" in dry and f"{result['total_tokens']:,}" in dry
    wrong = invoke(["search", "global", question, "--level", "42"], triplets)
    assert wrong.exit_code == 1 and "no reports at level 42" in wrong.output


def test_search_through_an_openai_compatible_server(triplets):
    ok(["kg", "communities", "--offline"], triplets)
    question = "Which medicines treat heart failure?"
    with FakeOpenAI() as server:
        env = {**triplets, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        # Dry runs send nothing: global's map prompts are counted exactly, the final prompt bounded.
        dry = as_json(["search", "global", question, "--dry-run"], env)
        assert dry["estimate"] and dry["total_tokens"] == dry["map_tokens"] + 3000 and not server.chat_requests()
        local = as_json(["search", "local", question], env)
        keywords = [r for r in server.chat_requests() if r["body"]["messages"][-1]["content"].startswith("List the")]
        assert len(keywords) == 1 and "heart" in " ".join(local["keywords"]).lower()
        assert local["total_tokens"] > local["tokens"]  # the keywords call counts
        glob = as_json(["search", "global", question], env)
        maps = [r for r in server.chat_requests() if "community reports" in r["body"]["messages"][-1]["content"]]
        assert len(maps) == glob["map_calls"] == dry["map_calls"] and glob["map_tokens"] == dry["map_tokens"]
        assert "The report on" in glob["prompt"]
        citations_have_references(glob)
        calls = len(server.chat_requests())
        assert as_json(["search", "global", question], env)["prompt"] == glob["prompt"]
        assert len(server.chat_requests()) == calls  # the map answers came from the cache
        answered = ok(["search", "local", question, "--answer"], env)
        assert "References:" in answered and re.search(r"^\[1\] .*\(chunk ", answered, re.MULTILINE)
        offline = as_json(["search", "global", question, "--offline"], env)
        assert len(server.chat_requests()) == calls + 1 and "The report on" not in offline["prompt"]


def test_local_procedure_runs_the_same_script(triplets, driver, neo4j_db):
    records, _, _ = driver.execute_query(
        "SHOW PROCEDURES YIELD name WHERE name = 'apoc.custom.installProcedure' RETURN count(*) AS n",
        database_="system")
    if not records[0]["n"]:
        pytest.skip("this Neo4j has no APOC Extended (apoc.custom)")
    from tripartite.infra.graph import Graph
    from tripartite.search.local_search import retrieve

    expected = retrieve(Graph(driver, neo4j_db.database), ["Atrial fibrillation", "stroke"])
    deadline = time.monotonic() + 90
    while True:  # apoc.custom registers procedures on its refresh interval
        try:
            got, _, _ = driver.execute_query("CALL custom.tripartite.local($k)", k=["Atrial fibrillation", "stroke"],
                                             database_=neo4j_db.database)
            break
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)
    row = got[0].data()
    assert [e["name"] for e in row["entities"]] == [e["name"] for e in expected["entities"]]
    assert [c["chunk_id"] for c in row["chunks"]] == [c["chunk_id"] for c in expected["chunks"]]


# Objects: the four ways side by side.

def test_a_documents_own_citation_numbers_are_no_prompt_references_in_any_mode(neo4j_db, tmp_path):
    """A guideline citing its literature as [12] would otherwise point an answer at reference
    12 of the prompt, another chunk or none."""
    salt = ("# Blood pressure\n\nCutting salt lowers blood pressure in hypertension [12]. Trials of a low-salt "
            "diet agree [3, 4].\n\n## Atrial fibrillation [90]\n\nApixaban lowers the stroke risk in atrial "
            "fibrillation [5-7]. Warfarin does too [80].\n")
    hypertension = (samples_dir() / "guidelines" / "hypertension.md").read_text("utf-8")  # entities for communities
    env = ingest_documents(neo4j_db, tmp_path, {"salt.md": salt, "hypertension.md": hypertension},
                           ["ontology", "load", "cardiology"], ["analyze"], ["select"], ["kg", "extract", "--offline"],
                           ["kg", "communities", "--offline"])
    question = "Does less salt lower blood pressure in hypertension [91], and what lowers the stroke risk?"
    quoted = set()
    for mode in ("tripartite", "rag", "local", "global", "hybrid"):
        result = as_json(["search", mode, question], env)
        assert result["references"], mode
        citations_have_references(result)  # every [n] in the body is a listed reference
        assert not re.search(r"\[(12|3, 4|5-7|80|90|91)\]", result["prompt"]), mode
        quoted |= set(re.findall(r"\((12|3, 4|5-7|80|90|91)\)", result["prompt"]))
    assert quoted == {"12", "3, 4", "5-7", "80", "90", "91"}


def test_an_objects_prompt_built_four_ways(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    ok(["demo"], env)
    ok(["kg", "extract", "--offline"], env)
    ok(["kg", "communities", "--offline"], env)
    text = None
    for mode in ("tripartite", "rag", "local", "global"):
        built = json.loads(ok(["prompt", "patient-b", "--mode", mode, "--format", "json"], env))
        assert built["tokens"] == count_tokens(built["prompt"]) and built["references"]
        if mode != "tripartite":
            assert built["mode"] == mode and "Object patient-b:" in built["prompt"]
            assert "atrial fibrillation" in built["prompt"].lower()
            text = text or built["prompt"].split("Object patient-b:\n", 1)[1][:80]
            assert text in built["prompt"]  # the object's own text, the same in each
    # vector RAG's prompt is the published baseline, numbers only: its text form lists the
    # references beside it, as its JSON does.
    shown = invoke(["prompt", "patient-b", "--mode", "rag"], env)
    assert shown.exit_code == 0 and "References:" not in shown.stdout
    assert re.search(r"References \(not in the prompt\):\n.+:\n\[1\] .*\(chunk ", shown.stderr)
    bounded = json.loads(ok(["prompt", "patient-b", "--mode", "local", "--max-tokens", "700", "--format", "json"], env))
    assert bounded["tokens"] <= 700
    # rag takes the budget too (it took the top 5 whatever it was), and a budget the object
    # alone fills is said in every mode rather than sent as a prompt without passages.
    for budget in (300, 1000):
        rag = json.loads(ok(["prompt", "patient-b", "--mode", "rag", "--max-tokens", str(budget), "--format", "json"],
                            env))
        assert rag["tokens"] == count_tokens(rag["prompt"]) <= budget and rag["references"]
    assert len(rag["references"]) > 5
    for mode in ("rag", "local", "global"):
        starved = json.loads(ok(["prompt", "patient-b", "--mode", mode, "--max-tokens", "100", "--format", "json"], env))
        assert not starved["references"] and starved["note"].startswith("no passage fits the budget of 100 tokens: "
                                                                          "the question, the object's text")
    with FakeOpenAI() as server:
        llm = {**env, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        for mode in ("rag", "global"):
            answered = ok(["ask", "patient-b", "--mode", mode], llm)
            assert "References:" in answered and re.search(r"^\[1\] .*\(chunk ", answered, re.MULTILINE)
        last = server.chat_requests()[-1]["body"]["messages"][-1]["content"]
        assert "Object patient-b:" in last and "Points:" in last


# DB-GPT's benchmark document and the five questions written for it.

@pytest.mark.skipif(not DBGPT.exists(), reason="../shared/corpus/dbgpt/graphrag-test.md is not beside the repository")
def test_dbgpt_questions_stay_within_dbgpts_published_query_costs(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    for args in (["migrate"], ["ingest", str(DBGPT)], ["kg", "extract", "--offline"],
                 ["kg", "communities", "--offline"]):
        ok(args, env)
    questions = yaml.safe_load((REPO / "bench" / "questions" / "graphrag-test.yaml").read_text(encoding="utf-8"))
    assert len(questions["questions"]) == 5 and {q["scope"] for q in questions["questions"]} == {"detail", "whole"}
    for q in questions["questions"]:
        local = as_json(["search", "local", q["question"]], env)
        glob = as_json(["search", "global", q["question"]], env)
        assert local["total_tokens"] <= 9_230 and glob["total_tokens"] <= 7_432, q["id"]
        assert local["references"] and glob["references"], q["id"]
        citations_have_references(local)
        citations_have_references(glob)


def test_global_search_ranks_chinese_report_sentences_for_an_english_question(neo4j_db, tmp_path):
    # Reports about Chinese passages, and an English question: the question is read by both models,
    # so the Chinese sentences get their model's cosine to it, not 0 (the English model reads no Chinese).
    text = ("# 图数据库\n\n## 事务\n\nTuGraph 与 GeaFlow 都由 AntGroup 研发。TuGraph 的事务采用可串行化隔离级别，"
            "GeaFlow 调用 TuGraph 的存储。AntGroup 与 Tsinghua 联合研发 TuGraph。\n\n## 存储\n\nGeaFlow 的存储部分面向 "
            "Graph 和 KV 两类数据模型提供接口，GeaFlow 与 TuGraph 共用 AntGroup 的集群。\n\n## Gardening\n\n"
            "Tomatoes need full sun. Basil grows well beside Tomatoes in the garden.\n")
    env = ingest_documents(neo4j_db, tmp_path, {"graph.md": text}, ["kg", "extract", "--offline"],
                           ["kg", "communities", "--offline"])
    result = as_json(["search", "global", "Which isolation level do the graph database's transactions use?",
                      "--max-tokens", "1000"], env)
    points = [line for line in result["prompt"].splitlines() if line.startswith("- (")]
    assert points and "可串行化" in points[0], result["prompt"]
