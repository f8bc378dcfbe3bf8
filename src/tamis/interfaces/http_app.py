"""``tamis serve``: the HTTP service, a thin shell over ``Tamis``.

Endpoints:

- native: ``GET|POST /v1/search``, ``POST /v1/read``, ``GET /healthz``, ``GET /metrics``
  (Prometheus text), ``GET /openapi.json``;
- SearXNG-compatible ``GET /search?q=...&format=json``: any SearXNG client gets tamis's
  cleaned, ranked results by pointing its ``SEARXNG_URL`` here;
- Tavily-compatible ``POST /search`` with a JSON body: the official ``tavily-python`` client
  works with ``api_base_url`` set here.

Limits (config ``serve``): query length, max results, body size, searches in flight (then a
clear 503), a per-request deadline (504), and an optional per-client rate limit shared by
replicas through the store (429). With ``TAMIS_TOKEN`` set, every request but ``/healthz``
needs ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import asyncio
import hmac
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tamis import __version__
from tamis.core import Tamis
from tamis.errors import TamisError
from tamis.interfaces.render import response_dict
from tamis.models import SearchRequest, SearchResponse, TimeRange

# No data in these: the page and its assets load without a token (the page then asks for it).
PUBLIC_PATHS = frozenset({"/healthz", "/", "/ui/static/index.html", "/ui/static/page.css",
                          "/ui/static/page.js"})
SEARCH_PATHS = frozenset({"/v1/search", "/v1/read", "/search", "/ui/compare"})


class HTTPError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def error_response(status: int, message: str, headers: dict[str, str] | None = None
                   ) -> JSONResponse:
    # Both shapes: {"error": ...} for people and tools, {"detail": {"error": ...}} for the
    # tavily-python client, which reads detail.error.
    return JSONResponse({"error": message, "detail": {"error": message}}, status_code=status,
                        headers=headers)


# --------------------------------------------------------------------------- bodies
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


class TavilyBody(BaseModel):
    """Tavily's search request; fields tamis does not use are accepted and ignored."""

    model_config = ConfigDict(extra="allow")

    query: str = Field(min_length=1)
    max_results: int = Field(default=5, ge=1)
    include_raw_content: bool | Literal["markdown", "text"] = False
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    search_depth: str | None = None
    topic: str | None = None
    time_range: TimeRange | None = None


# --------------------------------------------------------------------------- shapes
def searxng_shape(response: SearchResponse) -> dict[str, Any]:
    """tamis's answer in SearXNG's ``format=json`` shape."""
    from urllib.parse import urlsplit

    results = []
    for r in response.results:
        parts = urlsplit(r.url)
        engines = [e.split(":", 1)[-1] for e in r.engines]
        results.append({
            "url": r.url,
            "title": r.title,
            "content": r.excerpt or r.snippet,
            "engine": engines[0] if engines else "tamis",
            "engines": engines,
            "positions": [r.positions[e] for e in r.engines],
            "score": r.score,
            "category": "general",
            "parsed_url": [parts.scheme, parts.netloc, parts.path, "", parts.query,
                           parts.fragment],
            "template": "default.html",
            "publishedDate": r.published,
            "source_type": r.source_type,
        })
    unresponsive = [[n.source.split(":", 1)[-1], n.message] for n in response.notes
                    if n.kind in ("unresponsive_engine", "line_failed", "line_timeout")]
    return {
        "query": response.query,
        "number_of_results": len(results),
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": unresponsive,
    }


def tavily_shape(response: SearchResponse, raw: bool, request_id: str) -> dict[str, Any]:
    """tamis's answer in Tavily's shape. ``score`` is rank-based in (0, 1]."""
    n = max(len(response.results), 1)
    return {
        "query": response.query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [{
            "title": r.title,
            "url": r.url,
            "content": r.snippet,
            "score": round(1.0 - (r.rank - 1) / n, 4),
            "raw_content": (r.excerpt or None) if raw else None,
            **({"published_date": r.published} if r.published else {}),
        } for r in response.results],
        "response_time": response.timing.total_seconds,
        "request_id": request_id,
    }


# --------------------------------------------------------------------------- metrics
class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("tamis_requests_total", "HTTP requests",
                                ["endpoint", "status"], registry=self.registry)
        self.latency = Histogram("tamis_request_seconds", "HTTP request latency", ["endpoint"],
                                 registry=self.registry,
                                 buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
        self.in_flight = Gauge("tamis_searches_in_flight", "Searches being served",
                               registry=self.registry)
        self.backend_failures = Counter("tamis_backend_failures_total",
                                        "Lines that failed or timed out", ["line", "status"],
                                        registry=self.registry)
        self.cache_hits = Counter("tamis_cache_hits_total", "Line answers served from cache",
                                  ["line"], registry=self.registry)
        self.rejected = Counter("tamis_rejected_total", "Requests refused by a limit",
                                ["reason"], registry=self.registry)

    def observe_search(self, response: SearchResponse) -> None:
        for line in response.lines:
            if line.status in ("failed", "timeout", "no_key"):
                self.backend_failures.labels(line.line, line.status).inc()
            if line.cached:
                self.cache_hits.labels(line.line).inc()


# --------------------------------------------------------------------------- middleware
class BodyLimit:
    """Refuse request bodies over ``limit`` bytes (413), declared or streamed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await error_response(413, f"request body over {self.limit} bytes")(scope, receive,
                                                                                send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise HTTPError(413, f"request body over {self.limit} bytes")
            return message

        await self.app(scope, limited, send)


class BearerAuth:
    """Require ``Authorization: Bearer <token>`` (constant-time compare) but on public paths."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    def allowed(self, header: bytes) -> bool:
        return hmac.compare_digest(header, self.expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") not in PUBLIC_PATHS:
            header = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not self.allowed(header):
                await error_response(401, "missing or wrong bearer token (TAMIS_TOKEN)",
                                     {"WWW-Authenticate": "Bearer"})(scope, receive, send)
                return
        await self.app(scope, receive, send)


def client_id(request: Request) -> str:
    auth = request.headers.get("authorization", "")
    if auth:
        import hashlib

        return "token:" + hashlib.sha256(auth.encode()).hexdigest()[:16]
    return "addr:" + (request.client.host if request.client else "unknown")


# --------------------------------------------------------------------------- the app
def create_app(layer: Tamis | None = None, *, config_path: str | None = None,
               token: str | None = None, close_layer: bool = False) -> FastAPI:
    """The service. ``layer`` is made from ``config_path`` at start-up when not given (and
    then closed at shut-down, as it is when ``close_layer`` is true)."""
    state: dict[str, Any] = {"layer": layer}
    metrics = Metrics()

    def get_layer() -> Tamis:
        current = state["layer"]
        if current is None:
            raise HTTPError(503, "starting up")
        return current

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        own = state["layer"] is None or close_layer
        if state["layer"] is None:
            state["layer"] = Tamis(config_path)
        try:
            yield
        finally:
            if own:
                await state["layer"].aclose()

    app = FastAPI(title="tamis", version=__version__, lifespan=lifespan, docs_url=None,
                  redoc_url=None,
                  description="A search layer for AI agents. See docs/contract.md.")
    in_flight = {"n": 0}
    auth = BearerAuth(app, token) if token else None

    def serve_config() -> Any:
        return get_layer().config.serve

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
                if in_flight["n"] >= serve_config().max_concurrency:
                    metrics.rejected.labels("saturated").inc()
                    raise HTTPError(503, "saturated: searches in flight; retry shortly",
                                    {"Retry-After": "1"})
                in_flight["n"] += 1
                try:
                    response = await call_next(request)
                finally:
                    in_flight["n"] -= 1
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

    async def limited(request: Request, work: Awaitable[Any]) -> Any:
        """Run one search or read under the service's limits."""
        cfg = serve_config()
        if cfg.rate_limit_per_minute:
            window = int(time.time() // 60)
            count = get_layer().store.incr("ratelimit", f"{client_id(request)}:{window}", 120)
            if count > cfg.rate_limit_per_minute:
                metrics.rejected.labels("rate_limit").inc()
                close(work)
                raise HTTPError(429, f"rate limit: {cfg.rate_limit_per_minute} requests a"
                                     " minute", {"Retry-After": str(60 - int(time.time()) % 60)})
        if in_flight["n"] >= cfg.max_concurrency:
            metrics.rejected.labels("saturated").inc()
            close(work)
            raise HTTPError(503, f"saturated: {cfg.max_concurrency} searches in flight;"
                                 " retry shortly", {"Retry-After": "1"})
        in_flight["n"] += 1
        metrics.in_flight.inc()
        try:
            return await asyncio.wait_for(work, timeout=cfg.request_timeout)
        except TimeoutError:
            raise HTTPError(504, f"no answer within the {cfg.request_timeout:g} s request"
                                 " deadline") from None
        finally:
            in_flight["n"] -= 1
            metrics.in_flight.dec()

    def check_query(query: str) -> str:
        cfg = serve_config()
        query = query.strip()
        if not query:
            raise HTTPError(400, "the query is empty")
        if len(query) > cfg.max_query_chars:
            raise HTTPError(400, f"the query is longer than {cfg.max_query_chars} characters")
        return query

    def cap(max_results: int | None) -> int | None:
        limit = serve_config().max_results
        if max_results is not None and max_results > limit:
            raise HTTPError(400, f"max_results is over the limit of {limit}")
        return max_results

    async def run_search(request: Request, body: SearchBody) -> JSONResponse:
        query = check_query(body.query)
        search_request = SearchRequest(
            query=query, max_results=cap(body.max_results), time_range=body.time_range,
            language=body.language, categories=body.categories, engines=body.engines,
            safesearch=body.safesearch, pageno=body.pageno,
            include_domains=body.include_domains, exclude_domains=body.exclude_domains)
        response: SearchResponse = await limited(request, get_layer().search(
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
        result = await limited(request, get_layer().read(
            body.url, max_chars=body.max_chars, start=body.start, query=body.query))
        return JSONResponse(result.model_dump(mode="json"))

    @app.get("/healthz", summary="Liveness and configured lines")
    async def healthz() -> dict[str, Any]:
        current = state["layer"]
        lines = [line.name for line in current.config.backends] if current else []
        return {"status": "ok" if current else "starting", "version": __version__,
                "lines": lines, "in_flight": in_flight["n"]}

    @app.get("/metrics", summary="Prometheus metrics", response_class=PlainTextResponse)
    async def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    # -- SearXNG-compatible -----------------------------------------------------------------
    @app.get("/search", summary="SearXNG-compatible search (format=json)")
    async def searxng_search(
        request: Request,
        q: str = Query(..., description="The query"),
        format: str = "json",
        categories: str | None = None,
        language: str | None = None,
        time_range: TimeRange | None = None,
        safesearch: int | None = Query(None, ge=0, le=2),
        pageno: int | None = Query(None, ge=1),
        engines: str | None = None,
    ) -> JSONResponse:
        if format != "json":
            raise HTTPError(400, f"format={format} is not served: tamis answers format=json")
        query = check_query(q)
        search_request = SearchRequest(query=query, categories=categories,
                                       language=language if language != "all" else None,
                                       time_range=time_range, safesearch=safesearch,
                                       pageno=pageno, engines=engines)
        response: SearchResponse = await limited(
            request, get_layer().search(search_request, extract=False))
        metrics.observe_search(response)
        if response.status == "failed":
            raise HTTPError(502, "; ".join(n.message for n in response.notes) or "failed")
        return JSONResponse(searxng_shape(response))

    # -- Tavily-compatible -----------------------------------------------------------------
    @app.post("/search", summary="Tavily-compatible search")
    async def tavily_search(request: Request) -> JSONResponse:
        try:
            body = TavilyBody.model_validate_json(await request.body())
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "body"
            raise HTTPError(400, f"{where}: {first.get('msg')}") from None
        query = check_query(body.query)
        search_request = SearchRequest(query=query, max_results=cap(body.max_results),
                                       time_range=body.time_range,
                                       include_domains=body.include_domains or [],
                                       exclude_domains=body.exclude_domains or [])
        raw = bool(body.include_raw_content)
        response: SearchResponse = await limited(
            request, get_layer().search(search_request, extract=raw))
        metrics.observe_search(response)
        if response.status == "failed":
            raise HTTPError(502, "; ".join(n.message for n in response.notes) or "failed")
        return JSONResponse(tavily_shape(response, raw, str(uuid.uuid4())))

    try:  # the page to look at (issue 6), when present
        from tamis.interfaces.web import web_routes
    except ImportError:
        pass
    else:
        for route in web_routes(get_layer):
            app.router.routes.append(route)

    limit_holder = {"limit": 65536}

    class _DynamicBodyLimit(BodyLimit):
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            current = state["layer"]
            self.limit = current.config.serve.max_body_bytes if current else limit_holder["limit"]
            await super().__call__(scope, receive, send)

    app.add_middleware(_DynamicBodyLimit, limit=limit_holder["limit"])
    return app


def close(work: Awaitable[Any]) -> None:
    """A coroutine that will not be awaited is closed, so Python does not warn about it."""
    closer = getattr(work, "close", None)
    if closer is not None:
        closer()
