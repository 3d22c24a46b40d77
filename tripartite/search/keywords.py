"""The keywords local search looks entities up by: the configured LLM's (a small JSON task,
cached like every call), or offline the question's content words and the ontology concepts it
names (by name or synonym, as whole words)."""
from __future__ import annotations

import re

from tripartite.analysis.extractive import synonym_pattern
from tripartite.infra.llm.providers import ConceptInfo
from tripartite.infra.llm.schemas import array, budget, obj, string
from tripartite.infra.llm.tasks import InvalidAnswer, JsonTask, load_json
from tripartite.kg.extractive import CJK_RUN, TECHNICAL_NAME, CJK_FUNCTION, CJK_STOPWORDS, STOPWORDS

KEYWORDS_SCHEMA = "keywords-v1"
KEYWORDS_SHAPE = '{"keywords": ["...", "..."]}'
MAX_KEYWORDS = 12
QUESTION_WORDS = set("""what which who whom whose when where why how does did do is are was were can could should would
tell explain describe give list show about main most""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{2,}")


def offline_keywords(question: str, concepts: list[ConceptInfo]) -> list[str]:
    """The ontology concepts the question names (their names), its technical names, its
    content words and its Chinese or Japanese character runs, each once, in that order."""
    found = [c.name for c in concepts if synonym_pattern(c).search(question)]
    found += TECHNICAL_NAME.findall(question)
    found += [w for w in _WORD.findall(question) if w.lower() not in STOPWORDS and w.lower() not in QUESTION_WORDS]
    for run in CJK_RUN.findall(question):
        found += [part for part in re.split("[" + "".join(CJK_FUNCTION) + "]", run) if len(part) >= 2
                  and part not in CJK_STOPWORDS]
    unique: dict[str, str] = {}
    for word in found:
        unique.setdefault(word.lower(), word)
    return list(unique.values())[:MAX_KEYWORDS]


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
