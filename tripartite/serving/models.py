"""What the MCP tools return, as the output schemas a client reads (prompts are
search/result.py's PromptResult): a traced chunk, the objects and ontologies listed, concepts
found and the hierarchy walked, an object added."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tripartite.search.result import Reference


class Trace(BaseModel):
    chunk_id: str
    document: str
    document_id: str
    source: str | None = None
    sections: list[str]
    index: int
    tokens: int | None = None
    text: str


class ObjectRow(BaseModel):
    id: str
    kind: str | None = None
    title: str | None = None
    concepts: int = Field(description="How many concepts the object concerns.")
    analysed_by: str | None = None


class Objects(BaseModel):
    objects: list[ObjectRow]


class OntologyRow(BaseModel):
    id: str
    version: str | None = None
    description: str | None = None
    classes: int
    concepts: int


class Ontologies(BaseModel):
    ontologies: list[OntologyRow]


class Named(BaseModel):
    id: str
    name: str


class FoundConcept(BaseModel):
    id: str = Field(description="The concept's id, as walk_concepts and the prompts name it.")
    name: str
    ontology: str
    concept_class: str | None = Field(default=None, description="Its concept class.")
    matched: str = Field(description="What matched: its code, a cross-reference, its name or a synonym.")
    source: str | None = Field(default=None, description="The term it was imported from (a CURIE), if any.")
    notation: str | None = None
    xrefs: list[str] = Field(description="Its codes in other systems (MESH:D009203, ICD10CM:I21, ...).")
    synonyms: list[str]
    broader: list[Named] = Field(description="The concepts directly above it.")
    narrower: list[Named] = Field(description="The concepts directly below it (the first 25).")
    narrower_count: int


class Concepts(BaseModel):
    text: str
    concepts: list[FoundConcept]


class WalkedConcept(BaseModel):
    id: str
    name: str
    ontology: str
    concept_class: str | None = None
    direction: Literal["broader", "narrower"]
    steps: int = Field(description="BROADER steps from the concept walked from.")
    reached_from: str = Field(description="The concept one step nearer it was reached from.")
    broader: int = Field(description="How many concepts lie directly above it.")
    narrower: int = Field(description="How many concepts lie directly below it.")


class Start(BaseModel):
    id: str
    name: str
    ontology: str
    concept_class: str | None = None


class Walk(BaseModel):
    concept: Start
    direction: Literal["broader", "narrower", "both"]
    depth: int
    concepts: list[WalkedConcept] = Field(description="Nearest first.")
    truncated: bool = Field(description="The limit stopped the walk before every concept in reach was listed.")


class Added(BaseModel):
    object_id: str = Field(description="The id it is stored under (another if the one asked for was taken).")
    status: Literal["added", "changed", "unchanged", "moved"]
    note: str | None = None
    analysed_by: str = Field(description="Who read it against the ontologies: an LLM (provider/model) or the offline "
                                         "extractive reader, which is no LLM.")
    llm_calls: int = Field(description="LLM calls the analysis made (0 when answered from the cache or offline).")
    question: str | None = Field(default=None, description="The question its prompt asks.")
    tokens: int = Field(description="Its Tripartite prompt's tokens.")
    concepts: list[str] = Field(description="The concepts it concerns.")
    prompt: str = Field(description="Its Tripartite prompt, as object_prompt gives it.")
    references: list[Reference]
