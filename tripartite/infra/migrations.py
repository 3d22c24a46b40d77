"""Versioned Cypher migrations, Flyway style.

Files are named V<NNN>__<description>.cypher and applied in version order. Each applied one
is recorded as a (:__TripartiteMigration) node with its checksum, so a re-run applies
nothing and an applied file edited afterwards stops the run.

Atomicity: every statement of a file is checked with EXPLAIN before anything runs, then
the file runs in one transaction. Neo4j forbids schema changes and data writes in one
transaction, so a file holds either schema statements (constraints, indexes) or data
statements, never both; a schema file is recorded in a second transaction right after,
which is why schema statements should say IF NOT EXISTS.

A file may start with the directive `// @database: system` to run against another
database (APOC's custom procedures are installed through the system database). Every
migration gets the parameters $database (the configured database) and $selection_defaults
(the selection's defaults from tripartite/infra/config.py, which the Browser procedures take
as their own); a file that uses the latter counts them in its checksum.

Repeatable migrations, R__<description>.cypher, hold definitions that follow the code (the
Browser procedures, whose bodies are @include'd scripts): they run after the versioned ones
whenever their checksum differs from the one recorded, and their edits are never drift. A
versioned migration turned into a repeatable one of the same description is superseded: its
record stays, and its missing file is not an error.
"""
from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from tripartite.infra.config import SelectionSettings
from tripartite.infra.cypher import Statement, read_script, split_statements
from tripartite.infra.errors import MigrationError
from tripartite.infra.graph import Graph, ScriptTransaction
from tripartite.infra.locks import run_lock
from tripartite.infra.paths import cypher_dir

if TYPE_CHECKING:
    import neo4j
    from neo4j.exceptions import Neo4jError

SELECTION_DEFAULTS = asdict(SelectionSettings())
LOCK_WAIT_SECONDS = 600.0
FILE_NAME = re.compile(r"^(V(?P<version>\d+)|R)__(?P<description>[A-Za-z0-9][A-Za-z0-9_\-]*)\.cypher$")
DATABASE_DIRECTIVE = re.compile(r"^\s*//\s*@database:\s*(?P<name>[A-Za-z0-9._\-]+)\s*$", re.MULTILINE)
REQUIRES_DIRECTIVE = re.compile(r"^\s*//\s*@requires:\s*(?P<procedure>[A-Za-z0-9._]+)\s*$", re.MULTILINE)
INCLUDE_DIRECTIVE = re.compile(r"^\s*//\s*@include:\s*(?P<param>[A-Za-z_]\w*)\s*=\s*(?P<script>[\w/\-.]+)\s*$",
                               re.MULTILINE)
BATCHED_DIRECTIVE = re.compile(r"^\s*//\s*@batched\s*$", re.MULTILINE)
DIRECTIVES = {"database": DATABASE_DIRECTIVE, "requires": REQUIRES_DIRECTIVE, "include": INCLUDE_DIRECTIVE,
              "batched": BATCHED_DIRECTIVE}
DIRECTIVE_FORMS = {"database": "// @database: <name>", "requires": "// @requires: <procedure name>",
                   "include": "// @include: <parameter> = <part>/<script>", "batched": "// @batched"}
DIRECTIVE_LINE = re.compile(r"^\s*//\s*@(?P<name>database|requires|include|batched)\b")
SCHEMA_STATEMENT = re.compile(
    r"^(CREATE|DROP)\s+(OR\s+REPLACE\s+)?"
    r"((RANGE|TEXT|POINT|LOOKUP|FULLTEXT|VECTOR|BTREE)\s+)?(INDEX|CONSTRAINT)\b",
    re.IGNORECASE,
)
LEADING_COMMENTS = re.compile(r"^(\s*(//[^\n]*\n|/\*.*?\*/))*\s*", re.DOTALL)

@dataclass(frozen=True)
class MigrationFile:
    version: int | None  # None for a repeatable (R__) migration
    description: str
    path: Path
    checksum: str
    statements: tuple[Statement, ...]
    database: str | None  # from the @database directive; None means the configured one
    requires: tuple[str, ...] = ()       # procedures it needs; without them it is skipped, not failed
    params: tuple[tuple[str, str], ...] = ()  # @include'd scripts, passed as parameters
    batched: bool = False  # @batched: each statement commits on its own (CALL ... IN TRANSACTIONS), for
                           # data too big for one transaction; every statement must be safe to run again,
                           # since an interrupted run is recorded only when a later one finishes it

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def repeatable(self) -> bool:
        return self.version is None

    @property
    def is_schema(self) -> bool:
        return all(is_schema_statement(s.text) for s in self.statements)


@dataclass(frozen=True)
class MigrationState:
    version: int | None  # None for a repeatable migration
    description: str
    state: str  # applied | pending | changed | missing | optional | outdated (a repeatable to re-run)
    applied_at: str | None = None
    file: str | None = None

    @property
    def label(self) -> str:
        return "R" if self.version is None else f"V{self.version:03d}"


def is_schema_statement(text: str) -> bool:
    return bool(SCHEMA_STATEMENT.match(LEADING_COMMENTS.sub("", text, count=1)))


def checksum(source: str) -> str:
    return hashlib.sha256(source.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def discover(folder: Path) -> list[MigrationFile]:
    """All migration files of `folder`: versioned ones in version order, then the repeatable
    ones by name; misnamed or duplicate ones are errors."""
    if not folder.is_dir():
        raise MigrationError(f"{folder}: migrations folder not found; set TRIPARTITE_MIGRATIONS_DIR or [paths].migrations_dir")
    found: dict[int, MigrationFile] = {}
    repeatable: list[MigrationFile] = []
    for path in sorted(folder.iterdir()):
        if path.suffix != ".cypher":
            continue
        match = FILE_NAME.match(path.name)
        if not match:
            raise MigrationError(f"{path}: migration file names must look like V001__create_constraints.cypher "
                                 "(or R__browser_procedures.cypher for a repeatable one); rename it")
        version = int(match["version"]) if match["version"] else None
        if version in found:
            raise MigrationError(f"{path}: version {version} is also used by {found[version].name}; give one of them a new version")
        try:
            source = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise MigrationError(f"{path}: not UTF-8 text; save the migration as UTF-8") from None
        statements = tuple(split_statements(source, origin=str(path)))
        if not statements:
            raise MigrationError(f"{path}: holds no Cypher statement; add one or delete the file")
        for line in source.splitlines():  # a directive that does not parse would be silently ignored
            name = DIRECTIVE_LINE.match(line)
            if name and not DIRECTIVES[name["name"]].match(line):
                raise MigrationError(f"{path}: malformed directive {line.strip()!r}; write it as "
                                     f"{DIRECTIVE_FORMS[name['name']]}")
        directive = DATABASE_DIRECTIVE.search(source)
        params = tuple((m["param"], _included(path, m["script"])) for m in INCLUDE_DIRECTIVE.finditer(source))
        # An included script is part of the migration: editing it counts as editing the migration.
        digest = checksum(source + "".join(text for _, text in params)
                          + (json.dumps(SELECTION_DEFAULTS, sort_keys=True) if "$selection_defaults" in source else ""))
        migration = MigrationFile(version, match["description"], path, digest, statements,
                                  directive["name"] if directive else None,
                                  tuple(m["procedure"] for m in REQUIRES_DIRECTIVE.finditer(source)), params,
                                  bool(BATCHED_DIRECTIVE.search(source)))
        kinds = {is_schema_statement(s.text) for s in statements}
        if len(kinds) > 1:
            raise MigrationError(f"{path}: mixes schema statements (constraints, indexes) with data statements, which Neo4j "
                                 "cannot run in one transaction; split it into two migrations")
        if migration.repeatable:
            repeatable.append(migration)
        else:
            found[version] = migration
    return [found[v] for v in sorted(found)] + repeatable


def _included(migration: Path, script: str) -> str:
    """The one statement of cypher/<script>.cypher, for `// @include: param = script`."""
    statements = read_script(cypher_dir() / f"{script}.cypher")
    if len(statements) != 1:
        raise MigrationError(f"{migration}: @include {script} must name a script of exactly one statement "
                             f"(it has {len(statements)})")
    return statements[0].text


def _missing_procedures(graph: Graph, migration: MigrationFile) -> list[str]:
    if not migration.requires:
        return []
    present = set(Graph(graph.driver, "system").run("infra/procedures_present", names=list(migration.requires))[0]["present"])
    return [p for p in migration.requires if p not in present]


def _history(graph: Graph) -> tuple[dict[int, dict], dict[str, dict]]:
    """Applied migrations: versioned ones by version, repeatable ones by file name."""
    rows = graph.run("infra/migration_history")
    return ({r["version"]: r for r in rows if r["version"] is not None},
            {r["file"]: r for r in rows if r["version"] is None})


def status(graph: Graph, folder: Path) -> list[MigrationState]:
    found = discover(folder)
    files = {m.version: m for m in found if not m.repeatable}
    applied, recorded = _history(graph)
    superseded = {m.description for m in found if m.repeatable}
    states: list[MigrationState] = []
    for version in sorted(set(files) | set(applied)):
        file, row = files.get(version), applied.get(version)
        if file is None and row["description"] in superseded:
            states.append(MigrationState(version, row["description"], "superseded", row["applied_at"]))
        elif row is None:
            state = "optional" if file.requires and _missing_procedures(graph, file) else "pending"
            states.append(MigrationState(version, file.description, state, file=file.name))
        elif file is None:
            states.append(MigrationState(version, row["description"], "missing", row["applied_at"]))
        else:
            state = "applied" if row["checksum"] == file.checksum else "changed"
            states.append(MigrationState(version, file.description, state, row["applied_at"], file.name))
    for file in (m for m in found if m.repeatable):
        row = recorded.get(file.name)
        if row is not None and row["checksum"] == file.checksum:
            state = "applied"
        elif file.requires and _missing_procedures(graph, file):
            state = "optional"
        else:
            state = "pending" if row is None else "outdated"
        states.append(MigrationState(None, file.description, state, row["applied_at"] if row else None, file.name))
    return states


def require_current(graph: Graph, folder: Path) -> None:
    """Refuse a database whose versioned migrations are not all applied: without them it lacks
    the constraints that keep ids unique and the indexes search reads, so a command would write
    a graph that later fails, or fail half way. (Repeatable ones only install the Browser's
    procedures; `doctor` reports those.)"""
    versioned = [s for s in status(graph, folder) if s.version is not None]
    pending = [s.version for s in versioned if s.state == "pending"]  # not "optional": those may stay pending
    if pending:
        fresh = all(s.state in ("pending", "optional") for s in versioned)
        state = "has no schema yet" if fresh else "has a schema older than this version of tripartite"
        span = f"V{pending[0]:03d}" + (f" to V{pending[-1]:03d}" if len(pending) > 1 else "")
        raise MigrationError(f"the database {graph.database} {state} ({len(pending)} migrations pending, {span}): "
                             "run `tripartite migrate` first")


def _check_history(files: list[MigrationFile], applied: dict[int, dict], folder: Path) -> list[MigrationFile]:
    """Refuse drift (edited or missing applied files, out-of-order versions); return what is pending."""
    superseded = {m.description for m in files if m.repeatable}
    files = [m for m in files if not m.repeatable]
    by_version = {m.version: m for m in files}
    for version, row in applied.items():
        file = by_version.get(version)
        if file is None and row["description"] in superseded:
            continue  # now a repeatable migration of the same name
        if file is None:
            raise MigrationError(f"V{version:03d}__{row['description']}.cypher is applied in the database but missing from "
                                 f"{folder}; restore the file (applied migrations are never deleted)")
        if file.checksum != row["checksum"]:
            raise MigrationError(f"{file.path}: edited after it was applied (checksum {row['checksum'][:12]} in the database, "
                                 f"{file.checksum[:12]} on disk); revert the edit and put the change in a new migration")
    pending = [m for m in files if m.version not in applied]
    newest = max(applied, default=0)
    late = [m for m in pending if m.version < newest and not m.requires]  # optional ones may come late
    if late:
        raise MigrationError(f"{late[0].path}: version {late[0].version} is older than the newest applied migration "
                             f"V{newest:03d}; renumber it above {newest}")
    return pending


def _validate(session: neo4j.Session, migration: MigrationFile, params: dict) -> None:
    from neo4j.exceptions import CypherSyntaxError, Neo4jError

    for statement in migration.statements:
        try:
            session.run("EXPLAIN " + statement.text, params).consume()
        except CypherSyntaxError as exc:
            raise MigrationError(f"{migration.path}:{statement.line}: Cypher syntax error: {_message(exc)}; "
                                 "fix the statement (nothing was applied)") from None
        except Neo4jError as exc:
            raise MigrationError(f"{migration.path}:{statement.line}: Neo4j rejected the statement: {_message(exc)} "
                                 "(nothing was applied)") from None


def _apply_one(graph: Graph, migration: MigrationFile) -> float:
    from neo4j.exceptions import Neo4jError

    database = graph.database
    target = migration.database or database
    record = {"version": migration.version, "description": migration.description, "file": migration.name,
              "checksum": migration.checksum, "statements": len(migration.statements)}
    started = time.perf_counter()
    params = {"database": database, "selection_defaults": SELECTION_DEFAULTS, **dict(migration.params)}
    with graph.session(target) as session:
        _validate(session, migration, params)
        if migration.batched:
            _apply_batched(session, migration, params)
            graph.run(_record_script(migration), duration_ms=round((time.perf_counter() - started) * 1000), **record)
            return time.perf_counter() - started
        tx = session.begin_transaction()
        line = migration.statements[0].line
        try:
            for statement in migration.statements:
                line = statement.line
                tx.run(statement.text, params).consume()
            if not migration.is_schema and target == database:
                ScriptTransaction(tx).run(_record_script(migration),
                                          duration_ms=round((time.perf_counter() - started) * 1000), **record)
            tx.commit()
        except Neo4jError as exc:
            raise MigrationError(f"{migration.path}:{line}: failed, rolled back: {_message(exc)}; fix the migration "
                                 "and run `tripartite migrate` again") from None
        finally:
            if not tx.closed():
                tx.close()
    elapsed = time.perf_counter() - started
    if migration.is_schema or target != database:
        graph.run(_record_script(migration), duration_ms=round(elapsed * 1000), **record)
    return elapsed


def _apply_batched(session: neo4j.Session, migration: MigrationFile, params: dict) -> None:
    """Each statement as an auto-commit query: what commits stays, and a run that is killed is
    finished by the next `migrate`, which runs the file again from its first statement."""
    from neo4j.exceptions import Neo4jError

    for statement in migration.statements:
        try:
            session.run(statement.text, params).consume()
        except Neo4jError as exc:
            raise MigrationError(f"{migration.path}:{statement.line}: failed: {_message(exc)} (what committed before "
                                 "stays; the statements are safe to run again): fix the cause and run "
                                 "`tripartite migrate` again") from None


def _record_script(migration: MigrationFile) -> str:
    return "infra/record_repeatable_migration" if migration.repeatable else "infra/record_migration"


def migrate(graph: Graph, folder: Path,
            on_applied: Callable[[MigrationFile, float], None] | None = None,
            on_skipped: Callable[[MigrationFile, list[str]], None] | None = None,
            on_wait: Callable[[str], None] = lambda message: None) -> list[MigrationFile]:
    """Apply every pending migration in order, then every repeatable one that is new or
    changed; return the ones applied. A migration whose required procedures the server lacks
    is skipped (and tried again next time). One run at a time per database (a run lock)."""
    files = discover(folder)
    with run_lock(graph, "migrate", "migrate", on_wait, wait_seconds=LOCK_WAIT_SECONDS):
        return _migrate(graph, folder, files, on_applied, on_skipped)


def _migrate(graph: Graph, folder: Path, files: list[MigrationFile],
             on_applied: Callable[[MigrationFile, float], None] | None,
             on_skipped: Callable[[MigrationFile, list[str]], None] | None) -> list[MigrationFile]:
    graph.run("infra/migration_bootstrap")
    applied_versions, recorded = _history(graph)
    pending = _check_history(files, applied_versions, folder)
    pending += [m for m in files if m.repeatable and recorded.get(m.name, {}).get("checksum") != m.checksum]
    applied = []
    for migration in pending:
        missing = _missing_procedures(graph, migration)
        if missing:
            if on_skipped:
                on_skipped(migration, missing)
            continue
        elapsed = _apply_one(graph, migration)
        applied.append(migration)
        if on_applied:
            on_applied(migration, elapsed)
    return applied


def _message(exc: Neo4jError) -> str:
    text = (exc.message or str(exc)).strip().splitlines()
    return text[0] if text else type(exc).__name__
