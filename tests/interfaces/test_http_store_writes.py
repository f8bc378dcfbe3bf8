"""The service and the store's writes (issue 13): a search's writes wait in the store's writer
thread, not in the event loop, so other requests are served meanwhile; the answer goes out
once what it stored is committed, so a repeat asked of another worker (another process on
the same SQLite file) is a cache hit; and a shut-down loses nothing."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from fake_searxng import FakeSearXNG, recorded
from loopback import LoopbackServer
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app
from tamis.models import SearchRequest
from tamis.store import answers
from tamis.store.sqlite import SQLiteStore

PROXMOX = "proxmox thin pool metadata exhaustion recovery"


def searxng() -> LoopbackServer:
    fake = FakeSearXNG("custom")
    fake.answer = recorded(PROXMOX)
    return LoopbackServer(fake)


def config_for(tmp_path: Path, url: str) -> str:
    path = tmp_path / "tamis.yaml"
    path.write_text(f"backends:\n  - name: searxng\n    base_url: {url}\n"
                    f"store: {{url: '{tmp_path / 'store.sqlite3'}'}}\n"
                    "cache: {ttl_seconds: 600}\n")
    return str(path)


def search(service: Served, query: str) -> httpx.Response:
    return httpx.get(service.url + "/v1/search", params={"q": query, "extract": "false"},
                     timeout=60)


def test_other_requests_are_served_while_a_write_waits_for_the_lock(tmp_path: Path) -> None:
    with searxng() as backend:
        config = config_for(tmp_path, backend.url)
        one, two = Tamis(config), Tamis(config)  # two workers: a store (connection) each
        with Served(create_app(one, close_layer=True)) as first, \
                Served(create_app(two, close_layer=True)) as second:
            assert search(first, "known query").status_code == 200  # stored
            other = sqlite3.connect(str(tmp_path / "store.sqlite3"), isolation_level=None)
            other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            try:
                out: dict[str, Any] = {}
                fresh = threading.Thread(
                    target=lambda: out.setdefault("answer", search(first, "a new query")),
                    daemon=True)
                fresh.start()
                deadline = time.monotonic() + 30
                while not any(r.arg("q") == "a new query" for r in backend.seen) \
                        and time.monotonic() < deadline:
                    time.sleep(0.02)
                time.sleep(0.5)  # let it reach its writes
                # Before: the loop slept in SQLite's busy handler (up to 10 s): nothing else
                # was served until the lock was free.
                repeat = httpx.get(first.url + "/v1/search", timeout=5,
                                   params={"q": "known query", "extract": "false"})
                health = httpx.get(first.url + "/healthz", timeout=5)
                assert (repeat.status_code, health.status_code) == (200, 200)
                assert repeat.json()["lines"][0]["cached"] is True
                assert fresh.is_alive()  # its answer waits until its writes are committed
            finally:
                other.execute("ROLLBACK")
                other.close()
            fresh.join(60)
            answer = out["answer"]
            assert answer.status_code == 200
            assert answer.json()["lines"][0]["cached"] is False
            # at once, on the other worker: the stored answer
            again = search(second, "a new query")
            assert again.status_code == 200
            assert again.json()["lines"][0]["cached"] is True
            assert again.json()["results"] == answer.json()["results"]


def test_a_repeat_on_another_worker_right_after_the_answer_is_a_hit(tmp_path: Path) -> None:
    with searxng() as backend:
        config = config_for(tmp_path, backend.url)
        one, two = Tamis(config), Tamis(config)
        with Served(create_app(one, close_layer=True)) as first, \
                Served(create_app(two, close_layer=True)) as second:
            for i in range(20):
                query = f"asked twice {i}"
                assert search(first, query).json()["lines"][0]["cached"] is False
                assert search(second, query).json()["lines"][0]["cached"] is True
        asked = [r.arg("q") for r in backend.seen]
        assert len(asked) == 20  # the backend was asked once a query


def test_shutting_down_writes_what_was_stored(tmp_path: Path) -> None:
    with searxng() as backend:
        config = config_for(tmp_path, backend.url)
        layer = Tamis(config)
        with Served(create_app(layer)) as service:  # the caller's layer, not closed
            queries = [f"stored at shut-down {i}" for i in range(10)]
            for query in queries:
                assert search(service, query).status_code == 200
        keys = [layer.answer_key(SearchRequest(query=q), extract=False, explain=False)
                for q in queries]
    store = SQLiteStore(tmp_path / "store.sqlite3")  # what a restart finds
    assert all(k is not None and answers.get(store, k) is not None for k in keys)
    store.close()
