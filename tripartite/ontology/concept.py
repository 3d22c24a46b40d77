"""A concept as the steps that read text for it see it: the pre-analysis' extraction prompts
and offline reader, the triplet graph's concept links, the judge and question keywords."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConceptInfo:
    id: str
    name: str
    synonyms: tuple[str, ...]
    description: str

    @property
    def gloss(self) -> str:
        """The text a concept is embedded as."""
        extra = f" ({', '.join(self.synonyms)})" if self.synonyms else ""
        return f"{self.name}: {self.description}{extra}"
