"""The page `tamis serve` answers at `GET /`: routes over real HTTP (uvicorn on a loopback
port), and the page itself in a real headless browser (Debian's chromium, driven by
Playwright). The browser test skips where chromium or Playwright is missing, and FAILS
instead when the environment variable CI is set.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer, free_port

from tamis.interfaces.web import demo_app, standalone_app
from tamis.settings import load_config

BEST = "best practices agent context management"
PROXMOX = "proxmox thin pool metadata exhaustion recovery"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-proxy-server"]


@contextmanager
def served(app: Any) -> Iterator[str]:
    """Run an ASGI app under uvicorn on a free loopback port; yield its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the app did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def live_page(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The page's routes in a plain Starlette app over a loopback SearXNG."""
    with LoopbackServer(FakeSearXNG()) as searxng:
        path = tmp_path / "tamis.yaml"
        path.write_text(
            "# my policy\n"
            f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
            "cache: {enabled: false}\nstore: {url: 'memory:'}\n"
            "policy:\n  demote_domains: {add: [contentfarm.example]}\n")
        config = load_config(path).config
        with served(standalone_app(config, config_source=str(path))) as url:
            yield url, path


def test_the_page_is_self_contained(live_page: tuple[str, Path]) -> None:
    url, _ = live_page
    page = httpx.get(url + "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    html = page.text
    assert 'id="q"' in html and 'id="raw"' in html and 'id="tamis"' in html
    # Nothing fetched from outside: every script and stylesheet is served by the app.
    assert "http://" not in html and "https://" not in html and "//" not in html.replace(
        "<!doctype", "")
    for name, kind in (("page.js", "javascript"), ("page.css", "text/css")):
        asset = httpx.get(f"{url}/ui/static/{name}")
        assert asset.status_code == 200 and kind in asset.headers["content-type"]
        assert "https://" not in asset.text and "http://" not in asset.text
    assert httpx.get(url + "/ui/static/index.html").status_code == 404
    assert httpx.get(url + "/ui/static/..%2Fweb.py").status_code == 404


def test_compare_json_carries_comparison_explain_and_policy(
        live_page: tuple[str, Path]) -> None:
    url, path = live_page
    answer = httpx.get(url + "/ui/compare", params={"q": BEST}, timeout=30)
    assert answer.status_code == 200
    data = answer.json()
    assert data["query"] == BEST and data["returned"] == 8
    assert data["comparison"]["raw"][0]["host"] == "www.anthropic.com"
    assert any(row["fate"] == "dropped: page_kind:shop" for row in data["comparison"]["raw"])
    first = data["response"]["results"][0]
    assert set(first["explain"]) >= {"fusion", "places", "shift", "total"}
    assert "prefer" in first["explain"]["places"]
    assert {d["reason"] for d in data["response"]["dropped"]} >= {
        "page_kind:shop", "page_kind:dictionary"}
    assert data["policy"]["source"] == str(path) == data["config"]
    assert data["policy"]["text"].startswith("# my policy")
    assert "contentfarm.example" in data["policy"]["effective"]
    assert httpx.get(url + "/ui/policy").json()["source"] == str(path)
    empty = httpx.get(url + "/ui/compare", params={"q": "  "})
    assert empty.status_code == 400 and "give a query" in empty.json()["error"]
    long = httpx.get(url + "/ui/compare", params={"q": "x" * 2500})
    assert long.status_code == 400 and "longer than" in long.json()["error"]


def test_the_lead_app_mounts_the_page() -> None:
    from tamis.core import Tamis
    from tamis.interfaces import http_app
    from tamis.interfaces.demo import recordings_dir
    from tamis.policy.schema import LineConfig
    from tamis.store.base import MemoryStore

    config = load_config(None).config.model_copy(update={"backends": [
        LineConfig(name="searxng", type="replay", path=recordings_dir())]})
    layer = Tamis(config, store=MemoryStore())
    with served(http_app.create_app(layer, close_layer=True)) as url:
        assert 'id="tamis"' in httpx.get(url + "/").text
        data = httpx.get(url + "/ui/compare", params={"q": PROXMOX}).json()
        assert data["comparison"]["tamis"][0]["host"] == "forum.proxmox.com"


# ------------------------------------------------------------------------ the browser
def _need(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the browser test must run)")
    pytest.skip(reason)


@pytest.fixture
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("Playwright for Python is not installed (pip install playwright)")
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        _need("chromium is not installed (apt-get install -y chromium)")
    executable = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.mark.needs_program
def test_the_page_in_a_real_browser(browser: Any, tmp_path: Path) -> None:
    with served(demo_app()) as url:
        page = browser.new_page(viewport={"width": 1360, "height": 1000})
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url + "/")
        # A locator assertion, not wait_for_function: the page's Content-Security-Policy
        # forbids the eval a string predicate needs when it is polled.
        from playwright.sync_api import expect

        expect(page.locator("#policy-source")).to_contain_text("built-in policy")

        page.fill("#q", BEST)
        page.click("#go")
        page.wait_for_selector("#tamis li.result")

        # Both columns: the raw order and the tamis order.
        raw = page.locator("#raw li")
        assert raw.count() == 29
        assert raw.nth(0).locator(".host").text_content() == "www.anthropic.com"
        tamis = page.locator("#tamis li.result")
        assert tamis.nth(0).locator(".title").is_visible()
        assert "anthropic.com" in tamis.nth(0).locator(".meta").text_content()
        # A drop reason, visible, in the raw column and in the dropped list.
        bestbuy = page.locator("#raw li", has_text="www.bestbuy.com")
        assert bestbuy.locator(".fate").text_content() == "dropped: page_kind:shop"
        assert bestbuy.locator(".fate").is_visible()
        assert page.locator("#dropped li", has_text="merriam-webster.com").locator(
            ".reason").text_content() == "page_kind:dictionary"
        assert page.locator("#raw li .fate.demoted").count() > 0
        # Score components on demand: hidden until the result is clicked.
        first = tamis.nth(0)
        assert not first.locator(".why").is_visible()
        first.locator("summary").click()
        assert first.locator(".why").is_visible()
        components = first.locator(".why table").text_content()
        for name in ("fusion", "prefer", "multi_engine", "shift", "total"):
            assert name in components
        # A raw row opens the result it became (raw #7, blog.langchain.com: rank 3).
        page.locator("#raw li", has_text="blog.langchain.com").nth(0).click()
        assert page.locator("#tamis li.highlight").get_attribute("data-rank") == "3"
        assert page.locator("#tamis li.highlight details[open]").count() == 1
        page.locator("#tamis li.highlight summary").click()  # fold it again
        # The policy file in effect.
        page.click("#policy > summary")
        assert "demote_domains" in page.text_content("#policy-text")

        # The picture: the first result unfolded, the policy folded.
        page.click("#policy > summary")
        page.evaluate("window.scrollTo(0, 0)")
        # Saved outside the checkout: where TAMIS_TEST_ARTIFACTS names, else a temporary folder.
        artifacts = Path(os.environ.get("TAMIS_TEST_ARTIFACTS") or tmp_path)
        artifacts.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(artifacts / "web-page.png"), full_page=False)
        (artifacts / "web-page-requests.json").write_text(json.dumps(requests, indent=2))
        assert (artifacts / "web-page.png").stat().st_size > 0

        # Typed into the URL too: ?q= runs the comparison on load.
        page.goto(url + "/?q=" + PROXMOX.replace(" ", "+"))
        page.wait_for_selector("#tamis li.result")
        assert page.locator("#tamis li.result .meta").nth(0).text_content().startswith(
            "forum.proxmox.com")
        page.close()
    # Everything the page loaded came from the app itself.
    assert requests and all(r.startswith(url + "/") for r in requests), requests
    assert errors == []
