"""The client tamis makes (``tamis_client``): certificates verified as httpx's default does,
no cookie kept, no redirect followed, a proxy from the environment used. Real sockets on
127.0.0.1 (certificates from trustme)."""

from __future__ import annotations

import asyncio
import http.server
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from loopback import RawServer, raw_reply

from tamis.http_client import USER_AGENT, tamis_client

trustme = pytest.importorskip("trustme")


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"hello over tls"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def tls_url(ca: trustme.CA) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)  # not "localhost"
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


async def _get(url: str) -> httpx.Response:
    async with tamis_client(5.0) as client:
        return await client.get(url)


def test_an_untrusted_certificate_is_refused(tls_url: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        asyncio.run(_get(tls_url))


def test_a_trusted_certificate_is_accepted_and_checked(
        tls_url: str, ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))  # httpx's own rule for its CA bundle
    assert asyncio.run(_get(tls_url)).text == "hello over tls"
    with pytest.raises(httpx.ConnectError, match="mismatch"):  # the name is checked too
        asyncio.run(_get(tls_url.replace("127.0.0.1", "localhost")))


def test_no_cookie_is_kept_and_no_redirect_followed() -> None:
    def moved(_request: bytes) -> bytes:
        return raw_reply(b"moved", "302 Found", ("Location: /elsewhere",
                                                 "Set-Cookie: id=1; Path=/"))

    async def ask(url: str) -> tuple[int, int]:
        async with tamis_client(5.0) as client:
            first = await client.get(url + "/")
            await client.get(url + "/again")
            return first.status_code, len(client.cookies)

    with RawServer(moved) as server:
        assert asyncio.run(ask(server.url)) == (302, 0)
    assert [r.split(b" ")[1] for r in server.seen] == [b"/", b"/again"]
    assert all(b"cookie:" not in r.lower() for r in server.seen)
    assert all(f"User-Agent: {USER_AGENT}".encode() in r for r in server.seen)


def test_a_proxy_from_the_environment_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    with RawServer(lambda _request: raw_reply(b"via proxy")) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        assert asyncio.run(_get("http://search.example/q")).content == b"via proxy"
    assert proxy.seen[0].startswith(b"GET http://search.example/q HTTP/1.1")
