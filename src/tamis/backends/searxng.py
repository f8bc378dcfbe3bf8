"""SearXNG: a metasearch instance of your own.

Config::

    backends:
      - name: searxng            # or any name, with type: searxng
        base_url: http://127.0.0.1:8888   # default: $SEARXNG_URL; a URL ending in /search
                                          # (the search page) is read as the instance
        params: {engines: "bing,brave"}   # optional fixed parameters (a request's own
                                          # engines, language... win over them)

No key. Supports paging (``pageno``), ``time_range``, ``language``, ``categories``,
``safesearch`` and ``engines``, passed through when given. A SearXNG instance must allow
JSON output: ``search.formats: [html, json]`` in its settings.yml, else it answers 403
(searx 1.1, which SearXNG forked from, has no such setting and always answers JSON). A
parameter the instance refuses (HTTP 400) is named in the note, with its own words.

Provenance: each result's ``engines`` and ``positions`` (not only ``engine``), labelled
``<line>:<engine>``; see ``engine_order`` for how the two are paired. ``unresponsive_engines``
become notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tamis.backends.base import Adapter, HttpRequest, Parsed, Supports, ZeroConfig, skipped_note
from tamis.errors import AnswerError
from tamis.models import Note, RawHit, SearchRequest
from tamis.text import clean_text

if TYPE_CHECKING:
    import httpx

JSON_DISABLED = (
    "SearXNG answered 403: JSON output is not enabled; enable `json` in `search.formats`"
    " of settings.yml"
)


class SearXNG(Adapter):
    type = "searxng"
    supports = Supports(paging=True, time_range=True, language=True, categories=True,
                        safesearch=True, key="optional")
    default_search_path = "/search"
    zero_config = ZeroConfig(url_env="SEARXNG_URL", order=10, note="that instance")

    @property
    def base_url(self) -> str:
        url = self.line.base_url or self.env.get("SEARXNG_URL")
        if not url:
            raise AnswerError("no base_url configured and SEARXNG_URL is not set")
        url = url.rstrip("/")
        if self.line.search_path is None and url.endswith("/search"):
            url = url.removesuffix("/search")  # the search page's URL, pasted as the instance's
        return url

    def config_problems(self, env: Mapping[str, str]) -> list[tuple[str, str]]:
        if not (self.line.base_url or env.get("SEARXNG_URL")):
            return [("base_url", "missing, and SEARXNG_URL is not set: give the instance's"
                                 " URL (e.g. base_url: http://127.0.0.1:8888)")]
        return []

    def key_envs(self) -> list[str]:
        return self.line.key_envs()  # a proxy in front of SearXNG may want one; none by default

    def search_url(self) -> str:
        return self.base_url + (self.line.search_path or "/search")

    def endpoint(self) -> str:
        try:
            return self.search_url()
        except AnswerError:
            return "(SEARXNG_URL not set)"

    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        params: dict[str, Any] = {"q": request.query, "format": "json"}
        for name in ("categories", "language", "time_range", "safesearch", "pageno", "engines"):
            value = getattr(request, name)
            if value is not None:
                params[name] = value
        return self.json_request("GET", params, key)

    def check_status(self, response: httpx.Response) -> None:
        if response.status_code == 403:
            raise AnswerError(JSON_DISABLED, status=403)
        if response.status_code == 400:  # searx: {"error": "Invalid value ... for parameter ..."}
            error = refusal(response)
            if error:
                raise AnswerError(f"HTTP 400: SearXNG refused the request: {error}", status=400)
        if response.status_code == 429:
            raise AnswerError("HTTP 429: SearXNG rate-limited this client (its limiter)",
                              status=429)
        super().check_status(response)

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        return parse_searxng(self, payload)


def refusal(response: httpx.Response) -> str | None:
    """The ``error`` text of a JSON error answer, on one line and short."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return None
    if not isinstance(error, str) or not error.strip():
        return None
    return " ".join(error.split())[:200]


def parse_searxng(adapter: Adapter, payload: Any) -> Parsed:
    """Read a SearXNG ``format=json`` answer (used by the recorded adapter too)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
        raise AnswerError("answer is not SearXNG JSON (no 'results' list)")

    parsed = Parsed()
    skipped = 0
    prefix = f"{adapter.name}:"
    for index, item in enumerate(payload["results"], start=1):
        one = read_result(adapter, prefix, item, index) if isinstance(item, dict) else None
        if one is None:
            skipped += 1
        else:
            parsed.hits.append(one)
    if skipped:
        parsed.notes.append(skipped_note(adapter.name, skipped))
    engine_notes: list[Note] = []
    for entry in u if isinstance(u := payload.get("unresponsive_engines"), list) else []:
        if isinstance(entry, list | tuple) and entry:
            engine = clean_text(str(entry[0]))
            why = clean_text(str(entry[1])) if len(entry) > 1 else "unresponsive"
            engine_notes.append(Note(source=f"{adapter.name}:{engine}",
                                     kind="unresponsive_engine", message=why))
    # a set in searx: its order changes from one searx process to the next
    parsed.notes += sorted(engine_notes, key=lambda n: (n.source, n.message))
    return parsed


def read_result(adapter: Adapter, prefix: str, item: dict[str, Any], index: int
                ) -> RawHit | None:
    """One result as ``adapter.hit`` makes it (None: no usable url), labelled
    ``<line>:<engine>`` for each engine that returned it."""
    engines = engine_order(item)  # names (str)
    positions = item.get("positions")
    if not isinstance(positions, list) or len(positions) != len(engines):
        positions = [index] * len(engines)
    else:
        # an Infinity (Python's json reads it) has no int: that result's own index instead
        positions = [p if p.__class__ is int and p >= 1 else int(p)
                     if isinstance(p, (int, float)) and 1 <= p < float("inf") else index
                     for p in positions]
    return adapter.hit(item.get("url"), item.get("title"), item.get("content"), index,
                       published=item.get("publishedDate"), labels=[prefix + e for e in engines],
                       positions=positions)


def engine_order(item: dict[str, Any]) -> list[str]:
    """A result's engines in the order of its ``positions``.

    searx and SearXNG send ``engines`` as a set (any order) and ``positions`` in the order the
    engines answered, so the two lists are not parallel. ``engine`` is the first engine that
    returned the page, and ``positions[0]`` is its position; which of the other engines has
    which later position is not said, so they are paired in name order (stable output).
    Without ``engine`` the lists are taken as parallel.
    """
    engines = item.get("engines")
    first = item.get("engine")
    if not isinstance(engines, list) or not engines:
        return [first] if isinstance(first, str) and first else ["unknown"]
    if len(engines) == 1:  # the common case: one engine, whatever ``engine`` says
        return [str(engines[0])]
    names = [str(e) for e in engines]
    if isinstance(first, str) and first in names and len(set(names)) == len(names):
        return [first, *sorted(n for n in names if n != first)]
    return names
