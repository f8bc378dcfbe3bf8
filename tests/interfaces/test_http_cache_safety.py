"""The page-text cache never hands out a page that this service's policy refuses (issue 16,
item 2) through any HTTP route: a process allowed to read an intranet page caches its text
in the shared store; a service on the same store without that allow-list must still refuse
it on `/v1/read`, on `/v1/search` with extraction, and on Tavily's `include_raw_content`."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer, Reply
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app

PAGE = ("<html><head><title>Intranet runbook</title></head><body><article><h1>Runbook</h1>"
        + "".join(f"<p>Internal step {i}: the intranet-only procedure for pool {i}.</p>"
                  for i in range(20))
        + "</article></body></html>")


def layer(tmp_path: Path, name: str, searxng: str, store: Path, allow: bool) -> Tamis:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"backends:\n  - name: searxng\n    base_url: {searxng}\n"
        f"store: {{url: '{store}'}}\n"
        + ("extraction: {allow_private_hosts: ['127.0.0.1']}\n" if allow else ""))
    return Tamis(str(path))


@pytest.fixture
def setup(tmp_path: Path):
    with LoopbackServer(lambda req: Reply(body=PAGE, content_type="text/html")) as pages:
        page = pages.url + "/runbooks/thin-pools"
        fake = FakeSearXNG("custom")
        fake.answer = {"query": "runbook", "results": [
            {"url": page, "title": "Intranet runbook", "content": "the procedure",
             "engine": "bing", "engines": ["bing"], "positions": [1], "score": 1.0}],
            "unresponsive_engines": []}
        with LoopbackServer(fake) as searxng:
            store = tmp_path / "shared.sqlite3"
            allowed = layer(tmp_path, "allowed", searxng.url, store, allow=True)
            with Served(create_app(allowed, close_layer=True)) as first:
                read = httpx.post(first.url + "/v1/read", json={"url": page}, timeout=30)
                assert read.json()["status"] == "ok"  # read, and cached in the shared store
            strict = layer(tmp_path, "strict", searxng.url, store, allow=False)
            with Served(create_app(strict, close_layer=True)) as second:
                yield second, page


def test_read_from_the_cache_is_still_refused(setup) -> None:
    service, page = setup
    answer = httpx.post(service.url + "/v1/read", json={"url": page}, timeout=30).json()
    assert answer["status"] == "failed:PrivateAddress"
    assert "intranet-only" not in answer["content"]


def test_search_extraction_from_the_cache_is_still_refused(setup) -> None:
    service, page = setup
    answer = httpx.get(service.url + "/v1/search", params={"q": "runbook"}, timeout=30).json()
    result = next(r for r in answer["results"] if r["url"] == page)
    assert result["extraction"] == "failed:PrivateAddress"
    assert "intranet-only" not in (result["excerpt"] or "")


def test_tavily_raw_content_from_the_cache_is_still_refused(setup) -> None:
    service, page = setup
    answer = httpx.post(service.url + "/search",
                        json={"query": "runbook", "include_raw_content": True}, timeout=30)
    result = next(r for r in answer.json()["results"] if r["url"] == page)
    assert result["raw_content"] is None
    assert "intranet-only" not in answer.text
