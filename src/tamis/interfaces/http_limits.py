"""The service's limits and auth: errors in one shape, metrics, the body-size limit, the
bearer token, the rate limit and the searches-in-flight limit, shared by every endpoint
through one ``Service``."""

from __future__ import annotations

import asyncio
import hmac
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tamis.core import Tamis
from tamis.models import SearchResponse

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


def close(work: Awaitable[Any]) -> None:
    """A coroutine that will not be awaited is closed, so Python does not warn about it."""
    closer = getattr(work, "close", None)
    if closer is not None:
        closer()


class Service:
    """What every endpoint shares: the layer, the metrics and the limits."""

    def __init__(self, layer: Tamis | None) -> None:
        self.layer = layer
        self.metrics = Metrics()
        self.in_flight = 0

    def get_layer(self) -> Tamis:
        if self.layer is None:
            raise HTTPError(503, "starting up")
        return self.layer

    def config(self) -> Any:
        return self.get_layer().config.serve

    def check_query(self, query: str) -> str:
        cfg = self.config()
        query = query.strip()
        if not query:
            raise HTTPError(400, "the query is empty")
        if len(query) > cfg.max_query_chars:
            raise HTTPError(400, f"the query is longer than {cfg.max_query_chars} characters")
        return query

    def cap(self, max_results: int | None) -> int | None:
        limit = self.config().max_results
        if max_results is not None and max_results > limit:
            raise HTTPError(400, f"max_results is over the limit of {limit}")
        return max_results

    async def limited(self, request: Request, work: Awaitable[Any]) -> Any:
        """Run one search or read under the service's limits."""
        cfg = self.config()
        metrics = self.metrics
        if cfg.rate_limit_per_minute:
            window = int(time.time() // 60)
            count = self.get_layer().store.incr("ratelimit",
                                                f"{client_id(request)}:{window}", 120)
            if count > cfg.rate_limit_per_minute:
                metrics.rejected.labels("rate_limit").inc()
                close(work)
                raise HTTPError(429, f"rate limit: {cfg.rate_limit_per_minute} requests a"
                                     " minute", {"Retry-After": str(60 - int(time.time()) % 60)})
        if self.in_flight >= cfg.max_concurrency:
            metrics.rejected.labels("saturated").inc()
            close(work)
            raise HTTPError(503, f"saturated: {cfg.max_concurrency} searches in flight;"
                                 " retry shortly", {"Retry-After": "1"})
        self.in_flight += 1
        metrics.in_flight.inc()
        try:
            return await asyncio.wait_for(work, timeout=cfg.request_timeout)
        except TimeoutError:
            raise HTTPError(504, f"no answer within the {cfg.request_timeout:g} s request"
                                 " deadline") from None
        finally:
            self.in_flight -= 1
            metrics.in_flight.dec()

    async def guarded(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """The page's search: the same concurrency limit, nothing else."""
        if self.in_flight >= self.config().max_concurrency:
            self.metrics.rejected.labels("saturated").inc()
            raise HTTPError(503, "saturated: searches in flight; retry shortly",
                            {"Retry-After": "1"})
        self.in_flight += 1
        try:
            return await call()
        finally:
            self.in_flight -= 1
