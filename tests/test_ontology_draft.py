"""`ontology draft` and a large imported ontology in a real Neo4j holding the sample: the
sample is loaded once for the module (these tests only read it, or undo what they add)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import cli_env, load_sample, ok
from fake_openai import FakeOpenAI
from tripartite.ontology.plugins import resolve

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def loaded(neo4j_target, tmp_path_factory):
    from conftest import empty

    empty(neo4j_target)
    yield load_sample(cli_env(neo4j_target, tmp_path_factory.mktemp("draft")))


def as_json_text(args: list[str], env: dict) -> dict:
    return json.loads(ok([*args, "--json"], env))


def concepts_of(data: dict) -> dict[str, dict]:
    return {c["name"]: {**c, "class": k["name"]} for k in data["classes"] for c in k["concepts"]}


def written(folder: Path) -> dict:
    return yaml.safe_load((folder / "ontology.yaml").read_text(encoding="utf-8"))


def test_offline_draft_proposes_concepts_that_say_where_they_were_seen(loaded, tmp_path):
    summary = as_json_text(["ontology", "draft", "--name", "drafted", "--out", str(tmp_path), "--concepts", "20"],
                               loaded)
    assert summary["how"] == "offline key phrases" and 2 <= summary["concepts"] <= 20
    data = written(tmp_path / "drafted")
    concepts = concepts_of(data)
    assert {"atrial fibrillation", "heart failure"} <= set(concepts)
    for concept in concepts.values():
        assert "chunk(s) in" in concept["seen"][0] and concept["seen"][1:]
    parsed, _ = resolve(str(tmp_path / "drafted"))  # what `ontology load` validates before it writes
    assert len(parsed.concepts) == summary["concepts"]


def test_seeded_draft_keeps_the_seed_concepts_the_documents_name(loaded, tmp_path):
    seed = tmp_path / "seed.csv"
    seed.write_text("id,name,parent,synonyms\nC0,cardiovascular disease,,\nC1,arrhythmia,C0,\n"
                    "C2,atrial fibrillation,C1,AF\nC3,ventricular tachycardia,C1,\nC4,vascular disease,C0,\n"
                    "C5,hypertension,C4,high blood pressure\nC6,aortic dissection,C4,\n"
                    "C7,atrial flutter,C1;C99,\n", encoding="utf-8")
    summary = as_json_text(["ontology", "draft", "--name", "seeded", "--out", str(tmp_path), "--seed", str(seed),
                                "--root", "C0", "--concepts", "5"], loaded)
    # ventricular tachycardia, aortic dissection, flutter, and the class terms arrhythmia and vascular
    # disease (concepts too, since every term under the root is one): not in the sample
    assert summary["seed_unseen"] == 5
    assert [p for p in summary["problems"] if "C99" in p] == [
        "C7 (atrial flutter) is_a C99, which is not in the file; that link is dropped"]  # reported, as import does
    concepts = concepts_of(written(tmp_path / "seeded"))
    assert concepts["atrial fibrillation"]["class"] == "arrhythmia"
    assert "Atrial fibrillation" in " ".join(concepts["atrial fibrillation"]["seen"])
    assert sum(c["seen"][0].startswith("not in the seed") for c in concepts.values()) <= 5


def test_draft_with_an_llm_reads_a_sample_and_is_cached(loaded, tmp_path):
    with FakeOpenAI() as server:
        env = {**loaded, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        args = ["ontology", "draft", "--name", "llm", "--out", str(tmp_path), "--sample", "12", "--force"]
        first = as_json_text(args, env)
        calls = len(server.chat_requests())
        assert calls == 2 and first["prompt_tokens"] > 0 and first["concepts"] > 0  # 12 chunks, 6 per call
        second = as_json_text(args, env)
        assert len(server.chat_requests()) == calls and second["prompt_tokens"] == 0
    concepts = concepts_of(written(tmp_path / "llm"))
    assert all(c["seen"][0].startswith("proposed from") for c in concepts.values())


def test_a_large_ontology_keeps_each_chunk_prompt_bounded(loaded, tmp_path):
    """600 concepts: the dry run counts calls and tokens, and no chunk is offered more than
    one call's worth of concepts, nor an object more than three calls'."""
    rows = ["id,name,parent,synonyms", "R,root,,", "K1,class one,R,", "K2,class two,R,"]
    rows += [f"T{i},term {i} of heart,{'K1' if i % 2 else 'K2'}," for i in range(600)]
    table = tmp_path / "large.csv"
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    ok(["ontology", "import", str(table), "--root", "R", "--name", "large", "--out", str(tmp_path), "--load"], loaded)
    try:
        dry = as_json_text(["analyze", "--dry-run", "--ontology", "large"], loaded)
        assert dry["pairs"]["naive_calls"] == 602 * 24 and dry["chunk"]["calls"] <= 24
        assert dry["object"]["calls"] <= 3 * 3 and dry["chunk"]["prompt_tokens"] > 0
    finally:
        ok(["ontology", "remove", "large"], loaded)
