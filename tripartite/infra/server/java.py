"""Finding a Java that Neo4j 5.26 runs on (17 or 21) among the ones installed."""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from tripartite.infra.errors import ServerError

SUPPORTED_MAJORS = (17, 21)
_VERSION = re.compile(r'version "(?P<v>[^"]+)"')


def java_major(java: str) -> int | None:
    """The major version `java -version` reports, or None if it does not run."""
    try:
        result = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(result.stderr + result.stdout)
    if not match:
        return None
    head = match["v"].split(".")
    major = int(head[1]) if head[0] == "1" and len(head) > 1 else int(re.sub(r"\D.*", "", head[0]) or 0)
    return major


def _candidates(configured: str) -> list[str]:
    found: list[str] = []
    if configured:
        return [configured]
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        found.append(str(Path(java_home) / "bin" / "java"))
    on_path = shutil.which("java")
    if on_path:
        found.append(on_path)
    # Debian installs each JDK under /usr/lib/jvm; prefer 17 (Neo4j 5's reference runtime).
    for major in SUPPORTED_MAJORS:
        found.extend(sorted(glob.glob(f"/usr/lib/jvm/*{major}*/bin/java")))
    return list(dict.fromkeys(found))


def find_java(configured: str = "") -> str:
    """Path of a Java 17 or 21 binary, or a ServerError saying how to get one."""
    seen: list[str] = []
    for candidate in _candidates(configured):
        major = java_major(candidate)
        if major in SUPPORTED_MAJORS:
            return candidate
        seen.append(f"{candidate} ({'Java ' + str(major) if major else 'does not run'})")
    if configured:
        raise ServerError(f"TRIPARTITE_JAVA={configured} is not Java 17 or 21 ({', '.join(seen)}); "
                          "point it at a Java 17 binary")
    tried = "; tried " + ", ".join(seen) if seen else ""
    raise ServerError("Java 17 not found, and Neo4j 5.26 needs Java 17 or 21; install it "
                      f"(apt-get install openjdk-17-jre-headless) or set TRIPARTITE_JAVA{tried}")
