"""The ``policy`` section of the config schema: non-answer rules, ranking weights, query
intent and the exceptions it lifts, source types, URL normalisation (tracking parameters,
redirect wrappers) and community lists. Defaults live in ``default.yaml``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from tamis.policy.checks import check_hosts, placeholder_regex
from tamis.policy.schema_base import Strict


class NonAnswer(Strict):
    """What makes a result a non-answer (a search page, a bare homepage...): dropped."""

    hosts: list[str] = Field(default_factory=list)
    path_patterns: list[str] = Field(default_factory=list)
    query_keys: list[str] = Field(default_factory=list)
    search_path_segments: list[str] = Field(default_factory=list)
    search_hosts: list[str] = Field(default_factory=list)
    action_keys: list[str] = Field(default_factory=list)
    host_root: Literal["drop", "demote", "keep"] = "drop"
    search_pages_last_resort: bool = Field(
        default=True, description="When every result is a search-engine page (an engine's"
        " video or image results often all are), return them, said in the notes, rather than"
        " nothing; false: drop them all")
    placeholder_titles: list[str] = Field(
        default_factory=list, description="Titles of parked, for-sale, expired and web-server"
        " default pages: regular expressions, case-insensitive, '{domain}' standing for the"
        " result's own site; such a result is dropped as placeholder_page whatever the intent")

    @field_validator("hosts", "search_hosts")
    @classmethod
    def _bare_hosts(cls, v: list[str]) -> list[str]:
        return check_hosts(v)

    @field_validator("placeholder_titles")
    @classmethod
    def _regexes(cls, v: list[str]) -> list[str]:
        for p in v:
            try:
                placeholder_regex(p)
            except re.error as exc:
                raise ValueError(f"placeholder title {p!r} is not a regular expression: {exc}"
                                 ) from None
        return v

    @field_validator("path_patterns")
    @classmethod
    def _patterns(cls, v: list[str]) -> list[str]:
        for p in v:
            if not (p.startswith("/") or p.startswith("**/")):
                raise ValueError(f"path pattern {p!r} must start with '/' or '**/'")
        return v


class Ranking(Strict):
    """The weights of the deterministic ranking (pipeline/rank.py)."""

    demote_penalty: float = Field(default=1000, ge=0)
    prefer_bonus: float = Field(default=100, ge=0)
    multi_engine_bonus: float = Field(default=25, ge=0)
    engine_weight: float = Field(default=1000, ge=0, description="Per engine: this much times"
                                 " 1/log2(position + 1) (1000 at 1, 631 at 2, 289 at 10)")
    named_bonus: float = Field(default=600, ge=0, description="The query names the site")
    relevance_weight: float = Field(default=40, ge=0, description="BM25, best result")
    off_topic_penalty: float = Field(default=300, ge=0, description="No query word at all")
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


class Redirectors(Strict):
    """Click-tracking redirectors known by their shape, not their host: a link whose one
    query parameter holding an absolute http(s) URL is on a host or path named like a
    redirect endpoint is that URL (``clk.about.com/?zu=http%3A//linux.about.com/...``)."""

    host_labels: list[str] = Field(default_factory=list, description="A subdomain's first"
                                   " label that names a redirector: clk.example.com")
    path_words: list[str] = Field(default_factory=list, description="The path's last segment"
                                  " (its extension left out) that names a redirect endpoint:"
                                  " /out, /redirect.php")


class Normalise(Strict):
    """URL normalisation: tracking parameters dropped, redirect wrappers unwrapped."""

    tracking_params: list[str] = Field(default_factory=list)
    wrappers: list[Wrapper] = Field(default_factory=list)
    redirectors: Redirectors = Field(default_factory=Redirectors)


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
    max_name_words: int = Field(default=4, ge=0, description="A query of at most this many"
                                " words, with no other marker, is a name (navigational)")
    first_hosts: int = Field(default=5, ge=0, description="Result hosts a query may name")
    navigational: IntentExceptions = Field(
        default_factory=lambda: IntentExceptions(host_root=True, prefer=False))
    definitional: IntentExceptions = Field(
        default_factory=lambda: IntentExceptions(host_root=True))
    transactional: IntentExceptions = Field(
        default_factory=lambda: IntentExceptions(host_root=True))
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
    """The ``policy`` section: what is dropped, demoted, preferred and how it ranks."""

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
