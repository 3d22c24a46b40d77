"""A throwaway local Neo4j for benchmarks: a temporary home on free ports, stopped after."""
from __future__ import annotations

import socket
import tempfile
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from tripartite.infra.config import Settings
from tripartite.infra.server.local import LocalServer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def throwaway_server(settings: Settings) -> Iterator[tuple[str, Path]]:
    """(bolt URI, home folder) of a fresh server that is stopped on exit."""
    home = Path(tempfile.mkdtemp(prefix="tripartite-bench-"))
    server = LocalServer(replace(settings.server, home=home, bolt_port=free_port(), http_port=free_port()),
                         settings.cache_dir)
    try:
        yield server.start().bolt_uri, home
    finally:
        server.stop()
