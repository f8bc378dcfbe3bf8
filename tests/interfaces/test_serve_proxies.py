"""``tamis serve`` believes ``X-Forwarded-For`` only from the proxies ``serve.trusted_proxies``
names (none by default): the per-client rate limit counts the peer's own address, so a
client on the same host cannot choose a new one for every request."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer, free_port


@contextmanager
def tamis_serve(tmp_path: Path, serve: str) -> Iterator[str]:
    """A real ``tamis serve --workers 1`` (uvicorn as the command runs it) on a free port."""
    with LoopbackServer(FakeSearXNG()) as searxng:
        config = tmp_path / "tamis.yaml"
        config.write_text(f"backends:\n  - {{name: searxng, base_url: '{searxng.url}'}}\n"
                          f"cache: {{enabled: false}}\nstore: {{url: '{tmp_path / 's.db'}'}}\n"
                          f"serve: {{rate_limit_per_minute: 5, {serve}}}\n")
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve",
                                 "--port", str(port), "--workers", "1", "--config",
                                 str(config)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "tamis serve did not start"
                try:
                    if httpx.get(url + "/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=40)


def statuses(url: str, forwarded: list[str]) -> list[int]:
    if time.time() % 60 > 30:  # the limit counts calendar minutes: all in one of them
        time.sleep(60.5 - time.time() % 60)
    return [httpx.get(url + "/v1/search", params={"q": "thin pool", "extract": "false"},
                      headers={"X-Forwarded-For": address}).status_code
            for address in forwarded]


ADDRESSES = [f"203.0.113.{i}" for i in range(1, 11)]


def test_a_forwarded_address_from_an_unnamed_proxy_changes_nothing(tmp_path: Path) -> None:
    with tamis_serve(tmp_path, "") as url:
        assert statuses(url, ADDRESSES) == [200] * 5 + [429] * 5


def test_a_named_proxy_is_believed(tmp_path: Path) -> None:
    with tamis_serve(tmp_path, "trusted_proxies: [127.0.0.0/8]") as url:
        assert statuses(url, ADDRESSES + ["203.0.113.1"] * 5) == [200] * 14 + [429]
        # ten clients behind the proxy; the first one's sixth request is over


@pytest.mark.parametrize("value", ["proxy.internal", "10.0.0.0/33", "*"])
def test_trusted_proxies_must_be_addresses(tmp_path: Path, value: str) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text(f"serve: {{trusted_proxies: ['{value}']}}\n")
    done = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "config", "check",
                           str(config)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "serve.trusted_proxies" in done.stderr
    assert "is not an IP address or a CIDR range" in done.stderr
