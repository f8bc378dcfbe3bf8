"""A repeat over HTTP (the answer cache, issue 13): its body is sent from the last body
rendered from the same stored answer, byte for byte what the ordinary path renders, and a
changed stored answer is rendered afresh."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app
from tamis.store import answers

PROXMOX = "proxmox thin pool metadata exhaustion recovery"


def make_layer(tmp_path: Path, searxng_url: str, store: Path) -> Tamis:
    path = tmp_path / "tamis.yaml"
    path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng_url}\n"
                    f"store: {{url: '{store}'}}\ncache: {{ttl_seconds: 600}}\n")
    return Tamis(str(path))


@pytest.fixture
def searxng():
    with LoopbackServer(FakeSearXNG()) as server:
        yield server


def get(service: Served, **params: str) -> httpx.Response:
    return httpx.get(service.url + "/v1/search", params={"q": PROXMOX, "extract": "false",
                                                         **params}, timeout=30)


def test_repeats_are_the_bytes_the_ordinary_path_renders(tmp_path: Path, searxng) -> None:
    store = tmp_path / "shared.sqlite3"
    with Served(create_app(make_layer(tmp_path, searxng.url, store), close_layer=True)) as one:
        first = get(one)
        repeats = [get(one) for _ in range(3)]
        metrics = httpx.get(one.url + "/metrics").text
    assert first.json()["lines"][0]["cached"] is False
    assert all(r.status_code == 200 for r in repeats)
    assert repeats[0].json()["lines"][0]["cached"] is True
    assert repeats[0].content == repeats[1].content == repeats[2].content
    assert repeats[0].headers["content-type"] == first.headers["content-type"]
    assert 'tamis_cache_hits_total{line="searxng"} 3.0' in metrics
    # another worker on the same store, with nothing kept: its repeat, rendered the ordinary
    # way, is the same bytes
    with Served(create_app(make_layer(tmp_path, searxng.url, store), close_layer=True)) as two:
        assert get(two).content == repeats[0].content
    assert len(searxng.seen) == 1


def test_a_changed_stored_answer_is_rendered_again(tmp_path: Path, searxng) -> None:
    store = tmp_path / "shared.sqlite3"
    layer = make_layer(tmp_path, searxng.url, store)
    with Served(create_app(layer, close_layer=True)) as one:
        get(one)
        kept = get(one).json()
        key = layer.answer_key(layer_request(), extract=False, explain=False)
        changed = json.loads(layer.store.get(answers.ANSWERS, key))
        changed["results"] = changed["results"][:1]
        changed["returned_count"] = 1
        answers.put(layer.store, key, changed, 600)  # as another worker would
        again = get(one).json()
    assert len(kept["results"]) > 1
    assert [r["url"] for r in again["results"]] == [kept["results"][0]["url"]]
    assert again["returned_count"] == 1


def layer_request():
    from tamis.models import SearchRequest

    return SearchRequest(query=PROXMOX)


class UncountedStore:
    """A store whose rate-limit counter fails (once ``failing``) while its reads and writes
    work."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.failing = False

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def incr(self, namespace: str, key: str, ttl: float) -> int:
        from tamis.errors import TamisError

        if not self.failing:
            return self.inner.incr(namespace, key, ttl)
        raise TamisError("counter unavailable")


def test_a_repeat_with_a_note_carries_the_note(tmp_path: Path, searxng) -> None:
    from tamis.store.sqlite import SQLiteStore

    path = tmp_path / "tamis.yaml"
    path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
                    "cache: {ttl_seconds: 600}\nserve: {rate_limit_per_minute: 100}\n")
    store = UncountedStore(SQLiteStore(tmp_path / "s.sqlite3"))
    layer = Tamis(str(path), store=store)
    with Served(create_app(layer, close_layer=True)) as one:
        counted = [get(one) for _ in range(3)]  # the repeat's body is kept
        store.failing = True
        noted = get(one)
    notes = [n["message"] for n in noted.json()["notes"] if n["source"] == "serve"]
    assert notes == ["rate limit not applied: counter unavailable"]
    assert noted.json()["lines"][0]["cached"] is True
    assert counted[1].content == counted[2].content
    assert [n for n in counted[2].json()["notes"] if n["source"] == "serve"] == []
