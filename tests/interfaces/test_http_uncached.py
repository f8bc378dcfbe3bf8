"""A first (uncached) search over HTTP (issue 13): the store is asked once for the answer,
and the body is the answer as stored, rendered the ordinary way."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import httpx
from fake_searxng import FakeSearXNG
from hypothesis import given, settings
from hypothesis import strategies as st
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


# -- a first answer's body made from its stored bytes, against the ordinary render ----------
TRICKY = st.sampled_from(['plain', ',"explain":null', ',"dropped":null', '\\', '"', 'NaN',
                          'Infinity', 'é中', '\\",', '}', 'null'])


def ordinary_body(answer: dict) -> bytes:
    from starlette.responses import JSONResponse

    return bytes(JSONResponse(answer_dict(copy.deepcopy(answer))).body)


def stored_bytes(answer: dict) -> bytes:
    store = MemoryStore()
    raw = answers.put(store, "k", answer, 60)
    assert raw is not None and store.get(answers.ANSWERS, "k") == raw
    return raw


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(TRICKY, max_size=4).map("".join),
                          st.one_of(st.none(), st.just({"total": 1.0}))), max_size=4),
       st.one_of(st.none(), st.just([])), st.sampled_from([1.0, float("nan")]),
       st.dictionaries(st.sampled_from(["x", "explain", "dropped"]), st.none(), max_size=3))
def test_the_body_from_stored_bytes_is_the_ordinary_render(results, dropped, score, extra):
    answer = {"query": "q", "results": [
        {"rank": i, "snippet": text, "score": score, "positions": {text: 1}, "explain": parts}
        for i, (text, parts) in enumerate(results, 1)], "extra": extra, "dropped": dropped,
        "notes": [{"message": text} for text, _ in results]}
    from tamis.interfaces.http_answers import body_from_stored

    made = body_from_stored(stored_bytes(answer), copy.deepcopy(answer))
    if made is not None:
        assert made == ordinary_body(answer)
    plain = dropped is None and score == 1.0 and all(p is None for _, p in results) \
        and not any(',"explain":null' in t or ',"dropped":null' in t or "NaN" in t
                    or "Infinity" in t for t, _ in results) and not extra
    if plain:
        assert made is not None  # the usual answer takes the fast path
