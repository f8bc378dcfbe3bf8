"""The config schema: every key tamis reads, its type, its default and what it means.

Unknown keys are errors (``extra="forbid"``) so that a typo never silently does nothing.
Defaults live in ``default.yaml`` beside this file, not here: the YAML is the policy.
"""

# Annotations are objects here (no __future__ import): pydantic reads them when each model
# class is made, and strings it would first have to compile and evaluate.

from typing import Any, Literal, Self

from pydantic import Field, ValidationInfo, field_validator, model_validator

from tamis.policy.checks import (
    KEY_NAMES,
    check_env_name,
    check_networks,
    check_url,
    key_in_text,
    key_in_url,
    key_refusal,
    key_shapes,
)
from tamis.policy.schema_base import Hosts, Strict
from tamis.policy.schema_policy import (  # noqa: F401  (the policy section, re-exported)
    IntentExceptions,
    IntentPolicy,
    ListEntry,
    NonAnswer,
    Normalise,
    PageKind,
    Policy,
    Ranking,
    SourceTypes,
    Wrapper,
)

PoolStrategy = Literal["fill_first", "round_robin", "random"]
# How a line sends its key; each style's header is in tamis.backends.base.AUTH_HEADERS (checked
# to name the same styles). "" sends no key header.
AuthStyle = Literal["bearer", "x-api-key", "x-subscription-token", ""]


class LineConfig(Strict):
    """One backend ("line"). A name alone is a known backend; anything else is generic."""

    name: str = Field(min_length=1)
    type: str | None = Field(
        default=None,
        description="Adapter: one of the types the adapters in tamis/backends declare (checked"
        " at load; listed in docs/configuration.md). Default: the name when it is a known"
        " type, else generic.",
    )
    base_url: str | None = None
    search_path: str | None = None
    query_param: str | None = None
    count_param: str | None = None
    method: Literal["GET", "POST"] | None = None
    auth_style: AuthStyle | None = None
    api_key_env: str | None = None
    credentials: list[str] = Field(default_factory=list)
    pool_strategy: PoolStrategy | None = None
    required: bool = False
    weight: float = Field(default=1.0, gt=0)
    params: dict[str, str | int | float | bool] = Field(default_factory=dict)
    path: str | None = Field(default=None, description="recorded (or replay): folder of recordings")
    enabled: bool = True

    @field_validator("api_key_env", "credentials")
    @classmethod
    def _env_names(cls, v: str | list[str] | None, info: ValidationInfo
                   ) -> str | list[str] | None:
        """Names of variables, not pasted keys; the hint names this line's own variable."""
        shapes = key_shapes(info)
        kind = info.data.get("type") or info.data.get("name") or ""
        variable = shapes.variables.get(kind)
        if isinstance(v, list):
            return [check_env_name(name, shapes, variable) for name in v]
        return None if v is None else check_env_name(v, shapes, variable)

    @field_validator("name", "type", "search_path", "query_param", "count_param")
    @classmethod
    def _no_key_in_text(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None and key_in_text(v, key_shapes(info).prefixes):
            raise key_refusal("a key-shaped value")
        return v

    @field_validator("base_url")
    @classmethod
    def _no_key_in_url(cls, v: str | None, info: ValidationInfo) -> str | None:
        where = key_in_url(v, key_shapes(info).prefixes) if v is not None else None
        if where:
            raise key_refusal(where)
        return check_url(v)

    @field_validator("search_path")
    @classmethod
    def _path_only(cls, v: str | None) -> str | None:
        if v is not None and ("://" in v or any(c.isspace() for c in v)):
            raise ValueError("must be a path such as /search, not a URL (the host goes in"
                             " base_url)")
        return v

    @field_validator("query_param")
    @classmethod
    def _named(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("must name the field the query goes in (e.g. q)")
        return v

    @model_validator(mode="after")
    def _required_is_enabled(self) -> Self:
        if self.required and not self.enabled:
            raise ValueError("a line cannot be both required and enabled: false (a search"
                             " would always fail); drop one of them")
        return self

    @field_validator("params")
    @classmethod
    def _no_key_in_params(cls, v: dict[str, str | int | float | bool], info: ValidationInfo
                          ) -> dict[str, str | int | float | bool]:
        prefixes = key_shapes(info).prefixes
        for name, value in v.items():
            if name.lower() in KEY_NAMES and value not in ("", None, False):
                raise key_refusal(f"the parameter {name!r}")
            if key_in_text(name, prefixes):
                raise key_refusal("a parameter name")
            if isinstance(value, str) and key_in_text(value, prefixes):
                raise key_refusal(f"the parameter {name!r}")
        return v

    def key_envs(self) -> list[str]:
        """Every environment variable name this line may read a key from, in pool order."""
        names = list(self.credentials)
        if self.api_key_env and self.api_key_env not in names:
            names.insert(0, self.api_key_env)
        return names


class CacheConfig(Strict):
    """The answer cache: how long a search's answer and a page's text are reused."""

    enabled: bool = True
    ttl_seconds: float = Field(default=300, ge=0)
    extraction_ttl_seconds: float = Field(default=86400, ge=0)


class StoreConfig(Strict):
    """Where the cache, key cooldowns and rate limits are kept."""

    url: str | None = Field(
        default=None,
        description="null: SQLite in the user cache dir; a file path (SQLite); redis://...",
    )

    @field_validator("url")
    @classmethod
    def _store_url(cls, v: str | None) -> str | None:
        if v and "://" in v and not v.startswith("unix://"):
            return check_url(v, ("redis", "rediss"))
        return v


class FirecrawlExtraction(Strict):
    """Page text from a Firecrawl service (``extraction.provider: firecrawl``)."""

    base_url: str = "https://api.firecrawl.dev"
    api_key_env: str | None = "FIRECRAWL_API_KEY"

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str, info: ValidationInfo) -> str:
        where = key_in_url(v, key_shapes(info).prefixes)
        if where:
            raise key_refusal(where)
        return check_url(v) or v

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None, info: ValidationInfo) -> str | None:
        own = cls.model_fields["api_key_env"].default  # the hosted service's variable
        return None if v is None else check_env_name(v, key_shapes(info), own)


class ExtractionConfig(Strict):
    """Page text: which results are read, the character budget, the limits."""

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
    isolate_over_tags: int = Field(
        default=8000, ge=0, le=1_000_000_000,
        description="HTML with more '<' than this is parsed in the bounded worker")


class QualityConfig(Strict):
    """The ranking-quality guard run by ``tamis check``."""

    queries: list[str] = Field(default_factory=list)
    top_n: int = Field(default=3, ge=1)
    banned_hosts: Hosts = Field(default_factory=list)

    @field_validator("queries")
    @classmethod
    def _not_blank(cls, v: list[str]) -> list[str]:
        if any(not q.strip() for q in v):
            raise ValueError("a query cannot be empty")
        return v


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
        default=0, ge=0, description="Per client address, shared through the store;"
        " 0 is off")
    queue_seconds: float = Field(
        default=2, ge=0, description="A search over max_concurrency waits this long, then 503")
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host header names served beside the bind address;"
        " '*' for any")
    workers: int = Field(default=0, ge=0, le=64,
                         description="Processes serving; 0: one per core")
    trusted_proxies: list[str] = Field(
        default_factory=list, description="Proxies (IP addresses, CIDR ranges) whose"
        " X-Forwarded-For names the client; from any other peer the header is ignored")

    @field_validator("trusted_proxies")
    @classmethod
    def _addresses(cls, v: list[str]) -> list[str]:
        return check_networks(v)


class Config(Strict):
    """The whole config: the lines, the limits of a search and every section."""

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
    dupes: dict[str, Any] | None = Field(
        default=None, description="`tamis dupes` settings (docs/dupes.md), checked by its schema")

    @field_validator("dupes")
    @classmethod
    def _dupes_section(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is None:
            return v
        from pydantic import ValidationError

        from tamis.dupes.config import DupesConfig

        try:
            DupesConfig.model_validate(v)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in err["loc"])
            what = ("unknown setting" if err["type"] == "extra_forbidden"
                    else str(err["msg"]).removeprefix("Value error, "))
            raise ValueError(f"{where}: {what}" if where else what) from None
        return v

    @model_validator(mode="after")
    def _unique_line_names(self) -> Self:
        seen: set[str] = set()
        for line in self.backends:
            if line.name in seen:
                raise ValueError(f"two backends are named {line.name!r}; names must be unique")
            seen.add(line.name)
        return self
