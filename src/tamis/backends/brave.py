"""Brave Search API: Brave's own web index (key needed).

Config::

    backends:
      - name: brave
        api_key_env: BRAVE_API_KEY       # the default; or credentials: [...]
        params: {country: us}            # optional query parameters

Request: ``GET {base_url}/res/v1/web/search`` (base ``https://api.search.brave.com``) with
header ``X-Subscription-Token: <key>`` and ``Accept: application/json``; query parameters
``q``, ``count`` (at most 20), ``offset`` (``pageno`` - 1, at most 9), ``freshness``
(``pd``/``pw``/``pm``/``py`` from time_range), ``search_lang`` (from language, e.g. ``en``),
``safesearch`` (``off``/``moderate``/``strict`` from 0/1/2). ``params`` adds more.

Answer read: ``web.results[{title, url, description, age, page_age}]``; ``description`` is
the snippet (its ``<strong>`` tags are stripped), ``page_age`` (else ``age``) the date. An
answer with no ``web`` section (nothing found) is an empty answer, not an error.

Checked against Brave's web search API documentation and its published skill examples
(endpoint, ``X-Subscription-Token``, parameters ``q``/``count``/``offset``/``freshness``/
``search_lang``/``safesearch``, answer ``web.results[].title/url/description/age/page_age``).
"""

from __future__ import annotations

from typing import Any

from tamis.backends.base import Adapter, HttpRequest, Parsed, Supports, ZeroConfig, language_code
from tamis.errors import AnswerError
from tamis.models import SearchRequest

FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
SAFESEARCH = {0: "off", 1: "moderate", 2: "strict"}


class Brave(Adapter):
    type = "brave"
    supports = Supports(paging=True, time_range=True, language=True, safesearch=True,
                        key="required")
    default_base_url = "https://api.search.brave.com"
    default_search_path = "/res/v1/web/search"
    default_key_env = "BRAVE_API_KEY"
    key_prefixes = ("BSA",)
    auth_style = "x-subscription-token"
    zero_config = ZeroConfig(key_env="BRAVE_API_KEY", order=30)
    max_count = 20

    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        params: dict[str, Any] = {"q": request.query, "count": self.count(request)}
        if request.pageno and request.pageno > 1:
            params["offset"] = min(request.pageno - 1, 9)
        if request.time_range:
            params["freshness"] = FRESHNESS[request.time_range]
        lang = language_code(request.language)
        if lang:
            params["search_lang"] = lang
        if request.safesearch is not None:
            params["safesearch"] = SAFESEARCH[request.safesearch]
        return self.json_request("GET", params, key)

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        if not isinstance(payload, dict):
            raise AnswerError("answer is not Brave Search JSON")
        web = payload.get("web")
        if web is None:
            return Parsed()
        if not isinstance(web, dict) or not isinstance(web.get("results", []), list):
            raise AnswerError("answer is not Brave Search JSON ('web.results' is not a list)")
        return self.hits_from(web.get("results", []), url="url", title="title",
                              snippet=("description",), published=("page_age", "age"))
