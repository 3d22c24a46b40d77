"""Free-text questions through every prompt builder: `search tripartite|rag|hybrid`, `ask
QUESTION`, `eval --questions`, and the offline triplet extractor and keywords they rest on."""
import json
import math
import re

import pytest
import yaml

from conftest import as_json, cli_env, ingest_documents, invoke, load_sample, ok
from fake_openai import FakeOpenAI
from tripartite.evaluation.questions import Question, load_questions, recall, top_sections
from tripartite.infra.errors import TripartiteError
from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.paths import samples_dir
from tripartite.infra.tokens import count_tokens
from tripartite.kg.extractive import TripletExtractor
from tripartite.kg.phrases import coordinated, noun_phrases, relating_verb
from tripartite.kg.schema import TripletTask
from tripartite.search import excerpts, translations
from tripartite.search.excerpts import excerpt, excerpt_of
from tripartite.search.hybrid import keyword_share, keyword_weights
from tripartite.search.keywords import MAX_OFFLINE_KEYWORDS, offline_keywords

QUESTION = "Which drugs are usually chosen to keep clots from forming in an irregular heartbeat?"


# ---- units: phrases, relations, keywords, the question file, recall ---------------------------------
def test_noun_phrases_in_english_and_chinese():
    texts = [p.text for p in noun_phrases("High blood pressure raises the risk of stroke and heart attack.")]
    assert texts == ["High blood pressure", "risk of stroke", "heart attack"]
    assert [p.text for p in noun_phrases("Drink less alcohol and stop smoking.")] == ["less alcohol", "smoking"]
    assert "blood clot" in [p.text for p in noun_phrases("A heart attack occurs if a blood clot forms in an artery.")]
    chinese = [p.text for p in noun_phrases("TuGraph产品家族中，开源产品包括图数据库。")]
    assert "开源产品" in chinese and all(len(t) >= 2 for t in chinese)


def test_relations_need_a_verb_in_one_clause():
    assert relating_verb(" raises the ") == "raises"
    assert relating_verb(", ") is None and relating_verb(" and stop ") is None  # a list; two predicates
    assert coordinated(", ") and coordinated(" and ") and not coordinated(" raises ")
    extractor = TripletExtractor([ConceptInfo("af", "Atrial fibrillation", ("AFib",), ""),
                                  ConceptInfo("stroke", "Stroke", (), "")], [])
    answer, _ = extractor.answer(TripletTask("kg", "c1", "", "Atrial fibrillation raises the risk of stroke, heart "
                                             "attack and heart failure. Stroke, fatigue and palpitations.", ()))
    triples = {(r["source"], r["type"], r["target"]) for r in answer["relations"]}
    assert ("Atrial fibrillation", "RAISE", "risk of stroke") in triples
    assert ("Atrial fibrillation", "RAISE", "heart attack") in triples  # the list after the verb
    assert not [t for t in triples if t[0] == "Stroke"]  # a bare list relates nothing
    names = {e["name"] for e in answer["entities"]}
    assert {"Atrial fibrillation", "heart attack", "heart failure"} <= names


def test_offline_keywords_drop_question_and_asking_words():
    words = offline_keywords("How does the AWEL workflow improve the build of agents?", [])
    assert words == ["AWEL", "workflow", "agents"]
    assert offline_keywords("AWEL 的三个层次是什么？", []) == ["AWEL", "层次"]
    assert "社区" in offline_keywords("社区摘要的生成方式是什么？", [])


def test_offline_keywords_keep_a_long_questions_last_asks_and_drop_contraction_stems():
    question = ("Since the switch to the newer Amazon client for Go, how many times is a failing request tried, "
                "how long may a single HTTP request run, and how do I estimate the memory taken by chunked uploads?")
    words = offline_keywords(question, [])
    assert len(words) > 12 and words[-3:] == ["memory", "chunked", "uploads"]
    assert offline_keywords("Why doesn't Klipper's board start, and won't the host's log say?", []) == \
        ["Klipper", "board", "start", "host", "log", "say"]
    assert offline_keywords("Why don\u2019t the pumps\u2019 seals hold?", []) == ["pumps", "seals", "hold"]
    pasted = " ".join(f"word{n:03d}x" for n in range(300))  # a pasted page as the question
    assert len(offline_keywords(pasted, [])) == MAX_OFFLINE_KEYWORDS
    # hybrid.cypher's entity lookup: two clauses a keyword or translated word; Lucene takes 1,024.
    assert 2 * (MAX_OFFLINE_KEYWORDS + translations.MAX_WORDS) <= 1024


def test_a_question_file_is_checked_with_one_line_per_fault(tmp_path):
    good = tmp_path / "q.yaml"
    good.write_text(yaml.safe_dump({"questions": [{"question": "Why?", "answers": ["because", 42]},
                                                  {"id": "x", "question": "Where?", "chunks": ["d:1"],
                                                   "scope": "corpus"}]}))
    assert load_questions(good) == [Question("q1", "Why?", ("because", "42")),
                                    Question("x", "Where?", (), ("d:1",), "corpus")]
    for text, fault in (("questions: []", "no questions"), ("questions:\n  - answers: [a]", "no `question:`"),
                        ("questions:\n  - question: Why?", "neither `answers:` nor `chunks:`"),
                        ("questions:\n  - {question: \"Why\", answers: [a], scope: wide}", "scope is 'wide'"),
                        ("questions: [", "not a readable YAML file"),
                        ("questions:\n  - {id: a, question: A, answers: [x]}\n  - {id: a, question: B, answers: [y]}",
                         "question 2 has the id 'a' of an earlier one"),
                        # Each of these would score as a result: a string read letter by letter, a
                        # blank phrase that every prompt holds, a number asked as a question.
                        ("questions:\n  - question: Why\n    answers: zq xj",
                         "question 1: `answers:` must be a list, e.g. answers: ['zq xj']"),
                        ("questions:\n  - question: Why\n    answers: ['  ']",
                         "question 1: `answers:` must list non-blank phrases only"),
                        ("questions:\n  - question: Why\n    chunks: ['']",
                         "question 1: `chunks:` must list non-blank chunk ids only"),
                        ("questions:\n  - {question: 12345, answers: [a]}", "`question:` is 12345, not text"),
                        # A misspelt key was dropped, and a question with both lists scored by one only.
                        ("questions:\n  - {question: Why, answers: [a], scop: corpus}",
                         "question 1: unknown key(s) scop; a question takes answers, chunks, id, question, scope"),
                        ("questions:\n  - {question: Why, answers: [a], chunks: ['d:1']}",
                         "question 1 gives both `answers:` and `chunks:`; keep one")):
        bad = tmp_path / "bad.yaml"
        bad.write_text(text)
        with pytest.raises(TripartiteError, match=re.escape(fault)) as caught:
            load_questions(bad)
        assert "\n" not in str(caught.value) and str(bad) in str(caught.value)
    with pytest.raises(TripartiteError, match="no such file"):
        load_questions(tmp_path / "missing.yaml")


def test_recall_counts_answer_phrases_or_chunks_and_span_counts_top_sections():
    q = Question("a", "?", ("Blood  Thinners", "warfarin"))
    assert recall(q, "Anticoagulants, often called blood\nthinners.", []) == 0.5
    assert recall(Question("b", "?", (), ("d:1", "d:2")), "", ["d:2", "d:3"]) == 0.5
    refs = [{"document": "AF", "section_path": ["AF", "Treatment", "Clots"]},
            {"document": "AF", "section_path": ["AF", "Treatment"]}, {"document": "HF", "section_path": ["Causes"]}]
    assert top_sections(refs) == {("AF", "Treatment"), ("HF", "Causes")}


def test_an_excerpt_keeps_the_best_sentences_with_their_neighbours():
    item = {"sentences": [f"Sentence number {i} here." for i in range(10)],
            "sentence_scores": [0.1, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1, 0.1, 0.85, 0.1]}
    chosen = excerpt_of(item)
    assert sorted(chosen) == [2, 3, 4, 7, 8, 9]
    assert excerpt(chosen).count("...") == 1 and excerpt(chosen).startswith("Sentence number 2")
    weights = keyword_weights(["warfarin", "heart"], ["warfarin here", "heart", "heart again", "the heart"])
    assert keyword_share("Warfarin thins blood.", weights) > keyword_share("The heart pumps.", weights) > 0


def test_a_question_prompt_is_fitted_and_filled_to_its_budget():
    from tripartite.search.tripartite_question import PREAMBLE, fit
    from tripartite.selection.prompt import build_prompt

    def extract(chunk: int, rank: int, w: float, reason: str = "alpha") -> dict:
        return {"chunk_id": f"d:{chunk}", "w": w, "reason": reason, "rank": rank, "document": "Doc",
                "document_id": "doc", "section_path": ["Doc", "Part"], "index": chunk, "own_p": None,
                "text": f"Extract {chunk} says something long enough to cost a few tokens in the prompt."}

    rows = [{"concept_id": "a", "name": "A", "summary": "asks about A",
             "evidence": [extract(1, 0, 0.9), extract(2, 1, 0.8)]},
            {"concept_id": "b", "name": "B", "summary": "asks about B", "evidence": [extract(3, 0, 0.7, "floor")]}]
    spare = [("a", {**extract(4, 2, 0.6), "reason": "fill"}), ("b", {**extract(5, 1, 0.5), "reason": "fill"})]

    def layout(kept):
        return build_prompt("question", kept, "Why?", 0.9, 0.5, "floor", None, PREAMBLE)

    whole = layout(rows)
    fitted, dropped = fit(rows, layout, whole["tokens"] - 5, spare)
    assert dropped == 1 and fitted["tokens"] <= whole["tokens"] - 5
    assert [e["chunk_id"] for c in fitted["concepts"] for e in c["evidence"]] == ["d:1", "d:3"]  # the weakest went
    filled, _ = fit(rows, layout, whole["tokens"] + 40, spare)
    assert whole["tokens"] < filled["tokens"] <= whole["tokens"] + 40
    assert [e["chunk_id"] for c in filled["concepts"] for e in c["evidence"] if e["reason"] == "fill"] == ["d:4"]


# ---- the CLI on the sample, built once ----------------------------------------------------------------
@pytest.fixture(scope="module")
def sample(module_db, tmp_path_factory):
    env = cli_env(module_db, tmp_path_factory.mktemp("questions"))
    return load_sample(env, ["analyze"], ["select"], ["kg", "extract"], ["kg", "communities"])


def _objects(env) -> list[str]:
    return [row["id"] for row in json.loads(ok(["objects", "list", "--json"], env))]


@pytest.mark.parametrize("mode", ["tripartite", "rag", "hybrid", "local", "global"])
def test_every_builder_takes_a_question(sample, mode):
    before = _objects(sample)
    result = as_json(["search", mode, QUESTION, "--max-tokens", "600"], sample)
    assert set(result) >= {"mode", "question", "tokens", "total_tokens", "prompt", "references"}
    assert result["mode"] == mode and result["question"] == QUESTION
    assert result["tokens"] == count_tokens(result["prompt"]) <= 600 and result["tokens"] <= result["total_tokens"]
    assert result["prompt"].startswith(f"Question: {QUESTION}") and result["references"]
    body, _, listed = result["prompt"].rpartition("References:\n")
    assert {int(n) for n in re.findall(r"\[(\d+)\]", body)} <= {r["n"] for r in result["references"]}
    for ref in result["references"]:
        assert set(ref) == {"n", "chunk_id", "document", "section_path", "index"} and ref["document"]
        assert f"(chunk {ref['index']})" in listed
    assert _objects(sample) == before  # a question never becomes a stored object


def test_tripartite_reads_the_question_like_an_object_and_selects_against_the_stored_distributions(sample,
                                                                                                  module_db):
    result = as_json(["search", "tripartite", QUESTION], sample)
    names = {c["name"] for c in result["concepts"]}
    assert "Anticoagulants" in names  # clots kept from forming: the gloss, not a word of the question
    for concept in result["concepts"]:
        assert concept["evidence"] and concept["summary"]
        assert all(e["reason"] in ("alpha", "beta", "floor") and -1 <= e["w"] <= 1 for e in concept["evidence"])
    assert "Apixaban" in result["prompt"]  # the anticoagulant extract that answers it
    tight = as_json(["search", "tripartite", QUESTION, "--max-tokens", "120"], sample)
    filled = as_json(["search", "tripartite", QUESTION, "--max-tokens", "1500"], sample)
    assert tight["tokens"] <= 120 < result["tokens"] <= filled["tokens"] <= 1500 and tight["dropped"] > 0
    dry = ok(["search", "tripartite", QUESTION, "--dry-run"], sample)
    assert f"would spend {result['total_tokens']:,} prompt tokens" in dry and "nothing was sent" in dry
    unknown = as_json(["search", "tripartite", "What does the weather look like on Mars tomorrow?"], sample)
    assert unknown["references"] == [] and "concerns none of the loaded concepts" in unknown["note"]
    # In none of the ontology's words, but about its matter: the nearest concepts stand in.
    vague = as_json(["search", "tripartite", "How fast can the lower chambers beat when the upper ones quiver?"],
                    sample)
    assert "nearest to it in meaning stand in" in vague["note"] and vague["references"]
    assert 1 <= len(vague["concepts"]) <= 2 and all(c["summary"] == vague["question"] for c in vague["concepts"])
    # Against the stored distributions: an alpha extract reaches its concept's stored alpha
    # threshold, a beta one its beta threshold, for every concept the objects were selected on.
    thresholds = _thresholds(module_db)
    stored = [c for c in result["concepts"] if c["concept_id"] in thresholds]
    assert stored and "no stored score distribution" not in result["note"]
    for concept in stored:
        alpha_w, beta_w = thresholds[concept["concept_id"]]
        for e in concept["evidence"]:
            assert e["reason"] != "alpha" or e["w"] >= alpha_w
            assert e["reason"] != "beta" or e["w"] >= beta_w


def _thresholds(target) -> dict:
    """Each concept's stored alpha and beta thresholds (w), as select left them."""
    with target.driver() as driver:
        records, _, _ = driver.execute_query("MATCH (s:ScoreDistribution) WHERE s.alpha_w IS NOT NULL "
                                             "RETURN s.concept_id AS c, s.alpha_w AS a, s.beta_w AS b",
                                             database_=target.database)
    return {r["c"]: (r["a"], r["b"]) for r in records}


def test_a_question_read_by_a_model_is_answered_from_the_cache_the_second_time(sample):
    with FakeOpenAI() as server:
        model = {**sample, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        first = as_json(["search", "tripartite", QUESTION], model)
        asked = len(server.chat_requests())
        second = as_json(["search", "tripartite", QUESTION], model)
        assert asked >= 1 and len(server.chat_requests()) == asked  # the question's reading, cached
    assert second["prompt"] == first["prompt"]


def test_hybrid_reaches_chunks_through_entities_and_quotes_only_summaries_no_passage_beats(sample, module_db, monkeypatch):
    # With the vector index's and the full-text index's chunks switched off, all that is left
    # is what the triplet graph brings: the chunks the question's entities came from (and the
    # community summaries no passage beats). A vector search alone would quote nothing.
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import make_embedder
    from tripartite.infra.graph import Graph
    from tripartite.search import hybrid

    monkeypatch.setattr(hybrid, "CHUNK_LIMIT", 0)
    monkeypatch.setattr(hybrid, "TEXT_LIMIT", 0)
    settings = load_settings(env={k: v for k, v in sample.items() if k != "TRIPARTITE_CONFIG"})
    question = "How does warfarin protect people with atrial fibrillation?"
    kept = []  # the candidates hybrid_search keeps, community summaries among them
    rule = hybrid.without_summaries_a_passage_beats
    monkeypatch.setattr(hybrid, "without_summaries_a_passage_beats", lambda items: kept.extend(rule(items)) or kept)
    with module_db.driver() as driver:
        result = hybrid.hybrid_search(Graph(driver, module_db.database), question, make_embedder(settings),
                                      max_tokens=1000)
        records, _, _ = driver.execute_query("MATCH (:__Entity__)-[:FROM_CHUNK]->(t:Chunk) RETURN DISTINCT t.id AS id",
                                             database_=module_db.database)
    assert result["references"] and {r["chunk_id"] for r in result["references"]} <= {r["id"] for r in records}
    assert {c["id"] for c in result["communities"]} <= {i["community"]["id"] for i in kept if i["kind"] == "community"}
    assert ("community summaries" in result["prompt"]) == bool(result["communities"])  # the intro names them if any
    # A community summary is quoted only where no passage is as close to the question.
    chunk, summary = {"kind": "chunk", "score": 0.6}, {"kind": "community", "score": 0.7}
    assert rule([chunk, summary]) == [chunk, summary]
    assert rule([{**chunk, "score": 0.7}, summary]) == [{**chunk, "score": 0.7}]
    assert rule([summary]) == [summary]


def test_hybrid_intro_names_community_summaries_only_when_it_quotes_some():
    from tripartite.search.hybrid import Packing

    packing = Packing("Why?", 500)
    assert "community summaries" not in packing.text()
    summary = {"kind": "community", "community": {"id": "c1", "level": 0, "title": "Clots"},
               "text": "Warfarin keeps clots from forming."}
    assert packing.try_add(summary, packing.tokens()) is not None
    assert "and the community summaries" in packing.text() and packing.tokens() <= 500


def test_hybrid_quotes_each_chunk_once_within_its_budget(sample):
    result = as_json(["search", "hybrid", QUESTION, "--max-tokens", "600"], sample)
    ids = [r["chunk_id"] for r in result["references"]]
    assert len(ids) == len(set(ids)) and result["tokens"] <= 600
    passages = re.findall(r"^\[(\d+)\] ", result["prompt"].split("References:")[0], re.MULTILINE)
    assert len(passages) == len(set(passages)) == len(ids)
    assert "Apixaban" in result["prompt"]
    assert "rivaroxaban" in as_json(["search", "rag", QUESTION, "--max-tokens", "400"], sample)["prompt"]


def test_a_chinese_question_finds_english_passages_by_its_keywords_english_senses(sample):
    """A Chinese question about the English sample: no model reads both languages in one space
    (bge-small-zh reads the question; the English chunks live in MiniLM's block, so no
    closeness finds them), so its keywords are looked up by their dictionary senses (阿司匹林 ->
    "aspirin", 够用 -> "enough"), and hybrid quotes the passage that says aspirin alone is not
    enough first."""
    question = "病人只吃阿司匹林够用吗？"
    result = as_json(["search", "hybrid", question, "--max-tokens", "300"], sample)
    assert result["translations"]["阿司匹林"] == ["aspirin"] and "enough" in result["translations"]["够用"]
    first = result["references"][0]
    assert (first["document"], first["section_path"][-1]) == ("Atrial fibrillation", "Preventing clots"), first
    assert "Aspirin alone is not enough" in result["prompt"].split("Passages:")[1]
    # Vector RAG meets no passage by closeness, and says so rather than pass its order off as one.
    rag = as_json(["search", "rag", question, "--max-tokens", "300"], sample)
    assert rag["note"].startswith("no passage is close to the question")
    assert as_json(["search", "rag", "Is aspirin alone enough?", "--max-tokens", "300"], sample)["note"] == ""
    # Global search's offline map step finds no report sentence close to it, and says that, not
    # that its budget was short.
    glob = as_json(["search", "global", question, "--max-tokens", "1000"], sample)
    assert not glob["references"] and glob["note"].startswith("no report holds a point for the question")


def test_ask_takes_a_question_or_an_object(sample):
    with FakeOpenAI() as server:
        model = {**sample, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat",
                 "OPENAI_API_KEY": "sk-test"}
        answered = ok(["ask", QUESTION, "--mode", "hybrid"], model)
        assert "References:" in answered and re.search(r"^\[1\] .*\(chunk ", answered, re.MULTILINE)
        asked = [r for r in server.chat_requests() if QUESTION in json.dumps(r)]
        assert asked  # the prompt the model got is the question's
        typo = invoke(["ask", "patient-x"], model)
        assert typo.exit_code == 1 and "no object with id 'patient-x'" in typo.output
        assert "write it out in words" in typo.output
        hybrid_object = invoke(["ask", "patient-a", "--mode", "hybrid"], model)
        assert hybrid_object.exit_code == 1 and "free-text questions only" in hybrid_object.output
        shaped = invoke(["ask", QUESTION, "--tokens-per-concept", "50"], model)  # an object's option, not ignored
        assert shaped.exit_code == 2 and "--tokens-per-concept is for an object's prompt" in shaped.output


def test_eval_questions_compares_the_builders_and_writes_table_json_and_plot(sample, tmp_path):
    out = tmp_path / "out"
    printed = ok(["eval", "--questions", str(samples_dir() / "questions.yaml"), "--modes", "rag,hybrid,tripartite",
                  "--budgets", "300,600", "--out", str(out)], sample)
    assert re.search(r"^\| hybrid \| 600 \| 8 \|", printed, re.MULTILINE)
    data = json.loads((out / "questions.json").read_text())
    assert {(s["mode"], s["budget"]) for s in data["summaries"]} == {(m, b) for m in ("rag", "hybrid", "tripartite")
                                                                    for b in (300, 600)}
    rag = {s["budget"]: s["recall"] for s in data["summaries"] if s["mode"] == "rag"}
    assert 0 < rag[300] <= rag[600] <= 1
    for row in data["rows"]:
        assert 0 <= row["recall"] <= 1 and row["tokens"] <= row["budget"] and (row["span"] is None) == (
            row["question"] != "s8")
    assert (out / "questions.png").stat().st_size > 10_000 and "| mode | budget |" in (out / "questions.md").read_text()
    wrong = invoke(["eval", "--questions", str(tmp_path / "none.yaml")], sample)
    assert wrong.exit_code == 1 and "no such file" in wrong.output
    both = invoke(["eval", "--questions", str(samples_dir() / "questions.yaml"), "docs", "onto", "objs"], sample)
    assert both.exit_code == 2 and "give no DOCUMENTS" in both.output
    # Answer chunks: one the graph holds scores; one it does not hold (a changed document) is refused.
    held = json.loads(ok(["search", "rag", "What lowers blood pressure?", "--format", "json"], sample))
    chunk = held["references"][0]["chunk_id"]
    by_chunk = tmp_path / "chunks.yaml"
    by_chunk.write_text(f"questions:\n  - id: c1\n    question: What lowers blood pressure?\n    chunks: [{chunk!r}]\n")
    ok(["eval", "--questions", str(by_chunk), "--modes", "rag", "--budgets", "600", "--out", str(out)], sample)
    assert json.loads((out / "questions.json").read_text())["rows"][0]["recall"] == 1.0
    by_chunk.write_text(by_chunk.read_text() + "  - id: c2\n    question: Why?\n    chunks: ['hypertension:gone']\n")
    stale = invoke(["eval", "--questions", str(by_chunk), "--modes", "rag", "--out", str(tmp_path / "stale")], sample)
    assert stale.exit_code == 1 and not (tmp_path / "stale").exists()
    assert stale.output.startswith(f"error: {by_chunk}: question c2 cites chunk 'hypertension:gone', which the graph "
                                   "does not hold")


# ---- a document the embedder cannot read (last: it empties the module's database) --------------------
def _product_manual(sections: int, answer_at: int) -> tuple[str, str]:
    """A Chinese manual of `sections` look-alike products; one says how its transactions are
    isolated. Returns the Markdown and that product's heading."""
    first, second = "星晨远清松白青赤金银", "河光山泉风云石海林月"
    kinds = ["图数据库", "计算引擎", "可视化平台", "调度系统", "安全网关", "存储服务"]
    uses = ["金融风控", "电信计费", "零售推荐", "物流跟踪", "能源监测", "医疗影像"]
    features = ["分片", "快照", "告警", "审计", "压缩", "缓存", "重试", "导出"]
    lines, answer = ["# 产品手册", ""], ""
    for i in range(sections):
        heading = first[i // 10] + second[i % 10] + kinds[i % 6]
        f = [features[(i + k) % 8] for k in (0, 3, 5)]
        body = f"{heading}主要用于{uses[(i // 6) % 6]}场景。它支持{f[0]}、{f[1]}和{f[2]}，部署在多台服务器上，由运维团队统一管理。"
        if i == answer_at:  # the answer, inside a long paragraph that says much else
            body += ("团队每季度发布一个新版本，并在社区论坛公布路线图。早期用户来自高校实验室和初创公司，后来扩展到大型企业。"
                     "它的事务处理采用可串行化隔离级别。文档提供中英文两种语言，示例代码覆盖主流编程语言，培训课程每月开班一次。"
                     "产品名称取自一首古诗，标志的颜色代表稳定与信任。")
            answer = heading
        lines += [f"## {heading}", "", body, ""]
    return "\n".join(lines), answer


def _ingest_manual(env: dict, tmp_path, tail: str = "") -> str:
    """The 100-section Chinese manual (the answer in section 57), `tail` appended, ingested;
    returns the answering section's heading."""
    text, answer = _product_manual(100, 57)
    manual = tmp_path / "manual.md"
    manual.write_text(text + tail, encoding="utf-8")
    ok(["ingest", str(manual)], env)
    return answer


def test_hybrid_finds_by_words_what_the_english_embedder_cannot_read(migrated_env, tmp_path):
    """all-MiniLM-L6-v2 alone (the default before 2026-12-05) reads English: among 100
    look-alike Chinese sections the one that answers is not among the chunks closest to the
    question, so vector RAG misses it; the full-text index (cjk analyzer) finds it by the
    question's words, and hybrid quotes it first, however long the question."""
    english_only = {**migrated_env, "TRIPARTITE_EMBEDDING_MODEL": "all-MiniLM-L6-v2"}
    answer = _ingest_manual(english_only, tmp_path)
    question = "哪款产品的事务处理用的是可串行化隔离？"
    rag = as_json(["search", "rag", question, "--max-tokens", "2000"], english_only)
    assert answer not in [r["section_path"][-1] for r in rag["references"]]
    hybrid = as_json(["search", "hybrid", question, "--max-tokens", "300"], english_only)
    assert hybrid["references"][0]["section_path"][-1] == answer
    assert "可串行化隔离级别" in hybrid["prompt"].split("Passages:")[1]
    # A long question that asks last, after a dozen words every section says: each of its words
    # is looked up (the first twelve alone found look-alike sections and missed the answer).
    long_question = ("我们团队在金融风控、电信计费、零售推荐、物流跟踪、能源监测和医疗影像场景里用到分片、快照、告警、审计、"
                     "压缩、缓存、重试和导出，哪款产品的事务处理用的是可串行化隔离？")
    hybrid = as_json(["search", "hybrid", long_question, "--max-tokens", "300"], english_only)
    assert hybrid["references"][0]["section_path"][-1] == answer


def test_the_default_reads_chinese_with_a_chinese_model(migrated_env, tmp_path):
    """The default reads each text with the model of its language: the same Chinese manual is
    read by bge-small-zh-v1.5, and hybrid still quotes the answering section first. A
    Chinese and an English chunk are never compared (their vectors share no dimension)."""
    answer = _ingest_manual(migrated_env, tmp_path,
                            "\n## Maintenance\n\nThe maintenance team restarts every server once a month.\n")
    question = "哪款产品的事务处理用的是可串行化隔离？"
    hybrid = as_json(["search", "hybrid", question, "--max-tokens", "300"], migrated_env)
    assert hybrid["references"][0]["section_path"][-1] == answer
    rag = as_json(["search", "rag", question, "--max-tokens", "2000"], migrated_env)
    assert "Maintenance" not in [r["section_path"][-1] for r in rag["references"]]  # English: cosine 0, ranked last
    english = as_json(["search", "rag", "How often are the servers restarted?", "--max-tokens", "120"], migrated_env)
    assert english["references"][0]["section_path"][-1] == "Maintenance"


def test_an_english_question_finds_chinese_passages_by_its_keywords_chinese_words(migrated_env, tmp_path):
    """An English question about the Chinese manual: its keywords are looked up in Chinese too
    (CC-CEDICT read backwards), so the one section that says "路线图" (roadmap) and "论坛"
    (forum) is quoted first, which the Chinese model's reading of the English question alone
    does not bring to the top (vector RAG's first passage is another section)."""
    answer = _ingest_manual(migrated_env, tmp_path)
    question = "Which product announces its roadmap on a forum?"
    rag = as_json(["search", "rag", question, "--max-tokens", "300"], migrated_env)
    assert rag["references"][0]["section_path"][-1] != answer
    hybrid = as_json(["search", "hybrid", question, "--max-tokens", "300"], migrated_env)
    assert "路线图" in hybrid["translations"]["roadmap"] and "论坛" in hybrid["translations"]["forum"]
    assert hybrid["references"][0]["section_path"][-1] == answer
    assert "路线图" in hybrid["prompt"].split("Passages:")[1]
    # Twelve keywords of many senses each (425 Chinese words; two full-text clauses a word, and
    # Lucene takes 1,024): the words are capped and the search still runs.
    crowded = as_json(["search", "hybrid", "Dying dice: do outstanding fools collapse, confused, with a stopper, "
                       "an ending, a checker and a handler moving, covering and controlling?", "--max-tokens", "300"],
                      migrated_env)
    assert crowded["references"] and sum(map(len, crowded["translations"].values())) == 400
    # A page pasted as the question: its first MAX_OFFLINE_KEYWORDS words and 400 Chinese words,
    # still within Lucene's clauses.
    page = (samples_dir() / "guidelines" / "heart-failure.md").read_text(encoding="utf-8")
    pasted = as_json(["search", "hybrid", page, "--max-tokens", "2000"], migrated_env)
    assert pasted["references"] and sum(map(len, pasted["translations"].values())) == 400
    assert len(pasted["translations"]) <= MAX_OFFLINE_KEYWORDS


def test_a_question_no_model_reads_in_the_passages_language_takes_more_full_text_hits(neo4j_db, tmp_path):
    """A Chinese question about English pages: no reading meets an English passage (closeness 0),
    so its words' full-text hits stand in for the closest chunks, beyond the usual twelve. Here
    the closest chunks are 30 Chinese ward notes; a glossary line brings the English pages in (it
    writes 阿司匹林 beside "Aspirin"), 30 short English notes say the translated words twice each,
    and the one English passage that answers says them once: the full-text index ranks it 32nd."""
    ward = "".join(f"## 病房 {i}\n\n第 {i} 号病房每天早上八点开门，家属可以探视。\n\n" for i in range(30))
    notes = "".join(f"## Note {i}\n\nAspirin dosage note {i}: the aspirin dosage is logged on the ward.\n\n"
                    for i in range(30))
    answer = ("# Dosing\n\n## Daily\n\nFor most adults the usual daily aspirin dosage after a heart attack is "
              "81 milligrams, taken with food, and a pharmacist reviews it at every visit to the clinic.\n")
    glossary = "# Glossary\n\n## Drugs\n\nAspirin (阿司匹林) is a common drug; each dosage is in the ward notes.\n"
    env = ingest_documents(neo4j_db, tmp_path, {"ward.md": f"# 病房\n\n{ward}", "notes.md": f"# Notes\n\n{notes}",
                                                "dosing.md": answer, "glossary.md": glossary})
    result = as_json(["search", "hybrid", "阿司匹林的剂量是多少？", "--max-tokens", "3000"], env)
    assert result["translations"]["阿司匹林"] == ["aspirin"] and "dosage" in result["translations"]["剂量"]
    assert "81 milligrams" in result["prompt"].split("Passages:")[1]


def test_a_keyword_and_its_words_in_the_other_language_count_as_one():
    from tripartite.search.translations import chinese_words, english_words, translated_keywords

    assert chinese_words("workflows")[:1] == ["工作流"] and "工作流程" in chinese_words("workflow")
    assert chinese_words("heart failure") == ["心力衰竭"]  # a phrase as one sense
    assert chinese_words("工作流") == [] and chinese_words("zzqx") == []
    assert all(len(w) > 1 for k in ("run", "language", "part") for w in chinese_words(k))  # no lone characters
    chunks = [{"text": "AWEL 是一套智能体工作流表达语言。"}]
    assert translated_keywords(["workflows"], "Which workflows?", chunks) == {"workflows": ["工作流", "工作流程"]}
    assert translated_keywords(["workflows"], "Which workflows?", [{"text": "Plain English."}]) == {}
    # Twelve keywords of many senses each: the words stay within what one full-text query may hold.
    many = ["die", "outstanding", "collapse", "stop", "support", "handle", "check", "happy", "raise", "appearance",
            "control", "fool"]
    capped = translated_keywords(many, "Does support stop?", chunks)
    assert sum(map(len, capped.values())) == 400 < sum(len(chinese_words(k)) for k in many)
    assert all(capped[k] == chinese_words(k)[:len(capped[k])] and len(capped[k]) >= 20 for k in many)
    texts = ["AWEL 是一套智能体工作流表达语言。", "The workflow runs nightly.", "存储面向图数据。"]
    weights = keyword_weights(["workflows"], texts, {"workflows": ["工作流"]})
    assert [keyword_share(t, weights) for t in texts] == [1.0, 1.0, 0.0]
    assert weights[0][1] == pytest.approx(math.log(1 + 3 / 3))  # two of three hold it, in either language
    # A Chinese keyword: its entry's senses, or a compound's parts' (配置 + 文件).
    assert "transaction" in english_words("事务") and english_words("workflow") == []
    assert {"configuration", "file"} <= set(english_words("配置文件"))
    english = [{"text": "Snapshots are taken daily."}]
    assert translated_keywords(["快照"], "快照多久一次？", english) == {"快照": ["snapshot", "photo"]}
    assert translated_keywords(["快照"], "快照多久一次？", [{"text": "快照每天一次。"}]) == {}
    weights = keyword_weights(["快照"], ["Snapshots are taken daily.", "快照每天一次。", "A photograph."],
                              {"快照": ["snapshot", "photo"]})
    assert [keyword_share(t, weights) for t in ("Snapshots are taken daily.", "快照每天一次。", "A photograph.")] == \
        [1.0, 1.0, 0.0]  # whole words: "photo" is not "photograph"


MACHINE_PARTS = ["Coolant pump", "Spindle motor", "Door lock", "Air compressor", "Conveyor belt", "Hydraulic press",
                 "Vacuum gripper", "Laser cutter", "Oil heater", "Welding torch", "Paint sprayer", "Dust extractor"]


def test_hybrid_reads_a_chunk_by_its_headings_and_embed_fills_what_an_older_graph_lacks(migrated_env, driver,
                                                                                      tmp_path):
    """Twelve sections whose text says the same thing in the same words, told apart only by their
    headings: the chunk under the part a question names is found by its headings and text
    together (context_embedding), first; a graph ingested before that vector existed gets it
    from `tripartite embed`, and is searched by the text alone until then."""
    manual = tmp_path / "plant-manual.md"
    manual.write_text("# Plant manual\n\n" + "".join(
        f"## {part}\n\nSet the limit to {10 + n} units, then press Save and wait for the green light.\n\n"
        for n, part in enumerate(MACHINE_PARTS)), encoding="utf-8")
    ok(["ingest", str(manual)], migrated_env)
    counts = driver.execute_query("MATCH (c:Chunk) RETURN count(c) AS chunks, count(c.context_embedding) AS both").records[0]
    assert counts["chunks"] == len(MACHINE_PARTS) and counts["both"] == counts["chunks"]

    question = "Which limit does the welding torch get?"
    rag = as_json(["search", "rag", question, "--max-tokens", "200"], migrated_env)  # by the text alone
    assert rag["references"][0]["section_path"][-1] != "Welding torch"
    hybrid = as_json(["search", "hybrid", question, "--max-tokens", "200"], migrated_env)
    assert hybrid["references"][0]["section_path"][-1] == "Welding torch"
    assert "Set the limit to 19 units" in hybrid["prompt"].split("Passages:")[1]

    driver.execute_query("MATCH (c:Chunk) REMOVE c.context_embedding")  # as a graph from before this version
    older = as_json(["search", "hybrid", question, "--max-tokens", "200"], migrated_env)
    assert older["references"] and "12 chunks lack an embedding" in older["note"]  # answers, by the text alone, and says so
    doctor = {c["name"]: c for c in json.loads(invoke(["doctor", "--json"], migrated_env).output)}["vectors embedded"]
    assert not doctor["ok"] and "12 chunks lack" in doctor["detail"] and "tripartite embed" in doctor["detail"]
    assert "embedded 12 chunks" in ok(["embed"], migrated_env)
    assert driver.execute_query("MATCH (c:Chunk) WHERE c.context_embedding IS NULL RETURN count(c) AS n").records[0]["n"] == 0
    again = as_json(["search", "hybrid", question, "--max-tokens", "200"], migrated_env)
    assert again["references"][0]["section_path"][-1] == "Welding torch" and not again["note"]
    doctor = {c["name"]: c for c in json.loads(invoke(["doctor", "--json"], migrated_env).output)}["vectors embedded"]
    assert doctor["ok"] and "chunks 12 by all-MiniLM-L6-v2+bge-small-zh-v1.5" in doctor["detail"]


def test_only_text_the_embedder_cannot_read_leans_on_the_full_text_score():
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import MiniLMEmbedder, OpenAIEmbedder, local_embedder
    from tripartite.search.hybrid import candidates, unread_share

    def chunk(chunk_id: str, text: str, cosine: float, lexical: float) -> dict:
        return {"chunk_id": chunk_id, "text": text, "cosine": cosine, "lexical": lexical, "entities": [],
                "embedding": None, "document": "d", "section_path": ["d"], "index": 0}

    # The closer chunk by cosine, and one the full-text index ranks first: in Chinese, under the
    # English model, the full-text score decides; in English text, or under a multilingual
    # model, the cosine does.
    embedder = MiniLMEmbedder(load_settings(env={}).cache_dir)
    for near_text, hit_text, latin_only, first in (("星河数据库支持分片。", "白海调度系统采用可串行化隔离。", True, "hit"),
                                                   ("Sharding is supported.", "It uses serializable isolation.", True, "near"),
                                                   ("星河数据库支持分片。", "白海调度系统采用可串行化隔离。", False, "near")):
        embedder.latin_only = latin_only
        found = {"chunks": [chunk("near", near_text, 0.50, 0.0), chunk("hit", hit_text, 0.45, 1.0)],
                 "relations": [], "communities": []}
        ranked = candidates(found, [], embedder.embed(["question"])[0], embedder)
        assert ranked[0]["chunk"]["chunk_id"] == first, (near_text, latin_only)

    assert unread_share("TuGraph图数据库由蚂蚁集团研发", MiniLMEmbedder) == pytest.approx(11 / 18)
    assert unread_share("Apixaban, rivaroxaban, café", MiniLMEmbedder) == 0.0
    assert unread_share("图数据库", OpenAIEmbedder) == 0.0 and unread_share("", MiniLMEmbedder) == 0.0
    # The default reads each language with its own model: a text is unread only by a question
    # of the other language (their vectors are never compared).
    routed = local_embedder(load_settings(env={}))
    assert unread_share("图数据库由蚂蚁集团研发", routed, "哪个团队研发了图数据库？") == 0.0
    assert unread_share("图数据库由蚂蚁集团研发", routed, "Who develops the graph database?") == 1.0
    assert unread_share("Apixaban lowers the risk.", routed, "Which drug lowers the risk?") == 0.0


def test_a_chunk_with_one_sentence_that_answers_rises_by_its_closest_sentence():
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import MiniLMEmbedder
    from tripartite.search import hybrid

    def chunk(chunk_id: str, text: str, cosine: float) -> dict:
        return {"chunk_id": chunk_id, "text": text, "cosine": cosine, "lexical": 0.0, "entities": [],
                "embedding": None, "document": "d", "section_path": ["d"], "index": 0}

    # As wholes (the index's cosine) the diffuse chunk is the closer; the other holds one sentence
    # that answers the question, among sentences about other things.
    embedder = MiniLMEmbedder(load_settings(env={}).cache_dir)
    question = "Which sensor chip reads the rotor angle by default?"
    answering = chunk("answering", "The board has two CAN ports. By default the rotor angle is read by the onboard "
                                   "magnetic encoder chip. Cables are sold apart.", 0.40)
    diffuse = chunk("diffuse", "Sensors can be wired in many ways. Angles are measured in revolutions. "
                               "Defaults are kept in flash.", 0.45)
    vector = embedder.embed([question])[0]
    ranked = hybrid.candidates({"chunks": [diffuse, answering], "relations": [], "communities": []}, [], vector, embedder)
    assert [i["chunk"]["chunk_id"] for i in ranked] == ["answering", "diffuse"]
    best = max(ranked[0]["sentence_scores"])  # no keywords or relations here: the sentence's cosine
    assert ranked[0]["cosine"] == pytest.approx((1 - hybrid.SENTENCE_SHARE) * 0.40 + hybrid.SENTENCE_SHARE * best, abs=1e-6)
    assert best == pytest.approx(float(embedder.embed([answering["text"].split(". ")[1] + "."])[0] @ vector), abs=1e-5)


def test_the_chunk_that_goes_on_where_a_taken_chunks_match_ends_it_is_not_held_back_as_a_repeat():
    import numpy as np
    from tripartite.search import hybrid

    def item(chunk_id: str, vector, scores=None, next_id=None) -> dict:
        sentences = [f"Sentence {n} of {chunk_id} says something." for n in range(len(scores or [0.5]))]
        return {"kind": "chunk", "chunk": {"chunk_id": chunk_id, "next_id": next_id}, "sentences": sentences,
                "sentence_scores": scores or [0.5], "vector": np.asarray(vector, dtype=np.float32), "redundancy": 0.0}

    same = [1.0, 0.0]
    # The taken chunk's last sentence is its best match: what follows it opens "after", which goes
    # on with it rather than repeating it; "elsewhere", as close, is held back.
    after, elsewhere = item("after", same), item("elsewhere", same)
    hybrid.took([after, elsewhere], item("taken", same, [0.2, 0.6], next_id="after"))
    assert (after["redundancy"], elsewhere["redundancy"]) == (0.0, pytest.approx(1.0))
    # Its match in its first sentence, the last far below it: the next chunk is no continuation.
    after = item("after", same)
    hybrid.took([after], item("taken", same, [0.6, 0.6 - 2 * excerpts.MARGIN], next_id="after"))
    assert after["redundancy"] == pytest.approx(1.0)


def test_a_table_chunk_is_not_ranked_by_a_row_read_without_its_header():
    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import MiniLMEmbedder
    from tripartite.search import hybrid

    def chunk(chunk_id: str, text: str) -> dict:
        return {"chunk_id": chunk_id, "text": text, "cosine": 0.40, "lexical": 0.0, "entities": [],
                "embedding": None, "document": "d", "section_path": ["d"], "index": 0}

    embedder = MiniLMEmbedder(load_settings(env={}).cache_dir)
    table = chunk("table", "| Name | Peak Output |\n|---|---|\n| c1 | 20A |\n| r4 | 100A |")
    prose = chunk("prose", "The c1 board delivers up to 20A. The r4 board delivers up to 100A.")
    vector = embedder.embed(["How much peak current can each board deliver?"])[0]
    ranked = {i["chunk"]["chunk_id"]: i for i in hybrid.candidates(
        {"chunks": [table, prose], "relations": [], "communities": []}, [], vector, embedder)}
    assert excerpts.mostly_table_rows(ranked["table"]["sentences"])
    assert not excerpts.mostly_table_rows(ranked["prose"]["sentences"])
    # The table keeps its own closeness; the prose chunk's is half its closest sentence's.
    assert ranked["table"]["cosine"] == pytest.approx(0.40)
    best = max(ranked["prose"]["sentence_scores"])
    assert ranked["prose"]["cosine"] == pytest.approx((1 - hybrid.SENTENCE_SHARE) * 0.40 + hybrid.SENTENCE_SHARE * best,
                                                      abs=1e-6)
    # The table's rows still score for its excerpt.
    assert len(ranked["table"]["sentence_scores"]) == len(ranked["table"]["sentences"]) == 4


def test_a_question_spanning_the_documents_hears_from_each_before_a_third_chunk_of_one():
    from tripartite.search import hybrid

    def item(chunk_id: str, document: str, score: float) -> dict:
        return {"kind": "chunk", "chunk": {"chunk_id": chunk_id, "document_id": document}, "score": score,
                "redundancy": 0.0}

    def order(items: list[dict]) -> list[str]:
        shares, quoted, taken, pending = hybrid.document_shares(items), set(), [], list(items)
        while pending:
            best = max(pending, key=lambda i: hybrid.merit(i, shares, quoted))
            pending.remove(best)
            taken.append(best["chunk"]["chunk_id"])
            quoted.add(best["chunk"]["document_id"])
        return taken

    # B's best is nearly A's: the question spans both, and B's first chunk comes before A's second.
    spanning = [item("a1", "A", 0.50), item("a2", "A", 0.48), item("b1", "B", 0.47)]
    shares = hybrid.document_shares(spanning)
    assert sum(shares.values()) == pytest.approx(1.0) and shares["A"] > shares["B"] > 0.3
    assert order(spanning) == ["a1", "b1", "a2"]
    # B far below A: the question is about A, whose chunks come first.
    focused = [item("a1", "A", 0.50), item("a2", "A", 0.48), item("b1", "B", 0.35)]
    assert hybrid.document_shares(focused)["A"] > 0.9
    assert order(focused) == ["a1", "a2", "b1"]
    # A community summary has no document and gains nothing.
    summary = {"kind": "community", "score": 0.49, "redundancy": 0.0}
    assert hybrid.merit(summary, shares, set()) == pytest.approx(0.49)


def test_a_chunk_the_questions_reading_cannot_read_is_quoted_as_an_excerpt_even_first():
    from tripartite.search import hybrid

    sentences = [f"Sentence {n} says one more thing about the system." for n in range(8)]
    scores = [0.2, 0.2, 0.2, 0.8, 0.2, 0.2, 0.2, 0.2]  # one sentence matches; it and its neighbours are the excerpt

    def item(chunk_id: str, unread: float) -> dict:
        return {"kind": "chunk", "chunk": {"chunk_id": chunk_id, "document": "d", "section_path": ["d"], "index": 0},
                "sentences": sentences, "sentence_scores": scores, "unread": unread}

    for chunk_id, unread, quoted in (("read", 0.0, set(range(8))), ("unread", 1.0, {2, 3, 4})):
        packing = hybrid.Packing("What does the system do?", 1000)
        assert packing.try_add(item(chunk_id, unread), packing.tokens()) is not None
        assert set(packing.chunks[chunk_id]["sentences"]) == quoted, chunk_id


def test_a_best_sentence_that_points_back_is_quoted_with_the_one_before_when_room_is_short():
    from tripartite.search import hybrid

    sentences = ["Doctors prescribe beta blockers and calcium channel blockers to slow the heart.",
                 "Several other medicines also are available for other people.",
                 "These medicines help bring the heart rate to a normal level.",
                 "Rate control is the recommended treatment for most patients who have AF today.",
                 "Most people feel better and can function well when the rate is controlled."]

    def item(scores: list[float]) -> dict:
        return {"kind": "chunk", "chunk": {"chunk_id": "c", "document": "d", "section_path": ["d"], "index": 0},
                "sentences": sentences, "sentence_scores": scores, "unread": 0.0}

    def quoted(scores: list[float]) -> set[int]:
        """What the chunk is quoted as in the least room that takes it: neither whole nor as its
        excerpt (the best sentence and both its neighbours), but as its best sentence and one more."""
        for room in range(200):
            packing = hybrid.Packing("Which drugs slow the heart?", 0)
            used = packing.tokens()
            packing.max_tokens = used + room
            if packing.try_add(item(scores), used) is not None:
                return set(packing.chunks["c"]["sentences"])
        raise AssertionError("never taken")

    # "These medicines ..." names nothing alone: the sentence before it comes with it ...
    assert quoted([0.1, 0.5, 0.9, 0.5, 0.1]) == {1, 2}
    # ... a sentence that stands alone brings the one after it, as before.
    assert quoted([0.1, 0.5, 0.5, 0.9, 0.1]) == {3, 4}
    assert excerpts.leans_back("These medicines help.") and excerpts.leans_back("这一层链式计算也支持分布式。")
    assert not excerpts.leans_back("Thermal limits apply.") and not excerpts.leans_back("Then the motor stops.")


def test_a_picture_is_no_sentence_of_a_passage():
    text = ("A mesh needs at least three points along each axis.\n\n![bed mesh](img/bedmesh.svg)\n\n"
            "See ![the tower](img/tower.jpg) for the print.")
    # The picture alone is dropped (its file name is all a prompt could quote of it); a sentence
    # that shows one among its words stays.
    assert excerpts.sentence_units(text) == ["A mesh needs at least three points along each axis.",
                                             "See ![the tower](img/tower.jpg) for the print."]
    assert excerpts.sentence_units("![only](a.png) ![pictures](b.png)") == []


def test_a_long_chinese_sentence_is_quoted_by_its_clauses_not_whole():
    from tripartite.lexical.sentences import split_clauses

    # One "sentence" (no 。) chaining four clauses with "，": the answer is in the last.
    clauses = ["模型微调是任何一个企业在垂直、细分领域落地不可或缺的能力，", "DB-GPT提供了完整的微调框架，",
               "实现与DB-GPT项目的无缝打通，", "在最近的微调中，基于spider的准确率已经做到了82.5%"]
    sentence = "".join(clauses)
    assert count_tokens(sentence) > excerpts.LONG_SENTENCE
    units = excerpts.sentence_units(f"{sentence}\n\n短句一。短句二。")
    assert len(units) > 3 and "".join(units[:-2]) == sentence and units[-2:] == ["短句一。", "短句二。"]
    assert all(count_tokens(u) >= excerpts.CLAUSE_TOKENS / 2 for u in units[:-2])
    assert units[-3].endswith("82.5%")
    # Quoted together, the runs read as the sentence did (no space after a full-width comma);
    # a skip is still marked.
    assert excerpts.excerpt(dict(enumerate(units[:-2]))) == sentence
    assert excerpts.excerpt({0: units[0], 2: units[2]}) == f"{units[0]} ... {units[2]}"
    # English: a sentence without clause ends, however long, stays whole; a comma is not a clause end.
    long_english = "Beta blockers, ACE inhibitors, diuretics and statins " * 8 + "are common."
    assert split_clauses(long_english, count_tokens, 20) == [long_english]
    assert split_clauses("One part here; two part there; end", len, 10) == ["One part here;", "two part there; end"]


def test_a_long_question_is_echoed_cut_at_a_word():
    from tripartite.evaluation.questions import _echo

    long = "When was the community edition of the graph database co-developed by Ant Group open-sourced?"
    assert _echo(long) == "When was the community edition of the graph database co-developed ..."
    assert _echo("How long?") == "How long?"
    assert _echo("图" * 100) == "图" * 68 + " ..."  # no spaces: cut where the width ends


def test_a_mode_whose_prompts_stop_short_of_the_budget_is_noted():
    from tripartite.evaluation.questions import Summary, budget_notes

    summaries = [Summary("global", 1000, 20, 808, 0.14, 0.4, 0, 0), Summary("global", 2000, 20, 842, 0.14, 0.4, 0, 0),
                 Summary("hybrid", 2000, 20, 1994, 0.7, 0.6, 3, 1)]
    assert budget_notes(summaries) == ["global: its prompts stop short of the budget at 2,000 (median 842 tokens): "
                                       "all it found fits, so a larger budget adds nothing"]
