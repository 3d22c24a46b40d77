"""Settings from defaults, tripartite.toml and the environment; secrets stay out of files and output."""
import json
import os

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
    ('[llm]\ntimeout = nan\n', r"\[llm\] timeout = NaN is out of range; use seconds above 0"),
    ('[chunking]\nmax_mb = inf\n', r"\[chunking\] max_mb = Infinity is out of range"),
    ('[neo4j]\nuri = 5\n', r"\[neo4j\] uri = 5 must be text in quotes"),
    ('[selection]\nbeta = true\n', r"\[selection\] beta = true must be a number"),
    ('[selection]\nmax_tokens = 1.5\n', r"\[selection\] max_tokens = 1.5 must be a whole number"),
    ('[chunking]\nmax_tokens = -1\n', r"\[chunking\] max_tokens = -1 is out of range; use 16 or more"),
    ('[server]\nheap = 2\n', r"\[server\] heap = 2 must be text in quotes"),
    ('[paths]\ncache_dir = false\n', r"\[paths\] cache_dir = false must be text in quotes"),
    ('[neo4j]\nuri = "bolt://neo4j:hunter2@localhost:7687"\n', r"\[neo4j\] uri holds credentials before '@'"),
    ('[llm]\nbase_url = "https://sk-123@api.example.com/v1"\n', r"\[llm\] base_url holds credentials before '@'"),
    ('[llm]\nbase_url = "https://api.example.com/v1?api_key=sk-123"\n', r"\[llm\] base_url holds a key in its query \(api_key\);"),
    ('[llm]\nbase_url = "https://x.example.com/v1?api-version=1&Token=sk-123#x"\n', r"holds a key in its query \(Token\);"),
    ('[llm]\nstructured = "maybe"\n', r"\[llm\] structured = \"maybe\" is unknown; use 'auto', 'on' or 'off'"),
    ('[llm]\nprices = [0.15]\n', r"LLM prices \[0.15\] are not two numbers"),
    ('[selection]\nalpha = 1.5\n', r"\[selection\] alpha = 1.5 is not a probability; use 0 to 1"),
    ('[server]\nbolt_port = 70000\n', r"\[server\] bolt_port = 70000 is out of range; use 1-65535"),
    ('[neo4j]\nuri = 1979-05-27\n', r"\[neo4j\] uri = .*1979-05-27.* must be text in quotes"),
    ('neo4j = "bolt://x"\n', r"\[neo4j\] must be a table"),
    # the defaults the command line's options show: [kg], [search], [analysis]
    ('[kg]\ncontext_k = -1\n', r"\[kg\] context_k = -1 is out of range; use 0 or more"),
    ('[kg]\ncontext_k = 2.5\n', r"\[kg\] context_k = 2.5 must be a whole number"),
    ('[kg]\nmin_similarity = 1.5\n', r"\[kg\] min_similarity = 1.5 is out of range; use a cosine, -1 to 1"),
    ('[kg]\nmin_similarity = nan\n', r"\[kg\] min_similarity = NaN is out of range"),
    ('[kg]\nmin_size = 1\n', r"\[kg\] min_size = 1 is out of range; use 2 or more"),
    ('[kg]\nmin_size = true\n', r"\[kg\] min_size = true must be a whole number"),
    ('[search]\nlocal_tokens = 50\n', r"\[search\] local_tokens = 50 is out of range; use 100 or more tokens"),
    ('[search]\nglobal_tokens = inf\n', r"\[search\] global_tokens = Infinity must be a whole number"),
    ('[search]\nhybrid_tokens = "1000"\n', r'\[search\] hybrid_tokens = "1000" must be a whole number'),
    ('[search]\ndepth = 4\n', r"\[search\] depth = 4 is out of range; use 0 to 3"),
    ('[search]\nmap_tokens = 100\n', r"\[search\] map_tokens = 100 is out of range; use 200 or more tokens"),
    ('[search]\ntop_k = 3\nbudget = 9\n', r"unknown key\(s\) in \[search\]: budget, top_k; allowed: depth, "
                                          r"global_tokens, hybrid_tokens, local_tokens, map_tokens$"),
    ('[analysis]\nprefilter_similarity = true\n', r"\[analysis\] prefilter_similarity = true must be a number"),
    ('[analysis]\nprefilter_similarity = -2\n', r"\[analysis\] prefilter_similarity = -2 is out of range; use a cosine"),
])
def test_bad_config_files_are_refused_with_one_line(tmp_path, toml, message):
    (tmp_path / "tripartite.toml").write_text(toml)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(env={}, cwd=tmp_path)
    assert "\n" not in str(info.value)
    assert "hunter2" not in str(info.value) and "sk-123" not in str(info.value)


def test_the_defaults_of_the_commands_options_are_settings(tmp_path):
    """kg extract's --context-k and --min-similarity, kg communities' --min-size, the pre-filter's
    similarity and search's budgets, depth and map budget: one home, the settings."""
    from tripartite.infra.config import AnalysisSettings, KgSettings, SearchSettings

    settings = load_settings(env={}, cwd=tmp_path)
    assert (settings.kg, settings.search, settings.analysis) == (KgSettings(), SearchSettings(), AnalysisSettings())
    assert (KgSettings.context_k, KgSettings.min_similarity, KgSettings.min_size) == (5, 0.3, 3)
    assert (SearchSettings.local_tokens, SearchSettings.global_tokens, SearchSettings.hybrid_tokens) == (4000, 3000, 1000)
    (tmp_path / "tripartite.toml").write_text('[kg]\ncontext_k = 0\nmin_similarity = -0.5\nmin_size = 5\n'
                                              '[search]\nlocal_tokens = 1500\ndepth = 0\nmap_tokens = 200\n'
                                              '[analysis]\nprefilter_similarity = 0.45\n')
    settings = load_settings(env={}, cwd=tmp_path)
    assert settings.kg == KgSettings(context_k=0, min_similarity=-0.5, min_size=5)
    assert settings.search == SearchSettings(local_tokens=1500, depth=0, map_tokens=200)
    assert settings.analysis.prefilter_similarity == 0.45
    shown = json.loads(CliRunner().invoke(cli, ["--config", str(tmp_path / "tripartite.toml"), "config"],
                                          env={"TRIPARTITE_CONFIG": ""}).output)
    assert shown["kg"] == {"context_k": 0, "min_similarity": -0.5, "min_size": 5} and shown["search"]["depth"] == 0


def test_docs_name_every_key_and_variable():
    """docs/configuration.md's table: every key of every section, and every variable."""
    import re
    from pathlib import Path

    from tripartite.infra.config import Settings
    from tripartite.infra.declarations import Env
    from tripartite.infra.config_values import _keys, _metadata

    table = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    written = {(section, key) for section, keys in re.findall(r"`\[(\w+)\] ([\w`, ]+)`", table)
               for key in re.split(r"[`, ]+", keys) if key}
    for at, hint in _keys(Settings):
        variables = [name for env in _metadata(hint, Env) for name in env.names]
        assert all(f"`{name}`" in table for name in variables), variables
        assert len(at) == 1 or at[1] in ("password", "api_key") or at in written, at  # secrets: environment only


@pytest.mark.parametrize("path, option, key", [
    (["kg", "extract"], "--context-k", "[kg] context_k"), (["kg", "extract"], "--min-similarity", "[kg] min_similarity"),
    (["kg", "communities"], "--min-size", "[kg] min_size"), (["search", "local"], "--depth", "[search] depth"),
    (["search", "local"], "--max-tokens", "[search] local_tokens"),
    (["search", "global"], "--map-tokens", "[search] map_tokens"),
    (["search", "hybrid"], "--max-tokens", "[search] hybrid_tokens"),
])
def test_an_option_with_a_setting_defaults_to_it_and_says_so(path, option, key):
    command = cli
    for name in path:
        command = command.commands[name]
    param = next(p for p in command.params if option in p.opts)
    assert param.default is None and key in param.help, param.help  # None: the command reads the setting


def test_secrets_never_printed(tmp_path):
    env = {"NEO4J_PASSWORD": "s3cret-pw", "OPENAI_API_KEY": "sk-very-secret", "TRIPARTITE_CONFIG": ""}
    settings = load_settings(env=env, cwd=tmp_path)
    assert "s3cret-pw" not in repr(settings) and "sk-very-secret" not in repr(settings)
    result = CliRunner().invoke(cli, ["config"], env=env)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["neo4j"]["password"] == "set" and shown["llm"]["api_key"] == "set"
    assert "s3cret-pw" not in result.output and "sk-very-secret" not in result.output


def test_a_placeholder_key_masks_no_ordinary_word(tmp_path):
    # Local model servers take any key, and "none" is a common one: it must not turn "concerns
    # none of the loaded concepts" into "concerns *** of ..." in every message.
    from tripartite.infra.secrets import redact

    load_settings(env={"OPENAI_API_KEY": "none", "NEO4J_PASSWORD": "neo4j", "TRIPARTITE_CONFIG": ""}, cwd=tmp_path)
    line = "object 'x' was analysed and concerns none of the loaded concepts; see neo4j"
    assert redact(line) == line
    load_settings(env={"OPENAI_API_KEY": "a-real-looking-key-7Qx2", "TRIPARTITE_CONFIG": ""}, cwd=tmp_path)
    assert redact("the server said: a-real-looking-key-7Qx2 is invalid") == "the server said: *** is invalid"


@pytest.mark.parametrize("variable, value, message", [
    ("TRIPARTITE_LLM_TIMEOUT", "fast", "TRIPARTITE_LLM_TIMEOUT='fast' is not a number"),
    ("TRIPARTITE_LLM_TIMEOUT", "0", "TRIPARTITE_LLM_TIMEOUT=0.0 is out of range"),
    ("TRIPARTITE_LLM_BACKOFF", "inf", "TRIPARTITE_LLM_BACKOFF=inf is out of range"),
    ("TRIPARTITE_PROGRESS_SECONDS", "nan", "TRIPARTITE_PROGRESS_SECONDS=nan is out of range"),
    ("TRIPARTITE_LLM_CONCURRENCY", "two", "TRIPARTITE_LLM_CONCURRENCY='two' is not a whole number"),
    ("TRIPARTITE_SELECT_CONCURRENCY", "-1", "TRIPARTITE_SELECT_CONCURRENCY=-1 must be a positive integer"),
    ("TRIPARTITE_SELECT_ENGINE", "fast", "TRIPARTITE_SELECT_ENGINE=fast is unknown"),
    ("TRIPARTITE_PROGRESS_SECONDS", "x", "TRIPARTITE_PROGRESS_SECONDS='x' is not a number"),
    ("TRIPARTITE_LLM_PRICES", "0.15,nan", "LLM prices '0.15,nan' are not two numbers"),
    ("TRIPARTITE_LLM_PRICES", "0.15,x", "LLM prices '0.15,x' are not two numbers"),
    ("TRIPARTITE_BOLT_PORT", "0", "TRIPARTITE_BOLT_PORT=0 is out of range; use 1-65535"),
    ("TRIPARTITE_BOLT_PORT", "x", "TRIPARTITE_BOLT_PORT='x' is not a whole number"),
    ("TRIPARTITE_PROCEDURES", "maybe", "TRIPARTITE_PROCEDURES='maybe' is not on or off"),
    ("TRIPARTITE_LLM_STRUCTURED", "maybe", "TRIPARTITE_LLM_STRUCTURED=maybe is unknown; use 'auto', 'on' or 'off'"),
    ("TRIPARTITE_EMBEDDING_PROVIDER", "x", "TRIPARTITE_EMBEDDING_PROVIDER=x is unknown; use 'local' or 'openai'"),
])
def test_bad_environment_values_are_named_in_one_line(tmp_path, variable, value, message):
    with pytest.raises(ConfigError) as info:
        load_settings(env={variable: value}, cwd=tmp_path)
    assert str(info.value).startswith(message) and "\n" not in str(info.value) and "None" not in str(info.value)


def test_a_url_in_the_config_file_carrying_a_secret_is_refused_without_printing_it(tmp_path):
    config = tmp_path / "tripartite.toml"
    config.write_text('[neo4j]\nuri = "bolt://neo4j:hunter2@db.example.com:7687"\n')
    result = CliRunner().invoke(cli, ["--config", str(config), "config"], env={"TRIPARTITE_CONFIG": ""})
    assert result.exit_code == 1
    assert result.output == (f"error: {config}: [neo4j] uri holds credentials before '@'; write the URL without "
                             "them and set the user and password in the environment (NEO4J_USER, NEO4J_PASSWORD)\n")
    config.write_text('[llm]\nbase_url = "https://proxy.example.com/v1?api_key=sk-123"\nmodel = "m"\n')
    result = CliRunner().invoke(cli, ["--config", str(config), "config"], env={"TRIPARTITE_CONFIG": ""})
    assert result.exit_code == 1
    assert result.output == (f"error: {config}: [llm] base_url holds a key in its query (api_key); write the URL without it "
                             "and set the key in the environment (OPENAI_API_KEY)\n")


def test_a_url_without_secrets_in_the_config_file_is_read(tmp_path):
    (tmp_path / "tripartite.toml").write_text('[neo4j]\nuri = "neo4j+s://db.example.com:7687"\n[llm]\n'
                                              'base_url = "https://x.openai.azure.com/openai?api-version=2024-06-01"\n')
    settings = load_settings(env={}, cwd=tmp_path)
    assert settings.neo4j_uri == "neo4j+s://db.example.com:7687"
    assert settings.llm.base_url.endswith("?api-version=2024-06-01")


def test_a_config_file_that_is_not_utf8_is_one_line(tmp_path):
    config = tmp_path / "tripartite.toml"
    config.write_bytes('[neo4j]\ndatabase = "caf\xe9"\n'.encode("latin-1"))
    result = CliRunner().invoke(cli, ["--config", str(config), "config"], env={"TRIPARTITE_CONFIG": ""})
    assert result.exit_code == 1
    assert result.output == (f"error: {config}: not UTF-8 (invalid byte 0xe9 at offset 23); TOML files are UTF-8: "
                             "convert it, e.g. iconv -f latin1 -t utf-8\n")


def test_a_config_file_that_is_a_named_pipe_is_one_line_and_never_read(tmp_path):
    config = tmp_path / "tripartite.toml"
    os.mkfifo(config)  # reading it would wait for a writer forever
    result = CliRunner().invoke(cli, ["--config", str(config), "config"], env={"TRIPARTITE_CONFIG": ""})
    assert result.exit_code == 1
    assert result.output == (f"error: {config}: not a regular file (a named pipe); point --config or "
                             "TRIPARTITE_CONFIG at a tripartite.toml\n")
