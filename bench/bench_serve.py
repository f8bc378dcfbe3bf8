"""Load-test `tamis serve` with fake backends on loopback: bounded in count and time.

    python bench/bench_serve.py [--requests 400] [--concurrency 16]

Three fake lines (two SearXNG instances and a Tavily-shaped API with one key) answer after
20-80 ms; each fails at random (HTTP 500) on 20% of requests. A keyless line retries once; a
failing key rests (a sole key for one minute), so the Tavily line is mostly resting. Half
the queries repeat (served from the cache), half are new. Prints requests per second, p50
and p99 latency, and the requests that got no valid answer (goal: zero; a valid answer is
HTTP 200 with results).
Everything runs on 127.0.0.1; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from fake_searxng import FakeSearXNG, recorded
from loopback import LoopbackServer, Reply, Request, free_port

FAILURE_RATE = 0.2
_rng = random.Random(11)
_lock = threading.Lock()


def chance() -> float:
    with _lock:
        return _rng.random()


def flaky_searxng(req: Request) -> Reply:
    if chance() < FAILURE_RATE:
        return Reply(500, "boom", content_type="text/plain")
    reply = FakeSearXNG()(req)
    reply.delay = 0.02 + 0.06 * chance()
    if req.arg("q").startswith("fresh"):  # new queries: answer with the recorded results
        answer = recorded("proxmox thin pool metadata exhaustion recovery")
        answer["query"] = req.arg("q")
        reply.body = json.dumps(answer)
    return reply


def flaky_tavily(req: Request) -> Reply:
    if chance() < FAILURE_RATE:
        return Reply(500, json.dumps({"detail": {"error": "upstream"}}))
    query = json.loads(req.body or b"{}").get("query", "")
    results = [{"title": f"{query} result {i}", "url": f"https://forum.example.org/t/{i}",
                "content": f"about {query}"} for i in range(5)]
    return Reply(body=json.dumps({"query": query, "results": results}),
                 delay=0.02 + 0.06 * chance())


async def load(url: str, total: int, concurrency: int) -> tuple[list[float], int, float]:
    queries = [("proxmox thin pool metadata exhaustion recovery" if i % 2 == 0
                else f"fresh query number {i}") for i in range(total)]
    latencies: list[float] = []
    invalid = 0
    sem = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=30) as client:
        async def one(q: str) -> None:
            nonlocal invalid
            async with sem:
                start = time.perf_counter()
                try:
                    r = await client.get(url + "/v1/search", params={"q": q, "extract": "false"})
                    ok = r.status_code == 200 and r.json()["returned_count"] > 0
                except (httpx.HTTPError, ValueError, KeyError):
                    ok = False
                latencies.append(time.perf_counter() - start)
                invalid += not ok

        begin = time.perf_counter()
        await asyncio.gather(*(one(q) for q in queries))
        wall = time.perf_counter() - begin
    return latencies, invalid, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    with LoopbackServer(flaky_searxng) as searxng, LoopbackServer(flaky_searxng) as mirror, \
            LoopbackServer(flaky_tavily) as tavily, tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "tamis.yaml"
        config.write_text(
            "backends:\n"
            f"  - name: searxng\n    base_url: {searxng.url}\n"
            f"  - name: searxng-mirror\n    type: searxng\n    base_url: {mirror.url}\n"
            f"  - name: tavily\n    base_url: {tavily.url}\n    api_key_env: BENCH_TAVILY_KEY\n"
            f"store: {{url: '{Path(tmp) / 'store.sqlite3'}'}}\n"
            f"serve: {{max_concurrency: {args.concurrency * 2}}}\n")
        port = free_port()
        env = {**os.environ, "BENCH_TAVILY_KEY": "bench-key-not-secret"}
        proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve",
                                 "--port", str(port), "--config", str(config)], env=env,
                                stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    httpx.get(url + "/healthz", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            latencies, invalid, wall = asyncio.run(load(url, args.requests, args.concurrency))
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"{args.requests} requests, concurrency {args.concurrency}, half cached, backends"
          f" failing {FAILURE_RATE:.0%} at random")
    print(f"throughput: {args.requests / wall:.0f} requests/s ({wall:.1f} s)")
    print(f"latency: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")
    print(f"requests without a valid answer: {invalid} (goal 0)")


if __name__ == "__main__":
    main()
