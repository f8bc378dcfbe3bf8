"""Exa: a neural web search API (key needed).

Config::

    backends:
      - name: exa
        api_key_env: EXA_API_KEY         # the default; or credentials: [...]
        params: {type: auto}             # optional, sent in the body

Request: ``POST {base_url}/search`` (base ``https://api.exa.ai``) with header
``x-api-key: <key>`` and a camelCase JSON body: ``query``, ``numResults``, and when asked
``includeDomains``, ``excludeDomains``, ``startPublishedDate`` (ISO 8601, now minus the
time_range). Contents: ``contents.highlights`` with ``maxCharacters`` = the snippet cap, so
each result carries a short query-relevant passage (not the whole page). ``params`` adds
body fields (and may change ``contents``), never overriding one set from the request.

Answer read: ``results[{title, url, publishedDate, text?, summary?, highlights?}]``; the
snippet is the summary, else the highlights joined, else the text (capped).

Checked against the official client exa-py (``exa_py/api.py``: ``x-api-key`` header, snake
to camelCase body, ``POST /search``, ``results[].url/title/publishedDate/text/highlights/
summary``) and Exa's API reference (``numResults``, ``includeDomains``, ``excludeDomains``,
``startPublishedDate``, ``contents``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tamis.backends.base import TIME_RANGE_DAYS, Adapter, HttpRequest, Parsed, Supports, ZeroConfig
from tamis.errors import AnswerError
from tamis.models import RawHit, SearchRequest


class Exa(Adapter):
    type = "exa"
    supports = Supports(time_range=True, domains=True, key="required")
    default_base_url = "https://api.exa.ai"
    default_search_path = "/search"
    default_key_env = "EXA_API_KEY"
    key_prefixes = ("exa-",)
    auth_style = "x-api-key"
    zero_config = ZeroConfig(key_env="EXA_API_KEY", order=40)
    max_count = 100

    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        body: dict[str, Any] = {"query": request.query, "numResults": self.count(request)}
        if request.include_domains:
            body["includeDomains"] = list(request.include_domains)
        if request.exclude_domains:
            body["excludeDomains"] = list(request.exclude_domains)
        if request.time_range:
            start = datetime.now(UTC) - timedelta(days=TIME_RANGE_DAYS[request.time_range])
            body["startPublishedDate"] = start.strftime("%Y-%m-%dT00:00:00.000Z")
        return self.json_request("POST",
            body, key, {"contents": {"highlights": {"maxCharacters": self.max_chars}}})

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise AnswerError("answer is not Exa JSON (no 'results' list)")
        return self.collect(payload["results"], self.read)

    def read(self, item: dict[str, Any], index: int) -> RawHit | None:
        snippet = item.get("summary")
        if not isinstance(snippet, str) or not snippet:
            highlights = item.get("highlights")
            if isinstance(highlights, list):
                snippet = " … ".join(h for h in highlights if isinstance(h, str))
        if not isinstance(snippet, str) or not snippet:
            snippet = item.get("text")
        return self.hit(item.get("url"), item.get("title"), snippet, index,
                        published=item.get("publishedDate"))
