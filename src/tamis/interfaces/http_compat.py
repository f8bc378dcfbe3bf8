"""The compatibility endpoints of ``tamis serve``: SearXNG's and Tavily's APIs over ``Tamis``.

SearXNG (any client that takes a ``SEARXNG_URL`` / ``searx_host``):

- ``GET /search?q=...&format=json`` and a form ``POST /search``: SearXNG's JSON shape
  (``http_shapes.searxng_shape``) with tamis's cleaned, ranked results;
- ``GET /?q=...&format=json`` (LangChain's ``SearxSearchWrapper`` asks the root); without
  ``q`` and ``format=json`` the root is the page;
- ``GET /config``: a minimal SearXNG ``/config`` (tamis's lines as engines).

Tavily (``tavily-python`` and LangChain's ``TavilySearch`` with ``api_base_url`` here):

- ``POST /search`` with a JSON body: told from SearXNG's form by its content type;
  ``max_results`` above ``serve.max_results`` is clamped, as Tavily clamps;
- ``POST /extract`` ``{"urls": [...]}``: each page through ``Tamis.read``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tamis.failure import failure_reason
from tamis.interfaces.http_errors import not_json
from tamis.interfaces.http_limits import HTTPError, Service, is_form
from tamis.interfaces.http_shapes import (
    searxng_config,
    searxng_shape,
    tavily_extract_shape,
    tavily_shape,
)
from tamis.interfaces.web import page_response
from tamis.models import SearchRequest, SearchResponse, TimeRange

MAX_EXTRACT_URLS = 20  # Tavily's own limit per request


class TavilyBody(BaseModel):
    """Tavily's search request; fields tamis does not use are accepted and ignored."""

    model_config = ConfigDict(extra="allow")

    query: str
    max_results: int = Field(default=5, ge=0)
    include_raw_content: bool | Literal["markdown", "text"] = False
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    search_depth: str | None = None
    topic: str | None = None
    time_range: TimeRange | None = None


class TavilyExtractBody(BaseModel):
    """Tavily's extract request; ``query`` focuses each page's text on it."""

    model_config = ConfigDict(extra="allow")

    urls: list[str] | str
    query: str | None = None
    format: Literal["markdown", "text"] | None = None


def invalid(exc: ValidationError, prefix: str = "") -> HTTPError:
    first = exc.errors()[0]
    if first.get("type") == "json_invalid":
        return HTTPError(400, not_json(None, first))
    where = ".".join(str(p) for p in first.get("loc", ())) or "body"
    return HTTPError(400, f"{prefix}{where}: {first.get('msg')}")


def searx_params(request: Request, body: bytes = b"") -> dict[str, str]:
    """SearXNG's parameters: the query string, then a form body over it (as searx does)."""
    params = dict(request.query_params)
    if body:
        params.update(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    return params


def searx_request(service: Service, params: Mapping[str, str]) -> SearchRequest:
    fmt = params.get("format", "json")
    if fmt != "json":
        raise HTTPError(400, f"format={fmt} is not served: tamis answers format=json")
    language = params.get("language") or None
    fields: dict[str, Any] = {
        "query": service.check_query(params.get("q")),
        "categories": params.get("categories") or None,
        "language": None if language in ("all", "auto") else language,
        "time_range": params.get("time_range") or None,
        "engines": params.get("engines") or None,
    }
    for name in ("safesearch", "pageno"):
        value = params.get(name, "")
        if value:
            if not value.strip().isdigit():
                raise HTTPError(400, f"{name}: {value!r} is not a whole number")
            fields[name] = int(value)
    try:
        return SearchRequest.model_validate(fields)  # safesearch 0..2, pageno 1..50
    except ValidationError as exc:
        raise invalid(exc) from None


def compat_router(service: Service) -> APIRouter:
    router = APIRouter()

    async def searched(request: Request, search_request: SearchRequest, *, extract: bool
                       ) -> SearchResponse:
        """One compatible search under the service's limits, counted; 502 with the one
        failure reason when it failed."""
        response: SearchResponse
        response, _ = await service.limited(
            request, service.get_layer().search(search_request, extract=extract))
        service.metrics.observe_lines(response.lines)
        if response.status == "failed":
            raise HTTPError(502, failure_reason(response))
        return response

    async def searxng_answer(request: Request, params: Mapping[str, str]) -> JSONResponse:
        response = await searched(request, searx_request(service, params), extract=False)
        lines = service.get_layer().config.backends
        return JSONResponse(searxng_shape(response, {line.name: line.weight for line in lines}))

    async def tavily_answer(request: Request, raw_body: bytes) -> JSONResponse:
        try:
            body = TavilyBody.model_validate_json(raw_body)
        except ValidationError as exc:
            raise invalid(exc) from None
        query = service.check_query(body.query)
        limit = service.config().max_results
        search_request = SearchRequest(query=query, max_results=max(1, min(body.max_results,
                                                                            limit)),
                                       time_range=body.time_range,
                                       include_domains=body.include_domains or [],
                                       exclude_domains=body.exclude_domains or [])
        raw = bool(body.include_raw_content)
        response = await searched(request, search_request, extract=raw)
        return JSONResponse(tavily_shape(response, raw, str(uuid.uuid4())))

    @router.get("/search", summary="SearXNG-compatible search (format=json)")
    async def searxng_search(request: Request) -> JSONResponse:
        return await searxng_answer(request, searx_params(request))

    @router.post("/search", summary="Tavily-compatible search (JSON), or a SearXNG form")
    async def post_search(request: Request) -> JSONResponse:
        body = await request.body()
        if is_form(request.headers.get("content-type", "")):
            if request.headers.get("content-type", "").startswith("multipart/"):
                form = await request.form()
                params = {**request.query_params,
                          **{k: v for k, v in form.items() if isinstance(v, str)}}
                return await searxng_answer(request, params)
            return await searxng_answer(request, searx_params(request, body))
        return await tavily_answer(request, body)

    @router.api_route("/", methods=["GET", "POST"], include_in_schema=False)
    async def root(request: Request) -> Response:
        body = await request.body() if request.method == "POST" else b""
        params = searx_params(request, body)
        if params.get("q") is not None and params.get("format") == "json":
            return await searxng_answer(request, params)
        return page_response()

    @router.get("/config", summary="SearXNG-compatible instance config (minimal)")
    async def config(request: Request) -> JSONResponse:
        layer = service.get_layer()
        return JSONResponse(searxng_config(layer.config.backends, layer.config.timeout))

    @router.post("/extract", summary="Tavily-compatible extract: page text through read")
    async def extract(request: Request) -> JSONResponse:
        try:
            body = TavilyExtractBody.model_validate_json(await request.body())
        except ValidationError as exc:
            raise invalid(exc) from None
        urls = [body.urls] if isinstance(body.urls, str) else body.urls
        urls = [u.strip() for u in urls if u.strip()]
        if not urls:
            raise HTTPError(400, "urls: give at least one URL")
        if len(urls) > MAX_EXTRACT_URLS:
            raise HTTPError(400, f"urls: at most {MAX_EXTRACT_URLS} URLs a request")
        query = body.query.strip() if body.query and body.query.strip() else None
        layer = service.get_layer()
        started = time.perf_counter()

        async def read_all() -> list[Any]:
            return list(await asyncio.gather(*(layer.read(url, query=query) for url in urls)))

        pages, _ = await service.limited(request, read_all())
        return JSONResponse(tavily_extract_shape(list(pages), time.perf_counter() - started,
                                                 str(uuid.uuid4())))

    return router
