"""Key rests, round-robin turns and cached answers outlive the process: a second, real
process using the same store (SQLite file or Redis) sees them. Same test on both stores."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from loopback import LoopbackServer, Reply, Seen

from tamis.backends.registry import make_adapters
from tamis.models import LineAnswer, SearchRequest
from tamis.pipeline.fanout import FanoutContext, fan_out
from tamis.policy.schema import Config, LineConfig
from tamis.store.base import open_store

KEYS = {"SHARED_KEY_A": "shared-secret-aaaa", "SHARED_KEY_B": "shared-secret-bbbb",
        "SHARED_KEY_C": "shared-secret-cccc"}
BY_VALUE = {v: k for k, v in KEYS.items()}
OK = {"results": [{"title": "T", "url": "https://t.example/", "content": "c"}]}

CHILD = textwrap.dedent("""
    import asyncio, json, os, sys
    import httpx
    from tamis.backends.listing import describe_lines
    from tamis.backends.registry import make_adapters
    from tamis.models import SearchRequest
    from tamis.pipeline.fanout import FanoutContext, fan_out
    from tamis.policy.schema import Config
    from tamis.store.base import open_store

    store_url, config_json = sys.argv[1], sys.argv[2]
    config = Config.model_validate_json(config_json)
    store = open_store(store_url)

    async def main():
        async with httpx.AsyncClient() as client:
            ctx = FanoutContext(client=client, store=store, env=os.environ, cache_ttl=60)
            out = []
            for query in ("fresh", "cached"):
                answers = await fan_out(SearchRequest(query=query), make_adapters(config), ctx)
                out.append([a.model_dump(mode="json") for a in answers])
            return out

    runs = asyncio.run(main())
    print(json.dumps({"runs": runs, "lines": describe_lines(config, store, os.environ)}))
    store.close()
""")


def route_by_key(status_by_env: dict[str, int]) -> Any:
    def reply(seen: Seen) -> Reply:
        env = BY_VALUE.get((seen.header("authorization") or "").removeprefix("Bearer "), "")
        status = status_by_env.get(env, 200)
        return Reply(status=status, json=OK if status == 200 else {})

    return reply


def keys_used(server: LoopbackServer, path: str) -> list[str]:
    return [BY_VALUE.get((s.header("authorization") or "").removeprefix("Bearer "), "?")
            for s in server.requests_to(path)]


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.needs_program)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "shared.sqlite3")
    else:
        yield request.getfixturevalue("redis_store_url")


def test_rests_rotation_and_cache_are_seen_by_a_second_process(store_url: str, tmp_path: Path):
    with LoopbackServer() as server:
        server.route("/search", route_by_key({"SHARED_KEY_A": 429}))
        server.route("/rr", route_by_key({}))
        config = Config(backends=[
            LineConfig(name="pooled", type="tavily", base_url=server.url,
                       credentials=["SHARED_KEY_A", "SHARED_KEY_B"]),
            LineConfig(name="rotating", type="tavily", base_url=server.url, search_path="/rr",
                       credentials=["SHARED_KEY_A", "SHARED_KEY_B", "SHARED_KEY_C"],
                       pool_strategy="round_robin"),
        ])

        # Process 1 (this one): A gets 429 and rests; B answers; rotation turn 0 uses A.
        store = open_store(store_url)

        async def parent(query: str) -> list[LineAnswer]:
            async with httpx.AsyncClient() as client:
                ctx = FanoutContext(client=client, store=store, env=KEYS, cache_ttl=60)
                return await fan_out(SearchRequest(query=query), make_adapters(config), ctx)

        answers = asyncio.run(parent("first"))
        assert [a.status for a in answers] == ["ok", "ok"]
        assert keys_used(server, "/search") == ["SHARED_KEY_A", "SHARED_KEY_B"]
        assert keys_used(server, "/rr") == ["SHARED_KEY_A"]
        asyncio.run(parent("cached"))  # fills the cache for the query "cached"
        assert keys_used(server, "/rr") == ["SHARED_KEY_A", "SHARED_KEY_B"]
        store.close()
        server.clear()

        # Process 2: a real subprocess with the same store and keys.
        script = tmp_path / "child.py"
        script.write_text(CHILD)
        env = {**os.environ, **KEYS}
        done = subprocess.run([sys.executable, str(script), store_url,
                               config.model_dump_json()],
                              env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        for value in KEYS.values():
            assert value not in done.stdout and value not in done.stderr
        child = json.loads(done.stdout)

    first, cached = child["runs"]
    # The rest written by process 1 holds in process 2: A is never tried, B answers at once.
    assert keys_used(server, "/search") == ["SHARED_KEY_B"]
    assert first[0]["status"] == "ok" and first[0]["notes"] == []
    # The rotation continues where process 1 left it: turn 2 -> C.
    assert keys_used(server, "/rr") == ["SHARED_KEY_C"]
    # The answers process 1 cached for "cached" are served without asking.
    assert [a["cached"] for a in cached] == [True, True]
    assert [a["status"] for a in cached] == ["ok", "ok"]
    # And the listing in process 2 shows the rest, with its end time.
    pooled = child["lines"][0]
    assert [(k["env"], k["set"], bool(k["resting_until"])) for k in pooled["keys"]] == [
        ("SHARED_KEY_A", True, True), ("SHARED_KEY_B", True, False)]
    assert pooled["keys"][0]["rest_reason"].startswith("HTTP 429")
