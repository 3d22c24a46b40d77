"""The procedure plugin (procedures/, Java 17): built with Maven once per version of its sources
and cached, then installed in a server's plugins folder beside APOC and Graph Data Science.

Its version is the hash of its sources: the jar reports it (tripartite.selection.version()),
so the selection takes the plugin only when the server runs the one these sources build, and
a local server gets its own plugins folder (links to the shared jar cache, plus this jar), so
two homes on one cache never see each other's build. A plugin that cannot be built (no JDK,
no Maven, Maven Central out of reach) costs one line, and the selection runs its Cypher
scripts, as it does on servers that take no plugins (Aura).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable

from tripartite.infra.errors import StorageError
from tripartite.infra.folders import CACHE, CACHE_FIX, writable_folder
from tripartite.infra.paths import procedures_dir

JAR_NAME = "tripartite-procedures"


def source_hash() -> str:
    """The hash of the plugin's sources (pom.xml and src/main/): its version. Its tests are left
    out: a test edited changes no jar, and must not have every server rebuild and restart."""
    root = procedures_dir()
    digest = hashlib.sha1()
    files = [root / "pom.xml", *sorted((root / "src" / "main").rglob("*"))]
    for path in files:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
            digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:12]


def jar_path(cache_dir: Path) -> Path:
    return cache_dir / "procedures" / f"{JAR_NAME}-{source_hash()}.jar"


def build(cache_dir: Path, neo4j_version: str, say: Callable[[str], None] = lambda message: None) -> Path | None:
    """The plugin's jar for these sources, built on first use (Maven; about 15 s) and cached.
    None, said in one line, when it cannot be built."""
    from tripartite.infra.server.maven import file_lock

    target = jar_path(cache_dir)
    if target.is_file():
        return target
    source = procedures_dir()
    if not (source / "pom.xml").is_file():
        say(f"the procedure plugin's sources are not at {source}; select runs the Cypher scripts")
        return None
    mvn = shutil.which("mvn")
    if not mvn:
        say("Maven (mvn) not found, so the procedure plugin was not built; select runs the Cypher scripts "
            "(install Maven and a JDK 17, then start the server again)")
        return None
    try:
        writable_folder(cache_dir, CACHE, CACHE_FIX)
    except StorageError as exc:  # a read-only cache of jars still starts a server: without the plugin
        say(f"the procedure plugin was not built: {exc}; select runs the Cypher scripts")
        return None
    with file_lock(target.with_suffix(".lock")):
        if target.is_file():
            return target
        say(f"building the procedure plugin (procedures/, version {source_hash()}; once)")
        staging = Path(tempfile.mkdtemp(prefix=f"{JAR_NAME}-build-", dir=target.parent))
        log = target.with_suffix(".log")
        try:
            shutil.copytree(source, staging / "procedures", ignore=shutil.ignore_patterns("target"))
            with log.open("w", encoding="utf-8") as out:
                # Tests neither built nor run here (CI runs them: `mvn -f procedures/pom.xml test`),
                # so a start needs no JUnit from Maven Central.
                result = subprocess.run([mvn, "-B", "-q", "package", "-Dmaven.test.skip=true",
                                         f"-Dtripartite.source.hash={source_hash()}",
                                         f"-Dneo4j.version={neo4j_version}"], cwd=staging / "procedures",
                                        stdout=out, stderr=subprocess.STDOUT)
            built = staging / "procedures" / "target" / f"{JAR_NAME}.jar"
            if result.returncode != 0 or not built.is_file():
                say(f"the procedure plugin did not build (see {log}; a JDK 17 with javac is needed, not only a JRE); "
                    "select runs the Cypher scripts")
                return None
            os.replace(built, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target


def install(plugins: Path, shared: Path, jar: Path | None) -> None:
    """A server's own plugins folder: links to the shared plugin jars (APOC, GDS) and, when
    given, the procedure plugin's jar. Rebuilt on every start, so a removed jar goes."""
    plugins.mkdir(parents=True, exist_ok=True)
    for old in plugins.iterdir():
        if old.is_symlink() or old.is_file():
            old.unlink()
    for found in sorted(shared.glob("*.jar")):
        (plugins / found.name).symlink_to(found)
    if jar is not None:
        (plugins / jar.name).symlink_to(jar)
