"""The service's limits, in one pass over each request (``Guard``), and for each search
(``Service.limited``), which answers once what the search stored is visible to every
worker.

``Guard`` (pure ASGI, around every endpoint): the Host allow-list and the token
(``http_auth``), the body-size limit (the body is read once, declared or chunked, and
replayed), JSON content types, and the request metrics. ``Service.limited`` (around each
search or read): the per-client rate limit, shared by replicas through the store, keyed on
the client's address (what the server sees, never a header the client writes); the
searches-in-flight limit, which queues a request for up to ``serve.queue_seconds`` before
a clear 503; and the per-request deadline (504).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs

from fastapi import Request
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tamis.core import Tamis
from tamis.errors import HTTPRefusal as HTTPError  # the name every endpoint raises
from tamis.errors import TamisError
from tamis.interfaces.http_auth import (
    CHALLENGE,
    PUBLIC_PATHS,
    TokenCheck,
    allowed_hosts,
    host_name,
)
from tamis.interfaces.http_errors import error_for, error_response
from tamis.limits import check_max_results, check_query
from tamis.models import LineReport
from tamis.store.writes import settled, track_writes

log = logging.getLogger("tamis.serve")

SEARCH_PATHS = frozenset({"/v1/search", "/v1/read", "/search", "/extract", "/ui/compare"})
ENDPOINTS = SEARCH_PATHS | PUBLIC_PATHS | {"/metrics", "/config", "/ui/policy",
                                          "/openapi.json"}
JSON_BODY_PATHS = frozenset({"/v1/search", "/v1/read", "/extract"})
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/")
                                           and media.endswith("+json"))


def is_form(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() in FORM_TYPES


def root_search(scope: Scope) -> bool:
    """Is this request to ``/`` a SearXNG search (q and format=json), not the page?"""
    if scope["method"] != "GET":
        return True
    params = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return "q" in params and params.get("format", [""])[-1] == "json"


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

    def observe_lines(self, lines: list[LineReport]) -> None:
        for line in lines:
            if line.status in ("failed", "timeout", "no_key"):
                self.backend_failures.labels(line.line, line.status).inc()
            if line.cached:
                self.cache_hits.labels(line.line).inc()


def close(work: Awaitable[Any]) -> None:
    """A coroutine that will not be awaited is closed, so Python does not warn about it."""
    closer = getattr(work, "close", None)
    if closer is not None:
        closer()


class Service:
    """What every endpoint shares: the layer, the metrics and the limits."""

    def __init__(self, layer: Tamis | None, bind: str | None = None) -> None:
        self.layer = layer
        self.bind = bind
        self.metrics = Metrics()
        self.in_flight = 0
        self._slots: asyncio.Semaphore | None = None

    def get_layer(self) -> Tamis:
        if self.layer is None:
            raise HTTPError(503, "starting up")
        return self.layer

    def config(self) -> Any:
        return self.get_layer().config.serve

    def check_query(self, query: str | None) -> str:
        """A query over HTTP: the core's check with ``serve.max_query_chars``; 400 if not."""
        return check_query(query, max_chars=self.config().max_query_chars,
                           setting="serve.max_query_chars", how="give q (GET) or query (POST)")

    def cap(self, max_results: int | None) -> int | None:
        """``max_results`` within ``serve.max_results``; a RequestRejected (400) if not."""
        return check_max_results(max_results, self.config().max_results)

    def rate_limited(self, request: Request) -> str | None:
        """Count this request against its client's minute; None, or a note when the store
        could not count it (the request then goes on, as a search does without its cache)."""
        cfg = self.config()
        if not cfg.rate_limit_per_minute:
            return None
        client = "addr:" + (request.client.host if request.client else "unknown")
        window = int(time.time() // 60)
        try:
            count = self.get_layer().store.incr("ratelimit", f"{client}:{window}", 120)
        except TamisError as exc:
            log.warning("rate limit not applied: %s", exc)
            return f"rate limit not applied: {exc}"
        if count > cfg.rate_limit_per_minute:
            self.metrics.rejected.labels("rate_limit").inc()
            raise HTTPError(429, f"rate limit: {cfg.rate_limit_per_minute} requests a minute",
                            {"Retry-After": str(60 - int(time.time()) % 60)})
        return None

    @asynccontextmanager
    async def slot(self) -> Any:
        """One of ``max_concurrency`` search slots, waited for up to ``queue_seconds``."""
        cfg = self.config()
        if self._slots is None:
            self._slots = asyncio.Semaphore(cfg.max_concurrency)
        slots = self._slots
        if slots.locked():
            try:
                if cfg.queue_seconds <= 0:
                    raise TimeoutError
                await asyncio.wait_for(slots.acquire(), timeout=cfg.queue_seconds)
            except TimeoutError:
                self.metrics.rejected.labels("saturated").inc()
                raise HTTPError(503, f"saturated: {cfg.max_concurrency} searches in flight"
                                     " (serve.max_concurrency); retry shortly",
                                {"Retry-After": "1"}) from None
        else:
            await slots.acquire()
        self.in_flight += 1
        self.metrics.in_flight.inc()
        try:
            yield
        finally:
            self.in_flight -= 1
            self.metrics.in_flight.dec()
            slots.release()

    async def limited(self, request: Request, work: Awaitable[Any]) -> tuple[Any, str | None]:
        """Run one search or read under the service's limits: (its answer, a note or None)."""
        cfg = self.config()
        written = track_writes()
        try:
            note = self.rate_limited(request)
            async with self.slot():
                try:
                    async with asyncio.timeout(cfg.request_timeout):  # no extra task
                        done = await work
                except TimeoutError:
                    raise HTTPError(504, f"no answer within the {cfg.request_timeout:g} s"
                                         " request deadline") from None
            # What it stored (answers, line answers, key rests) visible to every worker
            # before the answer goes out: a repeat asked of another finds it. The store
            # writes in its own thread; the loop serves other requests meanwhile, and a
            # request that stored nothing (a repeat) waits for nobody's writes.
            await settled(written)
            return done, note
        finally:
            close(work)  # a no-op once awaited


class Guard:
    """One pass per request: Host, token, body size and type, metrics."""

    def __init__(self, app: ASGIApp, service: Service, token: str | None) -> None:
        self.app = app
        self.service = service
        self.check = TokenCheck(token) if token else None
        self.hosts: frozenset[str] | bool | None = False  # False: not computed yet

    def refusal(self, scope: Scope, headers: dict[bytes, bytes]) -> tuple[int, str, dict] | None:
        path = scope["path"]
        if self.hosts is False:
            cfg = self.service.layer.config.serve if self.service.layer else None
            bind = self.service.bind or (cfg.host if cfg else "127.0.0.1")
            self.hosts = allowed_hosts(bind, cfg.allowed_hosts if cfg else ())
        host = headers.get(b"host")
        if self.hosts is not None and host is not None:
            name = host_name(host.decode("latin-1"))
            if name not in self.hosts:
                return 421, (f"Host {name[:100]!r} is not served here: add it to"
                             " serve.allowed_hosts"), {}
        public = path in PUBLIC_PATHS and not (path == "/" and root_search(scope))
        if self.check is not None and not public \
                and not self.check.allowed(headers.get(b"authorization", b"")):
            return 401, "missing or wrong token (TAMIS_TOKEN: Bearer, or Basic password)", \
                {"WWW-Authenticate": CHALLENGE}
        if scope["method"] == "POST" and (path in JSON_BODY_PATHS or path in ("/search", "/")):
            kind = headers.get(b"content-type", b"").decode("latin-1")
            if not is_json(kind) and not (path in ("/search", "/") and is_form(kind)):
                return 415, (f"{path} takes a JSON body: send Content-Type: application/json"
                             + (" (or a SearXNG form)" if path in ("/search", "/") else "")
                             + f", not {kind.split(';')[0] or 'none'}"), {}
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        path = scope["path"]
        status = 500
        headers = dict(scope["headers"])

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            refused = self.refusal(scope, headers)
            if refused is None and scope["method"] in ("POST", "PUT", "PATCH"):
                receive, refused = await self.read_body(receive, headers)
            if refused is not None:
                code, message, extra = refused
                self.service.metrics.rejected.labels(
                    {401: "auth", 421: "host", 413: "body", 415: "type"}.get(code, "other")).inc()
                await error_response(code, message, extra)(scope, receive, sending)
            elif path == "/ui/compare":  # the page's search obeys the concurrency limit
                try:
                    async with self.service.slot():
                        await self.app(scope, receive, sending)
                except TamisError as exc:
                    await error_for(exc)(scope, receive, sending)
            else:
                await self.app(scope, receive, sending)
        finally:
            endpoint = path if path in ENDPOINTS else "other"
            metrics = self.service.metrics
            metrics.requests.labels(endpoint, str(status)).inc()
            metrics.latency.labels(endpoint).observe(time.perf_counter() - started)

    async def read_body(self, receive: Receive, headers: dict[bytes, bytes]
                        ) -> tuple[Receive, tuple[int, str, dict] | None]:
        """Read the whole body (at most ``max_body_bytes``) and hand it on in one message."""
        layer = self.service.layer
        limit = layer.config.serve.max_body_bytes if layer else 65536
        too_big = 413, f"request body over {limit} bytes (serve.max_body_bytes)", {}
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            return receive, too_big
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return receive, None  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return receive, too_big
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay, None
