"""The typed data that flows through the pipeline, stage by stage.

``SearchRequest`` -> fan-out -> ``LineAnswer`` (``RawHit`` each) -> merge -> ``Candidate``
-> filter (``Dropped``) -> rank -> extract -> ``SearchResponse`` (``Result`` each).

Everything a user sees in JSON is a pydantic model here, so ``docs/schema.json`` is generated
from this file and real output is validated against it in the tests. ``Candidate`` is a plain
dataclass: the pipeline builds it for every merged page and nothing outside ever sends one.
"""

# Annotations are objects here (no __future__ import): pydantic reads them when each model
# class is made, and strings it would first have to compile and evaluate.

from dataclasses import dataclass, field
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tamis.text import clean_str

SCHEMA_VERSION = "1.0"

SourceType = Literal["official", "code", "qa", "forum", "discussion", "web", "content-farm"]
TimeRange = Literal["day", "week", "month", "year"]


def encodable(value: object) -> object:
    """A lone surrogate (a JSON ``\\ud800`` escape in a request or a backend's answer, a byte
    of argv that is not UTF-8) made U+FFFD, as in the query (``tamis.limits.check_query``):
    no encoder takes one, so a cache key, a backend request or the printed answer would fail."""
    if isinstance(value, str):
        return value if value.isascii() else clean_str(value)
    if isinstance(value, list):  # a request's before its types are checked: any item
        return [clean_str(v) if isinstance(v, str) and not v.isascii() else v for v in value]
    return value


class Model(BaseModel):
    """The base of the models here. defer_build: a model's schema is built when it first
    validates or dumps, not at import; a search builds those of what it makes, and a
    nested model (``ScoreParts`` without --explain, ``Dropped``...) only inside its parent's."""

    model_config = ConfigDict(defer_build=True)


class SearchRequest(Model):
    """What was asked: the query and the optional parameters passed to backends."""

    model_config = ConfigDict(extra="forbid")

    query: str
    max_results: int | None = Field(default=None, description="Results returned; config default")
    categories: str | None = Field(default=None, max_length=1000)
    language: str | None = Field(default=None, max_length=35)  # BCP 47's longest practical tag
    time_range: TimeRange | None = None
    safesearch: int | None = Field(default=None, ge=0, le=2)
    pageno: int | None = Field(default=None, ge=1, le=50)  # engines answer no deeper
    engines: str | None = Field(default=None, max_length=1000)
    include_domains: list[str] = Field(default_factory=list)
    exclude_domains: list[str] = Field(default_factory=list)

    # before the bounds: a string checked for its length must already be one an encoder takes
    _encodable = field_validator("categories", "language", "engines", "include_domains",
                                 "exclude_domains", mode="before")(encodable)

    def cache_params(self) -> dict[str, object]:
        """The parameters that change a backend's answer (the cache key, with the query)."""
        return self.model_dump(mode="json", exclude={"max_results"}, exclude_defaults=True)


class RawHit(Model):
    """One result as one line (backend) returned it, before any cleaning."""

    url: str
    title: str = ""
    snippet: str = ""
    line: str = Field(description="The line (configured backend) that returned it")
    engines: list[str] = Field(description="Provenance labels, e.g. 'searxng:bing' or 'tavily'")
    positions: list[int] = Field(description="1-based position per engine, parallel to engines")
    published: str | None = None

    _encodable = field_validator("url", "title", "snippet", "line", "engines",
                                 "published")(encodable)

    @model_validator(mode="after")
    def _one_position_per_engine(self) -> Self:
        """Parallel lists; an engine named twice keeps its best position, once."""
        if len(self.positions) != len(self.engines):
            raise ValueError(f"{len(self.engines)} engines but {len(self.positions)} positions:"
                             " each engine has its position")
        if len(set(self.engines)) < len(self.engines):
            best: dict[str, int] = {}
            for engine, position in zip(self.engines, self.positions, strict=True):
                best[engine] = min(position, best.get(engine, position))
            self.engines, self.positions = list(best), list(best.values())
        return self


class Note(Model):
    """Something a backend, engine or stage reported: shown in the answer, never hidden."""

    source: str = Field(description="Line, engine or stage the note is about")
    kind: Literal[
        "unresponsive_engine",
        "line_failed",
        "line_timeout",
        "line_empty",
        "no_usable_key",
        "key_rested",
        "unknown_shape",
        "skipped_hit",
        "cached",
        "info",
    ]
    message: str

    _encodable = field_validator("source", "message")(encodable)


LineStatus = Literal["ok", "empty", "failed", "timeout", "no_key"]
# How asking a line went: "answered" (ok or empty), or what stopped it. "http_error" comes
# with the HTTP status; "bad_answer": not JSON, or JSON of a shape the adapter cannot read.
OutcomeKind = Literal["answered", "no_key", "timeout", "deadline", "unreachable",
                      "bad_endpoint", "http_error", "bad_answer", "unreadable", "too_large",
                      "failed", "unexpected"]


class LineOutcome(Model):
    """How asking one line went, as data: the fan-out fills it, the answer and
    ``trust.health`` read it (never parsed back from a note's text). Internal: never in
    the JSON output or a recording."""

    status: LineStatus
    kind: OutcomeKind
    http_status: int | None = None  # the last HTTP status that decided the outcome
    seconds: float = 0.0
    key_rested: bool = False  # a key of the line was put to rest while asking
    retried_after: str | None = None  # answered on a retry: why the first try failed
    message: str = ""  # the failure in one line (as in its note); "" when it answered


class LineAnswer(Model):
    """What one line answered (or why it did not)."""

    line: str
    order: int = Field(description="Index of the line in the config: the stable tie-break")
    status: Literal["ok", "empty", "failed", "timeout", "no_key"]
    hits: list[RawHit] = Field(default_factory=list)
    notes: list[Note] = Field(default_factory=list)
    seconds: float = 0.0
    cached: bool = False
    required: bool = False
    weight: float = 1.0
    outcome: LineOutcome | None = Field(default=None, exclude=True)


@dataclass(slots=True)
class Candidate:
    """One page after normalisation and merge: every variant folded under one key.

    Internal to the pipeline (never printed), so a plain dataclass: it is built for every
    merged page, and that must stay cheap.
    """

    key: str  # canonical dedupe key (normalised URL)
    url: str  # the clean URL shown to the user
    title: str
    snippet: str
    host: str
    domain: str  # registrable domain (Public Suffix List)
    path: str
    query: str
    engines: list[str]  # sorted union of provenance labels
    positions: dict[str, int]  # best position per provenance label
    lines: dict[str, int]  # best position per line
    line_orders: list[int]  # config order of the lines that returned it
    weights: dict[str, float]  # weight per line
    first_seen: int  # 1-based index in the raw merged list (reporting only)
    variants: list[str] = field(default_factory=list)  # raw URLs folded into this one
    published: str | None = None


class Dropped(Model):
    """A raw result that was not returned, with the rule that dropped it."""

    url: str
    reason: str
    position: int = Field(description="1-based index in the raw merged list")
    title: str = ""
    engines: list[str] = Field(default_factory=list)


class ScoreParts(Model):
    """The components of a result's score, so every ranking decision can be explained."""

    fusion: float = Field(description="Engine evidence at the engines' own positions:"
                          " engine_weight / log2(position + 1) per engine, times the line's"
                          " weight")
    places: dict[str, float] = Field(
        default_factory=dict,
        description="The places each piece of evidence moved the result: positive down,"
        " negative up (relevance, title, address, phrase, off_topic, kind, dynamic, no_snippet,"
        " named, prefer, demote, multi_engine, same_site)")
    shift: float = Field(default=0.0, description="All parts together, within"
                         " ranking.max_places each way")
    total: float
    tier: Literal["primary", "normal", "demoted"]
    demote_reason: str | None = None
    kept_by: str | None = Field(default=None, description="The intent exception that kept a"
                                " result a non-answer rule would drop")
    lists: list[str] = Field(
        default_factory=list,
        description="What community lists did: 'list:<name>:<line> <action>: <rule>', a"
        " rewrite, or a copy sorted below its original")


class TextWarning(Model):
    """A sentence of page text flagged for the agent (``docs/extraction.md``)."""

    kind: str = Field(description="instructions_to_ai: text addressed to an AI, not the reader")
    offset: int = Field(description="Where the sentence (or, with injections: drop, its"
                        " [removed: ...] marker) starts in the page's whole text")
    length: int = 0
    text: str = Field(default="", description="The flagged sentence (at most 300 chars)")


class Result(Model):
    """One returned result. Field order is part of the contract."""

    rank: int
    title: str
    url: str
    host: str
    domain: str
    source_type: SourceType
    engines: list[str]
    positions: dict[str, int]
    score: float
    snippet: str
    excerpt: str = ""
    extraction: str = Field(
        default="skipped",
        description="ok | truncated | skipped | skipped_budget_exhausted | empty | failed:<Type>"
        " | blocked | unsupported_type | duplicate",
    )
    extraction_detail: str | None = Field(
        default=None, description="Why: the failure message, or the URL a duplicate copies"
    )
    warnings: list[TextWarning] = Field(
        default_factory=list, description="What the page text holds that an agent should not"
        " obey (instructions_to_ai), with offsets in the page's whole text")
    published: str | None = None
    explain: ScoreParts | None = None


class QueryIntentInfo(Model):
    """navigational | definitional | transactional | informational, and why."""

    kind: Literal["navigational", "definitional", "transactional", "informational"]
    reason: str


class ExtractionSummary(Model):
    extracted: int = 0
    chars_used: int = 0
    budget: int = 0
    failures: int = 0
    seconds: float = 0.0
    provider: str | None = None
    mode: str | None = None


class LineReport(Model):
    """How one line did: shown in every answer so a failed or slow line is visible."""

    line: str
    status: Literal["ok", "empty", "failed", "timeout", "no_key"]
    results: int
    seconds: float
    cached: bool


class Timing(Model):
    fanout_seconds: float
    pipeline_seconds: float
    extract_seconds: float
    total_seconds: float


class SearchResponse(Model):
    """The stable JSON answer. ``schema_version`` changes when a field changes meaning."""

    schema_version: str = SCHEMA_VERSION
    query: str
    query_intent: QueryIntentInfo | None = Field(
        default=None, description="The query's intent, which decides the non-answer rules")
    status: Literal["ok", "no_results", "failed"]
    raw_result_count: int
    returned_count: int
    dropped_count: int
    engines: list[str]
    lines: list[LineReport]
    results: list[Result]
    extraction: ExtractionSummary
    dropped: list[Dropped] | None = Field(
        default=None, description="Present with --explain: every dropped result with its reason"
    )
    notes: list[Note]
    timing: Timing

    @property
    def exit_code(self) -> int:
        """0 ok, 1 nothing survived filtering (or no results), 2 the layer could not run."""
        return {"ok": 0, "no_results": 1, "failed": 2}[self.status]


def response_schema() -> dict[str, object]:
    """The JSON Schema of ``SearchResponse`` as printed (see docs/contract.md)."""
    schema = SearchResponse.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"tamis search answer, schema_version {SCHEMA_VERSION}"
    return schema
