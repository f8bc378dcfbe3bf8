"""Firecrawl search: hosted (key needed) or self-hosted (no key).

Config::

    backends:
      - name: firecrawl                  # hosted: https://api.firecrawl.dev, FIRECRAWL_API_KEY
      - name: firecrawl-local            # self-hosted: a base_url and no key
        type: firecrawl
        base_url: http://127.0.0.1:3002
      - name: firecrawl-v2
        type: firecrawl
        search_path: /v2/search          # the v2 API; /v1/search is the default

The hosted service needs a key (bearer; ``api_key_env`` defaults to ``FIRECRAWL_API_KEY``).
A self-hosted base_url sends no key unless the line names one with ``api_key_env`` or
``credentials``: the hosted key is never sent to another server by default.

Request: ``POST {base_url}/v1/search`` with a JSON body ``query``, ``limit``, and ``tbs``
(``qdr:d``/``w``/``m``/``y`` from time_range) when asked; ``params`` adds body fields
(e.g. ``lang``, ``country``, ``location``), never overriding one set from the request.

Answer read: v1 ``{"success": true, "data": [{url, title, description}]}`` and v2
``{"success": true, "data": {"web": [{url, title, description}]}}``. ``success: false``
is a failure with the answer's ``error`` text.

Checked against Firecrawl's search endpoint reference (``POST /v1/search``, bearer auth,
body ``query``/``limit``/``tbs``/``lang``/``country``, answer ``success``/``data[]``), the v2
search docs (``POST /v2/search``, answer ``data.web[]``) and the firecrawl-py SDK usage.
"""

from __future__ import annotations

from typing import Any

from tamis.backends.base import Adapter, HttpRequest, Parsed, Supports, ZeroConfig
from tamis.errors import AnswerError
from tamis.models import SearchRequest

HOSTED = "https://api.firecrawl.dev"
TBS = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}


class Firecrawl(Adapter):
    type = "firecrawl"
    supports = Supports(time_range=True, key="optional")
    default_base_url = HOSTED
    default_search_path = "/v1/search"
    default_key_env = "FIRECRAWL_API_KEY"
    key_prefixes = ("fc-",)
    auth_style = "bearer"
    max_count = 100
    zero_config = ZeroConfig(
        url_env="FIRECRAWL_URL", key_env="FIRECRAWL_API_KEY", order=60,
        note="hosted (api.firecrawl.dev) with `FIRECRAWL_API_KEY`; with `FIRECRAWL_URL`, that"
             " self-hosted instance (with `FIRECRAWL_API_KEY` only if it is set)")

    def hosted(self) -> bool:
        return (self.line.base_url or HOSTED).rstrip("/") == HOSTED

    def key_envs(self) -> list[str]:
        names = self.line.key_envs()
        if not names and self.hosted() and self.line.auth_style != "":
            names = [self.default_key_env or "FIRECRAWL_API_KEY"]
        return names

    def needs_key(self) -> bool:
        return self.hosted() or bool(self.line.key_envs())

    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        body: dict[str, Any] = {"query": request.query, "limit": self.count(request)}
        if request.time_range:
            body["tbs"] = TBS[request.time_range]
        return self.json_request("POST", body, key)

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        if not isinstance(payload, dict):
            raise AnswerError("answer is not Firecrawl JSON")
        if payload.get("success") is False:
            error = payload.get("error")
            text = error[:200] if isinstance(error, str) and error else "no reason given"
            raise AnswerError(f"Firecrawl answered success=false: {text}", kind="failed")
        data = payload.get("data")
        if isinstance(data, dict):
            data = data.get("web", [])
        if data is None:
            data = []
        if not isinstance(data, list):
            raise AnswerError("answer is not Firecrawl JSON ('data' is neither a list nor"
                              " {web: [...]})")
        return self.hits_from(data, url="url", title="title", snippet=("description",))
