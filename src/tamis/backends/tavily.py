"""Tavily: a search API built for agents (key needed).

Config::

    backends:
      - name: tavily                     # a name alone is enough
        api_key_env: TAVILY_API_KEY      # the default; or credentials: [TAVILY_KEY_1, ...]
        params: {search_depth: basic, topic: general}   # optional, sent in the body
        base_url: https://api.tavily.com # the default; a proxy or test server also works

Request: ``POST {base_url}/search`` with ``Authorization: Bearer <key>`` and a JSON body
``query``, ``max_results`` (at most 20), ``search_depth``, ``topic``, and when asked
``time_range`` (day/week/month/year), ``include_domains``, ``exclude_domains``. Anything in
``params`` is added to the body (e.g. ``country``, ``search_depth: advanced``); it never
overrides a field tamis sets from the request.

Answer read: ``results[{title, url, content, score, published_date}]``; ``content`` is the
snippet, ``published_date`` (news topic only) is kept.

Checked against the official client tavily-python 0.8.5 (``TavilyClient._search``: base URL
``https://api.tavily.com``, ``POST /search``, bearer header, body field names above) and the
Tavily search API reference (answer ``results[].title/url/content/score/published_date``).
"""

from __future__ import annotations

from typing import Any

from tamis.backends.base import Adapter, HttpRequest, Parsed, Supports, ZeroConfig
from tamis.errors import AnswerError
from tamis.models import SearchRequest


class Tavily(Adapter):
    type = "tavily"
    supports = Supports(time_range=True, domains=True, key="required")
    default_base_url = "https://api.tavily.com"
    default_search_path = "/search"
    default_key_env = "TAVILY_API_KEY"
    key_prefixes = ("tvly-",)
    auth_style = "bearer"
    zero_config = ZeroConfig(key_env="TAVILY_API_KEY", order=20)
    max_count = 20

    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        body: dict[str, Any] = {"query": request.query, "max_results": self.count(request)}
        if request.time_range:
            body["time_range"] = request.time_range
        if request.include_domains:
            body["include_domains"] = list(request.include_domains)
        if request.exclude_domains:
            body["exclude_domains"] = list(request.exclude_domains)
        return self.json_request("POST", body, key, {"search_depth": "basic", "topic": "general"})

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise AnswerError("answer is not Tavily JSON (no 'results' list)")
        return self.hits_from(payload["results"], url="url", title="title",
                              snippet=("content",), published=("published_date",))
