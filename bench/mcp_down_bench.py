"""How long an MCP tool call waits when Neo4j goes away mid-session, and whether the server
answers again once it is back. The MCP tools run against a throwaway local Neo4j (the sample
guidelines ingested) through a TCP relay; closing the relay is the database going away.
Prints a table; asserts nothing.

    python bench/mcp_down_bench.py
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

from throwaway import free_port, throwaway_server

from tripartite.infra.config import load_settings
from tripartite.infra.paths import samples_dir
from tripartite.serving.tools import RETRY_SECONDS, KnowledgeTools

QUESTION = "What lowers blood pressure?"


class Relay:
    """127.0.0.1:<port> relayed to a Bolt port until closed; opened again on the same port."""

    def __init__(self, target: int):
        self.target, self.port, self._sockets, self._listener = target, free_port(), [], None

    def open(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def close(self) -> None:
        self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread (close alone does not)
        self._listener.close()
        for s in self._sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass


def timed(call) -> tuple[float, str]:
    started = time.perf_counter()
    try:
        call()
        outcome = "answered"
    except Exception as exc:  # the one-line error the agent sees
        outcome = f"{type(exc).__name__}: {str(exc)[:70]}"
    return time.perf_counter() - started, outcome


def main() -> None:
    settings = load_settings()
    with throwaway_server(settings) as (uri, _):
        env = {**os.environ, "NEO4J_URI": uri, "TRIPARTITE_CONFIG": ""}
        for args in (["migrate"], ["ingest", str(samples_dir() / "guidelines")]):
            subprocess.run([sys.executable, "-m", "tripartite", *args], env=env, check=True, capture_output=True)
        relay = Relay(int(uri.rsplit(":", 1)[1]))
        relay.open()
        os.environ.update(NEO4J_URI=f"bolt://127.0.0.1:{relay.port}", TRIPARTITE_CONFIG="")
        tools = KnowledgeTools(load_settings())
        rows = [("search rag, database up", *timed(lambda: tools.search(QUESTION, mode="rag")))]
        relay.close()
        rows += [("search rag, database gone", *timed(lambda: tools.search(QUESTION, mode="rag"))),
                 ("list_objects, database gone", *timed(tools.list_objects))]
        relay.open()
        rows += [("search rag, database back", *timed(lambda: tools.search(QUESTION, mode="rag")))]
        tools.close()
        relay.close()
    print(f"MCP tools, transactions retried for at most {RETRY_SECONDS:g} s\n")
    print("| call | seconds | outcome |\n|---|---:|---|")
    for name, seconds, outcome in rows:
        print(f"| {name} | {seconds:.2f} | {outcome} |")


if __name__ == "__main__":
    main()
