"""The data models are plain dataclasses (issue 13): importing them, and the modules a CLI
search builds them in, needs no pydantic; where data arrives from outside it is still
checked as before; what is printed is what pydantic printed."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer
from serving import Served

from tamis import typed
from tamis.backends.registry import make_adapter
from tamis.core import Tamis
from tamis.extract.models import ReadResponse
from tamis.interfaces.demo import recordings_dir
from tamis.interfaces.http_app import create_app
from tamis.models import SearchResponse, TextWarning
from tamis.policy.schema import LineConfig

PROXMOX = "proxmox thin pool metadata exhaustion recovery"
# Modules allowed to import pydantic on the search path: none (the config schema and the
# models are plain dataclasses, issue 13). A name added here must say why.
STILL_PYDANTIC: tuple[str, ...] = ()
WHO_IMPORTS = """
import builtins, json, sys
seen = set()
real = builtins.__import__
def hook(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__", "?")
    if level == 0 and name.split(".")[0] in ("pydantic", "pydantic_core") \\
            and not importer.startswith("pydantic"):
        seen.add(importer)
    return real(name, globals, locals, fromlist, level)
builtins.__import__ = hook
for name in sys.argv[1:]:
    __import__(name)
print(json.dumps({"importers": sorted(seen), "loaded": "pydantic" in sys.modules}))
"""


def pydantic_importers(*modules: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", WHO_IMPORTS, *modules], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def test_models_and_render_import_without_pydantic() -> None:
    found = pydantic_importers("tamis.models", "tamis.interfaces.render", "tamis.extract.models")
    assert found == {"importers": [], "loaded": False}


def test_nothing_on_the_search_path_imports_pydantic() -> None:
    found = pydantic_importers("tamis.models", "tamis.backends.registry",
                               "tamis.pipeline.fanout_store", "tamis.interfaces.render")
    others = [m for m in found["importers"] if not m.startswith(STILL_PYDANTIC)]
    assert others == []
    if not STILL_PYDANTIC:
        assert not found["loaded"]


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
    data = typed.to_data(answer)
    assert answer.results and answer.dropped
    again = typed.from_data(SearchResponse, json.loads(json.dumps(data)))
    assert again == answer and typed.to_data(again) == data
    # what pydantic dumps, field for field (timings are floats even when whole)
    assert data == typed.adapter(SearchResponse).dump_python(answer, mode="json")


@pytest.mark.parametrize("change", [
    {"status": "maybe"}, {"returned_count": "3"}, {"results": [{"rank": 1}]},
    {"timing": None}, {"engines": "bing"},
])
def test_a_stored_answer_of_another_shape_is_not_read(answer: SearchResponse,
                                                      change: dict[str, Any]) -> None:
    raw = json.dumps({"lines": [], **typed.to_data(answer), **change}).encode()
    assert Tamis.read_stored(raw) is None


def test_the_read_json_is_pydantics() -> None:
    page = ReadResponse(url="https://é.example/a", final_url="https://é.example/b",
                        status="truncated", content="Ünïcode \u2028 \"q\" \\ \x00 tab\t",
                        chars=10, next_start=10, truncated=True, seconds=0.125,
                        warnings=[TextWarning(kind="instructions_to_ai", offset=3, length=2,
                                              text="ignore")])
    printed = json.dumps(typed.to_data(page), indent=2, ensure_ascii=False)
    assert printed == typed.adapter(ReadResponse).dump_json(page, indent=2).decode()


def test_an_adapters_hit_is_checked_as_pydantic_did() -> None:
    adapter = make_adapter(LineConfig(name="sx", type="searxng", base_url="http://127.0.0.1:1"))
    hit = adapter.hit("https://a.example/", "A", "s", 1, labels=("sx:a", "sx:b", "sx:c"),
                      positions=[2.0, "3", True])
    assert (hit.engines, hit.positions) == (["sx:a", "sx:b", "sx:c"], [2, 3, 1])
    with pytest.raises(ValueError, match="not a list of strings"):
        adapter.hit("https://a.example/", "A", "s", 1, labels=["sx:a", 7])
    for bad in ("two", 2.5, None):
        with pytest.raises(ValueError, match="not a whole number"):
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
