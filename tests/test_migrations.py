"""The migration runner against a real Neo4j: order, idempotence, drift, atomicity."""
from pathlib import Path

import pytest

from conftest import migrations_before
from tripartite.infra import migrations
from tripartite.infra.errors import MigrationError
from tripartite.infra.graph import Graph
from tripartite.infra.paths import migrations_dir

pytestmark = [pytest.mark.neo4j, pytest.mark.bare]  # each test starts from no schema at all

DB = "neo4j"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def run(driver, folder, database):
    return [m.name for m in migrations.migrate(Graph(driver, database), folder)]


def scalar(driver, query, database, **params):
    records, _, _ = driver.execute_query(query, params, database_=database)
    return records[0][0]


def recorded_versions(driver, database):
    records, _, _ = driver.execute_query(
        "MATCH (m:__TripartiteMigration) RETURN m.version AS v ORDER BY m.applied_at, m.version", database_=database)
    return [r["v"] for r in records]


def test_applies_in_version_order_not_name_order(driver, neo4j_db, tmp_path):
    # Each migration depends on the one before it, so a wrong order fails.
    write(tmp_path, "V10__third.cypher", "MATCH (s:Step {n: 2}) CREATE (:Step {n: 3});")
    write(tmp_path, "V2__second.cypher", "MATCH (s:Step {n: 1}) CREATE (:Step {n: 2});")
    write(tmp_path, "V1__first.cypher", "CREATE (:Step {n: 1});")
    assert run(driver, tmp_path, neo4j_db.database) == ["V1__first.cypher", "V2__second.cypher", "V10__third.cypher"]
    assert scalar(driver, "MATCH (s:Step) WITH s ORDER BY s.n RETURN collect(s.n) AS ns", neo4j_db.database) == [1, 2, 3]
    assert recorded_versions(driver, neo4j_db.database) == [1, 2, 10]


def test_rerun_applies_nothing(driver, neo4j_db, tmp_path):
    write(tmp_path, "V001__nodes.cypher", "CREATE (:Thing {id: 1});\nCREATE (:Thing {id: 2});")
    write(tmp_path, "V002__schema.cypher", "CREATE CONSTRAINT thing_id IF NOT EXISTS FOR (t:Thing) REQUIRE t.id IS UNIQUE;")
    assert len(run(driver, tmp_path, neo4j_db.database)) == 2
    assert run(driver, tmp_path, neo4j_db.database) == []
    assert scalar(driver, "MATCH (t:Thing) RETURN count(t)", neo4j_db.database) == 2
    assert recorded_versions(driver, neo4j_db.database) == [1, 2]


def test_checksum_and_history_are_recorded(driver, neo4j_db, tmp_path):
    path = write(tmp_path, "V001__nodes.cypher", "CREATE (:Thing {id: 1});")
    run(driver, tmp_path, neo4j_db.database)
    records, _, _ = driver.execute_query("MATCH (m:__TripartiteMigration) RETURN m", database_=neo4j_db.database)
    node = records[0]["m"]
    assert node["checksum"] == migrations.checksum(path.read_text())
    assert node["description"] == "nodes" and node["file"] == "V001__nodes.cypher" and node["statements"] == 1
    assert node["applied_at"] is not None


def test_edited_applied_migration_stops_the_run(driver, neo4j_db, tmp_path):
    first = write(tmp_path, "V001__nodes.cypher", "CREATE (:Thing {id: 1});")
    run(driver, tmp_path, neo4j_db.database)
    first.write_text("CREATE (:Thing {id: 1, extra: true});")
    write(tmp_path, "V002__more.cypher", "CREATE (:Thing {id: 2});")
    with pytest.raises(MigrationError, match="V001__nodes.cypher: edited after it was applied"):
        run(driver, tmp_path, neo4j_db.database)
    assert scalar(driver, "MATCH (t:Thing) RETURN count(t)", neo4j_db.database) == 1  # V002 not applied
    states = {s.version: s.state for s in migrations.status(Graph(driver, neo4j_db.database), tmp_path)}
    assert states == {1: "changed", 2: "pending"}


def test_line_ending_changes_are_not_drift(driver, neo4j_db, tmp_path):
    first = write(tmp_path, "V001__nodes.cypher", "CREATE (:Thing {id: 1});\nCREATE (:Thing {id: 2});\n")
    run(driver, tmp_path, neo4j_db.database)
    first.write_bytes(b"CREATE (:Thing {id: 1});\r\nCREATE (:Thing {id: 2});\r\n")
    assert run(driver, tmp_path, neo4j_db.database) == []


def test_syntax_error_leaves_nothing_half_applied(driver, neo4j_db, tmp_path):
    write(tmp_path, "V001__ok.cypher", "CREATE (:Thing {id: 1});")
    write(tmp_path, "V002__broken.cypher", "CREATE (:Thing {id: 2});\nCREATE (:Thing {id: 3});\nMATCH (t:Thing RETURN t;")
    with pytest.raises(MigrationError, match=r"V002__broken.cypher:3: Cypher syntax error"):
        run(driver, tmp_path, neo4j_db.database)
    assert scalar(driver, "MATCH (t:Thing) RETURN collect(t.id)", neo4j_db.database) == [1]
    assert recorded_versions(driver, neo4j_db.database) == [1]


def test_runtime_failure_rolls_the_whole_file_back(driver, neo4j_db, tmp_path):
    write(tmp_path, "V001__schema.cypher", "CREATE CONSTRAINT thing_id IF NOT EXISTS FOR (t:Thing) REQUIRE t.id IS UNIQUE;")
    write(tmp_path, "V002__data.cypher", "CREATE (:Thing {id: 1});\nCREATE (:Other);\nCREATE (:Thing {id: 1});")
    with pytest.raises(MigrationError, match=r"V002__data.cypher:3: failed, rolled back"):
        run(driver, tmp_path, neo4j_db.database)
    assert scalar(driver, "MATCH (n) WHERE NOT n:__TripartiteMigration AND NOT n:__TripartiteLock RETURN count(n)",
                  neo4j_db.database) == 0
    assert recorded_versions(driver, neo4j_db.database) == [1]


def test_failing_schema_file_creates_none_of_its_indexes(driver, neo4j_db, tmp_path):
    write(tmp_path, "V001__data.cypher", "CREATE (:Dup {id: 1}), (:Dup {id: 1});")
    write(tmp_path, "V002__schema.cypher",
          "CREATE INDEX good_index IF NOT EXISTS FOR (d:Dup) ON (d.name);\n"
          "CREATE CONSTRAINT dup_id FOR (d:Dup) REQUIRE d.id IS UNIQUE;")  # existing duplicates violate it
    with pytest.raises(MigrationError, match="V002__schema.cypher"):
        run(driver, tmp_path, neo4j_db.database)
    names = scalar(driver, "SHOW INDEXES YIELD name RETURN collect(name)", neo4j_db.database)
    assert "good_index" not in names
    assert recorded_versions(driver, neo4j_db.database) == [1]


def test_mixed_schema_and_data_file_is_refused_before_anything_runs(driver, neo4j_db, tmp_path):
    write(tmp_path, "V001__mixed.cypher",
          "CREATE CONSTRAINT t IF NOT EXISTS FOR (t:Thing) REQUIRE t.id IS UNIQUE;\nCREATE (:Thing {id: 1});")
    with pytest.raises(MigrationError, match="mixes schema statements"):
        run(driver, tmp_path, neo4j_db.database)
    assert scalar(driver, "MATCH (t:Thing) RETURN count(t)", neo4j_db.database) == 0


def test_out_of_order_and_misnamed_files_are_refused(driver, neo4j_db, tmp_path):
    write(tmp_path, "V005__late.cypher", "CREATE (:Thing {id: 5});")
    run(driver, tmp_path, neo4j_db.database)
    write(tmp_path, "V003__early.cypher", "CREATE (:Thing {id: 3});")
    with pytest.raises(MigrationError, match="older than the newest applied migration V005"):
        run(driver, tmp_path, neo4j_db.database)
    (tmp_path / "V003__early.cypher").rename(tmp_path / "add_things.cypher")
    with pytest.raises(MigrationError, match="add_things.cypher: migration file names must look like"):
        run(driver, tmp_path, neo4j_db.database)


def test_deleted_applied_migration_is_reported(driver, neo4j_db, tmp_path):
    gone = write(tmp_path, "V001__gone.cypher", "CREATE (:Thing {id: 1});")
    run(driver, tmp_path, neo4j_db.database)
    gone.unlink()
    write(tmp_path, "V002__next.cypher", "CREATE (:Thing {id: 2});")
    assert [(s.version, s.state) for s in migrations.status(Graph(driver, neo4j_db.database), tmp_path)] == [
        (1, "missing"), (2, "pending")]
    with pytest.raises(MigrationError, match="applied in the database but missing"):
        run(driver, tmp_path, neo4j_db.database)


def test_status_lists_applied_and_pending(driver, neo4j_db, tmp_path):
    write(tmp_path, "V001__a.cypher", "CREATE (:A);")
    run(driver, tmp_path, neo4j_db.database)
    write(tmp_path, "V002__b.cypher", "CREATE (:B);")
    states = migrations.status(Graph(driver, neo4j_db.database), tmp_path)
    assert [(s.version, s.description, s.state) for s in states] == [(1, "a", "applied"), (2, "b", "pending")]
    assert states[0].applied_at and states[1].applied_at is None


def test_project_migrations_create_the_graph_schema(driver, neo4j_db):
    applied = run(driver, migrations_dir(), neo4j_db.database)
    assert applied and applied[0].startswith("V001__")
    records, _, _ = driver.execute_query(
        "SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type WHERE type = 'UNIQUENESS' "
        "RETURN labelsOrTypes[0] AS label, properties AS properties", database_=neo4j_db.database)
    unique = {(r["label"], tuple(r["properties"])) for r in records}
    for label in ("Document", "Section", "Chunk", "Ontology", "ConceptClass", "Concept", "Object"):
        assert (label, ("id",)) in unique
    # An (object, concept) pair has one Evidence node, holding what is selected; a concept one distribution.
    assert ("Evidence", ("object_id", "concept_id")) in unique
    assert ("ScoreDistribution", ("concept_id",)) in unique
    assert run(driver, migrations_dir(), neo4j_db.database) == []


def test_migration_needing_a_missing_procedure_is_skipped_and_retried(driver, neo4j_db, tmp_path):
    write(tmp_path, "V001__base.cypher", "CREATE (:Thing {id: 1});")
    write(tmp_path, "V002__optional.cypher", "// @requires: no.such.procedure\nCALL no.such.procedure();")
    write(tmp_path, "V003__later.cypher", "CREATE (:Thing {id: 3});")
    skipped = []
    applied = [m.name for m in migrations.migrate(Graph(driver, neo4j_db.database), tmp_path,
                                                  on_skipped=lambda m, missing: skipped.append((m.name, missing)))]
    assert applied == ["V001__base.cypher", "V003__later.cypher"]
    assert skipped == [("V002__optional.cypher", ["no.such.procedure"])]
    states = {s.version: s.state for s in migrations.status(Graph(driver, neo4j_db.database), tmp_path)}
    assert states == {1: "applied", 2: "optional", 3: "applied"}
    assert run(driver, tmp_path, neo4j_db.database) == []  # still skipped; no out-of-order error


def test_included_script_is_passed_and_checksummed(driver, neo4j_db, tmp_path):
    from tripartite.infra.cypher import read_script
    from tripartite.infra.paths import cypher_dir

    path = write(tmp_path, "V001__inc.cypher", "// @include: q = lexical/document_state\nCREATE (:Inc {q: $q, db: $database});")
    run(driver, tmp_path, neo4j_db.database)
    stored = scalar(driver, "MATCH (i:Inc) RETURN i {.q, .db} AS i", neo4j_db.database)
    assert stored == {"q": read_script(cypher_dir() / "lexical/document_state.cypher")[0].text, "db": neo4j_db.database}
    recorded = scalar(driver, "MATCH (m:__TripartiteMigration) RETURN m.checksum AS c", neo4j_db.database)
    assert recorded != migrations.checksum(path.read_text())  # the included text is part of it


def test_repeatable_migration_reruns_when_its_include_changes(driver, neo4j_db, tmp_path, monkeypatch):
    scripts = tmp_path / "cypher"
    (scripts / "q").mkdir(parents=True)
    (scripts / "q" / "body.cypher").write_text("RETURN 1 AS one;")
    monkeypatch.setattr(migrations, "cypher_dir", lambda: scripts)
    folder = tmp_path / "migrations"
    folder.mkdir()
    write(folder, "V001__base.cypher", "CREATE (:Thing {id: 1});")
    write(folder, "R__define.cypher", "// @include: body = q/body\nMERGE (d:Definition) SET d.body = $body;")
    assert run(driver, folder, neo4j_db.database) == ["V001__base.cypher", "R__define.cypher"]
    assert run(driver, folder, neo4j_db.database) == []  # unchanged: nothing runs
    states = {s.label: s.state for s in migrations.status(Graph(driver, neo4j_db.database), folder)}
    assert states == {"V001": "applied", "R": "applied"}

    (scripts / "q" / "body.cypher").write_text("RETURN 2 AS two;")  # the included script evolves
    assert {s.label: s.state for s in migrations.status(Graph(driver, neo4j_db.database), folder)}["R"] == "outdated"
    assert run(driver, folder, neo4j_db.database) == ["R__define.cypher"]  # re-run, not drift
    assert scalar(driver, "MATCH (d:Definition) RETURN d.body", neo4j_db.database) == "RETURN 2 AS two"
    assert scalar(driver, "MATCH (m:__TripartiteMigration {file: 'R__define.cypher'}) RETURN count(m)",
                  neo4j_db.database) == 1


def test_a_versioned_migration_can_become_repeatable(driver, neo4j_db, tmp_path):
    # A database migrated when the definitions were V002; the project now ships them as R__.
    write(tmp_path, "V001__base.cypher", "CREATE (:Thing {id: 1});")
    write(tmp_path, "V002__definitions.cypher", "MERGE (d:Definition) SET d.body = 'old';")
    assert run(driver, tmp_path, neo4j_db.database) == ["V001__base.cypher", "V002__definitions.cypher"]
    (tmp_path / "V002__definitions.cypher").unlink()
    write(tmp_path, "R__definitions.cypher", "MERGE (d:Definition) SET d.body = 'new';")
    write(tmp_path, "V003__more.cypher", "CREATE (:Thing {id: 3});")
    assert run(driver, tmp_path, neo4j_db.database) == ["V003__more.cypher", "R__definitions.cypher"]
    assert scalar(driver, "MATCH (d:Definition) RETURN d.body", neo4j_db.database) == "new"
    states = {s.label: s.state for s in migrations.status(Graph(driver, neo4j_db.database), tmp_path)}
    assert states == {"V001": "applied", "V002": "superseded", "V003": "applied", "R": "applied"}


def test_v010_gives_entities_typed_as_another_parts_label_their_own_and_keeps_one_selection_state(
        driver, neo4j_db, tmp_path):
    # A graph migrated up to V009, where the offline extractor typed ontology terms "Concept" and
    # two selects at once made two selection states; migrating on repairs both (and V016 an entity
    # typed as the selection store's bins, which V010 did not know).
    run(driver, migrations_before("V010", tmp_path), neo4j_db.database)
    driver.execute_query("""
        CREATE (:Concept {id: 'c:af', name: 'Atrial fibrillation'})
        CREATE (t:Chunk {id: 'd:1', text: 'Atrial fibrillation and Document X.', kg_version: 'v'})
        CREATE (:__Entity__:Concept {key: 'atrial fibrillation|Concept', name: 'Atrial fibrillation',
                                     type: 'Concept'})-[:FROM_CHUNK]->(t)
        CREATE (:__Entity__:Document {key: 'x|Document', name: 'X', type: 'Document'})-[:FROM_CHUNK]->(t)
        CREATE (:__Entity__:DocumentEntity {key: 'x|DocumentEntity', name: 'X', type: 'Document entity'})
        CREATE (:__Entity__:ScoreBin {key: 'bin|ScoreBin', name: 'Bin', type: 'Score bin'})-[:FROM_CHUNK]->(t)
        CREATE (:SelectionState {id: 'current', state: 'finished', alpha: 0.9})
        CREATE (:SelectionState {id: 'current', state: 'finished', alpha: 0.8})""", database_=neo4j_db.database)
    applied = run(driver, migrations_dir(), neo4j_db.database)
    assert "V010__entity_types_apart.cypher" in applied and "V011__one_state_and_run_locks.cypher" in applied
    records, _, _ = driver.execute_query("MATCH (e:__Entity__) RETURN e.key AS key, labels(e) AS labels ORDER BY key",
                                         database_=neo4j_db.database)
    entities = {r["key"]: sorted(r["labels"]) for r in records}
    assert entities == {"atrial fibrillation|ConceptEntity": ["ConceptEntity", "__Entity__"],
                        "bin|ScoreBinEntity": ["ScoreBinEntity", "__Entity__"],  # V016: the selection's bins
                        "x|DocumentEntity": ["DocumentEntity", "__Entity__"]}  # the clash went, its chunk redone
    assert scalar(driver, "MATCH (c:Concept) RETURN count(c)", neo4j_db.database) == 1
    assert scalar(driver, "MATCH (t:Chunk {id: 'd:1'}) RETURN t.kg_version IS NULL", neo4j_db.database)
    assert scalar(driver, "MATCH (s:SelectionState) RETURN count(s)", neo4j_db.database) == 1
    assert scalar(driver, "MATCH (s:SelectionState) RETURN s.state", neo4j_db.database) != "finished"  # prompts wait


def test_v017_gives_relations_typed_as_another_parts_edges_their_own(driver, neo4j_db, tmp_path):
    # A graph migrated up to V016, where a model's relations "concerns" and "parent" between two
    # entities were written as the analysis' CONCERNS and the community hierarchy's PARENT, and a
    # "mentioned in" beside a relation already of its new type.
    run(driver, migrations_before("V017", tmp_path), neo4j_db.database)
    driver.execute_query("""
        CREATE (t:Chunk {id: 'd:1', kg_version: 'v'}), (u:Chunk {id: 'd:2', kg_version: 'v'})
        CREATE (o:Object {id: 'o'})-[:CONCERNS {summary: 'the analysis'}]->(c:Concept {id: 'c:x'})
        CREATE (a:__Entity__ {key: 'a|Thing'}), (b:__Entity__ {key: 'b|Thing'})
        CREATE (a)-[:CONCERNS {chunks: ['d:1'], weight: 1, description: 'A concerns B.'}]->(b)
        CREATE (b)-[:PARENT {chunks: ['d:1'], weight: 1}]->(a)
        CREATE (a)-[:MENTIONED_IN {chunks: ['d:2'], weight: 1}]->(b)
        CREATE (a)-[:MENTIONED_IN_RELATION {chunks: ['d:1'], weight: 1}]->(b)""", database_=neo4j_db.database)
    assert "V017__relation_types_apart.cypher" in run(driver, migrations_dir(), neo4j_db.database)
    records, _, _ = driver.execute_query("""MATCH (x:__Entity__)-[r]->(y:__Entity__)
        RETURN x.key AS x, type(r) AS type, y.key AS y, r.chunks AS chunks, r.description AS d ORDER BY type""",
                                         database_=neo4j_db.database)
    assert [(r["x"], r["type"], r["y"], r["chunks"], r["d"]) for r in records] == [
        ("a|Thing", "CONCERNS_RELATION", "b|Thing", ["d:1"], "A concerns B."),  # moved with its properties
        ("a|Thing", "MENTIONED_IN_RELATION", "b|Thing", ["d:1"], None),  # the clash went...
        ("b|Thing", "PARENT_RELATION", "a|Thing", ["d:1"], None)]
    assert scalar(driver, "MATCH (t:Chunk {id: 'd:2'}) RETURN t.kg_version IS NULL", neo4j_db.database)  # ...redone
    assert scalar(driver, "MATCH (t:Chunk {id: 'd:1'}) RETURN t.kg_version", neo4j_db.database) == "v"
    assert scalar(driver, "MATCH (:Object)-[r:CONCERNS]->(:Concept) RETURN r.summary", neo4j_db.database) == \
        "the analysis"  # the other parts' edges stay as they are


def test_v018_removes_stored_error_texts_that_may_hold_a_key(driver, neo4j_db, tmp_path):
    # Versions before V018 stored what the endpoint answered: one that echoes the Authorization
    # header left the key on the chunk. Plain short errors stay as they were.
    run(driver, migrations_before("V018", tmp_path), neo4j_db.database)
    driver.execute_query("""
        CREATE (:Chunk {id: 'd:1', analysis_error: 'chunk d:1: ProviderError: HTTP 401: Authorization: Bearer sk-abcdefgh12345'})
        CREATE (:Object {id: 'o', analysis_error: 'object o: ProviderError: HTTP 400: ' + reduce(s = '', i IN range(1, 400) | s + 'x')})
        CREATE (:Chunk {id: 'd:2', analysis_error: 'chunk d:2: InvalidAnswer: not JSON'})""", database_=neo4j_db.database)
    assert "V018__stored_errors_without_secrets.cypher" in run(driver, migrations_dir(), neo4j_db.database)
    records, _, _ = driver.execute_query("MATCH (n) WHERE n.analysis_error IS NOT NULL "
                                         "RETURN n.id AS id, n.analysis_error AS error ORDER BY id",
                                         database_=neo4j_db.database)
    errors = {r["id"]: r["error"] for r in records}
    assert errors["d:2"] == "chunk d:2: InvalidAnswer: not JSON"
    assert all("sk-" not in errors[i] and "older version" in errors[i] and len(errors[i]) < 300 for i in ("d:1", "o"))
