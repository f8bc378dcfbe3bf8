"""The config schema: every key tamis reads, its type, its default and what it means.

Unknown keys are errors (``extra="forbid"``) so that a typo never silently does nothing.
Defaults live in ``default.yaml`` beside this file, not here: the YAML is the policy.

The types are plain dataclasses (``tamis.policy.schema_base.Strict``): pydantic's names in the
annotations (``Field``, ``AfterValidator``) are read only when a config is validated
(``tamis.typed.validate``); a config rebuilt from its snapshot imports no pydantic. A check of
one value is an ``AfterValidator`` function, a check across fields ``__post_init__``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

# The value checks live in tamis.policy.checks (re-exported: older imports name schema).
from tamis.policy.checks import (  # noqa: F401
    ENV_NAME,
    KEY_NAMES,
    NUMBER_LIMIT,
    SECRET_PREFIXES,
    bounded_number,
    check_env_name,
    check_hosts,
    check_url,
    key_in_text,
    key_in_url,
    key_refusal,
    looks_like_secret,
    url_problem,
)
from tamis.policy.schema_base import Strict
from tamis.policy.schema_policy import (  # noqa: F401  (the policy section, re-exported)
    IntentExceptions,
    IntentPolicy,
    ListEntry,
    NonAnswer,
    Normalise,
    Policy,
    Ranking,
    SourceTypes,
    Wrapper,
)

if TYPE_CHECKING:
    from pydantic import AfterValidator, Field

PoolStrategy = Literal["fill_first", "round_robin", "random"]
# How a line sends its key; each style's header is in tamis.backends.base.AUTH_HEADERS (checked
# to name the same styles). "" sends no key header.
AuthStyle = Literal["bearer", "x-api-key", "x-subscription-token", ""]


def _no_key_in_text(v: str | None) -> str | None:
    if v is not None and key_in_text(v):
        raise key_refusal("a key-shaped value")
    return v


def _no_key_in_url(v: str | None) -> str | None:
    where = key_in_url(v) if v is not None else None
    if where:
        raise key_refusal(where)
    return check_url(v)


def _path_only(v: str | None) -> str | None:
    if v is not None and ("://" in v or any(c.isspace() for c in v)):
        raise ValueError("must be a path such as /search, not a URL (the host goes in"
                         " base_url)")
    return v


def _named(v: str | None) -> str | None:
    if v is not None and not v.strip():
        raise ValueError("must name the field the query goes in (e.g. q)")
    return v


def _env_name(v: str | None) -> str | None:
    return None if v is None else check_env_name(v)


def _env_names(v: list[str]) -> list[str]:
    return [check_env_name(x) for x in v]


def _no_key_in_params(v: dict[str, str | int | float | bool]
                      ) -> dict[str, str | int | float | bool]:
    for name, value in v.items():
        if name.lower() in KEY_NAMES and value not in ("", None, False):
            raise key_refusal(f"the parameter {name!r}")
        if key_in_text(name) or (isinstance(value, str) and key_in_text(value)):
            raise key_refusal(f"the parameter {name!r}" if not key_in_text(name)
                              else "a parameter name")
    return v


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class LineConfig(Strict):
    """One backend ("line"). A name alone is a known backend; anything else is generic."""

    name: Annotated[str, Field(min_length=1), AfterValidator(_no_key_in_text)]
    type: Annotated[str | None, Field(
        description="Adapter: one of the types the adapters in tamis/backends declare (checked"
        " at load; listed in docs/configuration.md). Default: the name when it is a known"
        " type, else generic."), AfterValidator(_no_key_in_text)] = None
    base_url: Annotated[str | None, AfterValidator(_no_key_in_url)] = None
    search_path: Annotated[str | None, AfterValidator(_no_key_in_text),
                           AfterValidator(_path_only)] = None
    query_param: Annotated[str | None, AfterValidator(_no_key_in_text),
                           AfterValidator(_named)] = None
    count_param: Annotated[str | None, AfterValidator(_no_key_in_text)] = None
    method: Literal["GET", "POST"] | None = None
    auth_style: AuthStyle | None = None
    api_key_env: Annotated[str | None, AfterValidator(_env_name)] = None
    credentials: Annotated[list[str], AfterValidator(_env_names)] = field(default_factory=list)
    pool_strategy: PoolStrategy | None = None
    required: bool = False
    weight: Annotated[float, Field(gt=0)] = 1.0
    params: Annotated[dict[str, str | int | float | bool], AfterValidator(_no_key_in_params)
                      ] = field(default_factory=dict)
    path: Annotated[str | None, Field(description="recorded (or replay): folder of recordings")
                    ] = None
    enabled: bool = True

    def __post_init__(self) -> None:
        if self.required and not self.enabled:
            raise ValueError("a line cannot be both required and enabled: false (a search"
                             " would always fail); drop one of them")

    def key_envs(self) -> list[str]:
        """Every environment variable name this line may read a key from, in pool order."""
        names = list(self.credentials)
        if self.api_key_env and self.api_key_env not in names:
            names.insert(0, self.api_key_env)
        return names


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class CacheConfig(Strict):
    """The answer cache: how long a search's answer and a page's text are reused."""

    enabled: bool = True
    ttl_seconds: Annotated[float, Field(ge=0)] = 300
    extraction_ttl_seconds: Annotated[float, Field(ge=0)] = 86400


def _store_url(v: str | None) -> str | None:
    if v and "://" in v and not v.startswith("unix://"):
        return check_url(v, ("redis", "rediss"))
    return v


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class StoreConfig(Strict):
    """Where the cache, key cooldowns and rate limits are kept."""

    url: Annotated[str | None, Field(
        description="null: SQLite in the user cache dir; a file path (SQLite); redis://...",
    ), AfterValidator(_store_url)] = None


def _firecrawl_url(v: str) -> str:
    where = key_in_url(v)
    if where:
        raise key_refusal(where)
    return check_url(v) or v


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class FirecrawlExtraction(Strict):
    """Page text from a Firecrawl service (``extraction.provider: firecrawl``)."""

    base_url: Annotated[str, AfterValidator(_firecrawl_url)] = "https://api.firecrawl.dev"
    api_key_env: Annotated[str | None, AfterValidator(_env_name)] = "FIRECRAWL_API_KEY"


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class ExtractionConfig(Strict):
    """Page text: which results are read, the character budget, the limits."""

    provider: Literal["builtin", "firecrawl"] = "builtin"
    top_n: Annotated[int, Field(ge=0, le=50)] = 5
    total_chars: Annotated[int, Field(ge=0)] = 12000
    per_item_chars: Annotated[int, Field(ge=0)] = 4000
    timeout_seconds: Annotated[float, Field(gt=0)] = 45
    on_failure: Literal["keep_with_empty_excerpt", "drop"] = "keep_with_empty_excerpt"
    mode: Literal["auto", "lead", "focused"] = "auto"
    max_bytes: Annotated[int, Field(gt=0)] = 5_000_000
    allow_private_hosts: list[str] = field(default_factory=list)
    firecrawl: FirecrawlExtraction = field(default_factory=FirecrawlExtraction)
    injections: Literal["flag", "drop"] = "flag"
    pdf_max_pages: Annotated[int, Field(ge=1, le=10_000)] = 50
    worker_memory_mb: Annotated[int, Field(ge=128, le=65_536)] = 1024
    isolate_over_bytes: Annotated[int, Field(ge=0, le=1_000_000_000)] = 1_500_000


def _not_blank(v: list[str]) -> list[str]:
    if any(not q.strip() for q in v):
        raise ValueError("a query cannot be empty")
    return v


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class QualityConfig(Strict):
    """The ranking-quality guard run by ``tamis check``."""

    queries: Annotated[list[str], AfterValidator(_not_blank)] = field(default_factory=list)
    top_n: Annotated[int, Field(ge=1)] = 3
    banned_hosts: Annotated[list[str], AfterValidator(check_hosts)] = field(
        default_factory=list)


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class ServeConfig(Strict):
    """``tamis serve``: limits that keep one process healthy under agent traffic."""

    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535)] = 8080
    max_concurrency: Annotated[int, Field(ge=1, description="Searches in flight; then 503")
                               ] = 16
    request_timeout: Annotated[float, Field(gt=0, description="Per-request deadline, s")] = 60
    max_query_chars: Annotated[int, Field(ge=1)] = 400
    max_results: Annotated[int, Field(ge=1, le=100)] = 50
    max_body_bytes: Annotated[int, Field(ge=1024)] = 65536
    rate_limit_per_minute: Annotated[int, Field(
        ge=0, description="Per client address, shared through the store; 0 is off")] = 0
    queue_seconds: Annotated[float, Field(
        ge=0, description="A search over max_concurrency waits this long, then 503")] = 2
    allowed_hosts: Annotated[list[str], Field(
        description="Host header names served beside the bind address; '*' for any")
    ] = field(default_factory=list)
    workers: Annotated[int, Field(ge=0, le=64, description="Processes serving; 0: one per core")
                       ] = 0


def _dupes_section(v: dict[str, Any] | None) -> dict[str, Any] | None:
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


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class Config(Strict):
    """The whole config: the lines, the limits of a search and every section."""

    backends: list[LineConfig] = field(default_factory=list)
    timeout: Annotated[float, Field(gt=0)] = 10
    max_results: Annotated[int, Field(ge=1, le=100)] = 8
    min_backends: Annotated[int, Field(ge=0)] = 1
    pool_strategy: PoolStrategy = "fill_first"
    max_chars: Annotated[int, Field(ge=20)] = 400
    cache: CacheConfig = field(default_factory=CacheConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    policy: Policy = field(default_factory=Policy)
    extraction: ExtractionConfig = field(default_factory=ExtractionConfig)
    quality: QualityConfig = field(default_factory=QualityConfig)
    serve: ServeConfig = field(default_factory=ServeConfig)
    dupes: Annotated[dict[str, Any] | None, Field(
        description="`tamis dupes` settings (docs/dupes.md), checked by its schema"),
        AfterValidator(_dupes_section)] = None

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for line in self.backends:
            if line.name in seen:
                raise ValueError(f"two backends are named {line.name!r}; names must be unique")
            seen.add(line.name)
