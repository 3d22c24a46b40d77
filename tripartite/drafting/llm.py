"""`ontology draft` with an LLM: it reads sampled chunks, a few per call, and proposes concept
classes and concepts with synonyms; the proposals of all calls are merged by name, and a
concept proposed from more chunks ranks higher. Every call goes through the answer cache, so
a draft run again costs nothing."""
from __future__ import annotations

from tripartite.infra.llm.schemas import array, budget, obj, string
from tripartite.infra.llm.tasks import InvalidAnswer, JsonTask, load_json
from tripartite.drafting.offline import unique_key
from tripartite.drafting.phrases import MAX_PLACES, place

DRAFT_SCHEMA = "ontology-draft-v1"
DRAFT_SHAPE = ('{"classes": [{"name": "...", "concepts": [{"name": "...", "synonyms": ["..."], '
               '"description": "...", "chunks": [1, 2]}]}]}')
CHUNKS_PER_CALL = 6
CHUNK_CHARACTERS = 1500


def sample(chunks: list[dict], size: int) -> list[dict]:
    """`size` chunks spread evenly over the reading order (so over every document)."""
    if len(chunks) <= size:
        return chunks
    step = len(chunks) / size
    return [chunks[int(i * step)] for i in range(size)]


def _parse(content: str) -> list[dict]:
    data = load_json(content)
    if not isinstance(data, dict) or not isinstance(data.get("classes"), list):
        raise InvalidAnswer('the answer must be an object with a "classes" list')
    classes = []
    for klass in data["classes"]:
        if not isinstance(klass, dict) or not isinstance(klass.get("name"), str) \
                or not isinstance(klass.get("concepts"), list):
            raise InvalidAnswer('each class needs a "name" and a "concepts" list')
        concepts = [c for c in klass["concepts"] if isinstance(c, dict) and isinstance(c.get("name"), str)
                    and c["name"].strip()]
        classes.append({"name": klass["name"].strip(), "concepts": concepts})
    return classes


def draft_task(batch: list[dict], number: int, name: str) -> JsonTask:
    excerpts = "\n\n".join(f"[{i}] ({place(chunk)})\n{chunk['text'][:CHUNK_CHARACTERS]}"
                           for i, chunk in enumerate(batch, start=1))
    prompt = (f"You help a domain expert build an ontology named {name!r} for retrieving knowledge from the "
              f"documents below. Propose concept classes (kinds of thing, e.g. faults, components, treatments) "
              f"and the concepts these excerpts are about: specific named things or technical terms, not general "
              f"words. Give each concept its synonyms and abbreviations as the text uses them, a one-sentence "
              f"description, and the numbers of the excerpts it appears in.\n\n{excerpts}\n\n"
              f"Answer with JSON only: {DRAFT_SHAPE}")
    concept = obj(name=string(80), synonyms=array(string(60), 8), description=string(300),
                  chunks=array({"type": "integer"}, CHUNKS_PER_CALL))
    schema = obj(classes=array(obj(name=string(80), concepts=array(concept, 12)), 6))
    return JsonTask("draft", f"sample-{number}", prompt, DRAFT_SCHEMA, DRAFT_SHAPE, _parse, schema, budget(2000))


def llm_classes(chunks: list[dict], runner, name: str, max_concepts: int, sample_size: int) -> tuple[list[dict], int]:
    """(classes, prompt tokens of the calls) proposed from a sample of the chunks."""
    from tripartite.infra.tokens import count_tokens

    chosen = sample(chunks, sample_size)
    batches = [chosen[i:i + CHUNKS_PER_CALL] for i in range(0, len(chosen), CHUNKS_PER_CALL)]
    tasks = [draft_task(batch, n, name) for n, batch in enumerate(batches)]
    spent = sum(count_tokens(t.prompt) for t in tasks if not runner.is_cached(t))
    merged: dict[str, dict] = {}   # concept name (folded) -> proposal
    class_names: dict[str, str] = {}
    for task, batch in zip(tasks, batches):
        for klass in runner.ask(task):
            class_key = klass["name"].casefold()
            class_names.setdefault(class_key, klass["name"])
            for concept in klass["concepts"]:
                entry = merged.setdefault(concept["name"].strip().casefold(), {
                    "name": concept["name"].strip(), "class": class_key, "synonyms": [], "description": "",
                    "places": [], "chunks": 0})
                entry["synonyms"] += [s.strip() for s in concept.get("synonyms") or [] if isinstance(s, str) and s.strip()]
                entry["description"] = entry["description"] or str(concept.get("description") or "").strip()
                numbers = [n for n in concept.get("chunks") or [] if isinstance(n, int) and 1 <= n <= len(batch)]
                entry["chunks"] += max(1, len(numbers))
                # where it was seen: the excerpts named, else those that name it, else the call's
                named = numbers or [n for n, chunk in enumerate(batch, start=1)
                                    if entry["name"].casefold() in chunk["text"].casefold()]
                entry["places"] += [place(batch[n - 1]) for n in named] or [place(chunk) for chunk in batch]
    best = sorted(merged.values(), key=lambda e: (-e["chunks"], e["name"].casefold()))[:max_concepts]
    used: set[str] = set()
    class_keys: set[str] = set()
    classes: dict[str, dict] = {}
    for entry in best:
        key = unique_key(entry["name"], used)
        if entry["class"] not in classes:
            classes[entry["class"]] = {"id": unique_key(class_names[entry["class"]], class_keys),
                                       "name": class_names[entry["class"]], "concepts": []}
        klass = classes[entry["class"]]
        synonyms = [s for s in dict.fromkeys(entry["synonyms"]) if s.casefold() != entry["name"].casefold()]
        places = list(dict.fromkeys(entry["places"]))
        concept = {"id": key, "name": entry["name"], "synonyms": synonyms, "description": entry["description"],
                   "seen": [f"proposed from {entry['chunks']} sampled chunk(s)", *places[:MAX_PLACES]]}
        klass["concepts"].append({k: v for k, v in concept.items() if v})
    return list(classes.values()), spent
