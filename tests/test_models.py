"""The answer models through their public paths: a stored answer reads back as it was (and
one of another shape is not read), an adapter's hit and a request are checked where they
arrive from outside."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer
from serving import Served

from tamis.backends.registry import make_adapter
from tamis.core import Tamis
from tamis.interfaces.demo import recordings_dir
from tamis.interfaces.http_app import create_app
from tamis.models import SearchResponse
from tamis.policy.schema import LineConfig

PROXMOX = "proxmox thin pool metadata exhaustion recovery"


@pytest.fixture(scope="module")
def answer(tmp_path_factory: pytest.TempPathFactory) -> SearchResponse:
    path = tmp_path_factory.mktemp("replay") / "tamis.yaml"
    path.write_text(f"backends:\n  - {{name: searxng, type: replay, path: '{recordings_dir()}'}}\n"
                    "store: {url: 'memory:'}\n")

    async def search() -> SearchResponse:
        async with Tamis(str(path)) as layer:
            return await layer.search(PROXMOX, extract=False, explain=True)
    return asyncio.run(search())


def test_a_stored_answer_reads_back_as_it_was(answer: SearchResponse) -> None:
    data = answer.model_dump(mode="json")
    assert answer.results and answer.dropped
    again = Tamis.read_stored(json.dumps(data).encode())
    assert again is not None and again.model_dump(mode="json") == {
        **data, "lines": [{**line, "cached": True} for line in data["lines"]]}


@pytest.mark.parametrize("change", [
    {"status": "maybe"}, {"returned_count": "3"}, {"results": [{"rank": 1}]},
    {"timing": None}, {"engines": "bing"},
])
def test_a_stored_answer_of_another_shape_is_not_read(answer: SearchResponse,
                                                      change: dict[str, Any]) -> None:
    raw = json.dumps({"lines": [], **answer.model_dump(mode="json"), **change}).encode()
    assert Tamis.read_stored(raw) is None


def test_an_adapters_hit_is_checked() -> None:
    adapter = make_adapter(LineConfig(name="sx", type="searxng", base_url="http://127.0.0.1:1"))
    hit = adapter.hit("https://a.example/", "A", "s", 1, labels=("sx:a", "sx:b", "sx:c"),
                      positions=[2.0, "3", True])
    assert (hit.engines, hit.positions) == (["sx:a", "sx:b", "sx:c"], [2, 3, 1])
    with pytest.raises(ValueError, match="valid string"):
        adapter.hit("https://a.example/", "A", "s", 1, labels=["sx:a", 7])
    for bad in ("two", 2.5, None):
        with pytest.raises(ValueError, match="valid integer"):
            adapter.hit("https://a.example/", "A", "s", 1, labels=["sx:a"], positions=[bad])


@pytest.mark.parametrize(("params", "error"), [
    ({"safesearch": "3"}, "safesearch: Input should be less than or equal to 2"),
    ({"pageno": "0"}, "pageno: Input should be greater than or equal to 1"),
])
def test_the_searxng_form_keeps_the_request_bounds(tmp_path: Path, params: dict[str, str],
                                                   error: str) -> None:
    with LoopbackServer(FakeSearXNG()) as searxng:
        path = tmp_path / "tamis.yaml"
        path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
                        "cache: {enabled: false}\nstore: {url: 'memory:'}\n")
        with Served(create_app(Tamis(str(path)), close_layer=True)) as served:
            got = httpx.get(served.url + "/search", params={"q": PROXMOX, **params})
    assert (got.status_code, got.json()["error"]) == (400, error)
