"""Resolving the Neo4j server, APOC, Graph Data Science and Browser jars from Maven Central, once.

The jars land in <cache>/neo4j/<versions>/{lib,plugins}; a stamp file marks a complete
resolution, so every later start is offline. Maven's own ~/.m2 cache is reused too. Two first
starts at once (two server homes, one cache) take turns: the second waits on a file lock and
then finds the jars there; each resolution works in a staging folder of its own and moves it
into place in one rename.
"""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable, Iterator

from tripartite.infra.config import ServerSettings
from tripartite.infra.errors import ServerError
from tripartite.infra.folders import CACHE, CACHE_FIX, writable_folder

STAMP = "resolved.ok"


# OpenGDS has no single plugin jar on Maven Central; these five together make the plugin
# (opengds-extension brings the injectable component, proc-sysinfo gds.version()).
GDS_ARTIFACTS = ("proc", "proc-sysinfo", "opengds-extension", "open-model-catalog", "open-write-services")


@dataclass(frozen=True)
class ServerJars:
    root: Path
    lib: Path
    plugins: Path
    apoc_extended: bool

    @property
    def classpath(self) -> str:
        return f"{self.plugins}/*:{self.lib}/*"


def jars_dir(cache_dir: Path, server: ServerSettings) -> Path:
    key = f"neo4j-{server.neo4j_version}_apoc-{server.apoc_version}_browser-{server.browser_version}"
    if server.apoc_extended_version:
        key += f"_ext-{server.apoc_extended_version}"
    if server.gds_version:
        key += f"_gds-{server.gds_version}"
    return cache_dir / "neo4j" / key


def _pom(server: ServerSettings) -> str:
    template = (resources.files("tripartite.infra.server") / "pom.xml").read_text(encoding="utf-8")
    gds = "\n    ".join(f"<dependency><groupId>org.neo4j.gds</groupId><artifactId>{artifact}</artifactId>"
                          f"<version>{server.gds_version}</version></dependency>"
                          for artifact in GDS_ARTIFACTS) if server.gds_version else ""
    return (template.replace("@NEO4J@", server.neo4j_version)
            .replace("@APOC@", server.apoc_version)
            .replace("@BROWSER@", server.browser_version)
            .replace("@GDS@", gds))


def _mvn(args: list[str], cwd: Path, log: Path) -> None:
    mvn = shutil.which("mvn")
    if not mvn:
        raise ServerError("Maven (mvn) not found, and it fetches Neo4j's jars from Maven Central; "
                          "install it (apt-get install maven) and start again")
    with log.open("a", encoding="utf-8") as out:
        result = subprocess.run([mvn, "-B", "-q", *args], cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:])
        raise ServerError(f"Maven could not resolve the Neo4j jars (see {log}); check that Maven Central is "
                          "reachable and the versions in [server] exist", log_tail=tail)


@contextmanager
def file_lock(path: Path, on_wait: Callable[[], None] = lambda: None) -> Iterator[None]:
    """An exclusive lock on a file, held for the block (the operating system releases it when
    the process ends, however it ends); on_wait runs once if another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            on_wait()
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _found(root: Path) -> ServerJars | None:
    if not (root / STAMP).is_file():
        return None
    plugins = root / "plugins"
    return ServerJars(root, root / "lib", plugins, any(plugins.glob("apoc-extended-*.jar")))


def resolve_jars(cache_dir: Path, server: ServerSettings, say=lambda message: None) -> ServerJars:
    """The server's jars, fetched with Maven on first use and cached after."""
    root = jars_dir(cache_dir, server)
    found = _found(root)
    if found:
        return found
    writable_folder(cache_dir, CACHE, CACHE_FIX)
    with file_lock(root.with_name(root.name + ".lock"),
                   lambda: say("another start is fetching the same jars; waiting for it to finish")):
        return _found(root) or _resolve(root, server, say)


def _resolve(root: Path, server: ServerSettings, say) -> ServerJars:
    gds = f", Graph Data Science {server.gds_version}" if server.gds_version else ""
    say(f"Resolving Neo4j {server.neo4j_version}, APOC {server.apoc_version}{gds} and Browser "
        f"{server.browser_version} from Maven Central (once; cached in {root})")
    for leftover in root.parent.glob(root.name + ".partial*"):  # of runs that were killed: we hold the lock
        shutil.rmtree(leftover, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=root.name + ".partial-", dir=root.parent))
    try:
        extended = _fill(staging, server, say)
        (staging / STAMP).write_text("ok\n", encoding="utf-8")
        shutil.rmtree(root, ignore_errors=True)  # an incomplete one, from before the stamp existed
        os.rename(staging, root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return ServerJars(root, root / "lib", root / "plugins", extended)


def _fill(staging: Path, server: ServerSettings, say) -> bool:
    """Resolve every jar into `staging`; True when APOC Extended resolved."""
    (staging / "pom.xml").write_text(_pom(server), encoding="utf-8")
    log = staging / "maven.log"
    # The server and every library in lib/, the GDS jars themselves in plugins/.
    _mvn(["dependency:copy-dependencies", "-DoutputDirectory=lib", "-DincludeScope=runtime",
          "-DexcludeGroupIds=org.neo4j.gds"], staging, log)
    if server.gds_version:
        _mvn(["dependency:copy-dependencies", "-DoutputDirectory=plugins", "-DincludeScope=runtime",
              "-DincludeGroupIds=org.neo4j.gds"], staging, log)
    (staging / "plugins").mkdir(exist_ok=True)
    for jar in (staging / "lib").glob("apoc-*.jar"):
        jar.rename(staging / "plugins" / jar.name)
    if not server.apoc_extended_version:
        return False
    # APOC Extended brings apoc.custom.* (Browser-callable procedures). It is optional: if it
    # does not resolve, the server still starts with APOC core.
    artifact = f"org.neo4j.procedure:apoc-extended:{server.apoc_extended_version}:jar:extended"
    try:
        _mvn(["dependency:copy", f"-Dartifact={artifact}", "-DoutputDirectory=plugins"], staging, log)
    except ServerError:
        say(f"APOC Extended {server.apoc_extended_version} did not resolve; continuing with APOC core only")
        return False
    return True
