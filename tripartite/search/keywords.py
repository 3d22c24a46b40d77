"""The keywords local and hybrid search look entities and passages up by: the configured LLM's
(a small JSON task, cached like every call; at most MAX_KEYWORDS), or offline the ontology
concepts the question names (by name or synonym, as whole words), its technical names and its
content words, all of them (up to MAX_OFFLINE_KEYWORDS)."""
from __future__ import annotations

from tripartite.analysis.extractive import synonym_pattern
from tripartite.infra.graph import Graph
from tripartite.ontology.concept import ConceptInfo
from tripartite.infra.llm.schemas import array, budget, obj, string
from tripartite.infra.llm.tasks import InvalidAnswer, JsonTask, load_json
from tripartite.infra.tokens import count_tokens
from tripartite.kg.extractive import TECHNICAL_NAME
from tripartite.kg.phrases import content_words

KEYWORDS_SCHEMA = "keywords-v1"
KEYWORDS_SHAPE = '{"keywords": ["...", "..."]}'
MAX_KEYWORDS = 12  # the LLM's list
# Offline, a question's words: at most this many (a pasted page can be a question), so that with
# translations.MAX_WORDS hybrid.cypher's entity lookup (two clauses a word) stays within the 1,024
# clauses Lucene takes.
MAX_OFFLINE_KEYWORDS = 100

def offline_keywords(question: str, concepts: list[ConceptInfo]) -> list[str]:
    """The ontology concepts the question names (their names), its technical names and its
    content words (kg/phrases.py: no stop, question or asking words; Chinese segmented by
    jieba), each once, in that order. A long question keeps them all (up to MAX_OFFLINE_KEYWORDS):
    it often asks last ("..., and how do I estimate the memory taken by chunked uploads?"), and
    the full-text index weighs each word by its rarity anyway; the first twelve alone lost those
    asks."""
    found = [c.name for c in concepts if synonym_pattern(c).search(question)]
    found += TECHNICAL_NAME.findall(question)
    found += content_words(question)
    unique: dict[str, str] = {}
    for word in found:
        unique.setdefault(word.lower(), word)
    return list(unique.values())[:MAX_OFFLINE_KEYWORDS]


def keywords_task(question: str) -> JsonTask:
    """The LLM's keywords: names and terms, with their synonyms and other spellings (DB-GPT's idea)."""
    prompt = (f"List the keywords to look up in a knowledge graph to answer the question: the names and terms it "
              f"uses, with their synonyms and other spellings, at most {MAX_KEYWORDS}.\n"
              f"Question: {question}\nAnswer with JSON only: {KEYWORDS_SHAPE}")

    def parse(content: str) -> list[str]:
        data = load_json(content)
        if not isinstance(data, dict) or not isinstance(data.get("keywords"), list) \
                or not all(isinstance(k, str) for k in data["keywords"]):
            raise InvalidAnswer('the answer must be an object with a "keywords" list of strings')
        return [k.strip() for k in data["keywords"] if k.strip()][:MAX_KEYWORDS]

    schema = obj(keywords=array(string(60), MAX_KEYWORDS))
    return JsonTask("keywords", "question", prompt, KEYWORDS_SCHEMA, KEYWORDS_SHAPE, parse, schema,
                    budget(MAX_KEYWORDS * 34 + 10))


def question_keywords(graph: Graph, query: str, runner=None) -> tuple[list[str], int]:
    """(keywords, prompt tokens spent): the LLM's when a runner with a model is given, else offline."""
    if runner is not None and not runner.provider.offline:
        task = keywords_task(query)
        return runner.ask(task), count_tokens(task.prompt)
    concepts = [ConceptInfo(r["id"], r["name"], tuple(r["synonyms"]), r["description"])
                for r in graph.run("analysis/concepts", ontology=None)]
    return offline_keywords(query, concepts), 0
