"""``tamis serve``: the HTTP service, a thin shell over ``Tamis``.

Endpoints:

- native: ``GET|POST /v1/search``, ``POST /v1/read``, ``GET /healthz``, ``GET /metrics``
  (Prometheus text), ``GET /openapi.json``;
- the SearXNG- and Tavily-compatible endpoints (``http_compat``);
- the page to look at (``web``).

Limits (config ``serve``; ``http_limits``): query length, max results, body size, searches
in flight (then a clear 503), a per-request deadline (504), and an optional per-client rate
limit shared by replicas through the store (429). With ``TAMIS_TOKEN`` set, every request
but ``/healthz`` needs ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import Receive, Scope, Send

from tamis import __version__
from tamis.core import Tamis
from tamis.errors import TamisError
from tamis.interfaces.http_compat import compat_router
from tamis.interfaces.http_limits import (
    PUBLIC_PATHS,
    SEARCH_PATHS,
    BearerAuth,
    BodyLimit,
    HTTPError,
    Service,
    error_response,
)
from tamis.interfaces.render import response_dict
from tamis.models import SearchRequest, SearchResponse, TimeRange


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1)
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


def create_app(layer: Tamis | None = None, *, config_path: str | None = None,
               token: str | None = None, close_layer: bool = False) -> FastAPI:
    """The service. ``layer`` is made from ``config_path`` at start-up when not given (and
    then closed at shut-down, as it is when ``close_layer`` is true)."""
    service = Service(layer)
    metrics = service.metrics

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        own = service.layer is None or close_layer
        if service.layer is None:
            service.layer = Tamis(config_path)
        try:
            yield
        finally:
            if own:
                await service.layer.aclose()

    app = FastAPI(title="tamis", version=__version__, lifespan=lifespan, docs_url=None,
                  redoc_url=None,
                  description="A search layer for AI agents. See docs/contract.md.")
    auth = BearerAuth(app, token) if token else None

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]
                    ) -> Response:
        started = time.perf_counter()
        path = request.url.path
        endpoint = path if path in SEARCH_PATHS | PUBLIC_PATHS | {"/metrics", "/"} else "other"
        try:
            if (auth is not None and path not in PUBLIC_PATHS
                    and not auth.allowed(request.headers.get("authorization", "").encode())):
                metrics.rejected.labels("auth").inc()
                raise HTTPError(401, "missing or wrong bearer token (TAMIS_TOKEN)",
                                {"WWW-Authenticate": "Bearer"})
            if path == "/ui/compare":  # the page's search obeys the same concurrency limit
                response = await service.guarded(lambda: call_next(request))
            else:
                response = await call_next(request)
        except HTTPError as exc:
            response = error_response(exc.status, exc.message, exc.headers)
        metrics.requests.labels(endpoint, str(response.status_code)).inc()
        metrics.latency.labels(endpoint).observe(time.perf_counter() - started)
        return response

    @app.exception_handler(HTTPError)
    async def _http_error(_: Request, exc: HTTPError) -> JSONResponse:
        return error_response(exc.status, exc.message, exc.headers)

    @app.exception_handler(TamisError)
    async def _tamis_error(_: Request, exc: TamisError) -> JSONResponse:
        return error_response(400, str(exc))

    from fastapi.exceptions import RequestValidationError

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "request"
        return error_response(422, f"{where}: {first.get('msg', 'invalid request')}")

    async def run_search(request: Request, body: SearchBody) -> JSONResponse:
        query = service.check_query(body.query)
        search_request = SearchRequest(
            query=query, max_results=service.cap(body.max_results), time_range=body.time_range,
            language=body.language, categories=body.categories, engines=body.engines,
            safesearch=body.safesearch, pageno=body.pageno,
            include_domains=body.include_domains, exclude_domains=body.exclude_domains)
        response: SearchResponse = await service.limited(request, service.get_layer().search(
            search_request, extract=body.extract, explain=body.explain, budget=body.budget))
        metrics.observe_search(response)
        return JSONResponse(response_dict(response),
                            status_code=502 if response.status == "failed" else 200)

    # -- native ---------------------------------------------------------------------------
    @app.get("/v1/search", summary="Search (query string)")
    async def search_get(
        request: Request,
        q: str = Query(..., description="The query"),
        max_results: int | None = Query(None, ge=1),
        extract: bool = True,
        explain: bool = False,
        budget: int | None = Query(None, ge=0),
        time_range: TimeRange | None = None,
        language: str | None = None,
        categories: str | None = None,
        engines: str | None = None,
        safesearch: int | None = Query(None, ge=0, le=2),
        pageno: int | None = Query(None, ge=1),
    ) -> JSONResponse:
        body = SearchBody(query=q, max_results=max_results, extract=extract, explain=explain,
                          budget=budget, time_range=time_range, language=language,
                          categories=categories, engines=engines, safesearch=safesearch,
                          pageno=pageno)
        return await run_search(request, body)

    @app.post("/v1/search", summary="Search (JSON body)")
    async def search_post(request: Request, body: SearchBody) -> JSONResponse:
        return await run_search(request, body)

    @app.post("/v1/read", summary="Read one page's text under a budget")
    async def read(request: Request, body: ReadBody) -> JSONResponse:
        result = await service.limited(request, service.get_layer().read(
            body.url, max_chars=body.max_chars, start=body.start, query=body.query))
        return JSONResponse(result.model_dump(mode="json"))

    @app.get("/healthz", summary="Liveness and configured lines")
    async def healthz() -> dict[str, Any]:
        current = service.layer
        lines = [line.name for line in current.config.backends] if current else []
        return {"status": "ok" if current else "starting", "version": __version__,
                "lines": lines, "in_flight": service.in_flight}

    @app.get("/metrics", summary="Prometheus metrics", response_class=PlainTextResponse)
    async def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    app.include_router(compat_router(service))

    try:  # the page to look at (issue 6), when present
        from tamis.interfaces.web import web_routes
    except ImportError:
        pass
    else:
        for route in web_routes(service.get_layer):
            app.router.routes.append(route)

    limit_holder = {"limit": 65536}

    class _DynamicBodyLimit(BodyLimit):
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            current = service.layer
            self.limit = current.config.serve.max_body_bytes if current else limit_holder["limit"]
            await super().__call__(scope, receive, send)

    app.add_middleware(_DynamicBodyLimit, limit=limit_holder["limit"])
    return app
