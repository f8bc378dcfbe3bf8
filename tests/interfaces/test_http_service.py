"""`tamis serve` over real HTTP on 127.0.0.1: native, SearXNG- and Tavily-compatible
endpoints, auth, limits, metrics."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import jsonschema
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer, Reply, Request
from serving import Served

from tamis.backends.base import Adapter
from tamis.backends.searxng import parse_searxng
from tamis.core import Tamis
from tamis.interfaces.http_app import create_app
from tamis.models import response_schema
from tamis.policy.schema import LineConfig
from tamis.settings import load_config

PROXMOX = "proxmox thin pool metadata exhaustion recovery"


def make_layer(tmp_path: Path, searxng_url: str, serve: str = "", extra: str = "") -> Tamis:
    path = tmp_path / "tamis.yaml"
    path.write_text(
        f"backends:\n  - name: searxng\n    base_url: {searxng_url}\n"
        "cache: {enabled: false}\nstore: {url: 'memory:'}\n"
        "extraction: {allow_private_hosts: ['127.0.0.1']}\n"
        + (f"serve: {{{serve}}}\n" if serve else "") + extra)
    return Tamis(str(path))


@pytest.fixture
def searxng():
    fake = FakeSearXNG()
    with LoopbackServer(fake) as server:
        server.fake = fake
        yield server


@pytest.fixture
def service(tmp_path: Path, searxng: LoopbackServer):
    with Served(create_app(make_layer(tmp_path, searxng.url), close_layer=True)) as served:
        yield served


def test_health_metrics_and_openapi(service: Served) -> None:
    assert httpx.get(service.url + "/healthz").json()["status"] == "ok"
    httpx.get(service.url + "/v1/search", params={"q": PROXMOX, "extract": "false"})
    metrics = httpx.get(service.url + "/metrics").text
    assert 'tamis_requests_total{endpoint="/v1/search",status="200"} 1.0' in metrics
    assert "tamis_request_seconds_bucket" in metrics
    paths = httpx.get(service.url + "/openapi.json").json()["paths"]
    assert {"/v1/search", "/v1/read", "/search", "/healthz", "/metrics"} <= set(paths)
    names = [p["name"] for p in paths["/v1/search"]["get"]["parameters"]]
    assert names[0] == "q" and {"max_results", "extract", "time_range"} <= set(names)


def test_native_search_get_and_post_give_the_contract(service: Served) -> None:
    got = httpx.get(service.url + "/v1/search",
                    params={"q": PROXMOX, "extract": "false", "explain": "true"})
    posted = httpx.post(service.url + "/v1/search",
                        json={"query": PROXMOX, "extract": False, "explain": True})
    assert got.status_code == posted.status_code == 200
    jsonschema.validate(got.json(), response_schema())
    assert got.json()["results"] == posted.json()["results"]
    assert got.json()["dropped"][0]["reason"] == "page_kind:shop"


def test_read_endpoint(service: Served) -> None:
    page = "<html><head><title>Thin pools</title></head><body><article><h1>Thin pools</h1>" \
           + "".join(f"<p>Step {i}: metadata exhaustion is fixed by extending the metadata"
                     f" volume of pool {i}.</p>" for i in range(20)) \
           + "</article></body></html>"
    with LoopbackServer(lambda req: Reply(body=page, content_type="text/html")) as pages:
        answer = httpx.post(service.url + "/v1/read",
                            json={"url": pages.url + "/doc", "max_chars": 200}).json()
    assert answer["status"] == "truncated"
    assert "metadata exhaustion" in answer["content"] and answer["chars"] <= 200


def test_searxng_compatible_endpoint_is_parsed_as_searxng_json(service: Served) -> None:
    answer = httpx.get(service.url + "/search", params={"q": PROXMOX, "format": "json"})
    assert answer.status_code == 200
    data = answer.json()
    # tamis's own SearXNG reader accepts it, as any SearXNG client would.
    parsed = parse_searxng(Adapter(LineConfig(name="via-tamis")), data)
    assert [h.url for h in parsed.hits][:1] == [data["results"][0]["url"]]
    assert data["results"][0]["engines"] and data["results"][0]["positions"]
    hosts = [r["parsed_url"][1] for r in data["results"]]
    assert "www.amazon.com" not in hosts  # cleaned: the non-answer is gone
    assert ["google", "Suspended: too many requests"] in data["unresponsive_engines"]
    assert httpx.get(service.url + "/search",
                     params={"q": PROXMOX, "format": "html"}).status_code == 400


def test_tavily_python_client_works_against_tamis(service: Served) -> None:
    from tavily import TavilyClient

    client = TavilyClient(api_key="tvly-unused-by-tamis", api_base_url=service.url)
    answer = client.search(PROXMOX, max_results=3)
    assert answer["query"] == PROXMOX
    assert len(answer["results"]) == 3
    first = answer["results"][0]
    assert {"title", "url", "content", "score", "raw_content"} <= set(first)
    assert first["url"].startswith("https://forum.proxmox.com/")
    assert 0 < answer["results"][2]["score"] < first["score"] <= 1
    assert answer["response_time"] >= 0


def test_limits(tmp_path: Path, searxng: LoopbackServer) -> None:
    layer = make_layer(tmp_path, searxng.url,
                       serve="max_query_chars: 50, max_results: 5, max_body_bytes: 2048")
    with Served(create_app(layer, close_layer=True)) as served:
        long = httpx.get(served.url + "/v1/search", params={"q": "x" * 51})
        assert long.status_code == 400 and "longer than 50" in long.json()["error"]
        many = httpx.post(served.url + "/v1/search", json={"query": "x", "max_results": 6})
        assert many.status_code == 400 and "over the limit of 5" in many.json()["error"]
        big = httpx.post(served.url + "/v1/search",
                         content=json.dumps({"query": "x", "pad": "y" * 4000}),
                         headers={"content-type": "application/json"})
        assert big.status_code == 413
        unknown = httpx.post(served.url + "/v1/search", json={"query": "x", "nope": 1})
        assert unknown.status_code == 422 and "nope" in unknown.json()["error"]


def test_saturated_service_answers_503_at_once(tmp_path: Path) -> None:
    release = threading.Event()
    arrived = threading.Event()

    def slow(req: Request) -> Reply:
        arrived.set()
        release.wait(timeout=20)
        return FakeSearXNG()(req)

    with LoopbackServer(slow) as backend:
        layer = make_layer(tmp_path, backend.url, serve="max_concurrency: 1, queue_seconds: 0")
        with Served(create_app(layer, close_layer=True)) as served:
            first: dict = {}
            worker = threading.Thread(target=lambda: first.update(
                r=httpx.get(served.url + "/v1/search", params={"q": PROXMOX, "extract": 0},
                            timeout=30)))
            worker.start()
            assert arrived.wait(timeout=20)  # the first search holds the only slot
            second = httpx.get(served.url + "/v1/search", params={"q": PROXMOX})
            release.set()
            worker.join(timeout=30)
    assert second.status_code == 503
    assert "saturated" in second.json()["error"] and second.headers["retry-after"] == "1"
    assert first["r"].status_code == 200


def test_request_deadline_is_504(tmp_path: Path) -> None:
    release = threading.Event()

    def hang(req: Request) -> Reply:
        release.wait(timeout=20)
        return Reply(body="{}")

    with LoopbackServer(hang) as backend:
        layer = make_layer(tmp_path, backend.url, serve="request_timeout: 0.5")
        with Served(create_app(layer, close_layer=True)) as served:
            answer = httpx.get(served.url + "/v1/search", params={"q": "x"}, timeout=30)
            release.set()
    assert answer.status_code == 504 and "deadline" in answer.json()["error"]


def test_rate_limit_per_client(tmp_path: Path, searxng: LoopbackServer) -> None:
    layer = make_layer(tmp_path, searxng.url, serve="rate_limit_per_minute: 1")
    with Served(create_app(layer, close_layer=True)) as served:
        answers = [httpx.get(served.url + "/v1/search",
                             params={"q": PROXMOX, "extract": "false"}) for _ in range(3)]
    codes = [a.status_code for a in answers]
    # Three requests in a few seconds fall in at most two one-minute windows, so at least
    # one window saw two of them: the first of each window passes, a second is refused.
    assert codes[0] == 200 and 429 in codes
    refused = answers[codes.index(429)]
    assert "rate limit" in refused.json()["error"] and "retry-after" in refused.headers


def test_token_is_required_when_set(tmp_path: Path, searxng: LoopbackServer) -> None:
    layer = make_layer(tmp_path, searxng.url)
    with Served(create_app(layer, token="s3cret-token", close_layer=True)) as served:
        assert httpx.get(served.url + "/healthz").status_code == 200
        denied = httpx.get(served.url + "/v1/search", params={"q": PROXMOX})
        assert denied.status_code == 401 and "s3cret" not in denied.text
        ok = httpx.get(served.url + "/v1/search", params={"q": PROXMOX, "extract": "false"},
                       headers={"Authorization": "Bearer s3cret-token"})
        assert ok.status_code == 200
        # The page holds no data: it loads without the token, then sends it with its calls.
        assert httpx.get(served.url + "/").status_code == 200
        assert httpx.get(served.url + "/ui/static/page.js").status_code == 200
        assert httpx.get(served.url + "/ui/compare", params={"q": PROXMOX}).status_code == 401
        view = httpx.get(served.url + "/ui/compare", params={"q": PROXMOX},
                         headers={"Authorization": "Bearer s3cret-token"})
        assert view.status_code == 200
        assert view.json()["policy"]["source"].endswith("tamis.yaml")


def test_binding_beyond_loopback_needs_a_token(tmp_path: Path) -> None:
    env = {k: v for k, v in __import__("os").environ.items() if k != "TAMIS_TOKEN"}
    proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "serve", "--host",
                           "0.0.0.0", "--port", "0"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: binding 0.0.0.0 exposes tamis")
    assert "Traceback" not in proc.stderr


def test_config_default_binds_loopback() -> None:
    assert load_config(None).config.serve.host == "127.0.0.1"
