"""Which path runs the selection's three steps (score, distribution, classify) and a prompt's
material (prompt_material).

- cypher: the scripts in cypher/selection/, the readable reference, and the only path on a
  server that takes no plugins (Aura);
- plugin: the same steps as procedures of the plugin built from procedures/ (Java), which
  reads each embedding once and writes only what changed; its results equal the scripts'
  (tests/test_selection.py runs its tests on both paths).

Chosen per run: the plugin when the server has it in the very version these sources build
(its tripartite.selection.version() is their hash), else the scripts. `[selection] engine`
(TRIPARTITE_SELECT_ENGINE) can insist on one: "cypher", or "plugin", which then refuses a
server without it in one line.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph, ScriptTransaction

STEPS = ("score", "distribution", "classify")
CHOICES = ("auto", "cypher", "plugin")


@dataclass(frozen=True)
class Engine:
    name: str     # "cypher" | "plugin"
    reason: str   # why this one (doctor prints it)

    def script(self, step: str) -> str:
        """The script that runs `step` on this path (the plugin's are one CALL each)."""
        return f"selection/{step}" if self.name == "cypher" else f"selection/plugin/{step}"

    def run(self, on: Graph | ScriptTransaction, step: str, **params) -> None:
        """Run `step` on the graph (in the script's own transactions) or inside a transaction."""
        on.run(self.script(step), **params)


def plugin_version(graph: Graph) -> str | None:
    """The source hash of the plugin the server runs, or None when it has none."""
    from neo4j.exceptions import ClientError

    try:
        row = graph.one("selection/plugin/version")
    except ClientError:  # an unknown function: no plugin, or one older than version()
        return None
    return row["version"] if row else None


_prompt_engines: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # driver -> its prompts' path


def for_prompts(graph: Graph, forget: bool = False) -> Engine:
    """The path a prompt's material takes: choose(graph), asked once per driver (as
    run.server_concurrency asks the processors), since a prompt should not pay a round trip
    for it (`forget`: ask again, when the server lost the plugin)."""
    if forget or graph.driver not in _prompt_engines:
        _prompt_engines[graph.driver] = choose(graph)
    return _prompt_engines[graph.driver]


def choose(graph: Graph, setting: str = "auto") -> Engine:
    """The path for this run (see the module doc)."""
    if setting not in CHOICES:
        raise TripartiteError(f"[selection] engine = {setting!r} is not one of {', '.join(CHOICES)}")
    if setting == "cypher":
        return Engine("cypher", "the Cypher scripts, as [selection] engine asks")
    from tripartite.infra.server.plugin import source_hash

    found = plugin_version(graph)
    wanted = source_hash()
    if found == wanted:
        return Engine("plugin", f"the procedure plugin ({found}) the server runs")
    why = ("the server has no tripartite procedure plugin" if found is None else
           f"the server's procedure plugin ({found}) was built from other sources than these ({wanted}); "
           "`tripartite server start` builds and installs the current one")
    if setting == "plugin":
        raise TripartiteError(f"[selection] engine = 'plugin', but {why}")
    return Engine("cypher", f"the Cypher scripts: {why}")
