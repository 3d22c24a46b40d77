"""Plugin ontologies: one folder per domain under plugins/, with plugin.yaml (description,
object kinds, the question its prompts ask, prompt files) and ontology.yaml."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BeforeValidator

from tripartite.infra.entries import Entry, Text, checked
from tripartite.infra.paths import plugins_dir
from tripartite.ontology.reader import Id, Ontology, OntologyError, parse_ontology

PROMPT_STAGES = {"chunk": "{text}", "object": "{text}"}  # a stage's template, and what it must hold
# The question a prompt asks when neither the command line nor the object's plugin gives one.
GENERIC_QUESTION = "Given the case described below, what should be considered next, and why?"


def question_or_default(given: str | None, from_plugin: str | None) -> str:
    """The question a prompt asks: the one given (command line, [selection] question), else
    the one of the object's ontology plugin, else the generic one."""
    return given or from_plugin or GENERIC_QUESTION


@dataclass(frozen=True)
class Plugin:
    name: str
    folder: Path
    description: str
    ontology_file: Path
    object_kinds: tuple[str, ...]
    question: str = ""   # what a prompt for one of its objects asks
    prompts: dict[str, Path] = field(default_factory=dict)

    def templates(self) -> dict[str, str]:
        """Its own extraction prompts, by stage (chunk, object), as they are stored with the
        ontology when it is loaded, so the analysis uses them wherever the folder was."""
        return {stage: path.read_text(encoding="utf-8") for stage, path in sorted(self.prompts.items())}


def _kinds(value: Any) -> list:
    """object_kinds: ids, or mappings with an id (and a description for the curator)."""
    if value is not None and not isinstance(value, list):
        raise ValueError("must be a list of ids")
    return [kind.get("id") if isinstance(kind, dict) else kind for kind in value or []]


def _prompts(value: Any) -> dict:
    if value is not None and not isinstance(value, dict):
        raise ValueError("must be a mapping, e.g. prompts: {chunk: prompts/chunk.md}")
    return value or {}


class PluginManifest(Entry):
    """plugin.yaml: the keys it takes and their types."""
    name: Id
    description: Text = ""
    ontology: Text = ""  # the ontology file in the folder ("": ontology.yaml)
    object_kinds: Annotated[list[Id], BeforeValidator(_kinds)] = []
    question: Text = ""  # what a prompt for one of its objects asks
    prompts: Annotated[dict[str, Text], BeforeValidator(_prompts)] = {}  # stage (chunk, object): prompt file


def available_plugins() -> list[Plugin]:
    folder = plugins_dir()
    if not folder.is_dir():
        return []
    return [load_plugin(p) for p in sorted(folder.iterdir()) if (p / "plugin.yaml").is_file()]


def load_plugin(folder: Path) -> Plugin:
    manifest = folder / "plugin.yaml"
    try:
        data = yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise OntologyError(f"{manifest}: not valid YAML ({str(exc).splitlines()[0]}); fix the file") from None
    if not isinstance(data, dict):
        raise OntologyError(f"{manifest}: must be a YAML mapping with name, ontology and prompts")
    manifest_of = checked(PluginManifest, data, lambda key: f"{manifest}: {key}", OntologyError,
                          unknown="{where}unknown key(s) {keys}; allowed: {allowed}")
    prompts = {stage: folder / rel for stage, rel in manifest_of.prompts.items()}
    for stage, prompt in prompts.items():
        if stage not in PROMPT_STAGES:
            raise OntologyError(f"{manifest}: prompt stage {stage!r} is unknown; use chunk or object")
        if not prompt.is_file():
            raise OntologyError(f"{manifest}: prompt {stage!r} file {prompt} not found; add it or fix the path")
        try:
            template = prompt.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise OntologyError(f"{prompt}: not UTF-8 text; save it as UTF-8") from None
        for placeholder in ("{concepts}", PROMPT_STAGES[stage]):
            if placeholder not in template:
                raise OntologyError(f"{prompt}: the {stage} prompt has no {placeholder}, so the model would not see "
                                    f"{'the concepts' if placeholder == '{concepts}' else 'the text'}; add it")
    return Plugin(manifest_of.name, folder, manifest_of.description, folder / (manifest_of.ontology or "ontology.yaml"),
                  tuple(manifest_of.object_kinds), manifest_of.question, prompts)


def resolve(name_or_path: str) -> tuple[Ontology, Plugin | None]:
    """An ontology from a plugin name, a plugin folder, a plugin.yaml or an ontology file."""
    path = Path(name_or_path).expanduser()
    if path.is_dir() and (path / "plugin.yaml").is_file():
        plugin = load_plugin(path)
        return parse_ontology(plugin.ontology_file), plugin
    if path.is_file() and path.name == "plugin.yaml":
        plugin = load_plugin(path.parent)
        return parse_ontology(plugin.ontology_file), plugin
    if path.is_file():
        beside = path.parent / "plugin.yaml"  # a plugin's own ontology file: the plugin, question and prompts
        if path.name != "plugin.yaml" and beside.is_file():
            plugin = load_plugin(path.parent)
            if plugin.ontology_file.resolve() == path.resolve():
                return parse_ontology(path), plugin
        return parse_ontology(path), None
    for plugin in available_plugins():
        if plugin.name == name_or_path:
            return parse_ontology(plugin.ontology_file), plugin
    names = ", ".join(p.name for p in available_plugins()) or "none"
    raise OntologyError(f"{name_or_path}: neither an ontology file nor a plugin; plugins here: {names}")
