"""``tamis serve``: the HTTP service, a thin shell over ``Tamis``.

Endpoints:

- native: ``GET|POST /v1/search``, ``POST /v1/read``, ``GET /healthz``, ``GET /metrics``
  (Prometheus text), ``GET /openapi.json``;
- the SearXNG- and Tavily-compatible endpoints (``http_compat``);
- the page to look at (``web``).

Limits and auth (config ``serve``): ``http_limits`` (one pass per request: Host, token,
body, metrics; and per search: rate limit, searches in flight, deadline) and ``http_auth``.
``serve_app`` is the factory each worker process of ``tamis serve --workers N`` calls.
"""

from __future__ import annotations

import gc
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from tamis.core import Tamis
from tamis.errors import TamisError
from tamis.interfaces.http_answers import Found, Rendered, RenderedAnswers
from tamis.interfaces.http_compat import compat_router
from tamis.interfaces.http_errors import error_for, error_response, not_json, unreadable_body
from tamis.interfaces.http_limits import Guard, HTTPError, Service
from tamis.interfaces.render import answer_dict, response_dict
from tamis.interfaces.web import web_routes
from tamis.models import Note, SearchRequest, TimeRange
from tamis.version import __version__

LIST_FIELDS = ("include_domains", "exclude_domains")


class SearchBody(BaseModel):
    """The native search's fields: the JSON body of ``POST /v1/search`` and, with ``q`` for
    ``query``, the query string of ``GET /v1/search``."""

    model_config = ConfigDict(extra="forbid")

    query: str | None = None
    max_results: int | None = Field(default=None, ge=1)
    extract: bool = True
    explain: bool = False
    budget: int | None = Field(default=None, ge=0, description="Extraction total_chars")
    time_range: TimeRange | None = None
    language: str | None = None
    categories: str | None = None
    engines: str | None = None
    safesearch: int | None = Field(default=None, ge=0, le=2)
    pageno: int | None = Field(default=None, ge=1)
    include_domains: list[str] = Field(default_factory=list)
    exclude_domains: list[str] = Field(default_factory=list)


class ReadBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1)
    max_chars: int | None = Field(default=None, ge=1)
    start: int = Field(default=0, ge=0)
    query: str | None = None


def query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The model's fields as OpenAPI query parameters (``query`` is ``q``)."""
    properties = model.model_json_schema()["properties"]
    return [{"name": "q" if name == "query" else name, "in": "query",
             "required": name == "query", "schema": schema}
            for name, schema in properties.items()]


def invalid(exc: ValidationError | RequestValidationError) -> HTTPError:
    first = exc.errors()[0] if exc.errors() else {}
    if first.get("type") == "json_invalid":  # the body could not be read at all: 400
        return HTTPError(400, not_json(getattr(exc, "body", None), first))
    if first.get("type") == "missing" and tuple(first.get("loc", ())) == ("body",):
        return HTTPError(422, "the body is empty: send a JSON object, e.g. {\"query\": \"...\"}")
    loc = tuple(first.get("loc", ()))  # FastAPI's start with where: "body" or "query"
    if isinstance(exc, RequestValidationError) and loc[:1] in (("body",), ("query",)):
        loc = loc[1:]  # only then: a field named "query" is still named
    where = ".".join(str(p) for p in loc)
    return HTTPError(422, f"{where or 'request'}: {first.get('msg', 'invalid request')}")


def create_app(layer: Tamis | None = None, *, config_path: str | None = None,
               token: str | None = None, close_layer: bool = False,
               bind: str | None = None) -> FastAPI:
    """The service. ``layer`` is made from ``config_path`` at start-up when not given (and
    then closed at shut-down, as it is when ``close_layer`` is true). ``bind``: the address
    served (the Host check; default ``serve.host``)."""
    service = Service(layer, bind)
    metrics = service.metrics
    rendered = RenderedAnswers()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        own = service.layer is None or close_layer
        if service.layer is None:
            service.layer = Tamis(config_path)
        # What start-up made (modules, policy, rules) lives as long as the worker: out of
        # the collector's way, so the full collections under load stop walking it.
        gc.freeze()
        try:
            yield
        finally:
            service.layer.store.flush()  # nothing a search stored is lost at shut-down
            if own:
                await service.layer.aclose()

    app = FastAPI(title="tamis", version=__version__, lifespan=lifespan, docs_url=None,
                  redoc_url=None,
                  description="A search layer for AI agents. See docs/contract.md.")

    @app.exception_handler(TamisError)  # HTTPRefusal included: the one map, error_for
    async def _tamis_error(_: Request, exc: TamisError) -> JSONResponse:
        return error_for(exc)

    @app.exception_handler(StarletteHTTPException)  # FastAPI's own: a body not UTF-8
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        why = unreadable_body(exc)
        return error_response(400, why) if why else await http_exception_handler(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        error = invalid(exc)
        return error_response(error.status, error.message)

    async def run_search(request: Request, body: SearchBody) -> JSONResponse:
        query = service.check_query(body.query)
        try:  # the request model holds the bounds (pageno, language...): a 422 names the field
            search_request = SearchRequest(
                query=query, max_results=service.cap(body.max_results),
                time_range=body.time_range, language=body.language, categories=body.categories,
                engines=body.engines, safesearch=body.safesearch, pageno=body.pageno,
                include_domains=body.include_domains, exclude_domains=body.exclude_domains)
        except ValidationError as exc:
            raise invalid(exc) from None
        options: dict[str, Any] = {"extract": body.extract, "explain": body.explain,
                                   "budget": body.budget}
        found, note = await service.limited(request, rendered.search(
            service.get_layer(), search_request, **options))
        if isinstance(found, Rendered):
            if note is None:  # a repeat's body, as it was rendered last time
                metrics.observe_lines(found.lines)
                return Response(found.body, status_code=found.status_code,
                                media_type="application/json")
            # The answer the kept body was rendered from, to render with the note: its bytes
            # were read once already, and read the same again.
            response = service.get_layer().read_stored(found.stored)
            assert response is not None
            found = Found(response)
        response = found.response
        metrics.observe_lines(response.lines)
        status_code = 502 if response.status == "failed" else 200
        if note:
            response.notes.append(Note(source="serve", kind="info", message=note))
        content = answer_dict(found.answer) if found.answer is not None and note is None \
            else response_dict(response)  # the same data, dumped once
        answer = JSONResponse(content, status_code=status_code)
        if note is None:
            rendered.keep(found, Rendered(bytes(answer.body), answer.status_code,
                                          response.lines, found.stored or b""))
        return answer

    # -- native ---------------------------------------------------------------------------
    @app.get("/v1/search", summary="Search (query string: q and SearchBody's other fields)",
             openapi_extra={"parameters": query_parameters(SearchBody)})
    async def search_get(request: Request) -> JSONResponse:
        params: dict[str, Any] = {k: v for k, v in request.query_params.items()
                                  if k not in LIST_FIELDS}
        params["query"] = params.pop("q", None)
        for name in LIST_FIELDS:
            if name in request.query_params:
                params[name] = request.query_params.getlist(name)
        try:
            body = SearchBody.model_validate(params)
        except ValidationError as exc:
            raise invalid(exc) from None
        return await run_search(request, body)

    @app.post("/v1/search", summary="Search (JSON body)")
    async def search_post(request: Request, body: SearchBody) -> JSONResponse:
        return await run_search(request, body)

    @app.post("/v1/read", summary="Read one page's text under a budget")
    async def read(request: Request, body: ReadBody) -> JSONResponse:
        result, _ = await service.limited(request, service.get_layer().read(
            body.url, max_chars=body.max_chars, start=body.start, query=body.query))
        return JSONResponse(result.model_dump(mode="json"))

    @app.get("/healthz", summary="Liveness and configured lines")
    async def healthz() -> dict[str, Any]:
        current = service.layer
        lines = [line.name for line in current.config.backends] if current else []
        return {"status": "ok" if current else "starting", "version": __version__,
                "lines": lines, "in_flight": service.in_flight, "pid": os.getpid()}

    @app.get("/metrics", summary="Prometheus metrics", response_class=PlainTextResponse)
    async def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    app.include_router(compat_router(service))  # its "/" answers searches, else the page

    for route in web_routes(service.get_layer):  # the page to look at
        if getattr(route, "path", None) != "/":
            app.router.routes.append(route)

    app.add_middleware(Guard, service=service, token=token)
    return app


SERVE_CONFIG_ENV = "TAMIS_SERVE_CONFIG"
SERVE_BIND_ENV = "TAMIS_SERVE_BIND"


def serve_app() -> FastAPI:
    """The app of one worker of ``tamis serve --workers N`` (uvicorn ``factory=True``): the
    config path and bind address come from the parent through the environment."""
    return create_app(config_path=os.environ.get(SERVE_CONFIG_ENV) or None,
                      token=os.environ.get("TAMIS_TOKEN") or None,
                      bind=os.environ.get(SERVE_BIND_ENV) or None)
