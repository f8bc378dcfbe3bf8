"""The config schema: every key tamis reads, its type, its default and what it means.

Unknown keys are errors (``extra="forbid"``) so that a typo never silently does nothing.
Defaults live in ``default.yaml`` beside this file, not here: the YAML is the policy.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PoolStrategy = Literal["fill_first", "round_robin", "random"]

ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
# Known key prefixes of search/LLM providers: a value with one of these is a secret, not a name.
SECRET_PREFIXES = ("tvly-", "fc-", "sk-", "pk-", "exa-", "ghp_", "gho_", "xoxb-", "AIza")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def looks_like_secret(value: str) -> bool:
    """Tell a pasted key from an environment variable name by its shape.

    Names are UPPER_SNAKE; keys are long, mixed-case, or carry a known provider prefix.
    """
    if value.startswith(SECRET_PREFIXES):
        return True
    if not ENV_NAME.match(value) or len(value) > 64:
        return True
    # UPPER_SNAKE, but a long run of letters and digits with no underscore is a key (hex, base32).
    return "_" not in value and len(value) >= 20 and any(c.isdigit() for c in value)


def check_env_name(value: str) -> str:
    if looks_like_secret(value):
        # Never echo the value: it may be a real key.
        raise ValueError(
            "looks like an API key, not an environment variable name; put the key in an"
            " environment variable and name the variable here (e.g. TAVILY_API_KEY)"
        )
    return value


class LineConfig(Strict):
    """One backend ("line"). A name alone is a known backend; anything else is generic."""

    name: str = Field(min_length=1)
    type: str | None = Field(
        default=None,
        description="Adapter: searxng, tavily, brave, exa, serper, firecrawl, ddgs, replay,"
        " generic. Default: the name when it is a known adapter, else generic.",
    )
    base_url: str | None = None
    search_path: str | None = None
    query_param: str | None = None
    count_param: str | None = None
    method: Literal["GET", "POST"] | None = None
    auth_style: Literal["bearer", "x-api-key", ""] | None = None
    api_key_env: str | None = None
    credentials: list[str] = Field(default_factory=list)
    pool_strategy: PoolStrategy | None = None
    required: bool = False
    weight: float = Field(default=1.0, gt=0)
    params: dict[str, str | int | float | bool] = Field(default_factory=dict)
    path: str | None = Field(default=None, description="replay: folder of recorded answers")
    enabled: bool = True

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        return None if v is None else check_env_name(v)

    @field_validator("credentials")
    @classmethod
    def _env_names(cls, v: list[str]) -> list[str]:
        return [check_env_name(x) for x in v]

    def key_envs(self) -> list[str]:
        """Every environment variable name this line may read a key from, in pool order."""
        names = list(self.credentials)
        if self.api_key_env and self.api_key_env not in names:
            names.insert(0, self.api_key_env)
        return names


class CacheConfig(Strict):
    enabled: bool = True
    ttl_seconds: float = Field(default=300, ge=0)
    extraction_ttl_seconds: float = Field(default=86400, ge=0)


class StoreConfig(Strict):
    url: str | None = Field(
        default=None,
        description="null: SQLite in the user cache dir; a file path (SQLite); redis://...",
    )


class NonAnswer(Strict):
    hosts: list[str] = Field(default_factory=list)
    path_patterns: list[str] = Field(default_factory=list)
    query_keys: list[str] = Field(default_factory=list)
    search_path_segments: list[str] = Field(default_factory=list)
    search_hosts: list[str] = Field(default_factory=list)
    action_keys: list[str] = Field(default_factory=list)
    host_root: Literal["drop", "demote", "keep"] = "drop"

    @field_validator("path_patterns")
    @classmethod
    def _patterns(cls, v: list[str]) -> list[str]:
        for p in v:
            if not (p.startswith("/") or p.startswith("**/")):
                raise ValueError(f"path pattern {p!r} must start with '/' or '**/'")
        return v


class Ranking(Strict):
    demote_penalty: float = Field(default=1000, ge=0)
    prefer_bonus: float = Field(default=100, ge=0)
    multi_engine_bonus: float = Field(default=25, ge=0)
    fusion_weight: float = Field(default=60, ge=0)
    relevance_weight: float = Field(default=40, ge=0)
    rrf_k: float = Field(default=60, gt=0)


class SourceTypes(Strict):
    """Host and path rules per source type; first match in this order wins."""

    code: list[str] = Field(default_factory=list)
    qa: list[str] = Field(default_factory=list)
    discussion: list[str] = Field(default_factory=list)
    forum: list[str] = Field(default_factory=list)
    official: list[str] = Field(default_factory=list)


class Normalise(Strict):
    tracking_params: list[str] = Field(default_factory=list)


class Policy(Strict):
    non_answer: NonAnswer = Field(default_factory=NonAnswer)
    demote_domains: list[str] = Field(default_factory=list)
    prefer_domains: list[str] = Field(default_factory=list)
    ranking: Ranking = Field(default_factory=Ranking)
    source_types: SourceTypes = Field(default_factory=SourceTypes)
    normalise: Normalise = Field(default_factory=Normalise)


class FirecrawlExtraction(Strict):
    base_url: str = "https://api.firecrawl.dev"
    api_key_env: str | None = "FIRECRAWL_API_KEY"

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        return None if v is None else check_env_name(v)


class ExtractionConfig(Strict):
    provider: Literal["builtin", "firecrawl"] = "builtin"
    top_n: int = Field(default=5, ge=0, le=50)
    total_chars: int = Field(default=12000, ge=0)
    per_item_chars: int = Field(default=4000, ge=0)
    timeout_seconds: float = Field(default=45, gt=0)
    on_failure: Literal["keep_with_empty_excerpt", "drop"] = "keep_with_empty_excerpt"
    mode: Literal["auto", "lead", "focused"] = "auto"
    max_bytes: int = Field(default=5_000_000, gt=0)
    allow_private_hosts: list[str] = Field(default_factory=list)
    firecrawl: FirecrawlExtraction = Field(default_factory=FirecrawlExtraction)
    injections: Literal["flag", "drop"] = "flag"
    pdf_max_pages: int = Field(default=50, ge=1, le=10_000)
    worker_memory_mb: int = Field(default=1024, ge=128, le=65_536)
    isolate_over_bytes: int = Field(default=1_500_000, ge=0, le=1_000_000_000)


class QualityConfig(Strict):
    """The ranking-quality guard run by ``tamis check``."""

    queries: list[str] = Field(default_factory=list)
    top_n: int = Field(default=3, ge=1)
    banned_hosts: list[str] = Field(default_factory=list)


class ServeConfig(Strict):
    """``tamis serve``: limits that keep one process healthy under agent traffic."""

    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    max_concurrency: int = Field(default=16, ge=1, description="Searches in flight; then 503")
    request_timeout: float = Field(default=60, gt=0, description="Per-request deadline, s")
    max_query_chars: int = Field(default=400, ge=1)
    max_results: int = Field(default=50, ge=1, le=100)
    max_body_bytes: int = Field(default=65536, ge=1024)
    rate_limit_per_minute: int = Field(
        default=0, ge=0, description="Per client (token or address), shared through the store;"
        " 0 is off")


class Config(Strict):
    backends: list[LineConfig] = Field(default_factory=list)
    timeout: float = Field(default=10, gt=0)
    max_results: int = Field(default=8, ge=1, le=100)
    min_backends: int = Field(default=1, ge=0)
    pool_strategy: PoolStrategy = "fill_first"
    max_chars: int = Field(default=400, ge=20)
    cache: CacheConfig = Field(default_factory=CacheConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    policy: Policy = Field(default_factory=Policy)
    extraction: ExtractionConfig = Field(default_factory=ExtractionConfig)
    quality: QualityConfig = Field(default_factory=QualityConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)

    @model_validator(mode="after")
    def _unique_line_names(self) -> Config:
        seen: set[str] = set()
        for line in self.backends:
            if line.name in seen:
                raise ValueError(f"two backends are named {line.name!r}; names must be unique")
            seen.add(line.name)
        return self
