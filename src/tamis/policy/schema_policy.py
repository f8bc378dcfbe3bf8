"""The ``policy`` section of the config schema: non-answer rules, ranking weights, query
intent and the exceptions it lifts, source types, URL normalisation (tracking parameters,
redirect wrappers) and community lists. Defaults live in ``default.yaml``.
"""

# Annotations are objects here (no __future__ import): pydantic reads them when each model
# class is made, and strings it would first have to compile and evaluate.

import re
from typing import Annotated, Literal, Self

from pydantic import Field, field_validator, model_validator

from tamis.policy.checks import check_url, placeholder_regex
from tamis.policy.schema_base import Hosts, PathPatterns, Strict


class NonAnswer(Strict):
    """What proves a result is no answer to any query (a search-results page, a cart, an ad, a
    parked domain): dropped, with the rule as its reason."""

    hosts: Hosts = Field(default_factory=list)
    path_patterns: PathPatterns = Field(default_factory=list)
    query_keys: list[str] = Field(default_factory=list)
    search_path_segments: list[str] = Field(default_factory=list)
    search_hosts: Hosts = Field(default_factory=list)
    action_keys: list[str] = Field(default_factory=list)
    search_pages_last_resort: bool = Field(
        default=True, description="When every result is a search-engine page (an engine's"
        " video or image results often all are), return them, said in the notes, rather than"
        " nothing; false: drop them all")
    placeholder_titles: list[str] = Field(
        default_factory=list, description="Titles of parked, for-sale, expired and web-server"
        " default pages: regular expressions, case-insensitive, '{domain}' standing for the"
        " result's own site; such a result is dropped as placeholder_page whatever the intent")

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


class Ranking(Strict):
    """The weights of the deterministic ranking (pipeline/rank.py): how many places each piece
    of evidence moves a result from where the engines put it (fitted on judged answers with
    cross-validation by bench/fit_ranking.py)."""

    engine_weight: float = Field(default=1000, gt=0, description="The score of an engine's"
                                 " first result; position p scores this much times"
                                 " 1/log2(p + 1)")
    max_places: float = Field(default=5, ge=0, le=20, description=(
        "The most places one part, or all penalties together, move a result"))
    relevance_places: float = Field(default=4, ge=0, le=20, description=(
        "Up, for the result whose words best match the query (BM25)"))
    title_places: float = Field(default=0.5, ge=0, le=20, description=(
        "Up, for a title holding the query's words (rare ones count most)"))
    address_places: float = Field(default=0.5, ge=0, le=20, description=(
        "Up, for a host and path holding the query's words"))
    phrase_places: float = Field(default=3, ge=0, le=20, description=(
        "Up, for a result carrying the query's quoted phrase"))
    off_topic_places: float = Field(default=5, ge=0, le=20, description=(
        "Down, no query word in title, snippet or URL (others have some)"))
    dynamic_places: float = Field(default=1, ge=0, le=20, description=(
        "Down, for a URL with a query string"))
    no_snippet_places: float = Field(default=1.5, ge=0, le=20, description=(
        "Down, for a result the engine gave no text for"))
    named_places: float = Field(default=1, ge=0, le=20, description=(
        "Up, for the front page of the site the query names"))
    prefer_places: float = Field(default=1, ge=0, le=20, description=(
        "Up, for a preferred host (a primary source)"))
    demote_places: float = Field(default=5, ge=0, le=20, description=(
        "Down, for a demoted host; it never stands above a preferred one"))
    multi_engine_places: float = Field(default=0.5, ge=0, le=20, description=(
        "Up, per engine beyond the first that returned it"))
    same_site_places: float = Field(default=1, ge=0, le=20, description=(
        "Down, a site's second page in the first same_site_top places"))
    same_site_top: int = Field(default=3, ge=0, description="The places same_site_places"
                               " keeps varied")
    kind_places: dict[str, Annotated[float, Field(ge=0, le=20)]] = Field(
        default_factory=dict, description="Down, for a page of this kind (policy.page_kinds)"
        " the query does not ask for")


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
    def _one_target(self) -> Self:
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


IntentName = Literal["navigational", "definitional", "transactional", "informational"]


class PageKind(Strict):
    """Pages that answer some queries and not others (a shop, a dictionary, a sign-in page, a
    bare homepage): moved down ``ranking.kind_places[<kind>]`` places unless the query asks
    for them (one of ``query_words``, an intent in ``intents``, the site named), or most of
    the answer is of that kind."""

    hosts: Hosts = Field(default_factory=list)
    path_patterns: PathPatterns = Field(default_factory=list)
    front_page: bool = Field(default=False, description="A site's front page (/, /en/,"
                             " /index.html) is of this kind")
    query_words: list[str] = Field(default_factory=list, description="Words or phrases of a"
                                   " query that asks for this kind ('buy', 'sign in')")
    intents: list[IntentName] = Field(default_factory=list, description="Query intents that"
                                      " ask for this kind")
    non_answer_for: list[IntentName] = Field(
        default_factory=list, description="Query intents for which a page of this kind answers"
        " nothing (a shop for a technical question): dropped, unless the query asks for the"
        " kind or most of the answer is of it")


class IntentExceptions(Strict):
    """What one query intent changes."""

    prefer: bool = Field(default=True, description="false: prefer_places does not apply (the"
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
        default_factory=lambda: IntentExceptions(prefer=False))
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

    @field_validator("source")
    @classmethod
    def _fetchable(cls, v: str) -> str:
        """A URL source must be one httpx can request (``tamis lists update`` fetches it with
        httpx): a bad port or bracket, a control character or a broken ``xn--`` label is
        refused here, with the config's file and line."""
        if v.startswith(("http://", "https://")):
            import httpx

            check_url(v)
            try:
                httpx.URL(v).host  # noqa: B018  (the request's Host header decodes the label)
            except (httpx.InvalidURL, UnicodeError) as exc:  # names the part, never the query
                raise ValueError(f"is not a valid URL: {exc}") from None
        return v

    @model_validator(mode="after")
    def _rewrite(self) -> Self:
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
    page_kinds: dict[str, PageKind] = Field(default_factory=dict)
    intent: IntentPolicy = Field(default_factory=IntentPolicy)
    demote_domains: Hosts = Field(default_factory=list)
    prefer_domains: Hosts = Field(default_factory=list)
    ranking: Ranking = Field(default_factory=Ranking)
    source_types: SourceTypes = Field(default_factory=SourceTypes)
    normalise: Normalise = Field(default_factory=Normalise)
    lists: list[ListEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_list_names(self) -> Self:
        names = [x.name for x in self.lists]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"two lists are named {name!r}; names must be unique")
        for kind in self.ranking.kind_places:
            if kind not in self.page_kinds:
                raise ValueError(f"ranking.kind_places names {kind!r}, which is no page kind"
                                 f" (policy.page_kinds: {', '.join(self.page_kinds)})")
        return self
