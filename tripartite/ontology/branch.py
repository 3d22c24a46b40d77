"""Taking one branch of a published ontology as concept classes and concepts.

Every term under the root, down to `depth` steps, becomes a concept, the root's children
included; is_a links between concepts become BROADER edges, every one of them (a concept with
two parents keeps both). Concept classes are a grouping on top: the terms `class_level` steps
down (the root's children by default), or the terms the user names; each concept joins the
class of its nearest class term, by a rule of the graph alone (see _assign). Obsolete terms
are skipped; cycles, missing parents, nameless terms and duplicate names are reported, one
line each, and repaired the way the line says.
"""
from __future__ import annotations

import difflib
import re
from collections import deque
from dataclasses import dataclass, field

from tripartite.ontology.reader import OntologyError
from tripartite.ontology.sources import Term

OBO_PURL = "http://purl.obolibrary.org/obo/"
NOT_ID = re.compile(r"[^A-Za-z0-9_.\-]+")


@dataclass
class Branch:
    root: Term
    classes: list[dict] = field(default_factory=list)   # {id, name, description, source, concepts: [...]}
    problems: list[str] = field(default_factory=list)
    obsolete: int = 0   # obsolete terms in the file (they hang under no root: OBO drops their is_a)

    @property
    def concept_count(self) -> int:
        return sum(len(c["concepts"]) for c in self.classes)


def labelled(term: Term) -> str:
    """How a term is named in messages: its id and, when it has one, its name."""
    return f"{term.id} ({term.name})" if term.name else term.id


def local_key(term_id: str) -> str:
    """An id the YAML format accepts: DOID:1234 -> DOID_1234, an IRI -> its last segment."""
    tail = term_id.rstrip("/#")
    if "://" in tail:
        tail = re.split(r"[/#]", tail)[-1]
    key = NOT_ID.sub("_", tail.replace(":", "_")).strip("_.-")
    return key or "term"


def find_root(terms: dict[str, Term], root: str, source: str) -> Term:
    """The root by id, IRI, OBO CURIE or PURL, local name, or (when unique) name."""
    wanted = root.strip()
    if wanted in terms:
        return terms[wanted]
    curie = wanted.removeprefix(OBO_PURL).replace("_", ":", 1) if wanted.startswith(OBO_PURL) else wanted
    purl = OBO_PURL + wanted.replace(":", "_", 1) if ":" in wanted and "://" not in wanted else None
    for candidate in (curie, purl):
        if candidate and candidate in terms:
            return terms[candidate]
    by_key = [t for t in terms.values() if local_key(t.id) == local_key(wanted)]
    by_name = [t for t in terms.values() if t.name.casefold() == wanted.casefold()]
    for found in (by_key, by_name):
        if len(found) == 1:
            return found[0]
    labels = {labelled(t): t for t in terms.values()}
    near = difflib.get_close_matches(wanted, list(labels), n=3, cutoff=0.5) or \
        [label for label in labels if wanted.casefold() in label.casefold()][:3]
    hint = f"; close: {', '.join(near)}" if near else "; give a term id as the file writes it"
    raise OntologyError(f"{source}: no term {wanted!r} to use as --root{hint}")


def _children(terms: dict[str, Term], problems: list[str]) -> tuple[dict[str, list[str]], list[tuple[str, str, str]]]:
    """parent id -> child ids over live terms, and the links that point nowhere as
    (term, parent, why); those are reported later only for terms under the root, since
    published subsets (slims) name many parents they leave out."""
    children: dict[str, list[str]] = {}
    dangling: list[tuple[str, str, str]] = []
    for term in terms.values():
        if term.obsolete:
            continue
        for parent in dict.fromkeys(term.parents):
            if parent == term.id:
                dangling.append((term.id, parent, "itself"))
            elif parent not in terms or terms[parent].obsolete:
                dangling.append((term.id, parent, "obsolete" if parent in terms else "not in the file"))
            else:
                children.setdefault(parent, []).append(term.id)
    return children, dangling


def _reach(root: str, children: dict[str, list[str]], terms: dict[str, Term],
           problems: list[str]) -> dict[str, list[str]]:
    """The acyclic is_a links under the root, child -> parents: a link that closes a cycle is
    reported and dropped (depth-first, so each cycle costs one link)."""
    kept: dict[str, list[str]] = {root: []}
    state = {root: 1}  # 1: on the current path, 2: finished
    stack = [(root, iter(children.get(root, ())))]
    path = [root]
    while stack:
        node, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            state[node] = 2
            stack.pop()
            path.pop()
            continue
        if state.get(child) == 1:
            loop = path[path.index(child):] + [child]
            names = " -> ".join(labelled(terms[t]) for t in loop)
            problems.append(f"cycle {names}; the link {child} is_a {node} is dropped")
            continue
        kept.setdefault(child, []).append(node)
        if child not in state:
            state[child] = 1
            path.append(child)
            stack.append((child, iter(children.get(child, ()))))
    return kept


def take_branch(terms: dict[str, Term], root_id: str, source: str, class_level: int = 1,
                depth: int | None = None, classes: list[str] | None = None) -> Branch:
    if class_level < 1:
        raise OntologyError("--class-level must be 1 (the root's children) or more")
    if depth is not None and depth < 1:
        raise OntologyError(f"--depth {depth} leaves nothing under the root; give a depth of 1 or more")
    root = find_root(terms, root_id, source)
    if root.obsolete:
        raise OntologyError(f"{source}: {labelled(root)} is obsolete; choose a live term as --root")
    # what the reader reported (a term defined twice) comes first, as it concerns the whole file
    branch = Branch(root, problems=list(getattr(terms, "problems", [])),
                    obsolete=sum(1 for t in terms.values() if t.obsolete))
    children, dangling = _children(terms, branch.problems)
    parents = _reach(root.id, children, terms, branch.problems)
    if len(parents) == 1:
        raise OntologyError(f"{source}: {labelled(root)} has no descendants; choose a term higher up as --root")
    for term_id, parent, state in dangling:
        if term_id in parents:
            branch.problems.append(f"{labelled(terms[term_id])} is_a itself; that link is dropped"
                                   if state == "itself" else
                                   f"{labelled(terms[term_id])} is_a {parent}, which is {state}; "
                                   f"that link is dropped")
    level = _levels(root.id, parents)
    if depth is not None:
        level = {t: d for t, d in level.items() if d <= depth}
    _report_cut_off(branch, terms, root.id, parents, depth)
    _assign(branch, terms, parents, level, _class_terms(terms, level, class_level, classes, source))
    if not branch.concept_count:
        deepest = max(level.values())
        raise OntologyError(f"{source}: the branch under {labelled(root)} is {deepest} level(s) deep, so "
                            f"--class-level {class_level} leaves no concepts under its classes; give a smaller "
                            "--class-level" + (" or a larger --depth" if depth is not None else ""))
    _dedupe_names(branch)
    return branch


def _class_terms(terms: dict[str, Term], level: dict[str, int], class_level: int, given: list[str] | None,
                 source: str) -> list[str]:
    """The terms that name concept classes: those given (ids as find_root reads them), which
    must lie under the root, else every term `class_level` is_a steps below it."""
    if not given:
        found = sorted(t for t, d in level.items() if d == class_level)
        if not found:
            raise OntologyError(f"{source}: the branch is {max(level.values())} level(s) deep, so --class-level "
                                f"{class_level} leaves no concepts under its classes; give a smaller --class-level")
        return found
    chosen = []
    for wanted in given:
        term = find_root(terms, wanted, source)
        if term.id not in level or level[term.id] == 0:
            raise OntologyError(f"{source}: --classes names {labelled(term)}, which is not under the root; name terms "
                                "of the branch")
        chosen.append(term.id)
    return list(dict.fromkeys(chosen))


def _report_cut_off(branch: Branch, terms: dict[str, Term], root: str, kept: dict[str, list[str]],
                    depth: int | None) -> None:
    """Live terms that hang under the root only through obsolete ones are left out, one line
    each (where the file keeps an obsolete term's is_a, as OWL and CSV may; OBO drops it)."""
    every_link = {t.id: [p for p in dict.fromkeys(t.parents) if p in terms and p != t.id] for t in terms.values()}
    level = _levels(root, every_link)
    for term_id in sorted(level, key=lambda t: (level[t], t)):
        term = terms[term_id]
        if term.obsolete or term_id in kept or (depth is not None and level[term_id] > depth):
            continue
        obsolete = [p for p in dict.fromkeys(term.parents) if p in terms and terms[p].obsolete]
        if obsolete:
            names = ", ".join(labelled(terms[p]) for p in obsolete)
            branch.problems.append(f"{labelled(term)} is under the root only through obsolete {names}; "
                                   "it is left out (give it a live parent to keep it)")


def _levels(root: str, parents: dict[str, list[str]]) -> dict[str, int]:
    """Each term's shortest distance below the root."""
    below: dict[str, list[str]] = {}
    for child, ups in parents.items():
        for up in ups:
            below.setdefault(up, []).append(child)
    level = {root: 0}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for child in below.get(node, ()):
            if child not in level:
                level[child] = level[node] + 1
                queue.append(child)
    return level


def _assign(branch: Branch, terms: dict[str, Term], parents: dict[str, list[str]], level: dict[str, int],
            class_ids: list[str]) -> None:
    """Every term under the root is a concept; each joins the class of its nearest class term
    (itself, when it is one), fewest is_a steps up, ties to the smaller term id: a rule of the
    graph alone, the same whatever the names or their language. A concept keeps every is_a
    link to another concept as BROADER. Class terms with no concept below them, and concepts
    under no class, join a class named after the root."""
    concept_ids = sorted((t for t, d in level.items() if d >= 1), key=lambda t: (level[t], t))
    classes = set(class_ids)
    nearest: dict[str, tuple[int, str] | None] = {}

    def class_of(term_id: str) -> tuple[int, str] | None:  # (steps, class id): memoised over the acyclic links
        if term_id not in nearest:
            nearest[term_id] = None  # a guard: the links kept are acyclic, so this is never read back
            found = [(0, term_id)] if term_id in classes else \
                [(steps + 1, klass) for p in parents.get(term_id, ()) if p in level and (up := class_of(p))
                 for steps, klass in [up]]
            nearest[term_id] = min(found) if found else None
        return nearest[term_id]

    members: dict[str, list[str]] = {c: [] for c in class_ids}
    orphans: list[str] = []
    for term_id in concept_ids:
        found = class_of(term_id)
        (members[found[1]] if found else orphans).append(term_id)
    lonely = [c for c in class_ids if members[c] == [c]]  # a class term alone in its class: a concept of the root's
    for klass in lonely:
        orphans.append(klass)
        del members[klass]
    torn = [t for t in concept_ids if sum(1 for c in _ancestor_classes(t, parents, classes, level)) > 1]
    if torn:
        shown = ", ".join(labelled(terms[t]) for t in torn[:3])
        branch.problems.append(f"{len(torn)} concept(s) sit under two or more classes (e.g. {shown}): each joins the "
                               "nearest (fewest is_a steps; ties: the smaller id), and keeps every broader link")
    keys: dict[str, str] = {}
    taken: set[str] = set()

    def key_of(term_id: str) -> str:
        if term_id not in keys:
            key, n = local_key(term_id), 1
            while key in taken:
                n += 1
                key = f"{local_key(term_id)}_{n}"
            keys[term_id] = key
            taken.add(key)
        return keys[term_id]

    as_concepts = set(concept_ids)

    def concept(term_id: str) -> dict:
        term = terms[term_id]
        name = term.name or _nameless(branch, term)
        abbreviations = [s for s in dict.fromkeys(term.abbreviations) if s.casefold() != name.casefold()]
        exact = [s for s in dict.fromkeys(term.exact)
                 if s.casefold() != name.casefold() and s not in abbreviations]
        related = [s for s in dict.fromkeys(term.related)
                   if s.casefold() not in {name.casefold(), *map(str.casefold, exact), *map(str.casefold, abbreviations)}]
        broader = [key_of(p) for p in parents[term_id] if p in as_concepts]
        fields = {"id": key_of(term_id), "name": name, "synonyms": exact, "abbreviations": abbreviations,
                  "related": related, "description": term.definition, "broader": broader, "source": term.id,
                  "xrefs": list(dict.fromkeys(term.xrefs)), "notation": term.notation}
        return {k: v for k, v in fields.items() if v or k in ("id", "name")}  # no empty fields to wade through

    for class_id in sorted(members, key=lambda c: (level[c], c)):
        term = terms[class_id]
        branch.classes.append(_klass(key_of(class_id), term.name or _nameless(branch, term), term,
                                     [concept(t) for t in members[class_id]]))
    if orphans:  # class terms alone, and concepts under no class: concepts of the root's own class
        root = branch.root
        branch.classes.append(_klass(key_of(root.id), root.name or _nameless(branch, root), root,
                                     [concept(t) for t in sorted(orphans, key=lambda t: (level[t], t))]))


def _ancestor_classes(term_id: str, parents: dict[str, list[str]], classes: set[str], level: dict[str, int]):
    """The class terms above a term (itself included), each once."""
    seen, stack, found = set(), [term_id], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node in classes:
            found.add(node)
            continue  # a class's own classes above it do not pull its members
        stack.extend(p for p in parents.get(node, ()) if p in level)
    return found


def _klass(key: str, name: str, term: Term, concepts: list[dict]) -> dict:
    # a concept class has no synonyms of its own in the format: the description keeps them for the reader
    others = [s for s in dict.fromkeys([*term.exact, *term.related]) if s.casefold() != name.casefold()]
    also = f"Also called: {', '.join(others)}." if others else ""
    description = " ".join(part for part in (term.definition, also) if part)
    fields = {"id": key, "name": name, "description": description, "source": term.id, "concepts": concepts}
    return {k: v for k, v in fields.items() if v or k != "description"}


def _nameless(branch: Branch, term: Term) -> str:
    branch.problems.append(f"{term.id} has no name; its id is used as the name")
    return local_key(term.id)


def _dedupe_names(branch: Branch) -> None:
    """Two concepts with one name would read as one to the LLM: the later ones get their id."""
    seen: dict[str, str] = {}
    for klass in branch.classes:
        for concept in klass["concepts"]:
            folded = concept["name"].casefold()
            if folded in seen:
                branch.problems.append(f"duplicate name {concept['name']!r}: {seen[folded]} and {concept['source']}; "
                                       f"the second is named {concept['name']} ({concept['source']})")
                concept["name"] = f"{concept['name']} ({concept['source']})"
            else:
                seen[folded] = concept["source"]
