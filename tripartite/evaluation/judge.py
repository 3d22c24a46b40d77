"""Judges of coverage that the thing measured cannot influence: neither looks at the
pre-analysis that chose the evidence.

The lexicon judge: an object's concepts are the ontology concepts whose name or a synonym
appears, as whole words, in the object's own text; a prompt covers one of them when its name
or a synonym appears in the text the prompt cites (the extracts a Tripartite prompt quotes,
the chunks a RAG prompt retrieves). The LLM judge, when an LLM is configured, asks the model
which of the object's concepts the cited text informs; its answers are cached like every call.
"""
from __future__ import annotations

from tripartite.analysis.extractive import synonym_pattern
from tripartite.infra.graph import Graph
from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.llm.schemas import array, budget, enum, obj
from tripartite.infra.llm.tasks import InvalidAnswer, JsonTask, load_json
from tripartite.infra.tokens import count_tokens

LLM_JUDGE_SCHEMA = "informed-v1"
LLM_JUDGE_SHAPE = '{"informed": ["<concept id>", ...]}'


class LexiconJudge:
    def __init__(self, concepts: list[ConceptInfo]):
        self.concepts = {c.id: c for c in concepts}
        self.patterns = {c.id: synonym_pattern(c) for c in concepts}

    @classmethod
    def of_graph(cls, graph: Graph, ontology: str | None = None) -> "LexiconJudge":
        rows = graph.run("analysis/concepts", ontology=ontology)
        return cls([ConceptInfo(r["id"], r["name"], tuple(r["synonyms"]), r["description"]) for r in rows])

    def concepts_in(self, text: str, among: set[str] | None = None) -> set[str]:
        """The concepts (of `among`, or all) whose name or a synonym appears in `text`."""
        ids = self.patterns if among is None else among
        return {cid for cid in ids if self.patterns[cid].search(text)}


class LLMJudge:
    """Which of the object's concepts a cited text informs, according to the configured model."""

    def __init__(self, runner, concepts: dict[str, ConceptInfo]):
        self.runner = runner
        self.concepts = concepts

    def informed(self, item_id: str, concept_ids: set[str], cited: str) -> set[str]:
        if not concept_ids or not cited.strip():
            return set()
        ids = sorted(concept_ids)
        listed = "\n".join(f"- {cid}: {self.concepts[cid].name}" for cid in ids)
        prompt = ("Below are concepts and a text quoted from reference documents. Which of the concepts does the "
                  "text give information about (facts, advice, numbers, conditions), beyond merely naming them?\n\n"
                  f"Concepts:\n{listed}\n\nText:\n\"\"\"\n{cited}\n\"\"\"\n\n"
                  f"Answer with JSON only: {LLM_JUDGE_SHAPE}, using only the ids listed.")

        def parse(content: str) -> list[str]:
            data = load_json(content)
            if not isinstance(data, dict) or not isinstance(data.get("informed"), list):
                raise InvalidAnswer('the answer must be an object with an "informed" list')
            unknown = [x for x in data["informed"] if x not in concept_ids]
            if unknown:
                raise InvalidAnswer(f"unknown concept id {unknown[0]!r}; use only the listed ids")
            return sorted(set(data["informed"]))

        schema = obj(informed=array(enum(ids), len(ids)))
        return set(self.runner.ask(JsonTask("judge", item_id, prompt, LLM_JUDGE_SCHEMA, LLM_JUDGE_SHAPE, parse, schema,
                                            budget(sum(count_tokens(i) + 4 for i in ids) + 10))))
