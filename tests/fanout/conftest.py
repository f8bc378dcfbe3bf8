"""Fixtures for fan-out tests: a loopback server and a one-call fan-out runner."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx
import pytest

from tamis.backends.base import Adapter
from tamis.backends.loopback import LoopbackServer
from tamis.models import LineAnswer, SearchRequest
from tamis.pipeline.fanout import FanoutContext, fan_out
from tamis.store.base import MemoryStore


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


Runner = Callable[..., list[LineAnswer]]


@pytest.fixture
def run() -> Runner:
    """``run(adapters, query_or_request, env=..., **ctx)`` -> LineAnswers (a fresh store)."""

    def _run(adapters: list[Adapter], request: SearchRequest | str = "q",
             env: Mapping[str, str] | None = None, **ctx: Any) -> list[LineAnswer]:
        req = SearchRequest(query=request) if isinstance(request, str) else request

        async def main() -> list[LineAnswer]:
            async with httpx.AsyncClient() as client:
                context = FanoutContext(client=client, env=dict(env or {}),
                                        store=ctx.pop("store", MemoryStore()), **ctx)
                return await fan_out(req, adapters, context)

        return asyncio.run(main())

    return _run
