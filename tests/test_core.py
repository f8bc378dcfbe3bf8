"""The search core as the Python API sees it."""

from __future__ import annotations

import asyncio

import pytest
from loopback import LoopbackServer, Reply

import tamis
from tamis.core import Tamis
from tamis.errors import SearchFailed
from tamis.interfaces.demo import recordings_dir
from tamis.policy.schema import LineConfig
from tamis.settings import load_config


def replay_config():  # type: ignore[no-untyped-def]
    config = load_config(None, overrides={"store": {"url": "memory:"},
                                          "extraction": {"allow_private_hosts": ["127.0.0.1"]}
                                          }).config
    return config.model_copy(update={"backends": [
        LineConfig(name="searxng", type="replay", path=recordings_dir())]})


def test_python_api_search() -> None:
    response = tamis.search("proxmox thin pool metadata exhaustion recovery",
                            config=replay_config(), extract=False, max_results=3)
    assert isinstance(response, tamis.SearchResponse)
    assert [r.rank for r in response.results] == [1, 2, 3]
    assert response.exit_code == 0


def test_sync_api_inside_an_event_loop_says_what_to_use() -> None:
    async def inside() -> None:
        with pytest.raises(SearchFailed, match=r"use `await tamis\.asearch"):
            tamis.search("x", config=replay_config())

    asyncio.run(inside())


def test_no_cookie_is_kept_between_requests() -> None:
    page = "<html><body><article><p>" + "Some words here. " * 40 + "</p></article></body></html>"
    reply = Reply(body=page, content_type="text/html",
                  headers={"Set-Cookie": "tracker=abc123; Path=/"})
    with LoopbackServer(lambda req: reply) as server:
        async def run() -> tuple[int, list[str | None]]:
            async with Tamis(replay_config()) as layer:
                await layer.read(server.url + "/one")
                await layer.read(server.url + "/two")
                return len(layer.client.cookies), [e.header("cookie") for e in server.seen]

        kept, sent = asyncio.run(run())
    assert kept == 0 and sent == [None, None]


def test_budget_override_for_one_search() -> None:
    async def run() -> int:
        async with Tamis(replay_config()) as layer:
            response = await layer.search("proxmox", budget=0)
            return response.extraction.budget

    assert asyncio.run(run()) == 0
