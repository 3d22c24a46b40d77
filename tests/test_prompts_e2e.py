"""The sample corpus end to end: analyze, select, the Tripartite prompt, the vector-RAG
baseline and `ask` against an OpenAI-compatible HTTP server."""
import json

import pytest
from click.testing import CliRunner

from conftest import cli_env, load_sample
from fake_openai import FakeOpenAI
from tripartite.cli import cli
from tripartite.lexical.trails import references_block

pytestmark = pytest.mark.neo4j


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


@pytest.fixture(scope="module")
def selected(module_db, tmp_path_factory):
    """The sample, analysed and selected once for the module's tests, which only read it."""
    return load_sample(cli_env(module_db, tmp_path_factory.mktemp("selected")), ["analyze"],
                       ["select", "--alpha", "0.8", "--beta", "0.4"])


def test_tripartite_prompt_covers_the_objects_concepts_with_references(selected):
    data = json.loads(invoke(["prompt", "patient-b", "--format", "json"], selected).output)
    names = [c["name"] for c in data["concepts"]]
    assert "Atrial fibrillation" in names and "Anticoagulants" in names
    assert data["alpha"] == 0.8 and data["beta"] == 0.4
    evidence = [e for c in data["concepts"] for e in c["evidence"]]
    assert all(c["evidence"] for c in data["concepts"])  # the floor: no concept goes without evidence
    assert all(e["reason"] == "floor" or (e["reason"] in ("alpha", "beta") and e["p"] > 0.4) for e in evidence)
    assert all(e["section_path"] and e["document"] for e in evidence)
    paper = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--selection", "paper"], selected).output)
    assert all(e["reason"] in ("alpha", "beta") for c in paper["concepts"] for e in c["evidence"])
    for budget in (300, 450, 600):
        fitted = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--max-tokens", str(budget)],
                                   selected).output)
        assert fitted["tokens"] <= budget and fitted["max_tokens"] == budget
    text = invoke(["prompt", "patient-b"], selected).output
    assert text.startswith("Question:") and "References:" in text
    budget = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--max-per-concept", "1"], selected).output)
    assert [c["concept_id"] for c in budget["concepts"]] == [c["concept_id"] for c in data["concepts"]]
    assert all(len(c["evidence"]) <= 1 for c in budget["concepts"]) and budget["tokens"] <= data["tokens"]
    assert invoke(["prompt", "patient-b", "--max-per-concept", "0"], selected).exit_code == 2


def test_prompts_name_the_codes_asked_for_and_fit_the_budget_with_them(selected):
    """--codes prints each concept's codes beside its name (the plugin's xrefs), only the prefixes
    asked for; the JSON lists them; a budget still holds with the codes in."""
    plain = json.loads(invoke(["prompt", "patient-b", "--format", "json"], selected).output)
    assert "codes" not in plain["concepts"][0] and "ICD10CM:" not in plain["prompt"]
    icd = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--codes", "icd10cm"], selected).output)
    by_name = {c["name"]: c["codes"] for c in icd["concepts"]}
    assert by_name["Atrial fibrillation"] == ["ICD10CM:I48"] and by_name["Anticoagulants"] == []
    assert "Atrial fibrillation (ICD10CM:I48)" in icd["prompt"] and "MESH:" not in icd["prompt"]
    every = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--codes", "all"], selected).output)
    assert {c["name"]: c["codes"] for c in every["concepts"]}["Atrial fibrillation"] == [
        "DOID:0060224", "ICD10CM:I48", "MESH:D001281"]
    assert every["tokens"] > plain["tokens"]
    fitted = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--codes", "all", "--max-tokens", "400"],
                               selected).output)
    assert fitted["tokens"] <= 400 and "ATC:B01A" in fitted["prompt"]


def test_ontology_find_by_code_name_or_synonym(selected):
    """A code matches whole, with or without its prefix; a name or synonym whole, then as a part;
    each found concept with its codes and its neighbours."""
    def found(*args):
        return json.loads(invoke(["ontology", "find", *args, "--json"], selected).output)

    by_code = found("i21")
    assert [r["id"] for r in by_code] == ["cardiology:myocardial_infarction"]
    assert by_code[0]["matched"] == "cross-reference ICD10CM:I21"
    assert by_code[0]["broader"] == ["cardiology:coronary_artery_disease Coronary artery disease"]
    assert found("MESH:D009203")[0]["id"] == "cardiology:myocardial_infarction"
    assert found("Heart Attack")[0]["matched"] == 'synonym "heart attack"'
    assert found("Coronary artery disease")[0]["narrower"] == [
        "cardiology:myocardial_infarction Myocardial infarction"]
    parts = found("blood", "--limit", "3")
    assert len(parts) == 3 and all("blood" in " ".join([r["name"], *r["synonyms"]]).lower() for r in parts)
    assert found("no such thing at all") == []
    text = invoke(["ontology", "find", "no such thing at all"], selected)
    assert text.exit_code == 0 and "no concept has that code, name or synonym" in text.output


def test_a_budget_no_extract_fits_is_said_not_hidden(selected):
    """The question and the object's own words are kept whatever the budget: below them the
    prompt cites nothing, says so in its preamble, and the command notes why."""
    bare = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--max-tokens", "50"], selected).output)
    assert bare["references"] == [] and bare["tokens"] > 50 and bare["dropped"] > 0
    assert f"the prompt is {bare['tokens']:,} tokens, over the budget of 50" in bare["note"]
    assert "(no reference extract is included)" in bare["prompt"] and "References:" not in bare["prompt"]
    assert "what the references [n] say" not in bare["prompt"]
    text = invoke(["prompt", "patient-b", "--max-tokens", "50"], selected)
    assert text.exit_code == 0 and "note: the prompt is" in text.stderr
    room = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--max-tokens", str(bare["tokens"] + 5)],
                             selected).output)
    assert room["tokens"] <= bare["tokens"] + 5 and not room["references"]
    assert room["note"].startswith("no reference extract fits the budget")
    whole = json.loads(invoke(["prompt", "patient-b", "--format", "json"], selected).output)
    assert whole["references"] and "note" not in whole and "what the references [n] say" in whole["prompt"]


def test_rag_baseline_top_k_and_min_score(selected):
    top3 = json.loads(invoke(["rag-prompt", "patient-b", "--top-k", "3", "--format", "json"], selected).output)
    assert list(top3) == ["object_id", "tokens", "prompt", "chunks"]
    assert len(top3["chunks"]) == 3 and list(top3["chunks"][0]) == ["chunk_id", "score", "text"]
    scores = [c["score"] for c in top3["chunks"]]
    assert scores == sorted(scores, reverse=True)
    assert top3["chunks"][0]["chunk_id"].startswith("atrial-fibrillation:")  # AFib patient, AFib guideline
    loose = json.loads(invoke(["rag-prompt", "patient-b", "--min-score", "0.6", "--format", "json"], selected).output)
    strict = json.loads(invoke(["rag-prompt", "patient-b", "--min-score", "0.75", "--format", "json"], selected).output)
    assert len(loose["chunks"]) > len(strict["chunks"]) and loose["tokens"] > strict["tokens"]
    assert all(c["score"] >= 0.75 for c in strict["chunks"])
    both = invoke(["rag-prompt", "patient-b", "--top-k", "3", "--min-score", "0.5"], selected)
    assert both.exit_code == 2 and "exactly one of" in both.output


@pytest.mark.parametrize("object_id", ["patient-a", "patient-b", "patient-c"])
def test_rag_top_k_is_the_exact_top_of_all_chunks(selected, object_id):
    # The vector index is approximate; the baseline must still get the k best chunks.
    def ids(k):
        data = json.loads(invoke(["rag-prompt", object_id, "--top-k", str(k), "--format", "json"], selected).output)
        return [c["chunk_id"] for c in data["chunks"]]
    everything = ids(1000)
    for k in (1, 3, 5, 10):
        assert ids(k) == everything[:k]


def test_ask_sends_the_prompt_and_prints_references(selected):
    offline = invoke(["ask", "patient-b"], selected)
    assert offline.exit_code == 1 and "ask needs an LLM" in offline.output
    with FakeOpenAI() as server:
        env = {**selected, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        result = invoke(["ask", "patient-b", "--question", "Should she get a blood thinner?"], env)
        assert result.exit_code == 0, result.output
        sent = server.chat_requests()[0]["body"]
        system, user = sent["messages"]
        assert system["role"] == "system" and "cite the references" in system["content"]
        assert user["content"].startswith("Question: Should she get a blood thinner?")
        assert "response_format" not in sent
        # The references printed are the prompt's own, with its numbers.
        prompt = json.loads(invoke(["prompt", "patient-b", "--format", "json", "--question",
                                    "Should she get a blood thinner?"], env).output)
        assert user["content"] == prompt["prompt"].rstrip("\n")
        printed = result.output.split("References:\n", 1)[1].strip().splitlines()
        assert printed == references_block(prompt["references"])
        assert printed[1] == f"[1] {prompt['references'][0]['section_path'][-1]} (chunk {prompt['references'][0]['index']})"
        again = invoke(["ask", "patient-b", "--question", "Should she get a blood thinner?"], env)
        assert again.output == result.output and len(server.chat_requests()) == 1  # cached


def test_graphrag_with_the_tripartite_retriever(selected, module_db):
    # neo4j-graphrag users get the prompt where they look: a Retriever taking an object id.
    from neo4j_graphrag.generation import GraphRAG
    from neo4j_graphrag.llm import OpenAILLM

    from tripartite.search.retriever import TRIPARTITE_TEMPLATE, TripartiteRetriever

    with module_db.driver() as driver:
        retriever = TripartiteRetriever(driver, module_db.database, max_tokens=500)
        found = retriever.search(query_text="patient-b")
        built = found.metadata["tripartite"]
        assert "\n".join(item.content for item in found.items) == built["prompt"].rstrip("\n")
        assert built["tokens"] <= 500 and built["references"]
        with FakeOpenAI() as server:
            llm = OpenAILLM("fake-chat", base_url=server.base_url, api_key="test")
            # The documented template: the prompt alone, its first line the plugin's question
            # (GraphRAG's default would append "Question: patient-b").
            rag = GraphRAG(retriever, llm, prompt_template=TRIPARTITE_TEMPLATE)
            result = rag.search(query_text="patient-b", return_context=True)
            assert isinstance(result.answer, str)
            user = [m["content"] for m in server.chat_requests()[0]["body"]["messages"] if m["role"] == "user"]
            assert user[-1].rstrip("\n") == built["prompt"].rstrip("\n")
            assert user[-1].startswith("Question: ") and "Question: patient-b" not in user[-1]


# Last: it empties the database the tests above share.
def test_demo_runs_end_to_end(neo4j_db, tmp_path, driver):
    env = cli_env(neo4j_db, tmp_path)
    result = invoke(["demo", "--json"], env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["errors"] == [] and data["ingested"] == 3
    assert data["prompt"]["object_id"] == "patient-b" and "References:" in data["prompt"]["prompt"]
    rows = {(row["object_id"], row["method"]): row for row in data["table"]}
    assert sorted({o for o, _ in rows}) == ["patient-a", "patient-b", "patient-c"]
    assert {m for _, m in rows} == {"Tripartite", "RAG top-3", "RAG top-5", "RAG same budget", "Local search",
                                   "Global search"}
    for object_id in ("patient-a", "patient-b", "patient-c"):
        ours = rows[(object_id, "Tripartite")]
        # judged: the lexicon judge's, of the concepts the note names; covered: the pre-analysis's
        # older measure, of the concepts it found (it reads inflections the judge does not).
        assert ours["concepts"] > 0 and 0 <= ours["judged"] <= ours["concepts"] and ours["chunks"] > 0
        assert 0 <= ours["covered"] <= ours["analysed"]
        assert rows[(object_id, "RAG top-5")]["tokens"] > rows[(object_id, "RAG top-3")]["tokens"]
        assert rows[(object_id, "RAG top-5")]["chunks"] == 5
    # Run twice: everything is already there, nothing is duplicated.
    again = json.loads(invoke(["demo", "--json"], env).output)
    assert again["table"] == data["table"] and again["ingested"] == 0
    text = invoke(["demo"], env).output
    assert "| object | concepts | Tripartite tokens / covered | RAG top-3 tokens / covered |" in text
