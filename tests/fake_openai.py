"""A real OpenAI-compatible HTTP server on loopback for tests: /v1/models and /v1/embeddings.

Embeddings are a deterministic bag of hashed words (so similar texts get similar vectors),
which is all the plumbing tests need. Every request is recorded for assertions.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


def hashed_embedding(text: str, dimensions: int) -> list[float]:
    vector = np.zeros(dimensions, dtype=np.float64)
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dimensions] += 1.0
    norm = np.linalg.norm(vector)
    return (vector / norm if norm else vector).tolist()


class FakeOpenAI:
    def __init__(self, dimensions: int = 64, models: tuple[str, ...] = ("fake-embed", "fake-chat")):
        self.dimensions = dimensions
        self.models = models
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "test"}
                                                                for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.requests.append({"path": self.path, "body": body,
                                        "authorization": self.headers.get("Authorization")})
                if self.path.rstrip("/").endswith("/embeddings"):
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [{"object": "embedding", "index": i,
                             "embedding": hashed_embedding(text, server.dimensions)} for i, text in enumerate(inputs)]
                    tokens = sum(len(t.split()) for t in inputs)
                    self._send(200, {"object": "list", "data": data, "model": body.get("model"),
                                     "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
