"""The ``policy`` section of the config schema: non-answer rules, ranking weights, query
intent and the exceptions it lifts, source types, URL normalisation (tracking parameters,
redirect wrappers) and community lists. Defaults live in ``default.yaml``.

Plain dataclasses (``tamis.policy.schema_base``): pydantic's names in the annotations are
read only when a config is validated (``tamis.typed``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from tamis.policy.checks import check_hosts, placeholder_regex
from tamis.policy.schema_base import Strict

if TYPE_CHECKING:
    from pydantic import AfterValidator, Field


def _regexes(v: list[str]) -> list[str]:
    for p in v:
        try:
            placeholder_regex(p)
        except re.error as exc:
            raise ValueError(f"placeholder title {p!r} is not a regular expression: {exc}"
                             ) from None
    return v


def _patterns(v: list[str]) -> list[str]:
    for p in v:
        if not (p.startswith("/") or p.startswith("**/")):
            raise ValueError(f"path pattern {p!r} must start with '/' or '**/'")
    return v


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class NonAnswer(Strict):
    """What makes a result a non-answer (a search page, a bare homepage...): dropped."""

    hosts: Annotated[list[str], AfterValidator(check_hosts)] = field(default_factory=list)
    path_patterns: Annotated[list[str], AfterValidator(_patterns)] = field(
        default_factory=list)
    query_keys: list[str] = field(default_factory=list)
    search_path_segments: list[str] = field(default_factory=list)
    search_hosts: Annotated[list[str], AfterValidator(check_hosts)] = field(
        default_factory=list)
    action_keys: list[str] = field(default_factory=list)
    host_root: Literal["drop", "demote", "keep"] = "drop"
    search_pages_last_resort: Annotated[bool, Field(
        description="When every result is a search-engine page (an engine's"
        " video or image results often all are), return them, said in the notes, rather than"
        " nothing; false: drop them all")] = True
    placeholder_titles: Annotated[list[str], Field(
        description="Titles of parked, for-sale, expired and web-server"
        " default pages: regular expressions, case-insensitive, '{domain}' standing for the"
        " result's own site; such a result is dropped as placeholder_page whatever the intent"),
        AfterValidator(_regexes)] = field(default_factory=list)


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class Ranking(Strict):
    """The weights of the deterministic ranking (pipeline/rank.py)."""

    demote_penalty: Annotated[float, Field(ge=0)] = 1000
    prefer_bonus: Annotated[float, Field(ge=0)] = 100
    multi_engine_bonus: Annotated[float, Field(ge=0)] = 25
    engine_weight: Annotated[float, Field(ge=0, description="Per engine: this much times"
                                          " 1/log2(position + 1) (1000 at 1, 631 at 2, 289"
                                          " at 10)")] = 1000
    named_bonus: Annotated[float, Field(ge=0, description="The query names the site")] = 600
    relevance_weight: Annotated[float, Field(ge=0, description="BM25, best result")] = 40
    off_topic_penalty: Annotated[float, Field(ge=0, description="No query word at all")] = 300
    same_site_penalty: Annotated[float, Field(ge=0, description="A second page of a site,"
                                              " once: the top stays varied")] = 200
    same_site_top: Annotated[int, Field(ge=0, description="The places same_site_penalty"
                                        " keeps varied")] = 3


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class SourceTypes(Strict):
    """Host and path rules per source type; first match in this order wins."""

    code: list[str] = field(default_factory=list)
    qa: list[str] = field(default_factory=list)
    discussion: list[str] = field(default_factory=list)
    forum: list[str] = field(default_factory=list)
    official: list[str] = field(default_factory=list)


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class Wrapper(Strict):
    """A redirect link of an engine or a link shortener: the page is the target it carries."""

    host: Annotated[str, Field(min_length=1, description="Wrapper host; subdomains match;"
                               " 'google.*' is every country site of google")]
    paths: Annotated[list[str], Field(description="Exact paths, or prefixes ending in '*'")
                     ] = field(default_factory=lambda: ["*"])
    param: Annotated[list[str], Field(description="Target in this query parameter")] = field(
        default_factory=list)
    path_marker: Annotated[str | None, Field(description="Target follows this in the path, up"
                                             " to the next '/' (yahoo's '/RU=')")] = None
    tail_marker: Annotated[str | None, Field(description="Target is everything after this"
                                             " (srd.yahoo.com's '/*')")] = None
    whole_query: Annotated[bool, Field(description="Target is the whole query string")] = False
    decode: Literal["none", "bing_a1"] = "none"
    ad: Annotated[bool, Field(description="A paid ad click: dropped as 'ad_click'")] = False

    def __post_init__(self) -> None:
        ways = sum([bool(self.param), self.path_marker is not None,
                    self.tail_marker is not None, self.whole_query])
        if ways != (0 if self.ad else 1):
            raise ValueError(f"wrapper {self.host!r}: give exactly one of param, path_marker,"
                             " tail_marker, whole_query (none for an ad)")


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class Normalise(Strict):
    """URL normalisation: tracking parameters dropped, redirect wrappers unwrapped."""

    tracking_params: list[str] = field(default_factory=list)
    wrappers: list[Wrapper] = field(default_factory=list)


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class IntentExceptions(Strict):
    """The non-answer rules one query intent lifts; they still hold for every other query."""

    host_root: Annotated[bool, Field(description="Keep bare homepages")] = False
    hosts: Annotated[list[str], Field(description="non_answer.hosts kept")] = field(
        default_factory=list)
    path_patterns: Annotated[list[str], Field(
        description="non_answer.path_patterns not applied")] = field(default_factory=list)
    prefer: Annotated[bool, Field(description="false: prefer_bonus does not apply (the"
                                  " preferred hosts are technical sources)")] = True


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class IntentPolicy(Strict):
    """Query intent (pipeline/intent.py): deterministic, from the query and its result hosts."""

    enabled: Annotated[bool, Field(description="false: every rule for every query")] = True
    definitional_words: list[str] = field(default_factory=list)
    transactional_words: list[str] = field(default_factory=list)
    service_words: list[str] = field(default_factory=list)
    technical_terms: list[str] = field(default_factory=list)
    max_name_words: Annotated[int, Field(ge=0, description="A query of at most this many"
                                         " words, with no other marker, is a name"
                                         " (navigational)")] = 4
    first_hosts: Annotated[int, Field(ge=0, description="Result hosts a query may name")] = 5
    navigational: IntentExceptions = field(
        default_factory=lambda: IntentExceptions(host_root=True, prefer=False))
    definitional: IntentExceptions = field(
        default_factory=lambda: IntentExceptions(host_root=True))
    transactional: IntentExceptions = field(
        default_factory=lambda: IntentExceptions(host_root=True))
    informational: IntentExceptions = field(default_factory=IntentExceptions)


ListFormat = Literal["auto", "ublacklist", "ublock", "hosts", "domains"]
LIST_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _list_name(v: str) -> str:
    if not LIST_NAME.match(v):
        raise ValueError(f"list name {v!r}: use letters, digits, '.', '_' or '-'")
    return v


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class ListEntry(Strict):
    """One subscribed list (docs: README "Community lists"): a local file or a URL fetched by
    ``tamis lists update``; never fetched while searching."""

    name: Annotated[str, Field(description="Shown in reasons as list:<name>:<line>"),
                    AfterValidator(_list_name)]
    source: Annotated[str, Field(min_length=1, description="A file path (relative to the"
                                 " config file) or an http(s) URL")]
    format: ListFormat = "auto"
    action: Literal["drop", "demote", "prefer", "rewrite"] = "demote"
    rewrite_to: Annotated[str | None, Field(description="rewrite: the host put in place of a"
                                            " matched host (a copy's original, a mirror)")
                          ] = None
    copies: Annotated[list[str], Field(description="The sites this list's hosts copy: a copy"
                                       " never ranks above its original from these")
                      ] = field(default_factory=list)
    max_bytes: Annotated[int, Field(gt=0, description="Size cap of one fetch")] = 20_000_000
    enabled: bool = True

    def __post_init__(self) -> None:
        if self.action == "rewrite" and not self.rewrite_to:
            raise ValueError(f"list {self.name!r}: action rewrite needs rewrite_to (a host)")
        if self.rewrite_to is not None:
            if self.action != "rewrite":
                raise ValueError(f"list {self.name!r}: rewrite_to needs action: rewrite")
            if not re.fullmatch(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?",
                                self.rewrite_to.lower()):
                raise ValueError(f"list {self.name!r}: rewrite_to must be a host name,"
                                 f" not {self.rewrite_to!r}")


@dataclass(kw_only=True, slots=True, eq=False, repr=False)
class Policy(Strict):
    """The ``policy`` section: what is dropped, demoted, preferred and how it ranks."""

    non_answer: NonAnswer = field(default_factory=NonAnswer)
    intent: IntentPolicy = field(default_factory=IntentPolicy)
    demote_domains: Annotated[list[str], AfterValidator(check_hosts)] = field(
        default_factory=list)
    prefer_domains: Annotated[list[str], AfterValidator(check_hosts)] = field(
        default_factory=list)
    ranking: Ranking = field(default_factory=Ranking)
    source_types: SourceTypes = field(default_factory=SourceTypes)
    normalise: Normalise = field(default_factory=Normalise)
    lists: list[ListEntry] = field(default_factory=list)

    def __post_init__(self) -> None:
        names = [x.name for x in self.lists]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"two lists are named {name!r}; names must be unique")
