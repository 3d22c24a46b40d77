"""A question as search compares it with passages: read by every model of the embedder that
can read it, each reading in its model's block of the vector (infra/embeddings.py routes each
passage to one model, so a passage meets exactly one reading)."""
from __future__ import annotations

import numpy as np

from tripartite.infra.languages import text_language

# A question's reading by another language's model, against its own language's (measured on
# DB-GPT's file at 1,000 tokens, hybrid: 0.49 at 0.7, 0.54 at 1.0 and at 1.3).
CROSS_LANGUAGE_WEIGHT = 1.0


def question_readings(embedder, question: str) -> list[tuple[np.ndarray, float]]:
    """A question as search compares it with passages: (vector, weight) pairs, one per reading.
    With the default (each language by its own model) the question is read by every model that
    can read it: by its own language's model at weight 1, and by each other one at
    CROSS_LANGUAGE_WEIGHT (bge-small-zh-v1.5 reads English words too, so an English question
    finds a Chinese passage by meaning; all-MiniLM-L6-v2 cannot read Chinese, so a Chinese
    question has one reading). Each reading fills only its model's block, and a passage's vector
    lives in one block, so a passage meets exactly one reading: its closeness is that model's
    cosine, times the weight for another language (where both say the same, the passage of the
    question's own language comes first). Any other embedder reads a question as a passage."""
    members = getattr(embedder, "members", None)
    if not members:
        return [(embedder.embed([question])[0], 1.0)]
    own = embedder.member_for(question).spec.language
    readings = []
    for language, member in sorted(members.items(), key=lambda m: m[0] != own):  # its own language's first
        if language != own and member.latin_only and text_language(question) != "en":
            continue
        start, end = embedder.blocks[language]
        vector = np.zeros(embedder.dimensions, dtype=np.float32)
        vector[start:end] = member.embed([question])[0]
        readings.append((vector, 1.0 if language == own else CROSS_LANGUAGE_WEIGHT))
    return readings


def summed(readings: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """The readings summed, weighted: its dot product with a passage's unit vector is the
    passage's closeness to the question."""
    return sum(weight * vector for vector, weight in readings)


def question_vector(embedder, question: str) -> np.ndarray:
    """The question as one vector: its readings summed (see summed)."""
    return summed(question_readings(embedder, question))
