"""Benchmark the fan-out: wall time against the sum of line latencies, and a cached repeat.

    python bench/bench_fanout.py [--rounds 10]

Five loopback fake lines (HTTP servers on 127.0.0.1, in the shape of the generic
``results[]`` answer) answer after 100, 150, 200, 250 and 300 ms. Asked one after another
they would take the sum (1,000 ms); asked concurrently the fan-out should take the slowest
line plus a little (goal: under 15 ms of overhead). The cached repeat asks the same query
again with the SQLite store and a TTL: no line is asked.

Also times a whole search through ``tamis.core.Tamis`` (merge, filter, rank; no extraction)
for a cached query, when the core is present. Prints figures; asserts nothing (shared,
noisy machines).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from loopback import LoopbackServer, Reply

from tamis.backends.registry import make_adapters
from tamis.models import SearchRequest
from tamis.pipeline.fanout import FanoutContext, fan_out
from tamis.policy.schema import Config, LineConfig
from tamis.store.sqlite import SQLiteStore

LATENCIES_MS = [100, 150, 200, 250, 300]


def answer(line: int, n: int = 8) -> dict:
    return {"results": [{"title": f"Result {i} of line {line}",
                         "url": f"https://site{(i + line) % 11}.example/page/{i}",
                         "content": f"snippet {i} " * 20} for i in range(1, n + 1)]}


def config_for(server: LoopbackServer) -> Config:
    lines = [LineConfig(name=f"line{i}", base_url=server.url, search_path=f"/line{i}")
             for i in range(len(LATENCIES_MS))]
    return Config(backends=lines, timeout=5)


async def run(rounds: int) -> None:
    with LoopbackServer() as server, tempfile.TemporaryDirectory() as tmp:
        for i, ms in enumerate(LATENCIES_MS):
            server.route(f"/line{i}", Reply(json=answer(i), delay=ms / 1000))
        config = config_for(server)
        adapters = make_adapters(config)
        store = SQLiteStore(Path(tmp) / "bench.sqlite3")
        async with httpx.AsyncClient() as client:
            # Warm the connection pool once (a first connection costs more than a request).
            ctx = FanoutContext(client=client, store=store, env={}, timeout=config.timeout)
            await fan_out(SearchRequest(query="warm-up"), adapters, ctx)

            walls = []
            for r in range(rounds):
                start = time.perf_counter()
                answers = await fan_out(SearchRequest(query=f"uncached {r}"), adapters, ctx)
                walls.append(time.perf_counter() - start)
                assert all(a.status == "ok" for a in answers), answers
            slowest = max(LATENCIES_MS) / 1000
            total = sum(LATENCIES_MS) / 1000
            med = statistics.median(walls)
            print(f"lines: {len(LATENCIES_MS)} loopback, latencies {LATENCIES_MS} ms")
            print(f"sum of latencies (sequential):   {total * 1000:8.1f} ms")
            print(f"slowest line:                    {slowest * 1000:8.1f} ms")
            print(f"fan-out wall, median of {rounds:>2}:     {med * 1000:8.1f} ms"
                  f"  (min {min(walls) * 1000:.1f}, max {max(walls) * 1000:.1f})")
            print(f"overhead over the slowest line:  {(med - slowest) * 1000:8.1f} ms"
                  f"  (goal < 15 ms); speed-up over sequential x{total / med:.2f}")

            cached_ctx = FanoutContext(client=client, store=store, env={},
                                       timeout=config.timeout, cache_ttl=300)
            await fan_out(SearchRequest(query="cached query"), adapters, cached_ctx)
            asked = len(server.seen)
            hits = []
            for _ in range(rounds):
                start = time.perf_counter()
                answers = await fan_out(SearchRequest(query="cached query"), adapters,
                                        cached_ctx)
                hits.append(time.perf_counter() - start)
                assert all(a.cached for a in answers)
            assert len(server.seen) == asked, "a cached repeat asked a line"
            print(f"cached repeat fan-out, median:   {statistics.median(hits) * 1000:8.2f} ms"
                  f"  (5 lines from SQLite, no line asked)")

        try:
            from tamis.core import Tamis
        except ImportError:  # pragma: no cover - the core is written in parallel
            print("tamis.core not available: whole-search figure skipped")
        else:
            full_config = config.model_copy(update={
                "cache": config.cache.model_copy(update={"ttl_seconds": 300})})
            async with Tamis(full_config, store=store, env={}) as tamis:
                await tamis.search("end to end", extract=False)
                asked = len(server.seen)
                times = []
                for _ in range(rounds):
                    start = time.perf_counter()
                    response = await tamis.search("end to end", extract=False)
                    times.append(time.perf_counter() - start)
                assert len(server.seen) == asked
                print(f"cached repeat whole search:      {statistics.median(times) * 1000:8.2f} ms"
                      f"  (fan-out + merge/filter/rank of {response.raw_result_count} raw"
                      " results, no extraction)")
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(run(args.rounds))


if __name__ == "__main__":
    main()
