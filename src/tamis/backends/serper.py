"""Serper: Google results through serper.dev (key needed).

Config::

    backends:
      - name: serper
        api_key_env: SERPER_API_KEY      # the default; or credentials: [...]
        params: {gl: us}                 # optional, sent in the body

Request: ``POST {base_url}/search`` (base ``https://google.serper.dev``) with header
``X-API-KEY: <key>`` and a JSON body: ``q``, ``num``, and when asked ``tbs`` (``qdr:d``,
``qdr:w``, ``qdr:m``, ``qdr:y`` from time_range), ``hl`` (language) and ``gl`` (country,
from a language like ``en-US``), ``page`` (pageno). ``params`` adds body fields (never
overriding one set from the request).

Answer read: ``organic[{title, link, snippet, position, date}]``; ``position`` is kept as the
provenance position, ``date`` as the published date.

Checked against serper.dev's request examples (``POST https://google.serper.dev/search``,
``X-API-KEY`` header, body ``q``/``gl``/``hl``/``num``/``tbs``/``page``) and client code that
reads ``organic[].title/link/snippet/position``.
"""

from __future__ import annotations

from typing import Any

from tamis.backends.base import (
    Adapter,
    HttpRequest,
    Parsed,
    Supports,
    ZeroConfig,
    country_code,
    language_code,
)
from tamis.errors import AnswerError
from tamis.models import SearchRequest

TBS = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}


class Serper(Adapter):
    type = "serper"
    supports = Supports(paging=True, time_range=True, language=True, key="required")
    default_base_url = "https://google.serper.dev"
    default_search_path = "/search"
    default_key_env = "SERPER_API_KEY"
    auth_style = "x-api-key"
    zero_config = ZeroConfig(key_env="SERPER_API_KEY", order=50)
    max_count = 100

    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        body: dict[str, Any] = {"q": request.query, "num": self.count(request)}
        if request.time_range:
            body["tbs"] = TBS[request.time_range]
        lang = language_code(request.language)
        if lang:
            body["hl"] = lang
        country = country_code(request.language)
        if country:
            body["gl"] = country
        if request.pageno and request.pageno > 1:
            body["page"] = request.pageno
        return self.json_request("POST", body, key)

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        if not isinstance(payload, dict):
            raise AnswerError("answer is not Serper JSON")
        organic = payload.get("organic", [])
        if not isinstance(organic, list):
            raise AnswerError("answer is not Serper JSON ('organic' is not a list)")
        return self.hits_from(organic, url="link", title="title", snippet=("snippet",),
                              published=("date",), position="position")
