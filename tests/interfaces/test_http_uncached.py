"""A first (uncached) search over HTTP (issue 13): the store is asked once for the answer,
and the body is the answer as stored, rendered the ordinary way."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app
from tamis.interfaces.render import answer_dict
from tamis.models import SearchRequest
from tamis.store import answers
from tamis.store.base import MemoryStore

PROXMOX = "proxmox thin pool metadata exhaustion recovery"


class CountingStore(MemoryStore):
    """A memory store that counts the reads of each namespace."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: dict[str, int] = {}

    def get(self, namespace: str, key: str) -> bytes | None:
        self.reads[namespace] = self.reads.get(namespace, 0) + 1
        return super().get(namespace, key)


def test_a_first_search_asks_the_store_once_and_sends_the_stored_answer(tmp_path: Path
                                                                        ) -> None:
    store = CountingStore()
    with LoopbackServer(FakeSearXNG()) as searxng:
        config = tmp_path / "tamis.yaml"
        config.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
                          "cache: {ttl_seconds: 600}\n")
        layer = Tamis(str(config), store=store)
        with Served(create_app(layer, close_layer=True)) as service:
            first = httpx.get(service.url + "/v1/search",
                              params={"q": PROXMOX, "extract": "false"}, timeout=30)
            key = layer.answer_key(SearchRequest(query=PROXMOX), extract=False, explain=False)
    assert first.status_code == 200
    assert store.reads.get(answers.ANSWERS) == 1  # not once by the server and once more
    assert key is not None
    stored = store.get(answers.ANSWERS, key)
    assert stored is not None
    data = json.loads(stored)
    assert data["lines"][0]["cached"] is False
    # the body is the stored answer's data rendered as every JSON answer is
    rendered = json.dumps(answer_dict(data), ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8")
    assert first.content == rendered


def test_the_service_moves_what_start_up_made_out_of_the_collectors_way(tmp_path: Path
                                                                        ) -> None:
    """Under load, full collections walked every object start-up made (modules, policy,
    rules): the service freezes them once its layer is made (about 8 % of a worker's CPU
    on uncached searches, bench/bench_serve.py)."""
    import gc

    gc.unfreeze()
    config = tmp_path / "tamis.yaml"
    config.write_text("backends:\n  - name: searxng\n    base_url: http://127.0.0.1:9\n")
    try:
        with Served(create_app(Tamis(str(config)), close_layer=True)) as service:
            assert httpx.get(service.url + "/healthz", timeout=30).status_code == 200
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()

