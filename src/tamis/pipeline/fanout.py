"""Fan-out: ask every line at once, under one deadline, and collect what each answered.

Input: a ``SearchRequest`` and the adapters. Output: one ``LineAnswer`` per line, in config
order, whatever order they finished in. Every line is asked concurrently (one asyncio task
each, one shared ``httpx.AsyncClient``; blocking libraries run in a thread). One deadline
(``FanoutContext.timeout``) holds for the whole fan-out: a line that has not answered by
then is reported as ``timeout`` with a note, and the answers of the others are kept. A line
that failed is reported with a note; no line stops the rest.

Per line, in order:

1. Cache: the parsed answer of the same (line settings including ``params``, adapter
   type, endpoint, query, parameters, count) within ``cache_ttl`` seconds is returned
   without asking (``cached: true``).
   Only ok and empty answers are cached, never failures. ``cache_ttl`` 0 disables it.
   An answer older than ``cache_ttl`` but younger than ``STALE_SECONDS`` is kept aside: when
   the line then fails or misses the deadline, that stale answer is used instead, with a
   note saying how old it is (stale-if-error).
2. Keys: the line's key pool (``tamis.backends.keys``) gives the usable keys in strategy
   order; none usable -> status ``no_key`` with a note naming the variables (and until
   when they rest). A key that fails with 401/403/429/5xx or a connection error rests and
   the request fails over to the next key, inside the same request. A line with no key
   retries once after a transient failure (5xx, connection error) when the deadline allows.
3. Read: the body is streamed and decoded chunk by chunk, and refused past
   ``MAX_ANSWER_BYTES`` (8 MB) after decompression (``fanout_read``), so a huge answer or a
   gzip bomb costs a few chunks of memory, not gigabytes; the deadline holds while reading.
   httpx's errors are mapped here, once, to the line's note (``http_failure``).
4. Parse: the adapter reads the answer into hits with provenance labels; every string of
   it is made UTF-8-encodable (lone surrogates become U+FFFD) before it is cached or used.

Secrets: keys travel only in request headers. Every message that reaches a note, a log or
an exception text is scrubbed of the key values and of URL query strings, and request
headers are never logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import httpx

from tamis.backends.base import Adapter, AnswerError, Parsed
from tamis.backends.keys import Key, KeyPool, format_until
from tamis.errors import NoUsableKey
from tamis.http_client import USER_AGENT  # re-exported: the stages import it from here
from tamis.models import LineAnswer, LineOutcome, Note, RawHit, SearchRequest
from tamis.pipeline.fanout_read import (  # MAX_ANSWER_BYTES: the size tests read it here
    MAX_ANSWER_BYTES,
    error_answer,
    read_capped,
)
from tamis.pipeline.fanout_store import (
    Cached,
    GuardedStore,
    cache_key,
    cache_read,
    cache_write,
    describe_error,
    stale_note,
)
from tamis.policy.defaults import TIMEOUT
from tamis.redact import scrub, secret_forms  # scrub re-exported: the stages import it here
from tamis.store.base import MemoryStore, Store

RETRY_AFTER = 0.15       # pause before a keyless line's one retry
RETRY_MIN_LEFT = 0.5     # retry only with at least this much of the deadline left

log = logging.getLogger("tamis.fanout")

# Key rests when the caller gives no store: they still hold for the life of the process.
_PROCESS_STORE = MemoryStore()


@dataclass
class FanoutContext:
    """What the fan-out needs besides the request and the adapters.

    ``pool_strategy`` is the section-level default, used when neither the line nor
    ``make_adapter`` set one. ``now`` and ``rng`` are for tests.
    """

    client: httpx.AsyncClient
    store: Store | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    timeout: float = TIMEOUT
    cache_ttl: float = 0.0
    pool_strategy: str = "fill_first"
    now: Callable[[], float] = time.time
    rng: random.Random | None = None
    max_answer_bytes: int = MAX_ANSWER_BYTES


# -- one line ------------------------------------------------------------------------------------
@dataclass
class _Run:
    """What one line's task has gathered so far (kept even if the deadline cuts it)."""

    notes: list[Note] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    stale: Cached | None = None
    key_rested: bool = False
    retried_after: str | None = None


def _remaining(deadline: float | None) -> float | None:
    if deadline is None:
        return None
    return max(0.05, deadline - asyncio.get_running_loop().time())


async def _request_once(adapter: Adapter, request: SearchRequest, ctx: FanoutContext,
                        key: Key | None, deadline: float | None, run: _Run) -> Parsed:
    spec = adapter.build_request(request, key.value if key else None)
    headers = {"User-Agent": USER_AGENT, **spec.headers}
    remaining = _remaining(deadline)
    timeout = httpx.Timeout(remaining) if remaining is not None else httpx.USE_CLIENT_DEFAULT
    try:
        async with ctx.client.stream(spec.method, spec.url, params=spec.params,
                                     json=spec.json, headers=headers,
                                     timeout=timeout) as response:
            if response.status_code >= 400:  # the adapter may read the error's own words
                adapter.check_status(await error_answer(response))
            adapter.check_status(response)
            body = await read_capped(response, ctx.max_answer_bytes)
    except httpx.HTTPError as exc:
        raise http_failure(exc, run.secrets) from None
    try:
        payload = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        kind = response.headers.get("content-type", "unknown type").split(";")[0]
        raise AnswerError(f"answered {kind}, not JSON", kind="bad_answer") from None
    try:
        return adapter.parse(payload, request)
    except AnswerError as exc:  # an answer the adapter cannot read: its shape
        exc.kind = exc.kind or "bad_answer"
        raise


def http_failure(exc: httpx.HTTPError, secrets: list[str]) -> AnswerError:
    """The one map from httpx's error tree to a line's failure: its kind, whether the key
    rests, and a note in httpx's words with every form of the keys scrubbed out."""
    if isinstance(exc, httpx.TimeoutException):
        return AnswerError(f"timed out ({type(exc).__name__})", kind="timeout",
                           rest_key=isinstance(exc, httpx.ConnectTimeout))
    said = describe_error(exc, secrets)
    if isinstance(exc, httpx.UnsupportedProtocol):  # a config mistake, not the key's fault
        return AnswerError(f"bad endpoint: {said}", kind="bad_endpoint")
    if isinstance(exc, httpx.DecodingError):
        return AnswerError(f"unreadable answer: {said}", kind="unreadable")
    if isinstance(exc, httpx.TransportError):
        return AnswerError(f"cannot connect: {said}", rest_key=True, kind="unreachable")
    return AnswerError(f"request failed: {said}", kind="failed")


async def _keyless(adapter: Adapter, request: SearchRequest, ctx: FanoutContext,
                   deadline: float | None, run: _Run) -> Parsed:
    """A line without a key: one retry after a transient failure, deadline permitting."""
    try:
        return await _request_once(adapter, request, ctx, None, deadline, run)
    except AnswerError as exc:
        left = _remaining(deadline)
        # Only a server error (5xx) or a connection error is worth one more try; a refusal
        # (401, 403) or a rate limit (429) would only be refused again.
        transient = exc.rest_key and (exc.status is None or exc.status >= 500)
        if not transient or (left is not None and left < RETRY_MIN_LEFT + RETRY_AFTER):
            raise
        await asyncio.sleep(RETRY_AFTER)
        try:
            parsed = await _request_once(adapter, request, ctx, None, deadline, run)
        except AnswerError as again:
            raise AnswerError(f"{again} (after one retry)", rest_key=again.rest_key,
                              status=again.status, kind=again.kind) from None
        run.retried_after = str(exc)
        run.notes.append(Note(source=adapter.name, kind="info",
                              message=f"answered on a retry after: {exc}"))
        return parsed


async def _ask_http(adapter: Adapter, request: SearchRequest, ctx: FanoutContext,
                    store: GuardedStore, deadline: float | None, run: _Run) -> Parsed:
    envs = adapter.key_envs()
    if not envs:
        return await _keyless(adapter, request, ctx, deadline, run)
    pool = KeyPool(adapter.name, envs, adapter.pool_strategy or ctx.pool_strategy,
                   store=store, env=ctx.env, now=ctx.now, rng=ctx.rng)
    candidates = pool.candidates()
    if not candidates:
        if adapter.needs_key():
            raise NoUsableKey(pool.explain_unusable())
        return await _keyless(adapter, request, ctx, deadline, run)
    last: AnswerError | None = None
    for attempt, key in enumerate(candidates, start=1):
        try:
            return await _request_once(adapter, request, ctx, key, deadline, run)
        except AnswerError as exc:
            if not exc.rest_key:
                raise
            rest = pool.rest(key, status=exc.status, reason=scrub(str(exc), run.secrets))
            run.key_rested = True
            more = attempt < len(candidates)
            run.notes.append(Note(
                source=adapter.name, kind="key_rested",
                message=f"{key.env} rests until {format_until(rest.until)} after {exc}"
                        + ("; trying the next key" if more else "")))
            log.info("line %s: key %s rests until %s", adapter.name, key.env,
                     format_until(rest.until))
            last = exc
    assert last is not None
    if len(candidates) == 1:
        raise last
    raise AnswerError(f"all {len(candidates)} usable keys failed; last: {last}",
                      status=last.status, kind=last.kind)


class Failure(NamedTuple):
    """Why a line's ask failed, as the ``LineOutcome`` will say it."""

    kind: str
    message: str
    http_status: int | None = None


def outcome(status: str, seconds: float, run: _Run, failure: Failure | None) -> LineOutcome:
    """The line's ``LineOutcome``: its status, and what went wrong (``failure``), if it did."""
    return LineOutcome(
        status=status,  # type: ignore[arg-type]
        kind=failure.kind if failure else "answered",  # type: ignore[arg-type]
        http_status=failure.http_status if failure else None, seconds=seconds,
        key_rested=run.key_rested, retried_after=run.retried_after,
        message=failure.message if failure else "")


async def ask_line(adapter: Adapter, order: int, request: SearchRequest,
                   ctx: FanoutContext, *, deadline: float | None = None,
                   run: _Run | None = None) -> LineAnswer:
    """Ask one line; never raises: every failure becomes a status and a note."""
    start = time.perf_counter()
    run = run if run is not None else _Run()
    run.secrets = [ctx.env.get(name, "") for name in adapter.key_envs()]
    run.secrets = [s for s in run.secrets if s]
    store = GuardedStore(ctx.store if ctx.store is not None else _PROCESS_STORE, run.secrets)
    base: dict[str, Any] = {"line": adapter.name, "order": order,
                            "required": adapter.line.required, "weight": adapter.line.weight}

    def answer(status: str, hits: list[RawHit] | None = None, *, cached: bool = False,
               extra: list[Note] | None = None, failure: Failure | None = None
               ) -> LineAnswer:
        notes = [*run.notes, *(extra or [])]
        if store.error:
            notes.append(Note(source=adapter.name, kind="info",
                              message=f"store unavailable ({store.error}): cache and key"
                                      " rests not used for this answer"))
        seconds = time.perf_counter() - start
        log.debug("line %s: %s in %.3f s (%d hits%s)", adapter.name, status, seconds,
                  len(hits or []), ", cached" if cached else "")
        return LineAnswer(**base, status=status, hits=hits or [], notes=notes,
                          seconds=seconds, cached=cached,
                          outcome=outcome(status, seconds, run, failure))

    use_cache = adapter.cacheable and ctx.store is not None and ctx.cache_ttl > 0
    key = ""
    if use_cache:
        try:
            key = cache_key(adapter, request)
        except AnswerError:  # no endpoint: the line fails below with a clear note
            use_cache = False
    if use_cache:
        hit = cache_read(store, key, ctx.now())
        if hit is not None and hit.age <= ctx.cache_ttl:
            return answer(hit.status, hit.hits, cached=True, extra=hit.notes)
        run.stale = hit

    def stale_or(status: str, note: Note, failure: Failure) -> LineAnswer:
        if run.stale is not None:
            why = "has no usable key" if status == "no_key" else "failed"
            return answer(run.stale.status, run.stale.hits, cached=True, failure=failure,
                          extra=[note, stale_note(adapter.name, run.stale, why)])
        return answer(status, extra=[note], failure=failure)

    try:
        if adapter.speaks_http:
            parsed = await _ask_http(adapter, request, ctx, store, deadline, run)
        else:
            parsed = await adapter.fetch(request)
    except NoUsableKey as exc:
        message = scrub(str(exc), run.secrets)
        return stale_or("no_key", Note(source=adapter.name, kind="no_usable_key",
                                       message=message), Failure("no_key", message))
    except AnswerError as exc:
        message = scrub(str(exc), run.secrets)
        kind = exc.kind or ("http_error" if exc.status else "failed")
        return stale_or("failed", Note(source=adapter.name, kind="line_failed",
                                       message=message), Failure(kind, message, exc.status))
    except Exception as exc:  # an adapter bug must not take the search down
        message = f"unexpected {describe_error(exc, run.secrets)}"
        return stale_or("failed", Note(source=adapter.name, kind="line_failed",
                                       message=message), Failure("unexpected", message))
    if run.secrets:  # a backend that echoes the request back: its key is no result
        echoed = [h for h in parsed.hits
                  if any(f in f"{h.url} {h.title} {h.snippet}" for s in run.secrets
                         for f in secret_forms(s))]
        parsed.hits = [h for h in parsed.hits if h not in echoed]
        parsed.notes += [Note(source=adapter.name, kind="skipped_hit", message=f"{len(echoed)}"
                              " result(s) holding this line's key were dropped")] if echoed else []
    if use_cache:
        cache_write(store, key, parsed, ctx.cache_ttl, ctx.now())
    extra = list(parsed.notes)
    if not parsed.hits:
        extra.append(Note(source=adapter.name, kind="line_empty", message="no results"))
    return answer("ok" if parsed.hits else "empty", parsed.hits, extra=extra)


async def fan_out(request: SearchRequest, adapters: list[Adapter],
                  ctx: FanoutContext) -> list[LineAnswer]:
    """Ask every line concurrently; return their answers in config order."""
    if not adapters:
        return []
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + ctx.timeout
    runs = [_Run() for _ in adapters]
    tasks = [asyncio.create_task(ask_line(a, i, request, ctx, deadline=deadline, run=r),
                                 name=f"tamis-line-{a.name}")
             for i, (a, r) in enumerate(zip(adapters, runs, strict=True))]
    done, pending = await asyncio.wait(tasks, timeout=ctx.timeout)
    for task in pending:
        task.cancel()
    elapsed = loop.time() - started
    answers: list[LineAnswer] = []
    for order, (adapter, task, run) in enumerate(zip(adapters, tasks, runs, strict=True)):
        if task in done:
            answers.append(task.result())
            continue
        log.info("line %s: no answer within the %g s deadline", adapter.name, ctx.timeout)
        late = Note(source=adapter.name, kind="line_timeout",
                    message=f"no answer within the {ctx.timeout:g} s deadline; the other"
                            " lines' answers are kept")
        missed = Failure("deadline", late.message)
        status, hits, notes = "timeout", [], [*run.notes, late]
        if run.stale is not None:
            status, hits = run.stale.status, run.stale.hits
            notes.append(stale_note(adapter.name, run.stale, "missed the deadline"))
        answers.append(LineAnswer(
            line=adapter.name, order=order, status=status, hits=hits,
            cached=run.stale is not None, seconds=elapsed, required=adapter.line.required,
            weight=adapter.line.weight, notes=notes,
            outcome=outcome(status, elapsed, run, missed)))
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    return answers
