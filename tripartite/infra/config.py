"""Settings: built-in defaults < tripartite.toml < environment variables. The one home of every
default: each [section] is a frozen dataclass, its fields the keys (declarations.py: ranges,
variables), checked by pydantic when settings are read (config_values.py; `--help` never loads
it). Secrets come only from the environment: a file holding one is refused."""
from __future__ import annotations

import os
from dataclasses import field, replace
from pathlib import Path
from typing import Annotated, Literal, Mapping

from tripartite.infra.declarations import (Bounds, Cosine, Env, Port, Positive, Prices, Probability, Tokens, at_least,
                                           section)
from tripartite.infra.secrets import mask_userinfo, register, userinfo_secrets

CONFIG_FILE_NAME = "tripartite.toml"


@section
class ServerSettings:
    """The no-Docker local Neo4j server that `tripartite server` manages."""
    home: Annotated[Path, Env("TRIPARTITE_SERVER_HOME")] = Path(".tripartite/neo4j")  # relative: to the file's folder
    bolt_port: Annotated[Port, Env("TRIPARTITE_BOLT_PORT")] = 7687
    http_port: Annotated[Port, Env("TRIPARTITE_HTTP_PORT")] = 7474
    # Neo4j 5.26 LTS: 5.26.19 is the newest with APOC core 5.26.x (which must match) on Maven Central
    neo4j_version: str = "5.26.19"
    apoc_version: str = "5.26.19"
    apoc_extended_version: str = "5.26.0"  # its last 5.26; "" turns it off
    browser_version: str = "5.24.0"
    gds_version: str = "2.13.9"  # OpenGDS for 5.26 (the triplet graph's Leiden communities); "" turns it off
    heap: str = "2g"  # a 50 MB document (about 80,000 chunks) is written in one transaction
    pagecache: str = "512m"
    java: Annotated[str, Env("TRIPARTITE_JAVA")] = ""  # path to a java binary; found automatically when empty
    start_timeout: Annotated[float, at_least(1, "use 1 or more seconds")] = 180.0
    procedures: Annotated[bool, Env("TRIPARTITE_PROCEDURES")] = True  # build and install procedures/; False: Cypher


@section
class LLMSettings:
    """An OpenAI-compatible endpoint; unset base_url and model mean the offline provider."""
    base_url: Annotated[str, Env("OPENAI_BASE_URL")] = ""
    model: Annotated[str, Env("TRIPARTITE_LLM_MODEL")] = ""
    api_key: Annotated[str, Env("OPENAI_API_KEY")] = field(default="", repr=False)  # never in the file
    # seconds per request, once sent (the runner never queues more than the server serves)
    timeout: Annotated[float, at_least(0.1, "use seconds above 0"), Env("TRIPARTITE_LLM_TIMEOUT")] = 60.0
    backoff: Annotated[float, at_least(0, "use 0 or more seconds"), Env("TRIPARTITE_LLM_BACKOFF")] = 1.0  # doubles
    # requests in flight (None: 4, or fewer where the server reports fewer slots)
    concurrency: Annotated[int, at_least(1), Env("TRIPARTITE_LLM_CONCURRENCY")] | None = None
    # JSON-schema constrained answers (auto: probe the endpoint once)
    structured: Annotated[Literal["auto", "on", "off"], Env("TRIPARTITE_LLM_STRUCTURED")] = "auto"
    prices: Annotated[Prices, Env("TRIPARTITE_LLM_PRICES")] | None = None  # USD per million tokens in, out

    @property
    def configured(self) -> bool:
        return bool(self.model)


@section
class EmbeddingSettings:
    """local: models on this machine ("auto": each language by its own; a known model's name; an
    ONNX model's folder); openai: an OpenAI-compatible /embeddings endpoint."""
    provider: Annotated[Literal["local", "openai"], Env("TRIPARTITE_EMBEDDING_PROVIDER")] = "local"
    model: Annotated[str, Env("TRIPARTITE_EMBEDDING_MODEL")] = "auto"  # openai: text-embedding-3-small unless given
    batch_size: Annotated[int, at_least(1)] = 8
    # The model reads Latin-script text only (hybrid search then leans on words elsewhere); None:
    # yes for the local model, no for an endpoint (set it for an English model served there).
    latin_only: bool | None = None


@section
class SelectionSettings:
    """The selection's and the prompt's defaults. What `tripartite tune --store` put in the graph
    wins over these (tripartite/selection/settings.py); command-line flags win over both."""
    mode: Literal["floor", "paper"] = "floor"  # floor: each concept keeps its best extract, plus the paper's
    alpha: Probability = 0.9            # select a candidate when P_c(w) > alpha
    beta: Probability = 0.5             # Markov blanket: a chunk's other candidates when P_c(w) > beta
    max_tokens: Positive | None = None  # the prompt's token budget (None: tokens_per_concept decides)
    tokens_per_concept: Positive | None = 70  # without max_tokens: this many tokens per concept of the object
    max_per_concept: Positive | None = None    # each concept's best N extracts (None: no cap)
    question: str = ""                  # "" asks the object's plugin, then ontology.plugins.GENERIC_QUESTION
    # select's concurrent transactions (None: the server's processors)
    concurrency: Annotated[Positive, Env("TRIPARTITE_SELECT_CONCURRENCY")] | None = None
    # auto: the procedure plugin where the server has it, else the Cypher scripts
    engine: Annotated[Literal["auto", "cypher", "plugin"], Env("TRIPARTITE_SELECT_ENGINE")] = "auto"


@section
class ChunkingSettings:
    max_tokens: Annotated[int, at_least(16, "use 16 or more tokens")] = 200  # embedding model's tokens (MiniLM: 256)
    max_mb: Annotated[float, at_least(0.001, "use a size in MB above 0")] = 64.0


@section
class AnalysisSettings:
    prefilter_similarity: Cosine = 0.3  # a chunk is read for a concept it does not name when this close to its gloss


@section
class KgSettings:
    """The triplet graph's `kg extract` and `kg communities` (DB-GPT's values)."""
    context_k: Annotated[int, at_least(0)] = 5  # the most similar other chunks that give context names
    min_similarity: Cosine = 0.3                # the least cosine similarity of such a chunk
    min_size: Annotated[int, at_least(2)] = 3   # smaller communities get no report


@section
class SearchSettings:
    """Each search mode's budget for its final prompt, and local's and global's own defaults."""
    hybrid_tokens: Tokens = 1000
    local_tokens: Tokens = 4000
    global_tokens: Tokens = 3000
    depth: Annotated[int, Bounds(0, 3, "{shown} is out of range; use 0 to 3")] = 2  # local: hops around the entities
    map_tokens: Annotated[int, at_least(200, "use 200 or more tokens")] = 4000  # global: all map calls' prompts


@section
class Neo4jSection:  # as written; read Settings.neo4j_uri, neo4j_user, ...
    uri: Annotated[str, Env("NEO4J_URI")] = ""  # "": the local server's Bolt port
    user: Annotated[str, Env("NEO4J_USER", "NEO4J_USERNAME")] = "neo4j"
    database: Annotated[str, Env("NEO4J_DATABASE")] = "neo4j"
    password: Annotated[str, Env("NEO4J_PASSWORD")] = field(default="", repr=False)  # never in the file


@section
class PathsSection:  # as written; read Settings.cache_dir, llm_cache, migrations_dir
    cache_dir: Annotated[str, Env("TRIPARTITE_CACHE_DIR")] | None = None
    migrations_dir: Annotated[str, Env("TRIPARTITE_MIGRATIONS_DIR")] | None = None
    llm_cache: Annotated[str, Env("TRIPARTITE_LLM_CACHE")] | None = None


@section
class Settings:
    """The sections as the file and the environment give them (pydantic checks both), then what
    load_settings derives from them (no key sets those)."""
    neo4j: Neo4jSection = Neo4jSection()
    server: ServerSettings = ServerSettings()
    llm: LLMSettings = LLMSettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    selection: SelectionSettings = SelectionSettings()
    analysis: AnalysisSettings = AnalysisSettings()
    kg: KgSettings = KgSettings()
    search: SearchSettings = SearchSettings()
    paths: PathsSection = PathsSection()
    # the period of progress lines without a terminal (no key in the file)
    progress_seconds: Annotated[float, at_least(0, "use 0 or more seconds"), Env("TRIPARTITE_PROGRESS_SECONDS")] = 30.0
    cache_dir: Path = Path()       # these four are derived by load_settings, no key sets them
    llm_cache: Path = Path()
    migrations_dir: Path = Path()
    config_file: Path | None = None

    neo4j_user = property(lambda self: self.neo4j.user)
    neo4j_password = property(lambda self: self.neo4j.password)
    neo4j_database = property(lambda self: self.neo4j.database)
    uri_from_user = property(lambda self: bool(self.neo4j.uri))  # NEO4J_URI or [neo4j] uri was given
    neo4j_uri = property(lambda self: self.neo4j.uri or f"bolt://127.0.0.1:{self.server.bolt_port}")
    neo4j_uri_shown = property(lambda self: mask_userinfo(self.neo4j_uri))


def find_config_file(start: Path) -> Path | None:
    """The nearest tripartite.toml in `start` or one of its parents."""
    return next((folder / CONFIG_FILE_NAME for folder in [start, *start.parents]
                 if (folder / CONFIG_FILE_NAME).is_file()), None)


def load_settings(config_path: str | Path | None = None, env: Mapping[str, str] | None = None,
                  cwd: Path | None = None) -> Settings:
    """Resolve settings: built-in defaults < tripartite.toml < environment variables."""
    from tripartite.infra.config_values import read_settings  # pydantic: only when settings are read
    from tripartite.infra.paths import migrations_dir

    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    explicit = config_path or env.get("TRIPARTITE_CONFIG")
    path = Path(explicit).expanduser().resolve() if explicit else find_config_file(cwd)
    base = path.parent if path else cwd
    given, written = read_settings(Settings, path, env)
    neo4j, paths, embeddings = given.neo4j, given.paths, given.embeddings
    if embeddings.provider == "openai" and ("embeddings", "model") not in written:
        embeddings = replace(embeddings, model="text-embedding-3-small")
    server = replace(given.server, home=(base / given.server.home.expanduser()).resolve())
    cache_dir = Path(paths.cache_dir or Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tripartite")
    cache_dir = cache_dir.expanduser() if cache_dir.expanduser().is_absolute() else (base / cache_dir).resolve()
    register(given.llm.api_key, neo4j.password, *userinfo_secrets(neo4j.uri, given.llm.base_url))
    return replace(
        given, server=server, embeddings=embeddings, cache_dir=cache_dir,
        llm_cache=(base / Path(paths.llm_cache).expanduser()).resolve() if paths.llm_cache
        else cache_dir / "llm-cache.sqlite",
        migrations_dir=(base / paths.migrations_dir).resolve() if paths.migrations_dir else migrations_dir(),
        config_file=path)
