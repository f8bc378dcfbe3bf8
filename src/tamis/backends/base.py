"""The one interface every backend adapter implements.

An adapter is one module in this folder with one ``Adapter`` subclass. It declares what it
supports and where it lives, builds an HTTP request for a query, and parses an answer into
``RawHit``s. The fan-out (``tamis.pipeline.fanout``) does the rest: keys, rests, failover,
cache, deadline. An adapter that does not speak HTTP (replay, ddgs) overrides ``fetch``.

Adding a backend is one file plus its tests: subclass ``Adapter``, register its ``type`` in
``registry.py``, and document its config keys in the module docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from tamis.models import Note, RawHit, SearchRequest
from tamis.policy.schema import LineConfig

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class Supports:
    """What a backend can do, so callers know which parameters are honoured."""

    paging: bool = False
    time_range: bool = False
    language: bool = False
    categories: bool = False
    domains: bool = False
    key: Literal["required", "optional", "none"] = "none"


@dataclass
class HttpRequest:
    method: Literal["GET", "POST"]
    url: str
    params: dict[str, Any] | None = None
    json: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Parsed:
    """An answer read into hits, with anything worth telling the user."""

    hits: list[RawHit] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


class AnswerError(Exception):
    """The line answered, but not with something usable. The message is shown as a note.

    ``rest_key`` says whether the key that was used should rest (auth or quota trouble).
    Messages never contain a key.
    """

    def __init__(self, message: str, *, rest_key: bool = False, status: int | None = None):
        super().__init__(message)
        self.rest_key = rest_key
        self.status = status


class Adapter:
    """Base class of every backend. Subclasses set the class attributes and two methods."""

    type: ClassVar[str] = ""
    supports: ClassVar[Supports] = Supports()
    default_base_url: ClassVar[str | None] = None
    default_key_env: ClassVar[str | None] = None
    speaks_http: ClassVar[bool] = True

    def __init__(self, line: LineConfig, *, max_results: int = 8, max_chars: int = 400) -> None:
        self.line = line
        self.name = line.name
        self.max_results = max_results
        self.max_chars = max_chars

    # -- configuration -------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        url = self.line.base_url or self.default_base_url
        if not url:
            raise AnswerError("no base_url configured")
        return url.rstrip("/")

    def key_envs(self) -> list[str]:
        """Environment variable names to read keys from, in pool order."""
        names = self.line.key_envs()
        if not names and self.default_key_env and self.line.auth_style != "":
            names = [self.default_key_env]
        return names

    def endpoint(self) -> str:
        """Where requests go, for listings (no key in it)."""
        try:
            return self.base_url + (self.line.search_path or "")
        except AnswerError:
            return "(no base_url)"

    # -- the two methods an HTTP adapter implements ---------------------------------------
    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        raise NotImplementedError

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        raise NotImplementedError

    def check_status(self, response: httpx.Response) -> None:
        """Raise AnswerError for statuses that need a specific message. Default: generic."""
        status = response.status_code
        if status in (401, 403):
            raise AnswerError(f"HTTP {status}: key refused", rest_key=True, status=status)
        if status == 429:
            raise AnswerError("HTTP 429: rate limited", rest_key=True, status=status)
        if status >= 500:
            raise AnswerError(f"HTTP {status}: server error", rest_key=True, status=status)
        if status >= 400:
            raise AnswerError(f"HTTP {status}", status=status)

    # -- for adapters that do not speak HTTP ----------------------------------------------
    async def fetch(self, request: SearchRequest) -> Parsed:
        raise NotImplementedError

    # -- helpers for subclasses ------------------------------------------------------------
    def hit(self, url: Any, title: Any, snippet: Any, position: int,
            engine: str | None = None, published: Any = None) -> RawHit | None:
        """One RawHit, or None when the item has no usable URL (counted by the caller)."""
        if not isinstance(url, str) or not url.strip():
            return None
        label = f"{self.name}:{engine}" if engine else self.name
        return RawHit(
            url=url.strip(),
            title=title if isinstance(title, str) else "",
            snippet=snippet if isinstance(snippet, str) else "",
            line=self.name,
            engines=[label],
            positions=[position],
            published=published if isinstance(published, str) else None,
        )


def skipped_note(line: str, skipped: int) -> Note:
    return Note(source=line, kind="skipped_hit",
                message=f"{skipped} result(s) without a usable url were skipped")
