"""Settings: defaults, then an optional tripartite.toml, then environment variables.

This module is the one home of the project's defaults (the selection's alpha, beta and
budgets among them). Secrets (the Neo4j password, LLM API keys) come only from the
environment; a config file that holds one is refused, and `Settings` never prints them,
nor a password written into a URL. Reading the file and checking each value: config_values.py.
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from tripartite.infra.config_values import (at_least, check_types, env_number, field_kinds, optional_bool, port_number,
                                            read_section, read_toml, shown_setting, where_written)
from tripartite.infra.errors import ConfigError
from tripartite.infra.secrets import mask_userinfo, register

CONFIG_FILE_NAME = "tripartite.toml"

# Neo4j 5.26 LTS. 5.26.19 is the newest patch release for which APOC core 5.26.x is on
# Maven Central, and APOC must match the server's version; APOC Extended stops at 5.26.0.
DEFAULT_NEO4J_VERSION = "5.26.19"
DEFAULT_APOC_VERSION = "5.26.19"
DEFAULT_APOC_EXTENDED_VERSION = "5.26.0"
DEFAULT_BROWSER_VERSION = "5.24.0"
# OpenGDS 2.13 is the Graph Data Science line for Neo4j 5.26 (Leiden communities of the triplet graph).
DEFAULT_GDS_VERSION = "2.13.9"

@dataclass(frozen=True)
class ServerSettings:
    """The no-Docker local Neo4j server that `tripartite server` manages."""

    home: Path
    bolt_port: int = 7687
    http_port: int = 7474
    neo4j_version: str = DEFAULT_NEO4J_VERSION
    apoc_version: str = DEFAULT_APOC_VERSION
    apoc_extended_version: str = DEFAULT_APOC_EXTENDED_VERSION  # "" turns it off
    browser_version: str = DEFAULT_BROWSER_VERSION
    gds_version: str = DEFAULT_GDS_VERSION  # "" turns it off
    heap: str = "2g"  # a 50 MB document (about 80,000 chunks) is written in one transaction
    pagecache: str = "512m"
    java: str = ""  # path to a java binary; found automatically when empty
    start_timeout: float = 180.0
    procedures: bool = True  # build procedures/ and install it (the selection's plugin path); False: Cypher only


STRUCTURED_MODES = ("auto", "on", "off")


@dataclass(frozen=True)
class LLMSettings:
    """An OpenAI-compatible endpoint; unset base_url and model mean the offline provider."""

    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    timeout: float = 60.0   # seconds per request, once sent (the runner never queues more than the server serves)
    backoff: float = 1.0    # first retry pause in seconds; doubles each retry
    concurrency: int | None = None  # requests in flight; None: 4, or fewer where the server reports fewer slots
    structured: str = "auto"        # JSON-schema constrained answers: auto (probe the endpoint once), on, off
    prices: tuple[float, float] | None = None  # USD per million tokens (input, output) for --dry-run's cost

    @property
    def configured(self) -> bool:
        return bool(self.model)


@dataclass(frozen=True)
class EmbeddingSettings:
    """local: models on this machine ("auto": each language by its own model; a known model's
    name; a folder holding an ONNX model); openai: an OpenAI-compatible /embeddings endpoint."""

    provider: str = "local"
    model: str = "auto"
    batch_size: int = 8
    # The model reads Latin-script text only (hybrid search then leans on words elsewhere); None:
    # yes for the local model, no for an endpoint (set it for an English model served there).
    latin_only: bool | None = None


@dataclass(frozen=True)
class SelectionSettings:
    """The selection's and the prompt's defaults. Settings stored in the graph by `tripartite
    tune --store` win over these (tripartite/selection/settings.py); command-line flags win
    over both."""

    mode: str = "floor"                 # floor: each concept keeps its best extract, plus the paper's; paper: the paper's
    alpha: float = 0.9                  # select a candidate when P_c(w) > alpha
    beta: float = 0.5                   # Markov blanket: a chunk's other candidates when P_c(w) > beta
    max_tokens: int | None = None       # the prompt's token budget (None: tokens_per_concept decides)
    tokens_per_concept: int | None = 110  # without max_tokens: this many tokens per concept of the object
    max_per_concept: int | None = None  # each concept's best N extracts (None: no cap)
    question: str = ""                  # "" asks the object's plugin, then ontology.plugins.GENERIC_QUESTION
    concurrency: int | None = None      # select's concurrent transactions (None: the server's processors)
    engine: str = "auto"                # auto: the procedure plugin where the server has it, else Cypher; cypher; plugin


@dataclass(frozen=True)
class ChunkingSettings:
    max_tokens: int = 200   # in the embedding model's tokens; MiniLM reads at most 256
    max_mb: float = 64.0    # larger files are refused with a clear error


@dataclass(frozen=True)
class Settings:
    neo4j_uri: str
    neo4j_user: str
    neo4j_password: str = field(repr=False)
    neo4j_database: str
    server: ServerSettings
    llm: LLMSettings
    embeddings: EmbeddingSettings
    chunking: ChunkingSettings
    selection: SelectionSettings
    cache_dir: Path
    llm_cache: Path
    migrations_dir: Path
    config_file: Path | None = None
    uri_from_user: bool = False  # NEO4J_URI or [neo4j].uri was given explicitly
    progress_seconds: float | None = None  # TRIPARTITE_PROGRESS_SECONDS: the period of progress lines

    @property
    def neo4j_uri_shown(self) -> str:
        return mask_userinfo(self.neo4j_uri)

    def describe(self) -> dict[str, Any]:
        """A printable view, with every secret reduced to whether it is set."""
        return {
            "config_file": str(self.config_file) if self.config_file else None,
            "neo4j": {
                "uri": self.neo4j_uri_shown,
                "user": self.neo4j_user,
                "password": "set" if self.neo4j_password else "not set",
                "database": self.neo4j_database,
            },
            "server": {
                "home": str(self.server.home),
                "bolt_port": self.server.bolt_port,
                "http_port": self.server.http_port,
                "neo4j_version": self.server.neo4j_version,
                "apoc_version": self.server.apoc_version,
                "apoc_extended_version": self.server.apoc_extended_version or None,
                "browser_version": self.server.browser_version,
                "gds_version": self.server.gds_version or None,
            },
            "llm": {
                "base_url": mask_userinfo(self.llm.base_url) or None,
                "model": self.llm.model or None,
                "api_key": "set" if self.llm.api_key else "not set",
                "timeout": self.llm.timeout,
                "concurrency": self.llm.concurrency,
                "structured": self.llm.structured,
            },
            "embeddings": {"provider": self.embeddings.provider, "model": self.embeddings.model,
                           "latin_only": self.embeddings.latin_only},
            "chunking": {"max_tokens": self.chunking.max_tokens, "max_mb": self.chunking.max_mb},
            "selection": asdict(self.selection),
            "cache_dir": str(self.cache_dir),
            "llm_cache": str(self.llm_cache),
            "migrations_dir": str(self.migrations_dir),
        }


def find_config_file(start: Path) -> Path | None:
    """The nearest tripartite.toml in `start` or one of its parents."""
    for folder in [start, *start.parents]:
        candidate = folder / CONFIG_FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def load_settings(config_path: str | Path | None = None, env: Mapping[str, str] | None = None,
                  cwd: Path | None = None) -> Settings:
    """Resolve settings: built-in defaults < tripartite.toml < environment variables."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    explicit = config_path or env.get("TRIPARTITE_CONFIG")
    path = Path(explicit).expanduser().resolve() if explicit else find_config_file(cwd)
    data = read_toml(path) if path else {}
    base = path.parent if path else cwd

    known = {"neo4j", "server", "llm", "embeddings", "chunking", "selection", "paths"}
    unknown_sections = sorted(set(data) - known)
    if unknown_sections:
        raise ConfigError(f"{path}: unknown section(s) {', '.join(unknown_sections)}; allowed: {', '.join(sorted(known))}")

    neo4j = read_section(path, data, "neo4j", {"uri", "user", "database"})
    check_types(path, "neo4j", neo4j, dict.fromkeys(neo4j, "str"))
    server_kinds = field_kinds(ServerSettings)
    server = read_section(path, data, "server", set(server_kinds))
    check_types(path, "server", server, {k: v for k, v in server_kinds.items() if not k.endswith("_port")})
    if "start_timeout" in server:
        at_least(where_written(path, "server", "start_timeout"), server["start_timeout"], 1, "use 1 or more seconds")
    llm_kinds = field_kinds(LLMSettings)
    llm = read_section(path, data, "llm", set(llm_kinds) - {"api_key"})
    check_types(path, "llm", llm, llm_kinds)
    prices = env.get("TRIPARTITE_LLM_PRICES") or llm.get("prices")
    if prices is not None:
        try:
            pair = [float(x) for x in (prices.split(",") if isinstance(prices, str) else prices)]
            if len(pair) != 2 or not all(math.isfinite(x) and x >= 0 for x in pair):
                raise ValueError
        except (TypeError, ValueError):
            raise ConfigError(f"LLM prices {prices!r} are not two numbers (TRIPARTITE_LLM_PRICES=in,out or [llm] prices "
                              "= [in, out], USD per million tokens)") from None
        prices = (pair[0], pair[1])
    structured = env.get("TRIPARTITE_LLM_STRUCTURED") or llm.get("structured", "auto")
    if structured not in STRUCTURED_MODES:
        raise ConfigError(f"structured answers {structured!r} is unknown (TRIPARTITE_LLM_STRUCTURED or [llm] "
                          f"structured); use one of {', '.join(STRUCTURED_MODES)}")
    llm_numbers = {}
    for key, variable, integer, minimum, fix in (
            ("concurrency", "TRIPARTITE_LLM_CONCURRENCY", True, 1, "use 1 or more"),
            ("timeout", "TRIPARTITE_LLM_TIMEOUT", False, 0.1, "use seconds above 0"),
            ("backoff", "TRIPARTITE_LLM_BACKOFF", False, 0, "use 0 or more seconds")):
        from_env = env_number(env, variable, integer)
        value = from_env if from_env is not None else llm.get(key)
        if value is not None:
            at_least(variable if from_env is not None else where_written(path, "llm", key), value, minimum, fix)
        llm_numbers[key] = value
    concurrency = llm_numbers["concurrency"]
    paths = read_section(path, data, "paths", {"cache_dir", "migrations_dir", "llm_cache"})
    check_types(path, "paths", paths, dict.fromkeys(paths, "str"))
    embedding_kinds = field_kinds(EmbeddingSettings)
    embeddings = read_section(path, data, "embeddings", set(embedding_kinds))
    check_types(path, "embeddings", embeddings, embedding_kinds)
    if "batch_size" in embeddings:
        at_least(where_written(path, "embeddings", "batch_size"), embeddings["batch_size"], 1, "use 1 or more")
    chunking_kinds = field_kinds(ChunkingSettings)
    chunking = read_section(path, data, "chunking", set(chunking_kinds))
    check_types(path, "chunking", chunking, chunking_kinds)
    if "max_tokens" in chunking:
        at_least(where_written(path, "chunking", "max_tokens"), chunking["max_tokens"], 16, "use 16 or more tokens")
    if "max_mb" in chunking:
        at_least(where_written(path, "chunking", "max_mb"), chunking["max_mb"], 0.001, "use a size in MB above 0")
    provider = env.get("TRIPARTITE_EMBEDDING_PROVIDER") or embeddings.get("provider", "local")
    if provider not in ("local", "openai"):
        raise ConfigError(f"embedding provider {provider!r} is unknown; use 'local' or 'openai'")
    default_model = EmbeddingSettings.model if provider == "local" else "text-embedding-3-small"
    embedding_settings = EmbeddingSettings(
        provider=provider,
        model=env.get("TRIPARTITE_EMBEDDING_MODEL") or embeddings.get("model") or default_model,
        batch_size=int(embeddings.get("batch_size", EmbeddingSettings.batch_size)),
        latin_only=optional_bool(path, "embeddings", "latin_only", embeddings.get("latin_only")),
    )
    chunking_settings = ChunkingSettings(**chunking)
    selection_kinds = field_kinds(SelectionSettings)
    selection_values = read_section(path, data, "selection", set(selection_kinds))
    check_types(path, "selection", selection_values, selection_kinds)
    labels = {key: where_written(path, "selection", key) for key in selection_kinds}
    select_concurrency = env_number(env, "TRIPARTITE_SELECT_CONCURRENCY", integer=True)
    if select_concurrency is not None:
        selection_values["concurrency"], labels["concurrency"] = select_concurrency, "TRIPARTITE_SELECT_CONCURRENCY"
    if env.get("TRIPARTITE_SELECT_ENGINE"):
        selection_values["engine"], labels["engine"] = env["TRIPARTITE_SELECT_ENGINE"], "TRIPARTITE_SELECT_ENGINE"
    selection_settings = _selection(selection_values, labels)
    progress_seconds = env_number(env, "TRIPARTITE_PROGRESS_SECONDS")
    if progress_seconds is not None:
        at_least("TRIPARTITE_PROGRESS_SECONDS", progress_seconds, 0, "use 0 or more seconds")

    home_value = server.pop("home", ".tripartite/neo4j")
    home = Path(env.get("TRIPARTITE_SERVER_HOME") or home_value).expanduser()
    server_settings = ServerSettings(home=(base / home).resolve(), **server)
    bolt = port_number(env.get("TRIPARTITE_BOLT_PORT", server_settings.bolt_port), "bolt_port")
    http = port_number(env.get("TRIPARTITE_HTTP_PORT", server_settings.http_port), "http_port")
    procedures = env.get("TRIPARTITE_PROCEDURES")
    if procedures is not None and procedures.lower() not in ("on", "off", "1", "0", "true", "false"):
        raise ConfigError(f"TRIPARTITE_PROCEDURES={procedures!r}: use on or off")
    server_settings = replace(server_settings, bolt_port=bolt, http_port=http,
                              java=env.get("TRIPARTITE_JAVA", server_settings.java),
                              procedures=server_settings.procedures if procedures is None
                              else procedures.lower() in ("on", "1", "true"))

    uri_given = env.get("NEO4J_URI") or neo4j.get("uri")
    uri = uri_given or f"bolt://127.0.0.1:{bolt}"

    cache_dir = Path(env.get("TRIPARTITE_CACHE_DIR") or paths.get("cache_dir")
                     or Path(env.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tripartite").expanduser()
    migrations_dir = env.get("TRIPARTITE_MIGRATIONS_DIR") or paths.get("migrations_dir")
    llm_cache = env.get("TRIPARTITE_LLM_CACHE") or paths.get("llm_cache")
    register(env.get("OPENAI_API_KEY"), env.get("NEO4J_PASSWORD"), *_userinfo_secrets(uri_given or "",
                                                                                      env.get("OPENAI_BASE_URL") or llm.get("base_url", "")))
    return Settings(
        neo4j_uri=uri,
        neo4j_user=env.get("NEO4J_USER") or env.get("NEO4J_USERNAME") or neo4j.get("user", "neo4j"),
        neo4j_password=env.get("NEO4J_PASSWORD", ""),
        neo4j_database=env.get("NEO4J_DATABASE") or neo4j.get("database", "neo4j"),
        server=server_settings,
        llm=LLMSettings(
            base_url=env.get("OPENAI_BASE_URL") or llm.get("base_url", ""),
            model=env.get("TRIPARTITE_LLM_MODEL") or llm.get("model", ""),
            api_key=env.get("OPENAI_API_KEY", ""),
            timeout=float(llm_numbers["timeout"] if llm_numbers["timeout"] is not None else LLMSettings.timeout),
            backoff=float(llm_numbers["backoff"] if llm_numbers["backoff"] is not None else LLMSettings.backoff),
            concurrency=concurrency,
            structured=structured,
            prices=prices,
        ),
        embeddings=embedding_settings,
        chunking=chunking_settings,
        selection=selection_settings,
        cache_dir=(base / cache_dir).resolve() if not cache_dir.is_absolute() else cache_dir,
        llm_cache=(base / Path(llm_cache).expanduser()).resolve() if llm_cache
        else ((base / cache_dir).resolve() if not cache_dir.is_absolute() else cache_dir) / "llm-cache.sqlite",
        migrations_dir=(base / migrations_dir).resolve() if migrations_dir else default_migrations_dir(),
        config_file=path,
        uri_from_user=bool(uri_given),
        progress_seconds=progress_seconds,
    )


def _userinfo_secrets(*urls: str) -> list[str]:
    """The user:password parts written into URLs (bolt://neo4j:secret@host): secrets too."""
    found = []
    for url in urls:
        userinfo = urlsplit(url).netloc.rpartition("@")[0] if "@" in url else ""
        found += [userinfo, userinfo.partition(":")[2]] if userinfo else []
    return found


def _selection(values: dict[str, Any], labels: Mapping[str, str]) -> SelectionSettings:
    """The [selection] table checked; `labels` name where each value came from (file key or
    environment variable)."""
    selection = SelectionSettings(**values)
    if selection.mode not in ("floor", "paper"):
        raise ConfigError(f"{shown_setting(labels['mode'], selection.mode)} is unknown; use 'floor' or 'paper'")
    if selection.engine not in ("auto", "cypher", "plugin"):
        raise ConfigError(f"{shown_setting(labels['engine'], selection.engine)} is unknown; use auto, cypher or plugin")
    for name in ("alpha", "beta"):
        value = getattr(selection, name)
        if not 0 <= value <= 1:
            raise ConfigError(f"{shown_setting(labels[name], value)} is not a probability; use 0 to 1")
    for name in ("max_tokens", "tokens_per_concept", "max_per_concept", "concurrency"):
        value = getattr(selection, name)
        if value is not None and value < 1:
            raise ConfigError(f"{shown_setting(labels[name], value)} must be a positive integer")
    return selection


def default_migrations_dir() -> Path:
    from tripartite.infra.paths import migrations_dir

    return migrations_dir()
