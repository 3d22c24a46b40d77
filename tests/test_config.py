"""Settings from defaults, tripartite.toml and the environment; secrets stay out of files and output."""
import json

import pytest
from click.testing import CliRunner

from tripartite.cli import cli
from tripartite.infra.config import load_settings
from tripartite.infra.errors import ConfigError


def test_defaults_point_at_the_local_server(tmp_path):
    settings = load_settings(env={}, cwd=tmp_path)
    assert settings.neo4j_uri == "bolt://127.0.0.1:7687"
    assert settings.neo4j_database == "neo4j"
    assert settings.server.home == (tmp_path / ".tripartite" / "neo4j").resolve()
    assert settings.migrations_dir.name == "migrations" and settings.migrations_dir.is_dir()
    assert not settings.uri_from_user


def test_toml_then_environment(tmp_path):
    (tmp_path / "tripartite.toml").write_text(
        '[neo4j]\nuri = "bolt://db.example:7687"\ndatabase = "graph"\n'
        '[server]\nbolt_port = 7700\nhttp_port = 7701\nhome = "var/neo"\n')
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    from_file = load_settings(env={}, cwd=nested)  # found by walking up
    assert from_file.neo4j_uri == "bolt://db.example:7687"
    assert from_file.neo4j_database == "graph"
    assert from_file.server.bolt_port == 7700 and from_file.server.http_port == 7701
    assert from_file.server.home == (tmp_path / "var" / "neo").resolve()
    from_env = load_settings(env={"NEO4J_URI": "neo4j://other:7687", "NEO4J_DATABASE": "x",
                                  "TRIPARTITE_BOLT_PORT": "7800"}, cwd=nested)
    assert from_env.neo4j_uri == "neo4j://other:7687"
    assert from_env.neo4j_database == "x"
    assert from_env.server.bolt_port == 7800


def test_an_english_model_behind_an_endpoint_can_be_marked_latin_only(tmp_path):
    from tripartite.infra.embeddings import make_embedder

    assert make_embedder(load_settings(env={"TRIPARTITE_EMBEDDING_PROVIDER": "openai"}, cwd=tmp_path)).latin_only is False
    (tmp_path / "tripartite.toml").write_text('[embeddings]\nprovider = "openai"\nmodel = "all-minilm"\nlatin_only = true\n')
    assert make_embedder(load_settings(env={}, cwd=tmp_path)).latin_only is True


def test_local_server_port_moves_the_default_uri(tmp_path):
    settings = load_settings(env={"TRIPARTITE_BOLT_PORT": "7999"}, cwd=tmp_path)
    assert settings.neo4j_uri == "bolt://127.0.0.1:7999"


@pytest.mark.parametrize("toml, message", [
    ('[neo4j]\npassword = "hunter2"\n', "'neo4j.password' is a secret"),
    ('[llm]\napi_key = "sk-123"\n', "'llm.api_key' is a secret"),
    ('[neo4j]\nurl = "bolt://x"\n', r"unknown key\(s\) in \[neo4j\]: url"),
    ('[nope]\n', "unknown section"),
    ('[neo4j\nuri = 1', "not valid TOML"),
    ('[server]\nbolt_port = "many"\n', "not a port number"),
    ('[embeddings]\nlatin_only = "yes"\n', r'\[embeddings\] latin_only = "yes" must be true or false'),
    ('[llm]\ntimeout = "fast"\n', r'\[llm\] timeout = "fast" must be a number'),
    ('[llm]\nbackoff = -1\n', r"\[llm\] backoff = -1 is out of range"),
    ('[neo4j]\nuri = 5\n', r"\[neo4j\] uri = 5 must be text in quotes"),
    ('[selection]\nbeta = true\n', r"\[selection\] beta = true must be a number"),
    ('[selection]\nmax_tokens = 1.5\n', r"\[selection\] max_tokens = 1.5 must be a whole number"),
    ('[chunking]\nmax_tokens = -1\n', r"\[chunking\] max_tokens = -1 is out of range; use 16 or more"),
    ('[server]\nheap = 2\n', r"\[server\] heap = 2 must be text in quotes"),
    ('[paths]\ncache_dir = false\n', r"\[paths\] cache_dir = false must be text in quotes"),
])
def test_bad_config_files_are_refused_with_one_line(tmp_path, toml, message):
    (tmp_path / "tripartite.toml").write_text(toml)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(env={}, cwd=tmp_path)
    assert "\n" not in str(info.value)
    assert "hunter2" not in str(info.value) and "sk-123" not in str(info.value)


def test_secrets_never_printed(tmp_path):
    env = {"NEO4J_PASSWORD": "s3cret-pw", "OPENAI_API_KEY": "sk-very-secret", "TRIPARTITE_CONFIG": ""}
    settings = load_settings(env=env, cwd=tmp_path)
    assert "s3cret-pw" not in repr(settings) and "sk-very-secret" not in repr(settings)
    result = CliRunner().invoke(cli, ["config"], env=env)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["neo4j"]["password"] == "set" and shown["llm"]["api_key"] == "set"
    assert "s3cret-pw" not in result.output and "sk-very-secret" not in result.output


@pytest.mark.parametrize("variable, value, message", [
    ("TRIPARTITE_LLM_TIMEOUT", "fast", "TRIPARTITE_LLM_TIMEOUT='fast' is not a number"),
    ("TRIPARTITE_LLM_TIMEOUT", "0", "TRIPARTITE_LLM_TIMEOUT=0.0 is out of range"),
    ("TRIPARTITE_LLM_CONCURRENCY", "two", "TRIPARTITE_LLM_CONCURRENCY='two' is not a whole number"),
    ("TRIPARTITE_SELECT_CONCURRENCY", "-1", "TRIPARTITE_SELECT_CONCURRENCY=-1 must be a positive integer"),
    ("TRIPARTITE_SELECT_ENGINE", "fast", "TRIPARTITE_SELECT_ENGINE=fast is unknown"),
    ("TRIPARTITE_PROGRESS_SECONDS", "x", "TRIPARTITE_PROGRESS_SECONDS='x' is not a number"),
])
def test_bad_environment_values_are_named_in_one_line(tmp_path, variable, value, message):
    with pytest.raises(ConfigError) as info:
        load_settings(env={variable: value}, cwd=tmp_path)
    assert str(info.value).startswith(message) and "\n" not in str(info.value) and "None" not in str(info.value)
