"""The Tripartite prompt where neo4j-graphrag users look for it: a Retriever whose search takes
an object id and returns the prompt's material, so `GraphRAG(TripartiteRetriever(driver), llm)`
answers questions about objects; `tripartite ask` is built on it."""
from __future__ import annotations

from typing import Any, Optional

import neo4j
from neo4j_graphrag.generation import GraphRAG, RagTemplate
from neo4j_graphrag.llm.base import LLMInterfaceV2
from neo4j_graphrag.llm.types import LLMResponse
from neo4j_graphrag.retrievers.base import Retriever
from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem

from tripartite.infra.config import SelectionSettings
from tripartite.infra.graph import Graph
from tripartite.search.modes import object_prompt

# The retriever's items joined with newlines are the Tripartite prompt itself, question included.
TRIPARTITE_TEMPLATE = RagTemplate(
    template="{context}", expected_inputs=["context"],
    system_instructions="Answer the question at the top from what the object says about each concept and from "
                        "the numbered reference extracts; cite the references you use by their numbers in brackets.")


class TripartiteRetriever(Retriever):
    """search(query_text=OBJECT_ID) gives the object's Tripartite prompt as items (its heading,
    one item per concept, the references); the result's metadata["tripartite"] holds the
    prompt's JSON form (concepts, evidence with w, p and reason, numbered references)."""

    VERIFY_NEO4J_VERSION = False  # selection needs Neo4j 5.23, which `tripartite doctor` checks

    def __init__(self, driver: neo4j.Driver, neo4j_database: Optional[str] = None, question: Optional[str] = None,
                 max_tokens: Optional[int] = None, selection: str = "floor", max_per_concept: Optional[int] = None,
                 tokens_per_concept: Optional[int] = SelectionSettings.tokens_per_concept):
        super().__init__(driver, neo4j_database)
        self.graph = Graph(driver, neo4j_database or "neo4j")
        self.defaults = {"question": question, "max_tokens": max_tokens, "selection": selection,
                         "max_per_concept": max_per_concept, "tokens_per_concept": tokens_per_concept}
        self.result_formatter = lambda record: RetrieverResultItem(content=record["content"],
                                                                   metadata=record["metadata"])

    def get_search_results(self, query_text: str, question: Optional[str] = None, max_tokens: Optional[int] = None,
                           selection: Optional[str] = None, max_per_concept: Optional[int] = None,
                           tokens_per_concept: Optional[int] = None) -> RawSearchResult:
        """The prompt of the object whose id is `query_text`."""
        given = {"question": question, "max_tokens": max_tokens, "selection": selection,
                 "max_per_concept": max_per_concept, "tokens_per_concept": tokens_per_concept}
        options = {k: given[k] if given[k] is not None else self.defaults[k] for k in given}
        built = object_prompt(self.graph, query_text, "tripartite", None, None, options["question"],
                              options["max_tokens"], {"selection": options["selection"],
                                                      "max_per_concept": options["max_per_concept"],
                                                      "tokens_per_concept": options["tokens_per_concept"]})
        blocks = built.prompt.rstrip("\n").split("\n\n")
        records = [neo4j.Record({"content": block + ("\n" if i < len(blocks) - 1 else ""),
                                 "metadata": {"object_id": query_text, "block": i}})
                   for i, block in enumerate(blocks)]
        return RawSearchResult(records=records, metadata={"tripartite": built.details(), "result": built})


class RunnerLLM(LLMInterfaceV2):
    """neo4j-graphrag's LLM interface over the project's LLM runner: the same cache, retries
    and token accounting as every other call."""

    def __init__(self, runner):
        super().__init__(model_name=runner.provider.model)
        self.runner = runner

    def invoke(self, input: list, *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        return LLMResponse(content=self.runner.complete_text([dict(m) for m in input]))

    async def ainvoke(self, input: list, *, response_format: Any = None, **kwargs: Any) -> LLMResponse:
        return self.invoke(input, response_format=response_format, **kwargs)


def answer(retriever: TripartiteRetriever, runner, object_id: str):
    """The object's prompt (a PromptResult) with the LLM's answer to it."""
    rag = GraphRAG(retriever, RunnerLLM(runner), prompt_template=TRIPARTITE_TEMPLATE)
    found = rag.search(query_text=object_id, return_context=True)
    result = found.retriever_result.metadata["result"]
    result.answer = found.answer
    return result
