"""The config schema: every key tamis reads, its type, its default and what it means.

Unknown keys are errors (``extra="forbid"``) so that a typo never silently does nothing.
Defaults live in ``default.yaml`` beside this file, not here: the YAML is the policy.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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

PoolStrategy = Literal["fill_first", "round_robin", "random"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _bounded(cls, value: Any) -> Any:
        return bounded_number(value)


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

    @field_validator("name", "type", "search_path", "query_param", "count_param")
    @classmethod
    def _no_key_in_text(cls, v: str | None) -> str | None:
        if v is not None and key_in_text(v):
            raise key_refusal("a key-shaped value")
        return v

    @field_validator("base_url")
    @classmethod
    def _no_key_in_url(cls, v: str | None) -> str | None:
        where = key_in_url(v) if v is not None else None
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
    def _required_is_enabled(self) -> LineConfig:
        if self.required and not self.enabled:
            raise ValueError("a line cannot be both required and enabled: false (a search"
                             " would always fail); drop one of them")
        return self

    @field_validator("params")
    @classmethod
    def _no_key_in_params(cls, v: dict[str, str | int | float | bool]
                          ) -> dict[str, str | int | float | bool]:
        for name, value in v.items():
            if name.lower() in KEY_NAMES and value not in ("", None, False):
                raise key_refusal(f"the parameter {name!r}")
            if key_in_text(name) or (isinstance(value, str) and key_in_text(value)):
                raise key_refusal(f"the parameter {name!r}" if not key_in_text(name)
                                  else "a parameter name")
        return v

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

    @field_validator("url")
    @classmethod
    def _store_url(cls, v: str | None) -> str | None:
        if v and "://" in v and not v.startswith("unix://"):
            return check_url(v, ("redis", "rediss"))
        return v


class NonAnswer(Strict):
    hosts: list[str] = Field(default_factory=list)
    path_patterns: list[str] = Field(default_factory=list)
    query_keys: list[str] = Field(default_factory=list)
    search_path_segments: list[str] = Field(default_factory=list)
    search_hosts: list[str] = Field(default_factory=list)
    action_keys: list[str] = Field(default_factory=list)
    host_root: Literal["drop", "demote", "keep"] = "drop"

    @field_validator("hosts", "search_hosts")
    @classmethod
    def _bare_hosts(cls, v: list[str]) -> list[str]:
        return check_hosts(v)

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
    engine_weight: float = Field(default=1000, ge=0, description="Per engine: this much times"
                                 " 1/log2(position + 1) (1000 at 1, 631 at 2, 289 at 10)")
    named_bonus: float = Field(default=300, ge=0, description="The query names the site")
    relevance_weight: float = Field(default=40, ge=0, description="BM25, best result")
    off_topic_penalty: float = Field(default=150, ge=0, description="No query word at all")
    same_site_penalty: float = Field(default=200, ge=0, description="A second page of a site,"
                                     " once: the top stays varied")
    same_site_top: int = Field(default=3, ge=0, description="The places same_site_penalty"
                               " keeps varied")


class SourceTypes(Strict):
    """Host and path rules per source type; first match in this order wins."""

    code: list[str] = Field(default_factory=list)
    qa: list[str] = Field(default_factory=list)
    discussion: list[str] = Field(default_factory=list)
    forum: list[str] = Field(default_factory=list)
    official: list[str] = Field(default_factory=list)


class Wrapper(Strict):
    """A redirect link of an engine or a link shortener: the page is the target it carries."""

    host: str = Field(min_length=1, description="Wrapper host; subdomains match; 'google.*'"
                      " is every country site of google")
    paths: list[str] = Field(default_factory=lambda: ["*"], description="Exact paths, or"
                             " prefixes ending in '*'")
    param: list[str] = Field(default_factory=list, description="Target in this query parameter")
    path_marker: str | None = Field(default=None, description="Target follows this in the"
                                    " path, up to the next '/' (yahoo's '/RU=')")
    tail_marker: str | None = Field(default=None, description="Target is everything after"
                                    " this (srd.yahoo.com's '/*')")
    whole_query: bool = Field(default=False, description="Target is the whole query string")
    decode: Literal["none", "bing_a1"] = "none"
    ad: bool = Field(default=False, description="A paid ad click: dropped as 'ad_click'")

    @model_validator(mode="after")
    def _one_target(self) -> Wrapper:
        ways = sum([bool(self.param), self.path_marker is not None,
                    self.tail_marker is not None, self.whole_query])
        if ways != (0 if self.ad else 1):
            raise ValueError(f"wrapper {self.host!r}: give exactly one of param, path_marker,"
                             " tail_marker, whole_query (none for an ad)")
        return self


class Normalise(Strict):
    tracking_params: list[str] = Field(default_factory=list)
    wrappers: list[Wrapper] = Field(default_factory=list)


class IntentExceptions(Strict):
    """The non-answer rules one query intent lifts; they still hold for every other query."""

    host_root: bool = Field(default=False, description="Keep bare homepages")
    hosts: list[str] = Field(default_factory=list, description="non_answer.hosts kept")
    path_patterns: list[str] = Field(default_factory=list,
                                     description="non_answer.path_patterns not applied")
    prefer: bool = Field(default=True, description="false: prefer_bonus does not apply (the"
                         " preferred hosts are technical sources)")


class IntentPolicy(Strict):
    """Query intent (pipeline/intent.py): deterministic, from the query and its result hosts."""

    enabled: bool = Field(default=True, description="false: every rule for every query")
    definitional_words: list[str] = Field(default_factory=list)
    transactional_words: list[str] = Field(default_factory=list)
    service_words: list[str] = Field(default_factory=list)
    technical_terms: list[str] = Field(default_factory=list)
    max_name_words: int = Field(default=3, ge=0, description="A query of at most this many"
                                " words, with no other marker, is a name (navigational)")
    first_hosts: int = Field(default=5, ge=0, description="Result hosts a query may name")
    navigational: IntentExceptions = Field(default_factory=IntentExceptions)
    definitional: IntentExceptions = Field(default_factory=IntentExceptions)
    transactional: IntentExceptions = Field(default_factory=IntentExceptions)
    informational: IntentExceptions = Field(default_factory=IntentExceptions)


ListFormat = Literal["auto", "ublacklist", "ublock", "hosts", "domains"]
LIST_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class ListEntry(Strict):
    """One subscribed list (docs: README "Community lists"): a local file or a URL fetched by
    ``tamis lists update``; never fetched while searching."""

    name: str = Field(description="Shown in reasons as list:<name>:<line>")
    source: str = Field(min_length=1, description="A file path (relative to the config file)"
                        " or an http(s) URL")
    format: ListFormat = "auto"
    action: Literal["drop", "demote", "prefer", "rewrite"] = "demote"
    rewrite_to: str | None = Field(default=None, description="rewrite: the host put in place"
                                   " of a matched host (a copy's original, a mirror)")
    copies: list[str] = Field(default_factory=list, description="The sites this list's hosts"
                              " copy: a copy never ranks above its original from these")
    max_bytes: int = Field(default=20_000_000, gt=0, description="Size cap of one fetch")
    enabled: bool = True

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not LIST_NAME.match(v):
            raise ValueError(f"list name {v!r}: use letters, digits, '.', '_' or '-'")
        return v

    @model_validator(mode="after")
    def _rewrite(self) -> ListEntry:
        if self.action == "rewrite" and not self.rewrite_to:
            raise ValueError(f"list {self.name!r}: action rewrite needs rewrite_to (a host)")
        if self.rewrite_to is not None:
            if self.action != "rewrite":
                raise ValueError(f"list {self.name!r}: rewrite_to needs action: rewrite")
            if not re.fullmatch(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?",
                                self.rewrite_to.lower()):
                raise ValueError(f"list {self.name!r}: rewrite_to must be a host name,"
                                 f" not {self.rewrite_to!r}")
        return self


class Policy(Strict):
    non_answer: NonAnswer = Field(default_factory=NonAnswer)
    intent: IntentPolicy = Field(default_factory=IntentPolicy)
    demote_domains: list[str] = Field(default_factory=list)
    prefer_domains: list[str] = Field(default_factory=list)
    ranking: Ranking = Field(default_factory=Ranking)
    source_types: SourceTypes = Field(default_factory=SourceTypes)
    normalise: Normalise = Field(default_factory=Normalise)
    lists: list[ListEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_list_names(self) -> Policy:
        names = [x.name for x in self.lists]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"two lists are named {name!r}; names must be unique")
        return self

    @field_validator("demote_domains", "prefer_domains")
    @classmethod
    def _bare_hosts(cls, v: list[str]) -> list[str]:
        return check_hosts(v)


class FirecrawlExtraction(Strict):
    base_url: str = "https://api.firecrawl.dev"
    api_key_env: str | None = "FIRECRAWL_API_KEY"

    @field_validator("base_url")
    @classmethod
    def _url(cls, v: str) -> str:
        where = key_in_url(v)
        if where:
            raise key_refusal(where)
        return check_url(v) or v

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


class QualityConfig(Strict):
    """The ranking-quality guard run by ``tamis check``."""

    queries: list[str] = Field(default_factory=list)
    top_n: int = Field(default=3, ge=1)
    banned_hosts: list[str] = Field(default_factory=list)

    @field_validator("queries")
    @classmethod
    def _not_blank(cls, v: list[str]) -> list[str]:
        if any(not q.strip() for q in v):
            raise ValueError("a query cannot be empty")
        return v

    @field_validator("banned_hosts")
    @classmethod
    def _bare_hosts(cls, v: list[str]) -> list[str]:
        return check_hosts(v)


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
    def _unique_line_names(self) -> Config:
        seen: set[str] = set()
        for line in self.backends:
            if line.name in seen:
                raise ValueError(f"two backends are named {line.name!r}; names must be unique")
            seen.add(line.name)
        return self
