"""Errors a user can act on. The CLI prints each as one line naming the thing and the fix."""


class TripartiteError(Exception):
    """Base class: the message is the whole user-facing explanation."""


class ConfigError(TripartiteError):
    pass


class Neo4jUnavailable(TripartiteError):
    pass


class MigrationError(TripartiteError):
    pass


class ServerError(TripartiteError):
    """The local server could not be resolved, started or stopped.

    `log_tail` carries the last lines of the server's log, printed under the one-line message.
    """

    def __init__(self, message: str, log_tail: str = ""):
        super().__init__(message)
        self.log_tail = log_tail


class StorageError(TripartiteError):
    """A folder or file the package keeps its state in (server home, cache, LLM answer cache)
    cannot be made, read or written."""
