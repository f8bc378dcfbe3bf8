"""DDGS: keyless web search through the ``ddgs`` library (the zero-config fallback).

Config::

    backends:
      - name: ddgs
        params: {region: us-en, backend: auto, timeout: 5}   # all optional

``region``, ``backend`` and ``safesearch`` are passed to ``DDGS.text``, unless the request
sets the same (a request's language sets the region, its safesearch the safesearch).

No key and no base_url: ``ddgs`` scrapes public engines' result pages itself, so it does
not go through tamis's HTTP client. It is blocking, so it runs in a worker thread
(``asyncio.to_thread``) and never stalls the other lines; its own ``timeout`` (5 s by
default) bounds the thread, the fan-out deadline bounds the answer.

Call: ``DDGS(timeout=...).text(query, max_results=N, timelimit='d'|'w'|'m'|'y',
region='us-en', safesearch='off'|'moderate'|'on', page=pageno, backend=...)``. Answer read:
a list of ``{title, href, body}``. "No results found" is an empty answer, other
``DDGSException``s are failures.

Checked against the installed ddgs 9.16 (``DDGS.text`` -> ``_search_sync`` keyword
arguments and the ``title``/``href``/``body`` result keys).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from tamis.backends.base import Adapter, Parsed, Supports, ZeroConfig, country_code
from tamis.errors import AnswerError
from tamis.models import SearchRequest

UNREACHABLE = re.compile(r"dns|resolv|connect|unreachable|timed? ?out|network", re.I)


def no_network_message() -> str:
    """What to do when the public engines cannot be reached: the zero-config key variables
    come from the adapters' declarations."""
    from tamis.backends.registry import zero_config_classes

    keys = [cls.zero_config.key_env for cls in zero_config_classes()
            if cls.zero_config and cls.zero_config.key_env]
    return ("cannot reach the public search engines ddgs reads (no internet connection, or"
            " DNS does not resolve); to search through a backend of your own, set SEARXNG_URL"
            f" (e.g. http://127.0.0.1:8888) or a key variable ({', '.join(keys)}), or name"
            " lines in a config file (docs/configuration.md)")


TIMELIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}
SAFESEARCH = {0: "off", 1: "moderate", 2: "on"}
PASSED_PARAMS = ("region", "backend", "safesearch")  # the params handed to DDGS.text


def _default_factory(**kwargs: Any) -> Any:
    from ddgs import DDGS

    return DDGS(**kwargs)


class DDGSAdapter(Adapter):
    type = "ddgs"
    supports = Supports(paging=True, time_range=True, language=True, safesearch=True,
                        key="none")
    speaks_http = False
    endpoint_doc = "the `ddgs` library, in a worker thread"
    zero_config = ZeroConfig(fallback=True,
                             note="keyless web search through the `ddgs` library")

    def __init__(self, line: Any, **kwargs: Any) -> None:
        super().__init__(line, **kwargs)
        # Tests inject a fake here: ``factory(timeout=...)`` returns an object with ``.text``.
        self.factory: Callable[..., Any] = _default_factory

    def key_envs(self) -> list[str]:
        return []

    def endpoint(self) -> str:
        return "ddgs (library, no endpoint)"

    def call_args(self, request: SearchRequest) -> dict[str, Any]:
        args: dict[str, Any] = {"max_results": self.count(request)}
        if request.time_range:
            args["timelimit"] = TIMELIMIT[request.time_range]
        lang = (request.language or "").split("-")[0].lower()
        country = country_code(request.language)
        if lang and country:
            args["region"] = f"{country}-{lang}"
        if request.safesearch is not None:
            args["safesearch"] = SAFESEARCH[request.safesearch]
        if request.pageno and request.pageno > 1:
            args["page"] = request.pageno
        passed = {name: str(value) for name, value in self.line.params.items()
                  if name in PASSED_PARAMS}
        return self.request_fields(args, params=passed)

    def _search(self, query: str, args: dict[str, Any]) -> Any:
        timeout = self.line.params.get("timeout", 5)
        client = self.factory(timeout=int(timeout) if isinstance(timeout, int | float) else 5)
        return client.text(query, **args)

    async def fetch(self, request: SearchRequest) -> Parsed:
        args = self.call_args(request)
        try:
            items = await asyncio.to_thread(self._search, request.query, args)
        except Exception as exc:
            message = str(exc).strip()
            if "no results" in message.lower():
                return Parsed()
            if UNREACHABLE.search(message):
                # The library's own text is a Rust debug string cut mid-word: say what it means.
                raise AnswerError(no_network_message(), rest_key=True) from None
            raise AnswerError(f"ddgs: {type(exc).__name__}: {message[:200]}") from None
        return self.hits_from(items if isinstance(items, list) else [], url="href",
                              title="title", snippet=("body",))
