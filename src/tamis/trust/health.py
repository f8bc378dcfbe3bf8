"""Stack health: ask every configured line once, and say what is wrong with it.

Each line is asked one probe query through the real fan-out path (``fan_out`` with the
line's adapter, its key pool and rests, ``cache_ttl`` 0 so it really asks), asking for ONE
result (``max_results=1``) so a paid line spends as little quota as the provider allows.
Every probe goes through the check's one HTTP client, whose response hook
(``record_status``) files each answer under the line whose probe asked (a context variable
set in that probe's own task), so the HTTP statuses each line saw are known exactly.
Reported per line:

- ``reachable``: an answer came back (False: cannot connect; None: not asked or no answer
  within the deadline);
- ``latency`` (seconds) and ``slow`` past a threshold;
- ``auth``: ``ok``, ``refused`` (401/403), ``rate limited`` (429), ``no usable key`` (unset
  or resting), ``not needed`` (keyless), ``not checked``;
- ``shape``: the answer was read (``recognised``) or not (``not recognised``);
- SearXNG: ``json_output`` (``disabled`` when it answers 403) and the engines it reports
  unresponsive or suspended, with its reason ("Suspended: too many requests");
- ``keys``: every key variable by NAME, whether it is set, and whether it rests (until when,
  and why), from the store.

What went wrong is read from the answer's ``LineOutcome`` (its kind, HTTP status, retry),
which the fan-out fills as it asks: never from a note's text.

A line *fails* when it cannot answer (unreachable, timeout, key refused or rate-limited,
JSON output disabled, unreadable answer, no usable key, server error); it *warns* when it
answered but something needs a look (slow, answered only on a retry, no results for the
probe, unresponsive engines, a resting or unset key while another key works).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from tamis.backends.base import Adapter
from tamis.backends.listing import describe_lines
from tamis.backends.registry import adapter_type, make_adapter
from tamis.models import LineAnswer, LineOutcome, SearchRequest
from tamis.pipeline.fanout import FanoutContext, fan_out
from tamis.policy.schema import Config
from tamis.store.base import Store


class EngineTrouble(BaseModel):
    engine: str
    reason: str


class KeyState(BaseModel):
    env: str
    set: bool
    resting_until: str | None = None
    rest_reason: str | None = None


class LineHealth(BaseModel):
    name: str
    type: str
    endpoint: str
    status: str  # ok | empty | failed | timeout | no_key | disabled
    verdict: Literal["ok", "warn", "fail", "skipped"]
    reachable: bool | None = None
    latency: float | None = None
    http_statuses: list[int] = []
    auth: str = "not checked"
    shape: str = "not checked"
    json_output: str | None = None
    unresponsive_engines: list[EngineTrouble] = []
    keys: list[KeyState] = []
    problems: list[str] = []
    warnings: list[str] = []
    notes: list[str] = []


@dataclass
class _Seen:
    """The HTTP statuses and content types one line's client saw."""

    statuses: list[int] = field(default_factory=list)
    types: list[str] = field(default_factory=list)


_PROBING: ContextVar[_Seen | None] = ContextVar("tamis_probing", default=None)


async def record_status(response: httpx.Response) -> None:
    """The check's response hook: the answer's status and type, for the line probing."""
    seen = _PROBING.get()
    if seen is not None:
        seen.statuses.append(response.status_code)
        seen.types.append(response.headers.get("content-type", "").split(";")[0].strip())


async def probe_line(adapter: Adapter, request: SearchRequest, config: Config, *,
                     client: httpx.AsyncClient, store: Store | None,
                     env: Mapping[str, str]) -> tuple[LineAnswer, _Seen]:
    """One line's probe, in a task of its own (``check_lines``): what the client answers
    within it (the fan-out's tasks copy its context) is this line's."""
    seen = _Seen()
    probing = _PROBING.set(seen)
    try:
        ctx = FanoutContext(client=client, store=store, env=env, timeout=config.timeout,
                            cache_ttl=0.0, pool_strategy=config.pool_strategy)
        answers = await fan_out(request, [adapter], ctx)
    finally:
        _PROBING.reset(probing)
    return answers[0], seen


def classify(adapter: Adapter, answer: LineAnswer, seen: _Seen, keys: list[KeyState], *,
             slow: float) -> LineHealth:
    kind = adapter.type
    statuses = seen.statuses
    answered = answer.status in ("ok", "empty")
    outcome = answer.outcome or LineOutcome(  # the fan-out always gives one
        status=answer.status, kind="answered" if answered else "failed")
    health = LineHealth(name=adapter.name, type=kind, endpoint=adapter.endpoint(),
                        status=answer.status, verdict="ok", latency=round(answer.seconds, 3),
                        http_statuses=statuses, keys=keys,
                        notes=[f"{n.kind}: {n.message}" for n in answer.notes])
    # reachable
    if answered or statuses:
        health.reachable = True
    elif answer.status in ("no_key", "timeout") or outcome.kind == "timeout":
        health.reachable = None  # not asked, or no answer in time: unknown
    else:
        health.reachable = False
    # auth
    ok_http = any(200 <= s < 300 for s in statuses)
    if answer.status == "no_key":
        health.auth = "no usable key"
    elif not adapter.key_envs() and not adapter.needs_key():
        health.auth = "not needed"
    elif ok_http or (answered and not adapter.speaks_http):
        health.auth = "ok"
    elif 401 in statuses or (403 in statuses and kind != "searxng"):
        health.auth = "refused"
    elif 429 in statuses:
        health.auth = "rate limited"
    # shape
    unknown = [n.message for n in answer.notes if n.kind == "unknown_shape"]
    if unknown or outcome.kind == "bad_answer":
        health.shape = "not recognised"
    elif answered:
        health.shape = "recognised"
    # SearXNG
    if kind == "searxng":
        if 403 in statuses:
            health.json_output = "disabled"
        elif ok_http and "application/json" in seen.types:
            health.json_output = "enabled"
    health.unresponsive_engines = [
        EngineTrouble(engine=n.source.split(":", 1)[-1], reason=n.message)
        for n in answer.notes if n.kind == "unresponsive_engine"]

    # problems: the line cannot answer
    if health.json_output == "disabled":
        health.problems.append("JSON output disabled: enable `json` in search.formats of"
                               " SearXNG's settings.yml")
    elif answer.status == "timeout":
        health.problems.append(f"no answer within {answer.seconds:.1f} s (timeout)")
    elif not answered:
        label = {"no_key": "no usable key", "failed": "failed"}.get(answer.status,
                                                                     answer.status)
        if health.reachable is False:
            label = "unreachable"
        elif health.auth == "refused":
            label = "key refused"
        elif health.auth == "rate limited":
            label = "rate limited"
        elif health.shape == "not recognised":
            label = "answer shape not recognised"
        health.problems.append(f"{label}: " + (outcome.message or answer.status))
    elif unknown:
        health.problems.append("answer shape not recognised: " + "; ".join(unknown))

    # warnings: it answered, but look
    if answered and health.latency is not None and health.latency > slow:
        health.warnings.append(f"slow: answered in {health.latency:.2f} s (over {slow:g} s)")
    if outcome.retried_after is not None:
        health.warnings.append(f"answered only on a retry: {outcome.retried_after}")
    if answer.status == "empty" and not unknown:
        health.warnings.append("answered no results to the probe query")
    for trouble in health.unresponsive_engines:
        health.warnings.append(f"engine {trouble.engine} unresponsive: {trouble.reason}")
    if answered or answer.status != "no_key":
        for key in keys:
            if key.resting_until:
                why = f" after {key.rest_reason}" if key.rest_reason else ""
                health.warnings.append(f"key {key.env} rests until {key.resting_until}{why}")
            elif not key.set:
                health.warnings.append(f"key {key.env} is not set")
    health.verdict = "fail" if health.problems else ("warn" if health.warnings else "ok")
    return health


async def check_lines(config: Config, *, client: httpx.AsyncClient, store: Store | None,
                      env: Mapping[str, str], probe: str, slow: float) -> list[LineHealth]:
    """Ask every enabled line once, concurrently; one ``LineHealth`` per line, config order.
    ``client``: made with ``record_status`` among its response hooks.

    Raises ConfigError when a line cannot be built (unknown type...).
    """
    request = SearchRequest(query=probe, max_results=1)
    adapters = {line.name: make_adapter(line, max_results=1, max_chars=config.max_chars,
                                        pool_strategy=config.pool_strategy)
                for line in config.backends}
    enabled = [adapters[line.name] for line in config.backends if line.enabled]
    probed = await asyncio.gather(*(probe_line(a, request, config, client=client,
                                               store=store, env=env) for a in enabled))
    results = {a.name: r for a, r in zip(enabled, probed, strict=True)}
    listing: dict[str, dict[str, Any]] = {
        info["name"]: info for info in describe_lines(config, store, env)}
    out: list[LineHealth] = []
    for line in config.backends:
        adapter = adapters[line.name]
        keys = [KeyState(**k) for k in listing[line.name]["keys"]]
        if not line.enabled:
            out.append(LineHealth(name=line.name, type=adapter_type(line),
                                  endpoint=adapter.endpoint(), status="disabled",
                                  verdict="skipped", keys=keys))
            continue
        answer, seen = results[line.name]
        out.append(classify(adapter, answer, seen, keys, slow=slow))
    return out
