"""The embedding models: the default reads each language with its own model, any model stays
selectable (the previous default by name, an ONNX folder by path, an endpoint), and a model
change says what must be re-embedded and re-embeds it, resumably."""
import json
import os
import shutil
import sys

import numpy as np
import pytest

from conftest import cli_env, ingest_documents, invoke, kill_when, load_sample, ok
from tripartite.infra.config import load_settings


@pytest.fixture(scope="module")
def default():
    from tripartite.infra.embeddings import local_embedder

    return local_embedder(load_settings(env={}))


def test_each_language_is_read_by_its_own_model_and_never_compared_with_another(default):
    from tripartite.infra.embeddings import MiniLMEmbedder
    from tripartite.infra.languages import text_language

    assert default.name == "all-MiniLM-L6-v2+bge-small-zh-v1.5" and default.dimensions == 384 + 512
    texts = ["Anticoagulants lower the risk of stroke.", "抗凝药降低中风的风险。", "Blood thinners prevent strokes.",
             "血液稀释剂可预防中风。", "TuGraph 是蚂蚁集团研发的图数据库，支持可串行化隔离。"]
    assert [text_language(t) for t in texts] == ["en", "zh", "en", "zh", "zh"]
    vectors = default.embed(texts)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not vectors[0, 384:].any() and not vectors[1, :384].any()  # one block each
    similarity = vectors @ vectors.T
    assert similarity[0, 1] == 0.0 and similarity[2, 3] == 0.0  # two languages: never compared
    assert similarity[0, 2] > 0.5 and similarity[1, 3] > 0.5  # one language: its model's cosine
    minilm = MiniLMEmbedder(load_settings(env={}).cache_dir)
    assert np.allclose(vectors[[0, 2], :384], minilm.embed([texts[0], texts[2]]), atol=1e-6)  # English as before


def test_a_texts_vector_does_not_depend_on_the_texts_embedded_beside_it(default):
    """bge-small-zh-v1.5's artifact is quantized with one scale per batch: run beside other texts, a
    text's vector moved (cosine 0.995 to itself alone), so stored vectors and prompts depended on
    what else was embedded. Such a model runs one text at a time; the English model keeps its batches."""
    from tripartite.infra.embeddings import forget_recent_vectors

    chinese, english = default.members["zh"], default.members["en"]
    assert chinese.batch_size == 1 and english.batch_size > 1
    for model, text, others in ((chinese, "基于AI技术的项目主题标签分析。", ["图数据库由蚂蚁集团研发支持分布", "短句。"]),
                                (english, "Beta blockers slow the heart.", ["A much longer sentence " * 6, "Hi."])):
        forget_recent_vectors()
        alone = model.embed([text])[0]
        forget_recent_vectors()
        beside = model.embed([text, *others])[0]
        assert np.allclose(alone, beside, atol=1e-5), model.name


def test_an_english_question_is_read_by_the_chinese_model_too_and_each_reading_meets_its_own_block(default):
    from tripartite.infra.question_vectors import CROSS_LANGUAGE_WEIGHT, question_readings, question_vector

    english, chinese = "Which drugs lower the risk of stroke?", "哪些药物可以降低中风的风险？"
    readings = question_readings(default, english)
    assert [w for _, w in readings] == [1.0, CROSS_LANGUAGE_WEIGHT]
    assert not readings[0][0][384:].any() and not readings[1][0][:384].any()  # each in its model's block
    assert len(question_readings(default, chinese)) == 1  # all-MiniLM-L6-v2 cannot read Chinese
    passages = ["抗凝药降低中风的风险。", "图数据库支持可串行化隔离。", "Anticoagulants lower the risk of stroke.",
                "Graph databases support serializable isolation."]
    closeness = default.embed(passages) @ question_vector(default, english)
    english_only = default.embed(passages) @ default.embed([english])[0]
    assert english_only[0] == english_only[1] == 0.0  # read by its own model alone, the question misses Chinese
    assert closeness[0] > closeness[1] and closeness[2] > closeness[3]  # read by both, it finds each language's
    assert np.allclose(closeness[2:], english_only[2:], atol=1e-6)  # English passages as before


def test_hybrid_knows_whether_a_model_reads_the_question_in_the_other_language(default):
    """bge-small-zh-v1.5 reads an English question, all-MiniLM-L6-v2 no Chinese one; a model of
    Latin script alone reads neither language's passages for the other's questions."""
    from tripartite.infra.question_vectors import question_readings
    from tripartite.search.hybrid import reads_across

    english, chinese = "Which drugs lower the risk of stroke?", "哪些药物可以降低中风的风险？"
    assert reads_across(default, question_readings(default, english))
    assert not reads_across(default, question_readings(default, chinese))
    minilm = default.members["en"]
    assert not reads_across(minilm, question_readings(minilm, english))


def test_vector_rag_finds_a_chinese_passage_for_an_english_question(neo4j_db, tmp_path):
    ingest_documents(neo4j_db, tmp_path, {"mixed.md": "# 药物\n\n## 抗凝\n\n华法林等抗凝药可以降低心房颤动患者发生中风的风险。\n\n"
                                                      "## 数据库\n\n图数据库的事务采用可串行化隔离级别。\n\n"
                                                      "## Gardening\n\nTomatoes need full sun and regular watering "
                                                      "in summer.\n"})
    from tripartite.infra.embeddings import make_embedder
    from tripartite.infra.graph import Graph
    from tripartite.search.vector import retrieve

    with neo4j_db.driver() as driver:
        graph = Graph(driver, neo4j_db.database)
        embedder, question = make_embedder(load_settings(env={})), "Which medicines lower the risk of stroke?"
        ranked = retrieve(graph, embedder, question, None, None)
        # The top k are the first k of the whole ranking, whatever the other reading's chunks score.
        for k in (1, 2):
            assert retrieve(graph, embedder, question, k, None) == ranked[:k]
    assert "华法林" in ranked[0]["text"] and "Tomatoes" in ranked[-1]["text"]
    assert 0.5 < ranked[0]["score"] <= 1.0  # (1 + cos) / 2, the cosine of the Chinese model's reading


def test_local_search_ranks_a_chinese_source_first_for_an_english_question(neo4j_db, tmp_path):
    ingest_documents(neo4j_db, tmp_path, {"mixed.md": "# 药物\n\n## 抗凝\n\n华法林等抗凝药可以降低心房颤动患者发生中风的风险。\n\n"
                                                      "## Gardening\n\nTomatoes need full sun and regular watering "
                                                      "in summer.\n"})
    from tripartite.infra.embeddings import make_embedder
    from tripartite.infra.graph import Graph
    from tripartite.search.local_search import local_search

    with neo4j_db.driver() as driver:
        graph = Graph(driver, neo4j_db.database)
        found = local_search(graph, "Which medicines lower the risk of stroke?", make_embedder(load_settings(env={})))
    # No triplet graph: the closest chunks stand in, the question read by both models (the
    # English model alone would have put the gardening chunk first: the Chinese one is 0 to it).
    assert "the chunks closest to the question stand in" in found["note"]
    assert [r["section_path"][-1] for r in found["references"]] == ["抗凝", "Gardening"]


def test_a_model_in_a_folder_is_used_by_its_path(tmp_path):
    """An ONNX sentence-embedding model exported into a folder: named by its path, its size
    read from the model, its pooling from tripartite-model.json."""
    from tripartite.infra import model_assets
    from tripartite.infra.embeddings import MiniLMEmbedder, make_embedder

    folder = tmp_path / "my-model"
    folder.mkdir()
    settings = load_settings(env={})
    shutil.copy(model_assets.onnx_model_path(), folder / "model.onnx")
    shutil.copy(model_assets.tokenizer_path(settings.cache_dir), folder / "tokenizer.json")
    (folder / "tripartite-model.json").write_text(json.dumps({"name": "my-minilm", "pooling": "mean"}))
    embedder = make_embedder(load_settings(env={"TRIPARTITE_EMBEDDING_MODEL": str(folder)}))
    assert embedder.name == "my-minilm" and embedder.dimensions == 384
    text = ["Heart failure means the heart pumps too weakly."]
    assert np.allclose(embedder.embed(text), MiniLMEmbedder(settings.cache_dir).embed(text), atol=1e-6)
    with pytest.raises(Exception) as refused:
        make_embedder(load_settings(env={"TRIPARTITE_EMBEDDING_MODEL": str(tmp_path / "nothing-here")}))
    assert "neither a known model" in str(refused.value)
    (folder / "model.onnx").unlink()
    with pytest.raises(Exception) as refused:
        make_embedder(load_settings(env={"TRIPARTITE_EMBEDDING_MODEL": str(folder)}))
    assert "holds model.onnx" in str(refused.value)


@pytest.mark.neo4j
@pytest.mark.slow
def test_a_model_change_says_what_to_re_embed_and_re_embeds_it_resumably(neo4j_db, driver, tmp_path):
    """A graph made with all-MiniLM-L6-v2 (the previous default), analysed, selected and with
    communities; the default changes: `embed --dry-run` names what each model made, what goes
    again and about how long; a run killed halfway resumes; then every vector is the new
    model's, the indexes have its size, doctor says so, and prompts work after a select."""
    old = cli_env(neo4j_db, tmp_path, TRIPARTITE_EMBEDDING_MODEL="all-MiniLM-L6-v2")
    load_sample(old, ["analyze"], ["select"], ["kg", "extract"], ["kg", "communities", "--min-size", "3"])
    new = cli_env(neo4j_db, tmp_path)
    planned = json.loads(ok(["embed", "--dry-run", "--json"], new))
    assert {row["model"] for row in planned["by_model"]} == {"all-MiniLM-L6-v2"}
    stale = planned["stale"]
    assert stale["chunks"] > 0 and stale["extracts"] > 0 and stale["communities"] > 0 and planned["seconds"] > 0
    assert sorted(planned["indexes_rebuilt"]) == ["chunk_embedding", "community_embedding"]
    text = ok(["embed", "--dry-run"], new)
    assert f"to re-embed: {stale['chunks']:,} chunks, {stale['extracts']:,} extracts" in text

    def halfway() -> bool:
        rows = driver.execute_query("MATCH (t:Chunk) WHERE t.embedding_model = 'all-MiniLM-L6-v2+bge-small-zh-v1.5' "
                                    "RETURN count(t) AS n").records
        return rows[0]["n"] > 0
    kill_when([sys.executable, "-m", "tripartite", "embed"], {**os.environ, **new}, halfway)
    left = json.loads(ok(["embed", "--dry-run", "--json"], new))["stale"]
    assert 0 < sum(left.values()) < sum(stale.values()), left  # stopped halfway: the rest waits
    assert "embedded" in ok(["embed"], new)
    assert json.loads(ok(["embed", "--dry-run", "--json"], new))["stale"] == {"chunks": 0, "extracts": 0,
                                                                                "communities": 0}
    sizes = {r["name"]: r["d"] for r in driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, options RETURN name, options.indexConfig.`vector.dimensions` AS d").records}
    assert sizes["chunk_embedding"] == sizes["community_embedding"] == 896
    doctor = {c["name"]: c for c in json.loads(invoke(["doctor", "--json"], new).output)}["vectors embedded"]
    assert doctor["ok"] and "extracts" in doctor["detail"]
    assert invoke(["prompt", "patient-a"], new).exit_code == 1  # the extracts changed: select first
    ok(["select"], new)
    assert "References:" in ok(["prompt", "patient-a"], new)
    assert ok(["search", "global", "What should people with heart disease do?"], new)
