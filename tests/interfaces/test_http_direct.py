"""``GET /v1/search`` is called from the Guard, past FastAPI's routing (issue 13): every answer,
a repeat's body and each error, is the one FastAPI's route gives, byte for byte."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app
from tamis.interfaces.http_limits import Guard

PROXMOX = "proxmox thin pool metadata exhaustion recovery"


def app_for(tmp_path: Path, searxng_url: str, *, direct: bool):
    path = tmp_path / "tamis.yaml"
    path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng_url}\n"
                    f"store: {{url: '{tmp_path / 'store.sqlite3'}'}}\n"
                    "cache: {ttl_seconds: 600}\n")
    app = create_app(Tamis(str(path)), close_layer=True)
    guard = next(m for m in app.user_middleware if m.cls is Guard)
    assert set(guard.kwargs["direct"]) == {"/v1/search"}
    if not direct:  # the same app with the search left to FastAPI's route
        guard.kwargs["direct"] = {}
    return app


def seen(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = [(k, v) for k, v in response.headers.multi_items() if k != "date"]
    return response.status_code, headers, response.content


QUERIES = [
    {"q": PROXMOX, "extract": "false"},  # answered (a repeat: the stored answer)
    {"q": PROXMOX, "extract": "false", "include_domains": ["forum.proxmox.com", "x.org"]},
    {"extract": "false"},  # no query: 400
    {"q": PROXMOX, "max_results": "0"},  # 422
    {"q": PROXMOX, "colour": "blue"},  # an unknown field: 422
    {"q": "x" * 401},  # over serve.max_query_chars: 400
]


@pytest.fixture
def searxng():
    with LoopbackServer(FakeSearXNG()) as server:
        yield server


def test_the_direct_route_answers_what_fastapis_route_answers(tmp_path: Path, searxng) -> None:
    answers = {}
    for direct in (True, False):  # the second app finds the first one's stored answers
        with Served(app_for(tmp_path, searxng.url, direct=direct)) as service:
            for params in QUERIES:  # asked twice: the second time is a repeat
                httpx.get(service.url + "/v1/search", params=params, timeout=30)
            answers[direct] = [seen(httpx.get(service.url + "/v1/search", params=params,
                                              timeout=30)) for params in QUERIES]
    assert [a[0] for a in answers[True]] == [200, 200, 400, 422, 422, 400]
    assert answers[True] == answers[False]
