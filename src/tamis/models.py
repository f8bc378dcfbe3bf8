"""The typed data that flows through the pipeline, stage by stage.

``SearchRequest`` -> fan-out -> ``LineAnswer`` (``RawHit`` each) -> merge -> ``Candidate``
-> filter (``Dropped``) -> rank -> extract -> ``SearchResponse`` (``Result`` each).

Everything a user sees in JSON is a dataclass here, so ``docs/schema.json`` is generated
from this file and real output is validated against it in the tests. Plain standard-library
dataclasses (``tamis.typed``): pydantic reads the ``Field`` annotations only where a request is
validated or the schema printed, so a CLI search never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from tamis import typed
from tamis.records import Record  # == and repr shared, not compiled per class

if TYPE_CHECKING:
    from pydantic import Field

SCHEMA_VERSION = "1.0"

SourceType = Literal["official", "code", "qa", "forum", "discussion", "web", "content-farm"]
TimeRange = Literal["day", "week", "month", "year"]


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class SearchRequest(Record):
    """What was asked: the query and the optional parameters passed to backends."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    query: str
    max_results: Annotated[int | None, Field(description="Results returned; config default")] \
        = None
    categories: str | None = None
    language: str | None = None
    time_range: TimeRange | None = None
    safesearch: Annotated[int | None, Field(ge=0, le=2)] = None
    pageno: Annotated[int | None, Field(ge=1)] = None
    engines: str | None = None
    include_domains: list[str] = field(default_factory=list)
    exclude_domains: list[str] = field(default_factory=list)

    def cache_params(self) -> dict[str, object]:
        """The parameters that change a backend's answer (the cache key, with the query)."""
        params = typed.to_data(self, exclude_defaults=True)
        params.pop("max_results", None)
        return params


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class RawHit(Record):
    """One result as one line (backend) returned it, before any cleaning."""

    url: str
    title: str = ""
    snippet: str = ""
    line: Annotated[str, Field(description="The line (configured backend) that returned it")]
    engines: Annotated[list[str], Field(
        description="Provenance labels, e.g. 'searxng:bing' or 'tavily'")]
    positions: Annotated[list[int], Field(
        description="1-based position per engine, parallel to engines")]
    published: str | None = None


def checked_labels(labels: Any) -> list[str]:
    """A copy of an adapter's provenance labels for ``RawHit.engines``; ValueError unless a
    list of str (an adapter's hits are built from its backend's JSON)."""
    if not isinstance(labels, list | tuple) or any(x.__class__ is not str for x in labels):
        raise ValueError(f"RawHit engines: not a list of strings: {labels!r:.80}")
    return list(labels)


def checked_position(value: Any) -> int:
    """An engine position for ``RawHit.positions`` as pydantic's lax ``int`` read it (an
    int, a bool, an integral float, a string of digits); ValueError otherwise."""
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()) or (
            isinstance(value, str) and value.strip().lstrip("+-").isdigit()):
        return int(value)
    raise ValueError(f"RawHit positions: {value!r:.80} is not a whole number")


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Note(Record):
    """Something a backend, engine or stage reported: shown in the answer, never hidden."""

    source: Annotated[str, Field(description="Line, engine or stage the note is about")]
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


LineStatus = Literal["ok", "empty", "failed", "timeout", "no_key"]
# How asking a line went: "answered" (ok or empty), or what stopped it. "http_error" comes
# with the HTTP status; "bad_answer": not JSON, or JSON of a shape the adapter cannot read.
OutcomeKind = Literal["answered", "no_key", "timeout", "deadline", "unreachable",
                      "bad_endpoint", "http_error", "bad_answer", "unreadable", "too_large",
                      "failed", "unexpected"]


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class LineOutcome(Record):
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


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class LineAnswer(Record):
    """What one line answered (or why it did not)."""

    line: str
    order: Annotated[int, Field(
        description="Index of the line in the config: the stable tie-break")]
    status: Literal["ok", "empty", "failed", "timeout", "no_key"]
    hits: list[RawHit] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    seconds: float = 0.0
    cached: bool = False
    required: bool = False
    weight: float = 1.0
    outcome: LineOutcome | None = field(default=None, metadata={"exclude": True})


@dataclass(slots=True, eq=False, repr=False)
class Candidate(Record):
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


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Dropped(Record):
    """A raw result that was not returned, with the rule that dropped it."""

    url: str
    reason: str
    position: Annotated[int, Field(description="1-based index in the raw merged list")]
    title: str = ""
    engines: list[str] = field(default_factory=list)


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class ScoreParts(Record):
    """The components of a result's score, so every ranking decision can be explained."""

    fusion: Annotated[float, Field(description="Engine evidence: engine_weight"
                                   " / log2(position + 1) per engine, times the line's weight")]
    relevance: Annotated[float, Field(
        description="BM25 of title, snippet and URL words (tie-break)")]
    prefer: float
    multi_engine: float
    named: Annotated[float, Field(description="The query names this site")] = 0.0
    off_topic: Annotated[float, Field(description="No query word in title, snippet, URL")] = 0.0
    same_site: Annotated[float, Field(
        description="Better-ranked results from this host")] = 0.0
    demote: float
    total: float
    tier: Literal["primary", "normal", "demoted"]
    demote_reason: str | None = None
    kept_by: Annotated[str | None, Field(description="The intent exception that kept a"
                                         " result a non-answer rule would drop")] = None
    lists: Annotated[list[str], Field(
        description="What community lists did: 'list:<name>:<line> <action>: <rule>', a"
        " rewrite, or a copy sorted below its original")] = field(default_factory=list)


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class TextWarning(Record):
    """A sentence of page text flagged for the agent (``docs/extraction.md``)."""

    kind: Annotated[str, Field(
        description="instructions_to_ai: text addressed to an AI, not the reader")]
    offset: Annotated[int, Field(description="Where the sentence (or, with injections: drop,"
                                 " its [removed: ...] marker) starts in the page's whole text")]
    length: int = 0
    text: Annotated[str, Field(description="The flagged sentence (at most 300 chars)")] = ""


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Result(Record):
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
    extraction: Annotated[str, Field(
        description="ok | truncated | skipped | skipped_budget_exhausted | empty | failed:<Type>"
        " | blocked | unsupported_type | duplicate",
    )] = "skipped"
    extraction_detail: Annotated[str | None, Field(
        description="Why: the failure message, or the URL a duplicate copies"
    )] = None
    warnings: Annotated[list[TextWarning], Field(
        description="What the page text holds that an agent should not"
        " obey (instructions_to_ai), with offsets in the page's whole text")] = field(
        default_factory=list)
    published: str | None = None
    explain: ScoreParts | None = None


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class QueryIntentInfo(Record):
    """navigational | definitional | transactional | informational, and why."""

    kind: Literal["navigational", "definitional", "transactional", "informational"]
    reason: str


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class ExtractionSummary(Record):
    extracted: int = 0
    chars_used: int = 0
    budget: int = 0
    failures: int = 0
    seconds: float = 0.0
    provider: str | None = None
    mode: str | None = None


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class LineReport(Record):
    """How one line did: shown in every answer so a failed or slow line is visible."""

    line: str
    status: Literal["ok", "empty", "failed", "timeout", "no_key"]
    results: int
    seconds: float
    cached: bool


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class Timing(Record):
    fanout_seconds: float
    pipeline_seconds: float
    extract_seconds: float
    total_seconds: float


@dataclass(slots=True, kw_only=True, eq=False, repr=False)
class SearchResponse(Record):
    """The stable JSON answer. ``schema_version`` changes when a field changes meaning."""

    schema_version: str = SCHEMA_VERSION
    query: str
    query_intent: Annotated[QueryIntentInfo | None, Field(
        description="The query's intent, which decides the non-answer rules")] = None
    status: Literal["ok", "no_results", "failed"]
    raw_result_count: int
    returned_count: int
    dropped_count: int
    engines: list[str]
    lines: list[LineReport]
    results: list[Result]
    extraction: ExtractionSummary
    dropped: Annotated[list[Dropped] | None, Field(
        description="Present with --explain: every dropped result with its reason"
    )] = None
    notes: list[Note]
    timing: Timing

    @property
    def exit_code(self) -> int:
        """0 ok, 1 nothing survived filtering (or no results), 2 the layer could not run."""
        return {"ok": 0, "no_results": 1, "failed": 2}[self.status]


def response_schema() -> dict[str, object]:
    """The JSON Schema of ``SearchResponse`` as printed (see docs/contract.md)."""
    schema = typed.json_schema(SearchResponse, mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"tamis search answer, schema_version {SCHEMA_VERSION}"
    return schema
