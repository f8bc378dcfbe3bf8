"""The one interface every backend adapter implements, and what an adapter declares.

An adapter is one module in this folder with one ``Adapter`` subclass. The registry finds it
by scanning the modules of this package (``tamis.backends.registry``): no list to edit. The
class declares what it is, and everything else is made from the declaration:

- ``type`` (and ``aliases``): the name a line's ``type:`` (or a bare ``name:``) selects;
- ``options``: the line keys it reads beyond the ones every line has (docs, ``tamis backends``);
- ``auth_style``, ``default_key_env``, ``supports`` (paging, time range, ..., key needed);
- ``zero_config``: the environment variables that make a line of it with no config file
  (``ZeroConfig``), and its place in the zero-config order;
- its module docstring, whose first line is its summary in the generated tables and whose
  body is its manual.

The config schema's checks, the zero-config lines, ``tamis backends`` and the backend tables of
README.md and docs/configuration.md (``python tools/backend_docs.py``) are all read from
these declarations. CONTRIBUTING.md walks through adding one.

An adapter builds an HTTP request for a query (``build_request``) and parses an answer into
``RawHit``s (``parse``). The fan-out (``tamis.pipeline.fanout``) does the rest: keys, rests,
failover, cache, deadline. An adapter that does not speak HTTP (recorded, ddgs) overrides
``fetch``.

**Params versus the request: one rule.** The fields an adapter sends are built by
``request_fields(asked, defaults)``: the adapter's own defaults, then the line's ``params``
over them, then what tamis sets from the request (query, count, paging, time range,
language, domains, safesearch...) over both. A line's ``params`` add fields and change the
adapter's defaults (e.g. Tavily's ``search_depth``), and never override a request value.

**One environment.** An adapter reads environment variables only from ``self.env``, the
mapping it was built with (``make_adapter(..., env=...)``), never from ``os.environ``.

Keys never pass through an adapter's hands except in ``build_request`` (which puts the key in
a header via ``auth_headers``); messages an adapter raises never contain one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, get_args

from tamis.errors import AnswerError
from tamis.models import Note, RawHit, SearchRequest
from tamis.policy.defaults import MAX_CHARS, MAX_RESULTS
from tamis.policy.schema import AuthStyle, LineConfig
from tamis.text import clean_text

if TYPE_CHECKING:
    import httpx

# How each auth style carries a key: (header name, value made from the key). The schema's
# ``AuthStyle`` names the same styles (checked below); "" sends no key header.
AUTH_HEADERS: dict[str, tuple[str, str]] = {
    "bearer": ("Authorization", "Bearer {key}"),
    "x-api-key": ("x-api-key", "{key}"),  # header names are case-insensitive: X-API-KEY too
    "x-subscription-token": ("X-Subscription-Token", "{key}"),
}
if set(AUTH_HEADERS) | {""} != set(get_args(AuthStyle)):  # pragma: no cover - a typo here
    raise TypeError("AUTH_HEADERS and tamis.policy.schema.AuthStyle name different styles")

# Line keys every line has, whatever its adapter; ``Adapter.options`` names the others it reads.
COMMON_KEYS = ("name", "type", "enabled", "required", "weight", "pool_strategy", "base_url",
               "search_path", "auth_style", "api_key_env", "credentials", "params")


class Supports(NamedTuple):  # a NamedTuple: a frozen dataclass costs ~0.5 ms at import
    """What a backend can do, so callers know which parameters are honoured."""

    paging: bool = False
    time_range: bool = False
    language: bool = False
    categories: bool = False
    domains: bool = False
    safesearch: bool = False
    key: Literal["required", "optional", "none"] = "none"

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()

    def labels(self) -> list[str]:
        """Short words for listings: 'paging', 'time_range', ..., 'key:required'."""
        words = [name for name, value in self._asdict().items() if value is True]
        return [*words, f"key:{self.key}"]


class ZeroConfig(NamedTuple):
    """How environment variables make a line of this adapter when no config names lines.

    The line is made when ``url_env`` or ``key_env`` is set: its ``base_url`` is the value of
    ``url_env`` (checked as a URL, never echoed), and it reads its key from ``key_env`` only
    when that variable is set. ``order`` places it among the zero-config lines (the built-in
    ones use 10..60; lines of equal order go by type name). A ``fallback`` adapter's line is
    made, with no variable, only when no other line was. ``note`` says in the docs what the
    line is (e.g. "that instance").
    """

    url_env: str | None = None
    key_env: str | None = None
    order: int = 100
    fallback: bool = False
    note: str = ""

    def variables(self) -> list[str]:
        return [name for name in (self.url_env, self.key_env) if name]

    def line(self, name: str, env: Mapping[str, str]) -> LineConfig | None:
        """The line the environment makes, or None when none of the variables is set."""
        if self.fallback:
            return LineConfig(name=name)
        if not any(env.get(variable) for variable in self.variables()):
            return None
        base_url = env.get(self.url_env) or None if self.url_env else None
        key_env = self.key_env if self.key_env and env.get(self.key_env) else None
        return LineConfig(name=name, base_url=base_url, api_key_env=key_env)


class HttpRequest(NamedTuple):
    """A request an adapter asks its backend, as the fan-out sends it."""

    method: Literal["GET", "POST"]
    url: str
    headers: dict[str, str]
    params: dict[str, Any] | None = None
    json: dict[str, Any] | None = None


@dataclass
class Parsed:
    """An answer read into hits, with anything worth telling the user."""

    hits: list[RawHit] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


# Time ranges as each provider spells them.
TIME_RANGE_DAYS = {"day": 1, "week": 7, "month": 31, "year": 365}


class Adapter:
    """Base class of every backend. Subclasses set the class attributes and two methods."""

    type: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()  # other type names that select this adapter
    options: ClassVar[tuple[str, ...]] = ()  # line keys read beyond COMMON_KEYS
    zero_config: ClassVar[ZeroConfig | None] = None
    endpoint_doc: ClassVar[str | None] = None  # for the docs, when not base_url + path
    supports: ClassVar[Supports] = Supports()
    default_base_url: ClassVar[str | None] = None
    default_search_path: ClassVar[str] = ""
    default_key_env: ClassVar[str | None] = None
    # How this provider's keys start: such a value pasted into a config is refused as a key.
    key_prefixes: ClassVar[tuple[str, ...]] = ()
    auth_style: ClassVar[AuthStyle] = "bearer"
    speaks_http: ClassVar[bool] = True
    cacheable: ClassVar[bool] = True
    max_count: ClassVar[int] = 100  # the most results the provider returns in one answer

    def __init__(self, line: LineConfig, *, max_results: int = MAX_RESULTS,
                 max_chars: int = MAX_CHARS,
                 pool_strategy: str | None = None, env: Mapping[str, str] | None = None
                 ) -> None:
        self.line = line
        self.env: Mapping[str, str] = {} if env is None else env
        self.name = line.name
        self.max_results = max_results
        self.max_chars = max_chars
        # Section-level pool strategy; the line's own ``pool_strategy`` wins over it.
        self.pool_strategy = line.pool_strategy or pool_strategy

    # -- configuration -------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        url = self.line.base_url or self.default_base_url
        if not url:
            raise AnswerError("no base_url configured")
        return url.rstrip("/")

    def search_url(self) -> str:
        path = self.line.search_path if self.line.search_path is not None else (
            self.default_search_path)
        if path and not path.startswith("/"):
            path = "/" + path
        return self.base_url + path

    def key_envs(self) -> list[str]:
        """Environment variable names to read keys from, in pool order."""
        names = self.line.key_envs()
        if not names and self.default_key_env and self.line.auth_style != "":
            names = [self.default_key_env]
        return names

    def needs_key(self) -> bool:
        """True when the line cannot be asked without a key (no key set: status no_key).

        A line whose config names key variables needs one of them, whatever the adapter.
        """
        return self.supports.key == "required" or bool(self.line.key_envs())

    def endpoint(self) -> str:
        """Where requests go, for listings and cache keys (no key in it)."""
        try:
            return self.search_url()
        except AnswerError:
            return "(no base_url)"

    def config_problems(self, env: Mapping[str, str]) -> list[tuple[str, str]]:
        """What stops this line from ever working, found without a network call:
        ``(config key, message)`` pairs, checked when the config is loaded."""
        if self.speaks_http and not (self.line.base_url or self.default_base_url):
            return [("base_url", f"missing: a {self.type} line has no default endpoint; give"
                                 " its base_url (e.g. https://search.example.net)")]
        return []

    def count(self, request: SearchRequest) -> int:
        """How many results to ask the provider for."""
        wanted = request.max_results or self.max_results
        return max(1, min(wanted, self.max_count))

    def json_request(self, method: Literal["GET", "POST"], asked: Mapping[str, Any],
                     key: str | None, defaults: Mapping[str, Any] | None = None
                     ) -> HttpRequest:
        """A request of the search URL for a JSON answer (what search APIs take):
        ``request_fields(asked, defaults)`` as its query (GET) or its JSON body (POST), the
        key in the line's auth header."""
        fields = self.request_fields(asked, defaults)
        headers = {"Accept": "application/json", **self.auth_headers(key)}
        if method == "GET":
            return HttpRequest("GET", self.search_url(), params=fields, headers=headers)
        return HttpRequest("POST", self.search_url(), json=fields, headers=headers)

    def auth_headers(self, key: str | None) -> dict[str, str]:
        """The header that carries a key, in the line's (or the adapter's) auth style."""
        if not key:
            return {}
        style = self.line.auth_style if self.line.auth_style is not None else self.auth_style
        if style not in AUTH_HEADERS:
            return {}
        header, value = AUTH_HEADERS[style]
        return {header: value.format(key=key)}

    def request_fields(self, asked: Mapping[str, Any], defaults: Mapping[str, Any] | None = None,
                       *, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The fields to send: ``defaults``, the line's ``params`` over them, ``asked`` (what
        tamis sets from the request) over both (the rule in the module docstring).
        ``params``: the line's params as this adapter passes them on (default: all of them)."""
        given = self.line.params if params is None else params
        fields = dict(asked)  # the request's fields first, in the adapter's order
        for name, value in {**(defaults or {}), **given}.items():
            fields.setdefault(name, value)
        return fields

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
            engine: str | None = None, published: Any = None, *,
            labels: list[str] | None = None, positions: list[int] | None = None
            ) -> RawHit | None:
        """One RawHit, or None when the item has no usable URL (counted by the caller).

        The snippet is cleaned (tags, entities, whitespace) and capped at ``max_chars``:
        some providers send whole pages as the snippet. ``labels`` and ``positions``: the
        provenance of a hit several engines returned (default: ``engine`` at ``position``).
        A label that is not a string, or a position that is not a whole number, raises
        pydantic's ValidationError (a ValueError).
        """
        if not isinstance(url, str) or not url.strip():
            return None
        if labels is None:
            labels = [f"{self.name}:{engine}" if engine else self.name]
        return RawHit(
            url=url.strip(),
            title=clean_text(title, 500) if isinstance(title, str) else "",
            snippet=clean_text(snippet, self.max_chars) if isinstance(snippet, str) else "",
            line=self.name,
            engines=labels,
            positions=[position] if positions is None else positions,
            published=published if isinstance(published, str) and published else None,
        )

    def collect(self, items: Any, read: Callable[[dict[str, Any], int], RawHit | None]
                ) -> Parsed:
        """Hits from a list of result objects, ``read(item, position)`` making each; items
        that are not objects or give no hit (no usable url) are counted in one note."""
        parsed = Parsed()
        skipped = 0
        if not isinstance(items, list):
            return parsed
        for index, item in enumerate(items, start=1):
            one = read(item, index) if isinstance(item, dict) else None
            if one is None:
                skipped += 1
                continue
            parsed.hits.append(one)
        if skipped:
            parsed.notes.append(skipped_note(self.name, skipped))
        return parsed

    def hits_from(self, items: Any, *, url: str, title: str, snippet: tuple[str, ...],
                  published: tuple[str, ...] = (), position: str | None = None) -> Parsed:
        """Read a list of result objects by field name; count items without a url."""

        def read(item: dict[str, Any], index: int) -> RawHit | None:
            text = next((item[f] for f in snippet if isinstance(item.get(f), str) and item[f]),
                        "")
            when = next((item[f] for f in published if isinstance(item.get(f), str)), None)
            pos = item.get(position) if position else None
            rank = pos if isinstance(pos, int) and not isinstance(pos, bool) and pos >= 1 else (
                index)
            return self.hit(item.get(url), item.get(title), text, rank, published=when)

        return self.collect(items, read)


def skipped_note(line: str, skipped: int) -> Note:
    return Note(source=line, kind="skipped_hit",
                message=f"{skipped} result(s) without a usable url were skipped")


def language_code(language: str | None) -> str | None:
    """'en-US' -> 'en'; 'all' and 'auto' -> None."""
    if not language or language.lower() in {"all", "auto"}:
        return None
    return language.split("-")[0].split("_")[0].lower() or None


def country_code(language: str | None) -> str | None:
    """'en-US' -> 'us'; a bare language -> None."""
    if not language:
        return None
    parts = language.replace("_", "-").split("-")
    return parts[1].lower() if len(parts) > 1 and len(parts[1]) == 2 else None
