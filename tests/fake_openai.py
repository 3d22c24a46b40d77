"""A real OpenAI-compatible HTTP server on loopback for tests: /v1/models, /v1/embeddings,
/v1/chat/completions, and the Batch API's /v1/files and /v1/batches.

Embeddings are a deterministic bag of hashed words (so similar texts get similar vectors).
Chat answers follow the extraction prompt: for each listed concept, the sentences of the
quoted text that contain the concept's name (and for the LLM judge's question, the listed
concepts whose name the quoted text contains). `script` queues misbehaviour for the next chat
requests ("429", "500", "400", "401", "malformed", "timeout"), `always` repeats one for every
request ("html" and "notjson" answer every request, GETs too, with a body that is not the API's;
`posts_only` leaves GETs alone); `echo_status` fails every chat request with that status and a
body that repeats its Authorization header; `huge_extract` answers with extracts that long,
whatever max_tokens says; every request is recorded for assertions. Batches are answered line by line as chat
requests are; `batch_outcome` makes them "completed", "partial" (every other request fails)
or "expired" (the window ran out after half of them), and `batch_polls` is how many status
reads see "in_progress" first.
"""
from __future__ import annotations

import email
import hashlib
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


def hashed_embedding(text: str, dimensions: int) -> list[float]:
    vector = np.zeros(dimensions, dtype=np.float64)
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dimensions] += 1.0
    norm = np.linalg.norm(vector)
    return (vector / norm if norm else vector).tolist()


def answer_extraction(prompt: str) -> str:
    concepts = re.findall(r"^- ([^:\n]+:[^:\s]+): ([^.\n]+)\.", prompt, flags=re.MULTILINE)
    quoted = prompt.split('"""')
    text = quoted[1] if len(quoted) >= 3 else ""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]
    extracts = []
    for concept_id, name in concepts:
        hits = [s for s in sentences if name.lower() in s.lower()]
        extracts.append({"concept_id": concept_id, "extract": " ".join(hits)})
    return json.dumps({"extracts": extracts})


def answer_judge(prompt: str) -> str:
    """The LLM judge's question: the listed concepts whose name the quoted text contains."""
    concepts = re.findall(r"^- ([^:\n]+:[^:\s]+): (.+)$", prompt, flags=re.MULTILINE)
    quoted = prompt.split('"""')
    text = quoted[1].lower() if len(quoted) >= 3 else ""
    return json.dumps({"informed": [cid for cid, name in concepts if name.lower() in text]})


def answer_triplets(prompt: str, types: tuple[str, ...] = ("Thing",),
                    relation_types: tuple[str, ...] = ("related to",)) -> str:
    """The triplet extraction: capitalised words of the passage are entities (typed in turn from
    `types`), neighbours related (by types in turn from `relation_types`)."""
    quoted = prompt.split('"""')
    text = quoted[1] if len(quoted) >= 3 else ""
    names = list(dict.fromkeys(re.findall(r"\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\b", text)))[:6]
    entities = [{"name": n, "type": types[i % len(types)], "description": f"{n} appears in the passage."}
                for i, n in enumerate(names)]
    relations = [{"source": a, "target": b, "type": relation_types[i % len(relation_types)],
                  "description": f"{a} and {b} appear together."} for i, (a, b) in enumerate(zip(names, names[1:]))]
    return json.dumps({"entities": entities, "relations": relations})


def answer_report(prompt: str) -> str:
    names = re.findall(r"^- ([^(\n]+) \(", prompt, flags=re.MULTILINE)
    return json.dumps({"title": " and ".join(names[:2]) or "A community", "summary": f"About {', '.join(names[:3])}.",
                       "rating": 5, "rating_explanation": "test", "findings": [{"summary": n, "explanation": "x"}
                                                                              for n in names[:2]]})


def answer_keywords(prompt: str) -> str:
    """Local search's keywords: the question's words of four letters or more."""
    question = re.search(r"^Question: (.*)$", prompt, flags=re.MULTILINE).group(1)
    return json.dumps({"keywords": list(dict.fromkeys(w for w in re.findall(r"[A-Za-z]{4,}", question)))})


def answer_map(prompt: str) -> str:
    """Global search's map step: each report's title as a point, scored by the words it shares
    with the question."""
    question = set(re.findall(r"[a-z]{4,}", re.search(r"^Question: (.*)$", prompt, re.MULTILINE).group(1).lower()))
    points = []
    for number, title in re.findall(r"^\[(\d+)\] # (.+)$", prompt, flags=re.MULTILINE):
        shared = question & set(re.findall(r"[a-z]{4,}", title.lower()))
        points.append({"description": f"The report on {title}.", "score": min(100, 20 + 20 * len(shared)),
                       "reports": [int(number)]})
    return json.dumps({"points": points})


def answer_draft(prompt: str) -> str:
    """`ontology draft`'s proposals: the words of seven letters or more that two excerpts share,
    as concepts of one class, each with the excerpts it appears in."""
    excerpts = re.findall(r"^\[(\d+)\] \(.*?\)\n(.*?)(?=^\[\d+\] \(|\Z)", prompt, flags=re.MULTILINE | re.DOTALL)
    where: dict[str, list[int]] = {}
    for number, text in excerpts:
        for word in dict.fromkeys(re.findall(r"[a-z]{7,}", text.lower())):
            where.setdefault(word, []).append(int(number))
    shared = [(word, numbers) for word, numbers in where.items() if len(numbers) >= 2][:8]
    concepts = [{"name": word, "synonyms": [word.upper()[:3]], "description": f"What the excerpts call {word}.",
                 "chunks": numbers} for word, numbers in shared]
    return json.dumps({"classes": [{"name": "Shared terms", "concepts": concepts}]})


def answer(prompt: str) -> str:
    if prompt.startswith("You help a domain expert build an ontology"):
        return answer_draft(prompt)
    if prompt.startswith("List the keywords"):
        return answer_keywords(prompt)
    if prompt.startswith("Answer the question from the community reports"):
        return answer_map(prompt)
    if '"informed"' in prompt:
        return answer_judge(prompt)
    if prompt.startswith("Extract the entities the passage names"):
        return answer_triplets(prompt)
    if prompt.startswith("Write a report on a community"):
        return answer_report(prompt)
    if '"description"' in prompt and prompt.startswith("These descriptions"):
        return json.dumps({"description": "A merged description."})
    return answer_extraction(prompt)


def schema_of(body: dict) -> dict | None:
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return response_format["json_schema"]["schema"]
    return None


def answer_by_names(prompt: str) -> str:
    """What small models do: concepts named by their names, and the template's literal <id>."""
    concepts = re.findall(r"^- ([^:\n]+:[^:\s]+): ([^.\n]+)\.", prompt, flags=re.MULTILINE)
    extracts = [{"concept_id": name, "extract": f"About {name.lower()}."} for _, name in concepts]
    return json.dumps({"extracts": extracts + [{"concept_id": "<id>", "extract": "copied from the template"}]})


class FakeOpenAI:
    """A real HTTP server speaking the OpenAI API (chat completions, embeddings, models), with
    answers computed from the prompts, and scripted misbehaviour: 429, 500, 400, 401, timeout,
    malformed, runaway (cut at max_tokens), names (concepts named instead of their ids), reserved
    (triplet entities typed Concept, Document, ...).
    With structured=True it honours a JSON schema the way constrained decoding does for the
    runner's probe (the enum's value); otherwise it ignores schemas, like a server without
    constrained decoding. `slots` makes it report llama.cpp's /slots."""

    def __init__(self, dimensions: int = 64, models: tuple[str, ...] = ("fake-embed", "fake-chat"),
                 delay: float = 0.0, timeout_sleep: float = 3.0, structured: bool = False, slots: int | None = None,
                 batch_outcome: str = "completed", batch_polls: int = 1):
        self.structured = structured
        self.batch_outcome = batch_outcome
        self.batch_polls = batch_polls
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.ids = itertools.count(1)
        self.slots = slots
        self.dimensions = dimensions
        self.models = models
        self.delay = delay
        self.timeout_sleep = timeout_sleep
        self.script: list[str] = []
        self.always: str | None = None
        self.upload_delay = 0.0  # seconds a batch file's upload takes
        self.posts_only = False  # with `always` "html"/"notjson": GETs (/models) answer as the API does
        self.echo_status: int | None = None  # chat requests fail with this status, their headers echoed
        self.huge_extract = 0    # chat answers carry an extract of this many characters, max_tokens ignored
        self.requests: list[dict] = []
        self.lock = threading.RLock()  # a batch finishing under it answers its lines as chat requests
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

            def _send_text(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _not_the_api(self, post: bool = True) -> bool:
                """`always` "html" (a login page) or "notjson" (JSON announced, garbage sent): every
                request gets that body with status 200, as from a proxy in front of the API (with
                `posts_only`, every POST: chat, files, batches)."""
                if server.posts_only and not post:
                    return False
                if server.always == "html":
                    self._send_text(200, b"<html><body><h1>Please sign in</h1></body></html>", "text/html")
                elif server.always == "notjson":
                    self._send_text(200, b"<html>upstream says hello", "application/json")
                else:
                    return False
                return True

            def do_GET(self):
                if self._not_the_api(post=False):
                    return
                if server.always == "401":
                    return self._send(401, {"error": {"message": "Incorrect API key provided: sk-secret-echo"}})
                parts = self.path.rstrip("/").split("/")
                if len(parts) >= 4 and parts[-3] == "files" and parts[-1] == "content" and parts[-2] in server.files:
                    return self._send_bytes(server.files[parts[-2]])
                if len(parts) >= 3 and parts[-2] == "batches":
                    if parts[-1] not in server.batches:
                        return self._send(404, {"error": {"message": f"no batch {parts[-1]}"}})
                    return self._send(200, server._poll_batch(parts[-1]))
                if self.path.rstrip("/") == "/slots" and server.slots:
                    return self._send(200, [{"id": i, "is_processing": False} for i in range(server.slots)])
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "test"}
                                                                for m in server.models]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def _send_bytes(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self._not_the_api():
                    server.requests.append({"path": self.path, "body": {}})
                    return
                if self.path.rstrip("/").endswith("/files"):  # multipart/form-data: purpose and file
                    form = email.message_from_bytes(b"Content-Type: " + self.headers["Content-Type"].encode() +
                                                    b"\r\n\r\n" + raw)
                    fields = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                              for part in form.get_payload()}
                    if server.upload_delay:
                        time.sleep(server.upload_delay)
                    file_id = f"file-{next(server.ids)}"
                    server.files[file_id] = fields["file"]
                    server.requests.append({"path": self.path, "body": {"purpose": fields["purpose"].decode()}})
                    return self._send(200, server._file(file_id, "batch"))
                body = json.loads(raw or b"{}")
                server.requests.append({"path": self.path, "body": body,
                                        "authorization": self.headers.get("Authorization")})
                if self.path.rstrip("/").endswith("/embeddings"):
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    data = [{"object": "embedding", "index": i,
                             "embedding": hashed_embedding(text, server.dimensions)} for i, text in enumerate(inputs)]
                    tokens = sum(len(t.split()) for t in inputs)
                    self._send(200, {"object": "list", "data": data, "model": body.get("model"),
                                     "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})
                elif self.path.rstrip("/").endswith("/chat/completions"):
                    self._chat(body)
                elif self.path.rstrip("/").endswith("/batches"):
                    if body["input_file_id"] not in server.files:
                        return self._send(400, {"error": {"message": f"no file {body['input_file_id']}"}})
                    batch_id = f"batch_{next(server.ids)}"
                    server.batches[batch_id] = {
                        "id": batch_id, "object": "batch", "endpoint": body["endpoint"], "errors": None,
                        "input_file_id": body["input_file_id"], "completion_window": body["completion_window"],
                        "status": "validating", "output_file_id": None, "error_file_id": None,
                        "created_at": int(time.time()), "metadata": body.get("metadata"), "polls": 0,
                        "request_counts": {"total": 0, "completed": 0, "failed": 0}}
                    self._send(200, server._public(batch_id))
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _chat(self, body: dict) -> None:
                if server.echo_status:  # an endpoint whose error body repeats what it was sent
                    return self._send(server.echo_status, {"error": {
                        "message": f"rejected; you sent Authorization: {self.headers.get('Authorization')} "
                                   f"and x-api-key={self.headers.get('Authorization', '').split()[-1]}",
                        "type": "invalid_request_error"}})
                self._send(*server.chat_response(body))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def chat_response(self, body: dict) -> tuple[int, dict]:
        """(HTTP status, body) of a chat request: the scripted behaviour, else the answer."""
        probe = self._is_probe({"body": body})
        with self.lock:  # the script is for tasks: the runner's probe is answered as it comes
            behaviour = "ok" if probe else self.script.pop(0) if self.script else (self.always or "ok")
        if self.delay:
            time.sleep(self.delay)
        if behaviour == "429":
            return (429, {"error": {"message": "rate limited", "type": "rate_limit"}})
        if behaviour == "500":
            return (500, {"error": {"message": "server error"}})
        if behaviour == "400":
            return (400, {"error": {"message": f"The model `{body.get('model')}` does not exist",
                                    "type": "invalid_request_error", "code": "model_not_found"}})
        if behaviour == "401":
            return (401, {"error": {"message": "Incorrect API key provided: sk-secret-echo",
                                    "type": "invalid_request_error", "code": "invalid_api_key"}})
        if behaviour == "timeout":
            time.sleep(self.timeout_sleep)
            return (200, {"error": "too late"})
        prompt = body["messages"][-1]["content"]
        schema = schema_of(body)
        finish = "stop"
        if probe:
            color = schema["properties"]["color"]["enum"][0] if self.structured else "banana"
            content = json.dumps({"color": color, "note": "ok"})
        elif behaviour == "malformed":
            content = "Sure! Here you go: {extracts: ["
        elif behaviour == "runaway":  # a model that loops until max_tokens stops it
            content = '{"extracts": [{"concept_id": "' + "la " * int(body.get("max_tokens") or 4000)
            finish = "length"
        elif self.huge_extract:  # an endpoint that ignores max_tokens
            content = json.dumps({"extracts": [{"concept_id": cid, "extract": "la " * (self.huge_extract // 3)}
                                               for cid, _ in re.findall(r"^- ([^:\n]+:[^:\s]+): ([^.\n]+)\.", prompt,
                                                                        flags=re.MULTILINE)]})
        elif behaviour == "names":
            content = answer_by_names(prompt)
        elif behaviour == "reserved":  # entities and relations typed as the graph's other parts
            content = answer_triplets(prompt, ("Concept", "Document", "Chunk", "Evidence", "Community"),
                                      ("concerns", "mentioned in", "parent", "in community", "from chunk"))
        else:
            content = answer(prompt)
        return (200, {
            "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(content.split()),
                      "total_tokens": len(prompt.split()) + len(content.split())}})

    # ---- the Batch API ---------------------------------------------------------------------------
    def _file(self, file_id: str, purpose: str) -> dict:
        return {"id": file_id, "object": "file", "bytes": len(self.files[file_id]), "created_at": int(time.time()),
                "filename": f"{file_id}.jsonl", "purpose": purpose, "status": "processed"}

    def _public(self, batch_id: str) -> dict:
        return {k: v for k, v in self.batches[batch_id].items() if k != "polls"}

    def _poll_batch(self, batch_id: str) -> dict:
        """The batch's state at this read: in progress for `batch_polls` reads, then finished
        as `batch_outcome` says, its answers computed line by line."""
        with self.lock:
            batch = self.batches[batch_id]
            batch["polls"] += 1
            if batch["status"] in ("validating", "in_progress") and batch["polls"] > self.batch_polls:
                self._finish(batch)
            elif batch["status"] == "validating":
                batch["status"] = "in_progress"
        return self._public(batch_id)

    def _finish(self, batch: dict) -> None:
        requests = [json.loads(line) for line in self.files[batch["input_file_id"]].decode().splitlines() if line]
        output, errors = [], []
        for n, request in enumerate(requests):
            if self.batch_outcome == "expired" and n >= len(requests) // 2:
                errors.append({"id": f"req-{n}", "custom_id": request["custom_id"], "response": None,
                               "error": {"code": "batch_expired", "message": "This request could not be executed "
                                                                             "before the completion window expired."}})
                continue
            if self.batch_outcome == "partial" and n % 2 == 1:
                errors.append({"id": f"req-{n}", "custom_id": request["custom_id"],
                               "response": {"status_code": 500, "request_id": f"r{n}",
                                            "body": {"error": {"message": "server error", "type": "server_error"}}},
                               "error": None})
                continue
            self.requests.append({"path": "/v1/chat/completions", "body": request["body"], "batch": batch["id"]})
            status, answer = self.chat_response(request["body"])
            output.append({"id": f"req-{n}", "custom_id": request["custom_id"],
                           "response": {"status_code": status, "request_id": f"r{n}", "body": answer}, "error": None})
        for name, rows in (("output_file_id", output), ("error_file_id", errors)):
            if rows:
                file_id = f"file-{next(self.ids)}"
                self.files[file_id] = ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
                batch[name] = file_id
        batch["status"] = "expired" if self.batch_outcome == "expired" else "completed"
        batch["request_counts"] = {"total": len(requests), "completed": len(output), "failed": len(errors)}

    def batch_requests(self) -> list[dict]:
        """The chat requests answered inside batches."""
        return [r for r in self.requests if r.get("batch")]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def chat_requests(self) -> list[dict]:
        """The chat requests of tasks (the runner's one structured-answers probe apart)."""
        return [r for r in self.requests if r["path"].rstrip("/").endswith("/chat/completions")
                and not self._is_probe(r)]

    def probe_requests(self) -> list[dict]:
        return [r for r in self.requests if r["path"].rstrip("/").endswith("/chat/completions") and self._is_probe(r)]

    @staticmethod
    def _is_probe(request: dict) -> bool:
        schema = schema_of(request["body"])
        return bool(schema) and "color" in schema.get("properties", {})
