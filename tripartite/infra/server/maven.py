"""Resolving the Neo4j server, APOC, Graph Data Science and Browser jars from Maven Central, once.

The jars land in <cache>/neo4j/<versions>/{lib,plugins}; a stamp file marks a complete
resolution, so every later start is offline. Maven's own ~/.m2 cache is reused too.
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from tripartite.infra.config import ServerSettings
from tripartite.infra.errors import ServerError

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


def resolve_jars(cache_dir: Path, server: ServerSettings, say=lambda message: None) -> ServerJars:
    """The server's jars, fetched with Maven on first use and cached after."""
    root = jars_dir(cache_dir, server)
    lib, plugins = root / "lib", root / "plugins"
    if (root / STAMP).is_file():
        extended = any(plugins.glob("apoc-extended-*.jar"))
        return ServerJars(root, lib, plugins, extended)

    gds = f", Graph Data Science {server.gds_version}" if server.gds_version else ""
    say(f"Resolving Neo4j {server.neo4j_version}, APOC {server.apoc_version}{gds} and Browser "
        f"{server.browser_version} from Maven Central (once; cached in {root})")
    staging = root.with_name(root.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
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

    extended = False
    if server.apoc_extended_version:
        # APOC Extended brings apoc.custom.* (Browser-callable procedures). It is optional:
        # if it does not resolve, the server still starts with APOC core.
        artifact = f"org.neo4j.procedure:apoc-extended:{server.apoc_extended_version}:jar:extended"
        try:
            _mvn(["dependency:copy", f"-Dartifact={artifact}", "-DoutputDirectory=plugins"], staging, log)
            extended = True
        except ServerError:
            say(f"APOC Extended {server.apoc_extended_version} did not resolve; continuing with APOC core only")

    (staging / STAMP).write_text("ok\n", encoding="utf-8")
    shutil.rmtree(root, ignore_errors=True)
    staging.rename(root)
    return ServerJars(root, lib, plugins, extended)
