"""Fan-out: ask every line at once, under one deadline, and collect what each answered.

Input: a ``SearchRequest`` and the adapters. Output: one ``LineAnswer`` per line, in config
order, whatever order they finished in. A line that has not answered by the deadline is
reported as ``timeout``; a line that failed is reported with a note; neither stops the rest.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx

from tamis.backends.base import Adapter, AnswerError, Parsed
from tamis.models import LineAnswer, Note, SearchRequest
from tamis.store.base import Store

USER_AGENT = "tamis/0.1 (search layer for AI agents; +https://github.com/tamis-search/tamis)"


@dataclass
class FanoutContext:
    client: httpx.AsyncClient
    store: Store | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    timeout: float = 10.0
    cache_ttl: float = 0.0


def scrub(text: str, secrets: list[str]) -> str:
    """Remove every secret from a message before it is shown anywhere."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


async def _ask_http(adapter: Adapter, request: SearchRequest, ctx: FanoutContext) -> Parsed:
    keys = [ctx.env.get(name, "") for name in adapter.key_envs()]
    usable = [k for k in keys if k]
    if adapter.key_envs() and not usable and adapter.supports.key == "required":
        names = ", ".join(adapter.key_envs())
        raise AnswerError(f"no usable key: set {names}")
    key = usable[0] if usable else None
    spec = adapter.build_request(request, key)
    try:
        response = await ctx.client.request(
            spec.method, spec.url, params=spec.params, json=spec.json, headers=spec.headers
        )
    except httpx.TimeoutException:
        raise AnswerError("timed out") from None
    except httpx.HTTPError as exc:
        raise AnswerError(f"cannot connect: {type(exc).__name__}") from None
    adapter.check_status(response)
    try:
        payload = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        kind = response.headers.get("content-type", "unknown type").split(";")[0]
        raise AnswerError(f"answered {kind}, not JSON") from None
    return adapter.parse(payload, request)


async def ask_line(adapter: Adapter, order: int, request: SearchRequest,
                   ctx: FanoutContext) -> LineAnswer:
    """Ask one line; never raises: every failure becomes a status and a note."""
    start = time.perf_counter()
    secrets = [ctx.env.get(name, "") for name in adapter.key_envs()]
    base = {"line": adapter.name, "order": order, "required": adapter.line.required,
            "weight": adapter.line.weight}
    try:
        if adapter.speaks_http:
            parsed = await _ask_http(adapter, request, ctx)
        else:
            parsed = await adapter.fetch(request)
    except AnswerError as exc:
        message = scrub(str(exc), secrets)
        status = "no_key" if message.startswith("no usable key") else "failed"
        return LineAnswer(**base, status=status, seconds=time.perf_counter() - start,
                          notes=[Note(source=adapter.name, kind="line_failed", message=message)])
    except Exception as exc:  # an adapter bug must not take the search down
        message = scrub(f"unexpected {type(exc).__name__}: {exc}", secrets)
        return LineAnswer(**base, status="failed", seconds=time.perf_counter() - start,
                          notes=[Note(source=adapter.name, kind="line_failed", message=message)])
    status = "ok" if parsed.hits else "empty"
    notes = list(parsed.notes)
    if not parsed.hits:
        notes.append(Note(source=adapter.name, kind="line_empty", message="no results"))
    return LineAnswer(**base, status=status, hits=parsed.hits, notes=notes,
                      seconds=time.perf_counter() - start)


async def fan_out(request: SearchRequest, adapters: list[Adapter],
                  ctx: FanoutContext) -> list[LineAnswer]:
    """Ask every line concurrently; return their answers in config order."""
    tasks = [asyncio.create_task(ask_line(a, i, request, ctx)) for i, a in enumerate(adapters)]
    if not tasks:
        return []
    done, pending = await asyncio.wait(tasks, timeout=ctx.timeout)
    for task in pending:
        task.cancel()
    answers: list[LineAnswer] = []
    for order, (adapter, task) in enumerate(zip(adapters, tasks, strict=True)):
        if task in done:
            answers.append(task.result())
        else:
            answers.append(LineAnswer(
                line=adapter.name, order=order, status="timeout", seconds=ctx.timeout,
                required=adapter.line.required, weight=adapter.line.weight,
                notes=[Note(source=adapter.name, kind="line_timeout",
                            message=f"no answer within the {ctx.timeout:g} s deadline")]))
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    return answers
