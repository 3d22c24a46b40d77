"""A persistent answer cache in SQLite, keyed by provider, model, prompt and schema.

Each answer is committed the moment it arrives, so a run killed halfway loses no paid call:
the next run finds it here. A cache that cannot be opened stops the command before its first
call, in one line naming the file and the setting that moves it.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

from tripartite.infra.errors import StorageError
from tripartite.infra.folders import writable_folder

LLM_CACHE = "the LLM answer cache"
LLM_CACHE_FIX = "set TRIPARTITE_LLM_CACHE (or [paths] llm_cache) to a file in a writable folder"
BUSY_SECONDS = 30.0  # how long one run waits for another that holds the file


def _busy(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def cache_key(provider: str, model: str, prompt: str, schema: str) -> str:
    return hashlib.sha256("\x1f".join((provider, model, schema, prompt)).encode("utf-8")).hexdigest()


class AnswerCache:
    def __init__(self, path: Path):
        writable_folder(path.parent, LLM_CACHE, LLM_CACHE_FIX, named=path)  # WAL keeps two files beside it
        self.path = path
        self._lock = threading.Lock()
        deadline = time.monotonic() + BUSY_SECONDS
        while True:
            try:
                self._db = self._open(path)
                return
            except sqlite3.Error as exc:  # another kind of file there, or one that may not be written
                if _busy(exc) and time.monotonic() < deadline:
                    # Two runs opening a new cache at once: switching it to WAL can be refused at once,
                    # without SQLite's busy wait, while the other run does the same; try again shortly.
                    time.sleep(0.05)
                    continue
                raise StorageError(f"cannot use {LLM_CACHE} {path}: it cannot be opened as an SQLite database "
                                   f"({exc}); {LLM_CACHE_FIX}") from None

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=BUSY_SECONDS)
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL, "
                       "usage TEXT NOT NULL, created REAL DEFAULT (unixepoch('subsec')))")
        except sqlite3.Error:
            db.close()
            raise
        return db

    def get(self, key: str) -> tuple[dict, dict] | None:
        with self._lock:
            row = self._db.execute("SELECT answer, usage FROM answers WHERE key = ?", (key,)).fetchone()
        return (json.loads(row[0]), json.loads(row[1])) if row else None

    def put(self, key: str, answer: dict, usage: dict) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO answers (key, answer, usage) VALUES (?, ?, ?)",
                             (key, json.dumps(answer), json.dumps(usage)))

    def close(self) -> None:
        with self._lock:
            self._db.close()
