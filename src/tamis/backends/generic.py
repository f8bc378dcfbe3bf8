"""Generic: any other search endpoint that takes the query as a parameter.

Config::

    backends:
      - name: my-search                  # any name that is not a known type
        base_url: https://search.example.net
        search_path: /api/search         # default: none (the base_url itself)
        method: GET                      # POST (default): a JSON body; GET: query parameters
        query_param: q                   # the field the query goes in (default q)
        count_param: max_results         # the field the result count goes in; "" for none
        auth_style: bearer               # bearer (default), x-api-key, or "" for no key header
        api_key_env: MY_SEARCH_KEY       # or credentials: [KEY_A, KEY_B]; none: keyless
        params: {lang: en}               # fixed extra fields (never over query and count)

A line that names key variables needs one of them set; a line that names none is asked
without a key. ``auth_style: ""`` with key variables is refused at start (the keys would
never be sent).

Answer shapes read, the first that fits:

- ``{"organic": [{title, link, snippet}]}``
- ``{"data": {"web": [{title, url, description}]}}`` (also ``{"data": [...]}``)
- ``{"results": [{title, url, content}]}`` (``snippet`` or ``description`` also read)

An answer in another shape is an empty answer with a note (kind ``unknown_shape``) naming
the top-level keys it had, so a misconfigured line is visible rather than silent.
"""

from __future__ import annotations

from typing import Any

from tamis.backends.base import Adapter, HttpRequest, Parsed, Supports
from tamis.errors import AnswerError, ConfigError
from tamis.models import Note, SearchRequest
from tamis.policy.schema import LineConfig


class Generic(Adapter):
    type = "generic"
    supports = Supports(key="optional")
    auth_style = "bearer"
    options = ("query_param", "count_param", "method")
    endpoint_doc = "`base_url` + `search_path`"

    def __init__(self, line: LineConfig, **kwargs: Any) -> None:
        super().__init__(line, **kwargs)
        if line.auth_style == "" and line.key_envs():
            raise ConfigError(
                f"backend {line.name!r}: auth_style is empty (no key header) but"
                " api_key_env/credentials name keys; remove one or the other")

    def key_envs(self) -> list[str]:
        return self.line.key_envs()

    def build_request(self, request: SearchRequest, key: str | None) -> HttpRequest:
        fields: dict[str, Any] = {self.line.query_param or "q": request.query}
        count_param = "max_results" if self.line.count_param is None else self.line.count_param
        if count_param:
            fields[count_param] = self.count(request)
        return self.json_request(self.line.method or "POST", fields, key)

    def parse(self, payload: Any, request: SearchRequest) -> Parsed:
        if isinstance(payload, dict):
            organic = payload.get("organic")
            if isinstance(organic, list):
                return self.hits_from(organic, url="link", title="title",
                                      snippet=("snippet", "description"), published=("date",),
                                      position="position")
            data = payload.get("data")
            if isinstance(data, dict) and isinstance(data.get("web"), list):
                data = data["web"]
            if isinstance(data, list):
                return self.hits_from(data, url="url", title="title",
                                      snippet=("description", "snippet", "content"))
            results = payload.get("results")
            if isinstance(results, list):
                return self.hits_from(results, url="url", title="title",
                                      snippet=("content", "snippet", "description"),
                                      published=("published_date", "publishedDate", "date"))
            keys = ", ".join(sorted(str(k) for k in payload)[:8]) or "none"
            shape = f"an object with keys: {keys}"
        elif isinstance(payload, list):
            shape = "a bare list"
        else:
            raise AnswerError(f"answer is JSON {type(payload).__name__}, not an object")
        return Parsed(notes=[Note(
            source=self.name, kind="unknown_shape",
            message=f"answer shape not recognised ({shape}); expected organic[],"
                    " data.web[] or results[]: no results read")])
