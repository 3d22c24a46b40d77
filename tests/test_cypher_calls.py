"""Every call of a Cypher script checked against cypher/, without Neo4j (issue 50, point 4).

The Python sources of tripartite/, bench/ and tests/ are read with `ast`, never imported.

What a script call is: `X.run(name, **params)` or `X.one(name, **params)` (Graph.run,
Graph.one, ScriptTransaction.run) whose first argument is a script name, or a call of a
wrapper. Wrappers are found, not listed: a function that passes one of its own arguments on
as a script's name, or its own **kwargs on as a script's parameters, is one (today Graph.one,
Engine.run and select's inner `step`), and its callers are checked instead of it. A name is
followed through literals, f-strings, `+`, `a if c else b`, `a or b`, assignments (local,
enclosing, module, imported), `for x in (literals)` and small functions that return such
(Engine.script, migrations._record_script): `step("score", ...)` is checked against both
selection/score.cypher and selection/plugin/score.cypher. The parameters are the call's
keywords, plus the keys of a `**mapping` that is a dict literal or dict(...) in reach (a local
assigned in the function, with its `d["key"] = ...` added).

What is checked: every script a call may run exists; the call passes every parameter each of
them uses; it passes nothing that none of them uses (a call that may run either the Cypher or
the plugin path passes their union: the plugin's steps take no $concurrency); no positional
argument follows the name; every migration uses only what the runner passes ($database,
$selection_defaults, its @include's) and uses all it @include's; the Browser procedures'
arguments are exactly the parameters their bodies (the @include'd scripts) use; a script
outside cypher/migrations/ that neither the package nor a bench runs, nor a migration
includes, says who runs it on a header line `// browser-only: ...`.

What cannot be checked, and is therefore listed in UNVERIFIED with a reason (a new case fails
the test until someone looks at it; an entry that matches nothing any more fails too): a call
on a receiver that may be a Graph or transaction (annotated so, or named graph, ..._graph, tx,
on) whose script name comes from data; a call whose `**mapping` comes from elsewhere (then
the keywords it does pass are still checked against the script, but a parameter it fails to
pass is not); a string naming a script ("part/name") that no followed call consumes. Not
seen at all: a `.run`/`.one` call on something else (session.run(text), runner.run(tasks):
Python calls of the same name), a name from data handed to a receiver not named as above,
and mutations of a parameter dict outside the function that builds it.
"""
from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pytest

from tripartite.infra.cypher import split_statements
from tripartite.infra.cypher_params import parameters, statement_parameters

ROOT = Path(__file__).resolve().parents[1]
CYPHER = ROOT / "cypher"
SCANNED = ("tripartite", "bench", "tests")
RUNNERS = ("run", "one")  # Graph.run, Graph.one, ScriptTransaction.run: the script's name comes first
RUNNER_NAME = re.compile(r"(^|_)(graph|tx|on)$", re.IGNORECASE)  # how the project names a Graph or transaction
SCRIPT_NAME = re.compile(r"^[A-Za-z_][\w-]*(/[\w.-]+)+$")
BROWSER_ONLY = re.compile(r"^//\s*browser-only:\s*\S", re.MULTILINE)  # not "// Browser: :param ...", a hint
MIGRATIONS = "migrations"

# Calls the checker cannot follow completely, each with why that is acceptable. A new one
# fails the test until it is looked at and added here; an entry that no longer matches fails
# too. Keys: (file, enclosing function, what), as the failure message prints them.
UNVERIFIED: dict[tuple[str, str, str], str] = {
    ("tripartite/infra/graph.py", "_run_statements", "statement.text"):
        "the runner itself: a driver transaction runs the text of a script's statement, not a script by name",
    ("tripartite/infra/migrations.py", "_apply_one", "statement.text"):
        "the migration runner: a driver transaction runs a migration's statements (what they use is checked by "
        "test_migrations_use_only_what_the_runner_passes)",
    ("tests/test_routing.py", "test_a_read_script_runs_in_a_read_transaction", "probe/sneaky"):
        "a probe script the test writes into a temporary cypher folder of its own",
    ("tests/test_routing.py", "test_a_read_script_runs_in_a_read_transaction", "probe/honest"):
        "a probe script the test writes into a temporary cypher folder of its own",
}


# --- values -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Val:
    """What an expression may be: some strings, and/or something not followed."""
    strings: frozenset = frozenset()
    params: frozenset = frozenset()   # (function id, parameter name): depends on the caller
    unknown: tuple = ()               # why some values are not known
    notstr: bool = False              # may be something other than a string (a dict, None, ...)
    nodes: frozenset = frozenset()    # the string literals it was made of

    def __or__(self, other: Val) -> Val:
        return Val(self.strings | other.strings, self.params | other.params, self.unknown + other.unknown,
                   self.notstr or other.notstr, self.nodes | other.nodes)

    @property
    def complete(self) -> bool:
        return bool(self.strings) and not self.params and not self.unknown


NOTSTR = Val(notstr=True)


def unknown(why: str) -> Val:
    return Val(unknown=(why,))


@dataclass(frozen=True)
class Keys:
    """The parameter names a call passes."""
    names: frozenset = frozenset()
    forwarded: frozenset = frozenset()  # (function id, **kwargs name): the caller's
    open: tuple = ()                    # why there may be more

    def __or__(self, other: Keys) -> Keys:
        return Keys(self.names | other.names, self.forwarded | other.forwarded, self.open + other.open)


# --- the sources --------------------------------------------------------------------------------

FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(eq=False)
class Scope:
    """A function, or a module's top level."""
    node: ast.AST
    module: Module
    qualname: str
    parent: Scope | None
    cls: ast.ClassDef | None = None  # the class a method is defined in
    # Its nodes, without those of nested functions and classes (a lambda's are its own; a class
    # body's statements are a scope of their own, its methods each one):
    own: list[ast.AST] = field(default_factory=list)

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<module>")

    @cached_property
    def args(self) -> dict[str, ast.arg]:
        if not isinstance(self.node, FUNCTION):
            return {}
        a = self.node.args
        found = {x.arg: x for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
        if a.vararg:
            found[a.vararg.arg] = a.vararg
        if a.kwarg:
            found[a.kwarg.arg] = a.kwarg
        return found

    @property
    def kwarg(self) -> str | None:
        return self.node.args.kwarg.arg if isinstance(self.node, FUNCTION) and self.node.args.kwarg else None

    @property
    def is_method(self) -> bool:
        return self.cls is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in self.node.decorator_list)

    @property
    def positional(self) -> list[ast.arg]:
        a = self.node.args
        found = [*a.posonlyargs, *a.args]
        return found[1:] if self.is_method else found

    @cached_property
    def bindings(self) -> dict[str, list[tuple[str, ast.AST]]]:
        """name -> how it is bound here: ("value", expr), ("each", iterable), ("other", node)."""
        found: dict[str, list] = {}

        def bind(target, how, expr):
            if isinstance(target, ast.Name):
                found.setdefault(target.id, []).append((how, expr))
            elif isinstance(target, (ast.Tuple, ast.List)):
                for t in target.elts:
                    bind(t, "other", expr)
            elif isinstance(target, ast.Starred):
                bind(target.value, "other", expr)

        for node in self.own:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    bind(t, "value", node.value)
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                bind(node.target, "value", node.value)
            elif isinstance(node, ast.AugAssign):
                bind(node.target, "other", node)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                bind(node.target, "each", node.iter)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                bind(node.optional_vars, "other", node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    found.setdefault(alias.asname or alias.name.split(".")[0], []).append(("import", node))
            elif isinstance(node, (*FUNCTION, ast.ClassDef)):
                found.setdefault(node.name, []).append(("def", node))
            elif isinstance(node, ast.comprehension):
                bind(node.target, "other", node)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                found.setdefault(node.name, []).append(("other", node))
        return found

    @cached_property
    def all_calls(self) -> list[ast.Call]:
        return sorted((n for n in self.own if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))


@dataclass(eq=False)
class Module:
    path: Path
    rel: str
    dotted: str
    tree: ast.Module
    scope: Scope | None = None


class Project:
    def __init__(self, root: Path, folders: tuple[str, ...]):
        self.modules: dict[str, Module] = {}
        self.scopes: list[Scope] = []
        self.by_node: dict[int, Scope] = {}
        for folder in folders:
            for path in sorted((root / folder).rglob("*.py")):
                rel = path.relative_to(root).as_posix()
                if path.resolve() == Path(__file__).resolve():
                    continue  # its literals are expectations, not calls
                dotted = rel[:-3].replace("/", ".").removesuffix(".__init__")
                module = Module(path, rel, dotted, ast.parse(path.read_text(encoding="utf-8"), filename=rel))
                self.modules[dotted] = module
                module.scope = self._walk(module)
        self.scopes.sort(key=lambda s: (s.module.rel, getattr(s.node, "lineno", 0)))
        self.methods: dict[str, list[Scope]] = {}
        for scope in self.scopes:
            if scope.cls is not None:
                self.methods.setdefault(scope.name, []).append(scope)

    def _add(self, node, module, qualname, parent, cls) -> Scope:
        scope = Scope(node, module, qualname or "<module>", parent, cls)
        self.scopes.append(scope)
        self.by_node[id(node)] = scope
        return scope

    def _walk(self, module: Module) -> Scope:
        """The module's scopes, each with its own nodes, in one pass over the tree."""
        top = self._add(module.tree, module, "", None, None)
        todo = [(child, top, "", None) for child in ast.iter_child_nodes(module.tree)]
        while todo:
            node, scope, prefix, cls = todo.pop()
            scope.own.append(node)
            if isinstance(node, (*FUNCTION, ast.ClassDef)):
                outside = [*node.decorator_list]  # evaluated in the enclosing scope
                qualname = f"{prefix}.{node.name}".lstrip(".")
                if isinstance(node, FUNCTION):
                    outside += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
                    parent = scope.parent if isinstance(scope.node, ast.ClassDef) else scope  # a method's: around its class
                    inner = self._add(node, module, qualname, parent, cls)
                    todo += [(child, inner, qualname, None) for child in node.body]
                else:
                    outside += [*node.bases, *node.keywords]
                    body = self._add(node, module, qualname, scope, None)
                    todo += [(child, body, qualname, node) for child in node.body]
                todo += [(child, scope, prefix, cls) for child in outside]
            else:
                todo += [(child, scope, prefix, cls) for child in ast.iter_child_nodes(node)]
        return top

    def scope_of(self, node) -> Scope:
        return self.by_node[id(node)]

    def imported(self, module: Module, node: ast.AST, name: str) -> tuple[Module, str] | None:
        """(project module, name in it) an import statement binds `name` to, if any."""
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.dotted.split(".")
                keep = len(parts) - node.level + (1 if module.path.name == "__init__.py" else 0)
                base = ".".join(parts[:keep] + ([base] if base else []))
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    if f"{base}.{alias.name}" in self.modules:
                        return self.modules[f"{base}.{alias.name}"], ""
                    if base in self.modules:
                        return self.modules[base], alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == name and alias.name in self.modules:
                    return self.modules[alias.name], ""
        return None


# --- following values ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Wrapper:
    """A function that runs a script whose name or parameters its callers give."""
    scope: Scope
    call: ast.Call          # the script call inside it
    inner: object           # "base", or the Wrapper that call goes through


@dataclass
class Found:
    """One way a call runs a script."""
    names: Val
    keys: Keys
    via: tuple[str, ...] = ()
    positional: int = 0  # arguments after the name a runner would refuse (scripts take keywords)


class Checker:
    DEPTH = 12

    def __init__(self, project: Project):
        self.project = project
        self.wrappers: list[Wrapper] = []

    # -- names
    def lookup(self, scope: Scope, name: str, env: dict, depth: int) -> Val:
        if name in env:
            value = env[name]
            return value if isinstance(value, Val) else NOTSTR
        s = scope
        while s is not None:
            if name in s.args:
                return self.param(s, name)
            if name in s.bindings:
                return self.bound(s, name, s.bindings[name], depth, env if s is scope else {})
            s = s.parent
        return unknown(f"{name} is not bound")

    def param(self, scope: Scope, name: str) -> Val:
        arg = scope.args[name]
        if name == scope.kwarg or (scope.node.args.vararg and name == scope.node.args.vararg.arg):
            return NOTSTR
        if arg.annotation is not None and "str" not in ast.unparse(arg.annotation):
            return NOTSTR
        return Val(params=frozenset({(id(scope.node), name)}))

    def bound(self, scope: Scope, name: str, how: list, depth: int, env: dict | None = None) -> Val:
        value, env = Val(), env or {}
        for kind, node in how:
            if kind == "value":
                value |= self.eval(node, scope, env, depth + 1)
            elif kind == "each":
                if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                    for element in node.elts:
                        value |= self.eval(element, scope, env, depth + 1)
                else:
                    value |= unknown(f"{name} is each of {ast.unparse(node)}")
            elif kind == "import":
                target = self.project.imported(scope.module, node, name)
                if target and target[1] and target[1] in target[0].scope.bindings:
                    value |= self.bound(target[0].scope, target[1], target[0].scope.bindings[target[1]], depth + 1)
                else:
                    value |= NOTSTR if target else unknown(f"{name} is imported from outside the project")
            elif kind == "def":
                value |= NOTSTR
            else:
                value |= unknown(f"{name} is bound by {type(node).__name__} at line {getattr(node, 'lineno', '?')}")
        return value

    def functions(self, func: ast.expr, scope: Scope) -> list[Scope]:
        """The project functions a call's callee may be."""
        if isinstance(func, ast.Name):
            s = scope
            while s is not None:
                for kind, node in s.bindings.get(func.id, []):
                    if kind == "def" and isinstance(node, FUNCTION):
                        return [self.project.scope_of(node)]
                    if kind == "import":
                        target = self.project.imported(s.module, node, func.id)
                        if target and target[1]:
                            return [self.project.scope_of(n) for k, n in target[0].scope.bindings.get(target[1], [])
                                    if k == "def" and isinstance(n, FUNCTION)]
                if func.id in s.args:
                    return []
                s = s.parent
            return []
        if isinstance(func, ast.Attribute):
            receiver = func.value
            if isinstance(receiver, ast.Name):
                if receiver.id in ("self", "cls"):
                    s = scope
                    while s is not None and s.cls is None:
                        s = s.parent
                    if s is not None:
                        own = [m for m in self.project.methods.get(func.attr, []) if m.cls is s.cls]
                        if own:
                            return own
                for kind, node in (scope.module.scope.bindings.get(receiver.id, [])):
                    if kind == "import":
                        target = self.project.imported(scope.module, node, receiver.id)
                        if target and not target[1]:
                            return [self.project.scope_of(n) for k, n in target[0].scope.bindings.get(func.attr, [])
                                    if k == "def" and isinstance(n, FUNCTION)]
            return self.project.methods.get(func.attr, [])
        return []

    def external(self, node: ast.expr, scope: Scope) -> bool:
        """A module from outside the project (subprocess.run, anyio.run): no script runner."""
        if not isinstance(node, ast.Name):
            return False
        s = scope
        while s is not None:
            if node.id in s.args:
                return False
            if node.id in s.bindings:
                return any(kind == "import" and self.project.imported(s.module, n, node.id) is None
                           for kind, n in s.bindings[node.id])
            s = s.parent
        return False

    def runner(self, node: ast.expr, scope: Scope) -> bool:
        """Whether a receiver of .run/.one may be a Graph or ScriptTransaction: by its annotation
        where it is an annotated argument, else by its name (graph, ...graph, tx, on)."""
        if isinstance(node, ast.Name):
            s = scope
            while s is not None:
                if node.id in s.args:
                    annotation = s.args[node.id].annotation
                    if annotation is not None:
                        return bool(re.search(r"Graph|ScriptTransaction", ast.unparse(annotation)))
                    break
                if node.id in s.bindings:
                    break
                s = s.parent
            return bool(RUNNER_NAME.search(node.id))
        if isinstance(node, ast.Attribute):
            return bool(RUNNER_NAME.search(node.attr))
        if isinstance(node, ast.Call):
            return bool(re.search(r"(^|\.)(Graph|ScriptTransaction)$", ast.unparse(node.func)))
        return False

    def returns(self, scope: Scope) -> list[ast.expr] | None:
        found = [n.value for n in scope.own if isinstance(n, ast.Return)]
        if not found or any(v is None for v in found) or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in scope.own):
            return None
        return found

    def eval(self, node: ast.expr, scope: Scope, env: dict, depth: int = 0) -> Val:
        if depth > self.DEPTH:
            return unknown(f"too deep at line {node.lineno}")
        if isinstance(node, ast.Constant):
            return Val(frozenset({node.value}), nodes=frozenset({id(node)})) if isinstance(node.value, str) else NOTSTR
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    parts.append(Val(frozenset({part.value})))
                elif isinstance(part, ast.FormattedValue) and part.format_spec is None and part.conversion == -1:
                    inner = self.eval(part.value, scope, env, depth + 1)
                    if inner.notstr and not inner.strings:
                        return NOTSTR
                    parts.append(inner)
                else:
                    parts.append(unknown(f"a formatted value at line {node.lineno}"))
            value = self.concat(parts, node)
            return Val(value.strings, value.params, value.unknown, value.notstr, value.nodes | {id(node)})
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.eval(node.left, scope, env, depth + 1), self.eval(node.right, scope, env, depth + 1)
            if (left.notstr and not left.strings) or (right.notstr and not right.strings):
                return NOTSTR
            return self.concat([left, right], node)
        if isinstance(node, ast.IfExp):
            return self.eval(node.body, scope, env, depth + 1) | self.eval(node.orelse, scope, env, depth + 1)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            value = Val()
            for v in node.values:
                value |= self.eval(v, scope, env, depth + 1)
            return value
        if isinstance(node, ast.Name):
            return self.lookup(scope, node.id, env, depth)
        if isinstance(node, ast.NamedExpr):
            return self.eval(node.value, scope, env, depth + 1)
        if isinstance(node, ast.Call):
            targets = [t for t in self.functions(node.func, scope) if self.returns(t) is not None]
            if len(targets) == 1:
                target = targets[0]
                bound = self.bind(target, node, scope, env, depth)
                if bound is None:
                    return unknown(f"{ast.unparse(node)} does not match {target.qualname}")
                value = Val()
                for expr in self.returns(target):
                    value |= self.eval(expr, target, bound, depth + 1)
                return value
            return unknown(ast.unparse(node))
        if isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp,
                             ast.GeneratorExp, ast.Lambda, ast.Compare, ast.UnaryOp)):
            return NOTSTR
        return unknown(ast.unparse(node))

    def concat(self, parts: list[Val], node) -> Val:
        value = Val()
        for part in parts:
            value = Val(frozenset(), value.params | part.params, value.unknown + part.unknown,
                        value.notstr or part.notstr, value.nodes | part.nodes)
        if all(part.strings for part in parts):
            value = Val(frozenset("".join(p) for p in itertools.product(*[sorted(x.strings) for x in parts])),
                        value.params, value.unknown, value.notstr, value.nodes)
        return value

    # -- parameters
    def keys(self, keywords: list[ast.keyword], scope: Scope, env: dict, depth: int) -> Keys:
        found = Keys()
        for keyword in keywords:
            if keyword.arg is not None:
                found |= Keys(frozenset({keyword.arg}))
            else:
                found |= self.mapping(keyword.value, scope, env, depth)
        return found

    def mapping(self, node: ast.expr, scope: Scope, env: dict, depth: int) -> Keys:
        if depth > self.DEPTH:
            return Keys(open=(f"**{ast.unparse(node)}: too deep",))
        if isinstance(node, ast.Dict):
            found = Keys()
            for key, value in zip(node.keys, node.values):
                if key is None:
                    found |= self.mapping(value, scope, env, depth + 1)
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    found |= Keys(frozenset({key.value}))
                else:
                    found |= Keys(open=(f"a key {ast.unparse(key)} at line {key.lineno}",))
            return found
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            found = self.keys(node.keywords, scope, env, depth + 1)
            for arg in node.args:
                found |= self.mapping(arg, scope, env, depth + 1)
            return found
        if isinstance(node, ast.Name):
            if node.id in env:
                value = env[node.id]
                return value if isinstance(value, Keys) else Keys(open=(f"**{node.id}",))
            s = scope
            while s is not None:
                if node.id == s.kwarg:
                    return Keys(forwarded=frozenset({(id(s.node), node.id)}))
                if node.id in s.args:
                    return Keys(open=(f"**{node.id}: an argument of {s.qualname}",))
                if node.id in s.bindings:
                    found = Keys()
                    for kind, value in s.bindings[node.id]:
                        found |= (self.mapping(value, s, env if s is scope else {}, depth + 1) if kind == "value"
                                  else Keys(open=(f"**{node.id} is bound by {type(value).__name__}",)))
                    return found | self.mutations(s, node.id)
                s = s.parent
        return Keys(open=(f"**{ast.unparse(node)}",))

    def mutations(self, scope: Scope, name: str) -> Keys:
        """Keys a dict gains after its assignment: d["k"] = ... adds k; anything else opens it."""
        found = Keys()
        for node in scope.own:
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                    and isinstance(node.ctx, (ast.Store, ast.Del)):
                if isinstance(node.ctx, ast.Store) and isinstance(node.slice, ast.Constant):
                    found |= Keys(frozenset({node.slice.value}))
                else:
                    found |= Keys(open=(f"{name}[...] changed at line {node.lineno}",))
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name \
                    and node.attr in ("update", "pop", "popitem", "setdefault", "clear", "__setitem__"):
                found |= Keys(open=(f"{name}.{node.attr} at line {node.lineno}",))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                found |= Keys(open=(f"{name} |= ... at line {node.lineno}",))
        return found

    # -- calls
    def bind(self, target: Scope, call: ast.Call, scope: Scope, env: dict, depth: int) -> dict | None:
        """The target's arguments as values (and its **kwargs as Keys), or None when the call
        cannot be a call of it."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return None
        positional = target.positional
        a = target.node.args
        bound: dict = {}
        if len(call.args) > len(positional) and a.vararg is None:
            return None
        for arg, expr in zip(positional, call.args):
            bound[arg.arg] = self.eval(expr, scope, env, depth + 1)
        named = {x.arg for x in [*positional, *a.kwonlyargs]} - {x.arg for x in a.posonlyargs}
        extra = []
        for keyword in call.keywords:
            if keyword.arg in named:
                if keyword.arg in bound:
                    return None
                bound[keyword.arg] = self.eval(keyword.value, scope, env, depth + 1)
            else:
                extra.append(keyword)
        if extra and a.kwarg is None:
            if any(k.arg is not None for k in extra):
                return None
        if a.kwarg is not None:
            bound[a.kwarg.arg] = self.keys(extra, scope, env, depth + 1)
        defaults = dict(zip([x.arg for x in [*a.posonlyargs, *a.args]][-len(a.defaults):], a.defaults)) \
            if a.defaults else {}
        defaults.update({x.arg: d for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        for arg in [*positional, *a.kwonlyargs]:
            if arg.arg not in bound:
                if arg.arg not in defaults:
                    return None
                bound[arg.arg] = self.eval(defaults[arg.arg], target, {}, depth + 1)
        if target.is_method:
            bound[target.node.args.args[0].arg if target.node.args.args else "self"] = NOTSTR
        return bound

    def found(self, call: ast.Call, scope: Scope, env: dict, depth: int = 0) -> list[Found]:
        """The ways `call` runs a script (none: it runs none)."""
        ways: list[Found] = []
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in RUNNERS and call.args \
                and not isinstance(call.args[0], ast.Starred) and not self.external(func.value, scope):
            names = self.eval(call.args[0], scope, env, depth + 1)
            if any(SCRIPT_NAME.match(s) for s in names.strings) or (names.params and not names.strings) \
                    or (names.unknown and not names.strings and self.runner(func.value, scope)):
                ways.append(Found(names, self.keys(call.keywords, scope, env, depth + 1), (), len(call.args) - 1))
        for wrapper in self.wrappers:
            if wrapper.scope.node is scope.node and not env:
                continue  # a wrapper calling itself
            if wrapper.scope not in self.functions(func, scope) and not (
                    isinstance(func, ast.Attribute) and wrapper.scope.cls is not None and func.attr == wrapper.scope.name):
                continue
            bound = self.bind(wrapper.scope, call, scope, env, depth)
            if bound is None or depth > self.DEPTH:
                continue
            inner = self.through(wrapper, bound, depth + 1)
            for way in inner:
                if way.names.notstr and not way.names.strings and not way.names.params and not way.names.unknown:
                    continue  # not a script name: another function of this name
                ways.append(Found(way.names, way.keys, (wrapper.scope.qualname, *way.via), way.positional))
        unique: list[Found] = []
        for way in ways:
            if not any(w.names.strings == way.names.strings and w.names.params == way.names.params
                       and w.keys.names == way.keys.names and w.keys.open == way.keys.open for w in unique):
                unique.append(way)
        return unique

    def through(self, wrapper: Wrapper, bound: dict, depth: int) -> list[Found]:
        found = self.found(wrapper.call, wrapper.scope, bound, depth)
        if wrapper.inner == "base":
            found = [f for f in found if not f.via]
        else:
            found = [f for f in found if f.via and f.via[0] == wrapper.inner.scope.qualname]
        return found

    def candidates(self, scope: Scope) -> list[ast.Call]:
        """The calls of a scope that may run a script: of a runner's name or a wrapper's."""
        names = {*RUNNERS, *(w.scope.name for w in self.wrappers)}
        return [c for c in scope.all_calls
                if (c.func.attr if isinstance(c.func, ast.Attribute) else getattr(c.func, "id", None)) in names]

    def depends(self, way: Found, scope: Scope) -> bool:
        """Whether the script call depends on what this function's callers pass."""
        mine = {p for p in way.names.params if p[0] == id(scope.node)}
        return bool(mine or {k for k in way.keys.forwarded if k[0] == id(scope.node)})

    def discover_wrappers(self) -> None:
        while True:
            new = []
            for scope in self.project.scopes:
                if not isinstance(scope.node, FUNCTION):
                    continue
                for call in self.candidates(scope):
                    for way in self.found(call, scope, {}):
                        if self.depends(way, scope):
                            inner = "base" if not way.via else next(
                                w for w in self.wrappers if w.scope.qualname == way.via[0])
                            wrapper = Wrapper(scope, call, inner)
                            if wrapper not in self.wrappers and wrapper not in new:
                                new.append(wrapper)
            if not new:
                return
            self.wrappers.extend(new)


# --- what the sources call ----------------------------------------------------------------------

@dataclass
class Site:
    """One checked call: where it is, the scripts it may run, what it passes."""
    file: str
    line: int
    function: str
    names: Val
    keys: Keys
    via: tuple[str, ...]
    first: str  # the script-name argument as written
    positional: int = 0

    @property
    def scripts(self) -> list[str]:
        return sorted(self.names.strings)

    @property
    def what(self) -> str:
        return " | ".join(self.scripts) if self.names.complete else self.first

    def where(self) -> str:
        through = f" (through {' -> '.join(self.via)})" if self.via else ""
        return f"{self.file}:{self.line} in {self.function}{through}"


@dataclass
class Analysis:
    sites: list[Site]
    wrappers: list[Wrapper]
    loose: list[tuple[str, int, str, str]]  # (file, line, function, literal): script names no call consumed
    problems: list[str] = field(default_factory=list)
    unverified: dict[tuple[str, str, str], str] = field(default_factory=dict)


def script_files() -> dict[str, Path]:
    return {p.relative_to(CYPHER).with_suffix("").as_posix(): p for p in sorted(CYPHER.rglob("*.cypher"))}


_params_cache: dict[str, list[str]] = {}


def script_parameters(name: str) -> list[str]:
    if name not in _params_cache:
        path = CYPHER / f"{name}.cypher"
        _params_cache[name] = parameters(path.read_text(encoding="utf-8"), origin=str(path))
    return _params_cache[name]


PARTS = frozenset(p.name for p in CYPHER.iterdir() if p.is_dir())


def looks_like_script(text: str) -> bool:
    return text.split("/", 1)[0] in PARTS and bool(re.match(r"^[\w-]+(/[\w-]+)+/?$", text))


_analysis: Analysis | None = None


def analyse() -> Analysis:
    global _analysis
    if _analysis is not None:
        return _analysis
    project = Project(ROOT, SCANNED)
    checker = Checker(project)
    checker.discover_wrappers()
    wrapped = {id(w.scope.node) for w in checker.wrappers}
    sites: list[Site] = []
    consumed: set[int] = set()
    for scope in project.scopes:
        for call in checker.candidates(scope):
            for way in checker.found(call, scope, {}):
                consumed |= way.names.nodes
                if id(scope.node) in wrapped and checker.depends(way, scope):
                    continue  # checked where it is called
                first = call.args[0] if call.args else call.func
                sites.append(Site(scope.module.rel, call.lineno, scope.qualname, way.names, way.keys, way.via,
                                  ast.unparse(first), way.positional))
    loose = []
    for scope in project.scopes:
        for node in scope.own:
            literal = None
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and looks_like_script(node.value):
                literal = node.value
            elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant) \
                    and looks_like_script(node.values[0].value):
                literal = ast.unparse(node)
            if literal and id(node) not in consumed and not _inside_consumed(node, scope, consumed):
                loose.append((scope.module.rel, node.lineno, scope.qualname, literal))
    _analysis = check(Analysis(sites, checker.wrappers, loose))
    return _analysis


def _inside_consumed(node: ast.AST, scope: Scope, consumed: set[int]) -> bool:
    """A literal part of an f-string that was consumed whole."""
    for other in scope.own:
        if isinstance(other, ast.JoinedStr) and id(other) in consumed and node in other.values:
            return True
    return False


def check(analysis: Analysis) -> Analysis:
    files = script_files()
    problems, unverified = analysis.problems, analysis.unverified
    for site in analysis.sites:
        key = (site.file, site.function, site.what)
        if site.positional and site.names.strings:
            problems.append(f"{site.where()}: passes {site.positional} positional argument(s) after the script's "
                            "name; a script takes its parameters as keywords")
        if not site.names.complete:
            why = "; ".join(dict.fromkeys(site.names.unknown)) or "its name depends on an argument of another function"
            unverified[key] = f"{site.where()}: the script's name is not known statically ({why})"
        missing = [n for n in site.scripts if n not in files]
        if missing and key not in UNVERIFIED:
            problems.append(f"{site.where()}: no script {', '.join('cypher/' + n + '.cypher' for n in missing)}")
        present = [n for n in site.scripts if n in files]
        if not present:
            if missing and key in UNVERIFIED:
                unverified[key] = f"{site.where()}: names {', '.join(missing)}, not in cypher/"
            continue
        used = set().union(*(script_parameters(n) for n in present))
        extra = sorted(site.keys.names - used)
        if extra:
            problems.append(f"{site.where()}: passes {', '.join('$' + k for k in extra)}, which "
                            f"{' and '.join(present)} {'do' if len(present) > 1 else 'does'} not use")
        if site.keys.open or site.keys.forwarded:
            why = "; ".join(dict.fromkeys(site.keys.open)) or "forwards its caller's **kwargs"
            unverified[key] = f"{site.where()}: its parameters are not all known ({why}); checked: what it names is used"
            continue
        for name in present:
            lacking = [p for p in script_parameters(name) if p not in site.keys.names]
            if lacking:
                problems.append(f"{site.where()}: does not pass {', '.join('$' + p for p in lacking)}, "
                                f"which {name} uses")
    for file, line, function, literal in analysis.loose:
        unverified[(file, function, literal)] = (f"{file}:{line} in {function}: {literal!r} names a script, but no "
                                                 "script call the checker follows consumes it")
    return analysis


# --- migrations and the Browser's procedures ----------------------------------------------------

def runner_parameters() -> Keys:
    """What the migration runner passes every migration: the `params` dict of _apply_one."""
    project = Project(ROOT, ("tripartite/infra",))
    scope = next((s for s in project.scopes if s.module.dotted == "tripartite.infra.migrations"
                  and s.qualname == "_apply_one"), None)
    assert scope is not None, "tripartite/infra/migrations.py has no _apply_one: tell this test where the runner " \
                              "builds the migrations' parameters"
    return Checker(project).mapping(ast.Name("params", ast.Load()), scope, {}, 0)


def cypher_tokens(text: str) -> list[tuple[str, str]]:
    """A statement as (kind, value): string (unescaped), param, word (names and numbers, dots
    included), or punct; comments and blanks dropped."""
    from tripartite.infra.cypher import _end_of_quoted
    from tripartite.infra.cypher_params import _parameter_at

    tokens, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif ch in "'\"":
            end = _end_of_quoted(text, i)
            tokens.append(("string", _unescape(text[i + 1:end])))
            i = end + 1
        elif ch == "$":
            name, i = _parameter_at(text, i + 1)
            tokens.append(("param", name or "") if name else ("punct", "$"))
        elif ch == "`" or ch.isalnum() or ch == "_":
            start = i
            while i < n and (text[i].isalnum() or text[i] in "_.`"):
                i = _end_of_quoted(text, i) + 1 if text[i] == "`" else i + 1
            tokens.append(("word", text[start:i]))
        else:
            tokens.append(("punct", ch))
            i += 1
    return tokens


def _unescape(body: str) -> str:
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "'": "'", '"': '"', "\\": "\\"}
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            code = body[i + 1]
            if code in "uU":
                width = 4 if code == "u" else 8
                out.append(chr(int(body[i + 2:i + 2 + width], 16)))
                i += 2 + width
                continue
            out.append(simple.get(code, "\\" + code))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def procedure_calls(statement: str, prefix: str = "apoc.custom.") -> list[list[list[tuple[str, str]]]]:
    """The arguments of each `CALL apoc.custom.<...>(...)`: per argument, its `+`-joined terms,
    each a list of tokens."""
    tokens = cypher_tokens(statement)
    found = []
    for k, (kind, value) in enumerate(tokens):
        if kind == "word" and value.startswith(prefix) and k + 1 < len(tokens) and tokens[k + 1] == ("punct", "("):
            depth, args, term = 0, [[]], []
            for token in tokens[k + 2:]:
                if token[0] == "punct" and token[1] in "([{":
                    depth += 1
                elif token[0] == "punct" and token[1] in ")]}":
                    if depth == 0:
                        break
                    depth -= 1
                if depth == 0 and token == ("punct", ","):
                    args[-1].append(term)
                    args.append([])
                    term = []
                elif depth == 0 and token == ("punct", "+"):
                    args[-1].append(term)
                    term = []
                else:
                    term.append(token)
            args[-1].append(term)
            found.append(args)
    return found


def joined(terms: list[list[tuple[str, str]]], included: dict[str, str]) -> str:
    """An argument's text as the server builds it: strings as they are, an @include'd
    parameter as its script, anything else as `?`."""
    parts = []
    for term in terms:
        if len(term) == 1 and term[0][0] == "string":
            parts.append(term[0][1])
        elif len(term) == 1 and term[0][0] == "param" and term[0][1] in included:
            parts.append(included[term[0][1]])
        else:
            parts.append("?")
    return "".join(parts)


def signature_arguments(signature: str) -> list[str]:
    """The argument names of an apoc.custom signature, `name(a :: T, b = 1 :: T) :: (...)`."""
    start = signature.index("(")
    depth, parts, current = 0, [], ""
    for ch in signature[start + 1:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [re.match(r"\s*`?(\w+)", p)[1] for p in parts if p.strip()]


def migration_includes(source: str) -> dict[str, str]:
    from tripartite.infra.migrations import INCLUDE_DIRECTIVE

    return {m["param"]: m["script"] for m in INCLUDE_DIRECTIVE.finditer(source)}


# --- the tests ----------------------------------------------------------------------------------

def test_every_script_call_names_a_script_and_passes_what_it_uses():
    problems = analyse().problems
    if problems:
        pytest.fail("script calls that do not match cypher/:\n  " + "\n  ".join(problems), pytrace=False)


def test_calls_not_checked_fully_are_the_listed_ones():
    """A call the checker cannot follow to the end must be looked at and listed in UNVERIFIED."""
    analysis = analyse()
    new = {k: v for k, v in analysis.unverified.items() if k not in UNVERIFIED}
    stale = [k for k in UNVERIFIED if k not in analysis.unverified]
    if new:
        pytest.fail("calls of Cypher scripts this test cannot check fully; make them checkable (a literal name, "
                    "keyword parameters) or add them to UNVERIFIED with the reason:\n  "
                    + "\n  ".join(f"{k!r}: {v}" for k, v in new.items()), pytrace=False)
    if stale:
        pytest.fail("UNVERIFIED entries that match no call any more; remove them:\n  "
                    + "\n  ".join(map(repr, stale)), pytrace=False)


def test_wrappers_are_found():
    """The checker follows the project's wrappers (if one is renamed, this says so)."""
    found = {w.scope.qualname for w in analyse().wrappers}
    assert {"Graph.one", "Engine.run", "_select.step"} <= found, found
    sites = [s for s in analyse().sites if s.scripts == ["selection/distribution", "selection/plugin/distribution"]]
    assert sites and all(s.names.complete and not s.keys.open for s in sites)


def test_every_pipeline_script_is_run_or_says_who_runs_it():
    """A script outside migrations/ that neither the package nor a bench runs, nor a migration
    includes, must say so on a line `// browser-only: <who runs it and how>`."""
    analysis = analyse()
    called = set().union(*(s.names.strings for s in analysis.sites if not s.file.startswith("tests/")))
    for path in (CYPHER / MIGRATIONS).glob("*.cypher"):
        called |= set(migration_includes(path.read_text(encoding="utf-8")).values())
    idle, browser, contradicted = [], [], []
    for name, path in script_files().items():
        marked = bool(BROWSER_ONLY.search(path.read_text(encoding="utf-8")))
        if name in called and marked:
            contradicted.append(name)
        if name.startswith(MIGRATIONS + "/") or name in called:
            continue
        (browser if marked else idle).append(name)
    if browser:
        print("scripts for Browser users only:", ", ".join(browser))
    assert not contradicted, f"scripts marked `// browser-only:` that the code runs: {', '.join(contradicted)}"
    assert not BROWSER_ONLY.search("// Browser: :param object_ids => null")
    assert not idle, (f"scripts nothing runs: {', '.join(idle)}; delete them, or say who runs them on a line "
                      "`// browser-only: ...` of their header")


def test_migrations_use_only_what_the_runner_passes():
    from tripartite.infra.migrations import discover

    given = runner_parameters()
    assert given.names >= {"database", "selection_defaults"}, given
    assert all("migration.params" in why for why in given.open), \
        f"the runner passes migrations parameters this test does not know: {given.open}"
    problems = []
    for migration in discover(CYPHER / MIGRATIONS):
        source = migration.path.read_text(encoding="utf-8")
        includes = migration_includes(source)
        used = set(parameters(source, origin=str(migration.path)))
        for name in sorted(used - given.names - set(includes)):
            problems.append(f"{migration.name} uses ${name}, which the migration runner does not pass")
        for name in sorted(set(includes) - used):
            problems.append(f"{migration.name} includes {includes[name]} as ${name} but does not use it")
        for script in includes.values():
            if not (CYPHER / f"{script}.cypher").is_file():
                problems.append(f"{migration.name} includes {script}, which does not exist")
    assert not problems, "\n".join(problems)


def test_browser_procedures_take_what_their_scripts_use():
    """The arguments of each apoc.custom procedure are the parameters its body (its @include'd
    scripts) uses: a renamed $param in one of those scripts breaks the procedure otherwise."""
    problems, seen = [], 0
    for path in sorted((CYPHER / MIGRATIONS).glob("*.cypher")):
        source = path.read_text(encoding="utf-8")
        includes = migration_includes(source)
        texts = {param: split_statements((CYPHER / f"{script}.cypher").read_text(encoding="utf-8"))[0].text
                 for param, script in includes.items()}
        for statement in split_statements(source, origin=str(path)):
            for args in procedure_calls(statement.text):
                if len(args) < 2:
                    continue
                signature = joined(args[0], {})
                body = joined(args[1], texts)
                name = signature.split("(", 1)[0].strip()
                arguments = signature_arguments(signature)
                used = statement_parameters(body)
                scripts = [includes[t[0][1]] for t in args[1] if len(t) == 1 and t[0][0] == "param"
                           and t[0][1] in includes]
                seen += 1
                if set(used) - set(arguments):
                    problems.append(f"{path.name}:{statement.line}: {name} runs {', '.join(scripts)}, which use "
                                    f"{', '.join('$' + p for p in sorted(set(used) - set(arguments)))}; not arguments "
                                    f"of the procedure")
                if set(arguments) - set(used):
                    problems.append(f"{path.name}:{statement.line}: {name} takes "
                                    f"{', '.join(sorted(set(arguments) - set(used)))}, which its body "
                                    f"({', '.join(scripts) or 'no script'}) does not use")
    assert seen, "found no apoc.custom procedure in cypher/migrations/"
    assert not problems, "\n".join(problems)


# --- the parameter lister -----------------------------------------------------------------------

def test_parameters_are_listed_in_order_of_first_use():
    assert parameters("MATCH (n {id: $id}) WHERE n.x > $min AND n.y < $min RETURN $id") == ["id", "min"]


@pytest.mark.parametrize("source, expected", [
    ("RETURN '$notaparam' AS a, \"$nor_this\" AS b, $yes", ["yes"]),
    ("RETURN 'it\\'s $still_text' + $after AS a", ["after"]),
    ("// :param alpha => 0.9 and $commented\nRETURN $beta", ["beta"]),
    ("RETURN /* $blocked\n $too */ $open", ["open"]),
    ("RETURN $open // $trailing", ["open"]),
    ("MATCH (n:`$label`) RETURN n.`$prop`, $`odd name`, $`tick``s`", ["odd name", "tick`s"]),
    ("UNWIND $rows AS row RETURN $row.id, $row.name, $map.inner.deep", ["rows", "row", "map"]),
    ("SET n:$(label), n:$($kind) RETURN 1", ["kind"]),
    ("RETURN $0, $1a", ["0", "1a"]),
    ("RETURN $ünïcode", ["ünïcode"]),
    ("RETURN '$a' + \"$b\" + `$c` + $d", ["d"]),
])
def test_what_is_not_a_parameter(source, expected):
    assert parameters(source) == expected


def test_browser_client_commands_are_not_parameters():
    source = ":param alpha => 0.9\n:param beta => $gamma\nMATCH (n) WHERE n.w > $alpha RETURN n;\n"
    assert parameters(source) == ["alpha"]


def test_a_parameter_of_a_later_statement_counts():
    source = ("// write: two statements\nCREATE (:A {x: $first});\n// $nothing here\n"
              "MATCH (a:A) SET a.y = 'no $param; here' RETURN $second.field;\n")
    assert parameters(source) == ["first", "second"]
    assert [statement_parameters(s.text) for s in split_statements(source)] == [["first"], ["second"]]


def test_the_checker_follows_names_and_keys():
    """The checker on a small invented module: literals, f-strings through a method, a wrapper
    that forwards **params, a dict built nearby, and what it cannot follow."""
    source = '''
class Engine:
    def script(self, step: str) -> str:
        return f"selection/{step}" if self.plugin else f"selection/plugin/{step}"
    def run(self, on, step: str, **params):
        on.run(self.script(step), **params)

def record(m):
    return "infra/record_migration" if m else "infra/record_repeatable_migration"

def index(graph: Graph, part: str, **params):
    name = f"{part}/chunk_vector_index"
    graph.run(name, dimensions=384, **params)

def work(graph: Graph, engine: Engine, rows: list, name: str):
    engine.run(graph, "classify", object_ids=None, concurrency=2)
    params = dict(rows=rows)
    params["model"] = "m"
    graph.run("lexical/write_chunk_embeddings", **params)
    graph.run(record(rows), **{"version": 1})
    for part in ("kg/prune", "kg/link_concepts"):
        graph.one(part)
    graph.run(name)
    graph.run("kg/status", **rows)
    index(graph, "lexical", index_name="chunk_embedding")
    graph.run("kg/status", 1)
'''
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "pkg").mkdir()
        (Path(folder) / "pkg" / "mod.py").write_text(source)
        checker = Checker(Project(Path(folder), ("pkg",)))
        checker.discover_wrappers()
        assert [w.scope.qualname for w in checker.wrappers] == ["Engine.run", "index", "work"]  # work: graph.run(name)
        work = next(s for s in checker.project.scopes if s.qualname == "work")
        found = [(sorted(w.names.strings), sorted(w.keys.names), bool(w.keys.open), w.names.complete)
                 for call in work.all_calls for w in checker.found(call, work, {})]
    assert found == [
        (["selection/classify", "selection/plugin/classify"], ["concurrency", "object_ids"], False, True),
        (["lexical/write_chunk_embeddings"], ["model", "rows"], False, True),
        (["infra/record_migration", "infra/record_repeatable_migration"], ["version"], False, True),
        (["kg/link_concepts", "kg/prune"], [], False, True),
        ([], [], False, False),  # graph.run(name): checked where work is called
        (["kg/status"], [], True, True),
        (["lexical/chunk_vector_index"], ["dimensions", "index_name"], False, True),
        (["kg/status"], [], False, True),  # and 1 positional argument, which check() reports
    ]
