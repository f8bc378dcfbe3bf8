"""Replicas: two `tamis serve` processes share key rests and the answer cache through one
real redis-server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from loopback import LoopbackServer, Reply, Request, free_port

KEY_A, KEY_B = "replica-test-key-aaaa", "replica-test-key-bbbb"


def fake_tavily(req: Request) -> Reply:
    if req.headers.get("authorization") == f"Bearer {KEY_A}":
        return Reply(429, json.dumps({"detail": {"error": "rate limited"}}))
    query = json.loads(req.body)["query"]
    return Reply(body=json.dumps({"query": query, "results": [
        {"title": f"{query} on a forum", "url": f"https://forum.example.org/t/{i}",
         "content": f"answer {i} about {query}"} for i in range(3)]}))


def start_replica(config: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve", "--port",
                             str(port), "--config", str(config)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"replica exited: {proc.stderr.read()}")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("replica did not start")


@pytest.fixture
def replicas(tmp_path: Path, redis_url: str) -> Iterator[tuple[list[str], LoopbackServer]]:
    with LoopbackServer(fake_tavily) as backend:
        config = tmp_path / "tamis.yaml"
        config.write_text(
            "backends:\n"
            f"  - name: tavily\n    base_url: {backend.url}\n"
            "    credentials: [REPLICA_KEY_A, REPLICA_KEY_B]\n"
            f"store: {{url: '{redis_url}'}}\n"
            "cache: {ttl_seconds: 300}\n")
        env = {**os.environ, "REPLICA_KEY_A": KEY_A, "REPLICA_KEY_B": KEY_B}
        procs = [start_replica(config, env) for _ in range(2)]
        try:
            yield [url for _, url in procs], backend
        finally:
            for proc, _ in procs:
                proc.terminate()
                proc.wait(timeout=10)


def keys_used(backend: LoopbackServer) -> list[str]:
    names = {f"Bearer {KEY_A}": "A", f"Bearer {KEY_B}": "B"}
    return [names[e.headers["authorization"]] for e in backend.seen]


def test_two_replicas_share_rests_and_cache(replicas) -> None:
    (first, second), backend = replicas
    one = httpx.get(first + "/v1/search", params={"q": "thin pool", "extract": "false"})
    assert one.status_code == 200 and one.json()["returned_count"] == 3
    assert keys_used(backend) == ["A", "B"]  # A got 429 and rests; B answered, same request

    again = httpx.get(second + "/v1/search", params={"q": "thin pool", "extract": "false"})
    assert again.json()["lines"][0]["cached"] is True  # the other replica's cached answer
    assert again.json()["results"] == one.json()["results"]
    assert keys_used(backend) == ["A", "B"]  # no backend call

    other = httpx.get(second + "/v1/search", params={"q": "metadata", "extract": "false"})
    assert other.status_code == 200
    assert keys_used(backend) == ["A", "B", "B"]  # the second replica knows A is resting
    assert KEY_A not in other.text and KEY_B not in other.text


def test_workers_share_the_store(tmp_path: Path) -> None:
    """`tamis serve --workers 2`: two processes answer on one port and share the SQLite
    store, so an answer one worker fetched is served from the cache by the other."""
    from concurrent.futures import ThreadPoolExecutor

    with LoopbackServer(fake_tavily) as backend:
        config = tmp_path / "tamis.yaml"
        config.write_text(
            f"backends:\n  - name: tavily\n    base_url: {backend.url}\n"
            "    credentials: [REPLICA_KEY_B]\n"
            f"store: {{url: '{tmp_path / 'store.sqlite3'}'}}\n"
            "cache: {ttl_seconds: 300}\n")
        env = {**os.environ, "REPLICA_KEY_B": KEY_B}
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve",
                                 "--port", str(port), "--config", str(config),
                                 "--workers", "2"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, proc.stderr.read()
                try:
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "tamis serve did not start"
                time.sleep(0.1)
            first = httpx.get(url + "/v1/search", params={"q": "thin pool", "extract": "false"})
            assert first.status_code == 200 and first.json()["lines"][0]["cached"] is False

            def ask(_: int) -> tuple[int, bool]:
                answer = httpx.get(url + "/v1/search",
                                   params={"q": "thin pool", "extract": "false"})
                pid = httpx.get(url + "/healthz").json()["pid"]
                return pid, answer.json()["lines"][0]["cached"]

            with ThreadPoolExecutor(8) as pool:
                seen = list(pool.map(ask, range(80)))
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    assert len({pid for pid, _ in seen}) == 2  # two processes answered
    assert all(cached for _, cached in seen)  # every later answer came from the cache
    assert len(backend.seen) == 1  # one backend call for all of them
