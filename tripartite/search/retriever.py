"""The project's prompts where neo4j-graphrag users look for them: a Retriever whose search
takes an object (its id) or a free-text question and returns the prompt's material, so
`GraphRAG(TripartiteRetriever(driver), llm, prompt_template=TRIPARTITE_TEMPLATE)` answers
questions about objects and about the documents; `tripartite ask` is built on it
(docs/neo4j-graphrag.md)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import neo4j
from neo4j_graphrag.generation import GraphRAG, RagTemplate
from neo4j_graphrag.llm.base import LLMInterfaceV2
from neo4j_graphrag.llm.types import LLMResponse
from neo4j_graphrag.retrievers.base import Retriever
from neo4j_graphrag.types import RawSearchResult, RetrieverResultItem

from tripartite.infra.config import SelectionSettings
from tripartite.infra.errors import TripartiteError
from tripartite.infra.graph import Graph
from tripartite.objects.store import object_text
from tripartite.search.constants import QUESTION_MODES
from tripartite.search.modes import check_question, object_prompt

if TYPE_CHECKING:
    from tripartite.infra.config import Settings
    from tripartite.search.result import PromptResult

# The retriever's items joined with newlines are the whole prompt, the real question on its
# first line ("Question: ..."): for an object, the question its plugin asks (or the one given),
# never its id. GraphRAG's default template would add "Question: <query_text>" below, which
# for an object is the id; this one sends the prompt alone.
TRIPARTITE_TEMPLATE = RagTemplate(
    template="{context}", expected_inputs=["context"],
    system_instructions="Answer the question at the top from the material below it (what the object says about "
                        "each concept, where the prompt is about an object, and the numbered reference extracts); "
                        "cite the references you use by their numbers in brackets.")

QUESTION_MODE = "hybrid"  # a free-text question's prompt, by default: the best recall per token (docs/search.md)


class TripartiteRetriever(Retriever):
    """search(query_text=...) gives a prompt as items (its blocks, the question first):

    - for a stored object, when query_text is its id, or object_id=ID is given (query_text, if
      any, is then the question asked about it): the Tripartite prompt (the selection's
      extracts per concept), asking `question`, else the object's plugin's question;
    - for a free-text question (query_text that is no object's id): the prompt built the
      `question_mode` way, hybrid by default (tripartite: the question read like an object;
      rag, local, global: see docs/search.md). Its LLM steps (keywords, the question's reading)
      go to the settings' model, offline when none is configured or `offline` is set.

    The result's metadata["tripartite"] holds the prompt's JSON form (for an object: concepts,
    evidence with w, p and reason, numbered references), metadata["result"] the PromptResult."""

    VERIFY_NEO4J_VERSION = False  # selection needs Neo4j 5.23, which `tripartite doctor` checks

    def __init__(self, driver: neo4j.Driver, neo4j_database: Optional[str] = None, question: Optional[str] = None,
                 max_tokens: Optional[int] = None, selection: str = "floor", max_per_concept: Optional[int] = None,
                 tokens_per_concept: Optional[int] = SelectionSettings.tokens_per_concept,
                 question_mode: str = QUESTION_MODE, settings: Optional[Settings] = None, offline: bool = False):
        super().__init__(driver, neo4j_database)
        _check_mode(question_mode)
        self.graph = Graph(driver, neo4j_database or "neo4j")
        self.defaults = {"question": question, "max_tokens": max_tokens, "selection": selection,
                         "max_per_concept": max_per_concept, "tokens_per_concept": tokens_per_concept,
                         "question_mode": question_mode}
        self._settings = settings
        self.offline = offline
        self._embedders: dict[str, Any] = {}
        self.result_formatter = lambda record: RetrieverResultItem(content=record["content"],
                                                                   metadata=record["metadata"])

    def get_search_results(self, query_text: str = "", object_id: Optional[str] = None,
                           question: Optional[str] = None, max_tokens: Optional[int] = None,
                           selection: Optional[str] = None, max_per_concept: Optional[int] = None,
                           tokens_per_concept: Optional[int] = None,
                           question_mode: Optional[str] = None) -> RawSearchResult:
        """The prompt of the object whose id is `object_id` or `query_text`, else of the
        question `query_text`."""
        given = {"question": question, "max_tokens": max_tokens, "selection": selection,
                 "max_per_concept": max_per_concept, "tokens_per_concept": tokens_per_concept,
                 "question_mode": question_mode}
        options = {k: given[k] if given[k] is not None else self.defaults[k] for k in given}
        text = (query_text or "").strip()
        if object_id is None and text and object_text(self.graph, text) is not None:
            object_id = text
        if object_id is not None:
            asked = question or (text if text and text != object_id else None) or options["question"]
            built = object_prompt(self.graph, object_id, "tripartite", None, None, asked, options["max_tokens"],
                                  {"selection": options["selection"], "max_per_concept": options["max_per_concept"],
                                   "tokens_per_concept": options["tokens_per_concept"]})
            about = {"object_id": object_id}
        else:
            _check_mode(options["question_mode"])
            check_question(text, '"How is heart failure treated?"')
            built = self._question_prompt(text, options["question_mode"], options["max_tokens"], options["selection"])
            about = {"question": text, "mode": options["question_mode"]}
        blocks = built.prompt.rstrip("\n").split("\n\n")
        records = [neo4j.Record({"content": block + ("\n" if i < len(blocks) - 1 else ""),
                                 "metadata": {**about, "block": i}})
                   for i, block in enumerate(blocks)]
        return RawSearchResult(records=records, metadata={"tripartite": built.details(), "result": built,
                                                          "question": built.question, **about})

    @property
    def settings(self) -> Settings:
        """The settings given, else the project's (tripartite.toml and the environment)."""
        if self._settings is None:
            from tripartite.infra.config import load_settings

            self._settings = load_settings()
        return self._settings

    def _embedder(self, kind: str):
        """The chunks' embedder ("chunks") or the local one the pre-analysis reads with ("extracts"), made once."""
        if kind not in self._embedders:
            from tripartite.infra.embeddings import local_embedder, make_embedder

            self._embedders[kind] = (make_embedder if kind == "chunks" else local_embedder)(self.settings)
        return self._embedders[kind]

    def _question_prompt(self, question: str, mode: str, max_tokens: Optional[int], selection: str) -> PromptResult:
        from tripartite.infra.llm import open_runner
        from tripartite.search.modes import offline_provider, question_analyzer, question_prompt

        settings = self.settings
        extracts = self._embedder("extracts") if mode == "tripartite" else None
        with open_runner(settings, offline_provider(mode, extracts), offline=self.offline) as runner:
            analyzer = question_analyzer(self.graph, extracts, runner) if mode == "tripartite" else None
            return question_prompt(self.graph, question, mode, self._embedder("chunks"), runner, analyzer, max_tokens,
                                   settings.selection.alpha, settings.selection.beta, selection,
                                   search=settings.search)


def _check_mode(mode: str) -> None:
    if mode not in QUESTION_MODES:
        raise TripartiteError(f"question_mode {mode!r} is unknown; use one of {', '.join(QUESTION_MODES)}")


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
    found = rag.search(query_text=object_id, retriever_config={"object_id": object_id}, return_context=True)
    result = found.retriever_result.metadata["result"]
    result.answer = found.answer
    return result
