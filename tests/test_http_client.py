"""The client tamis makes loads its CA bundle on the first https connection, and still verifies
certificates exactly as httpx's default does. Real TLS on 127.0.0.1 (certificates from trustme)."""

from __future__ import annotations

import http.server
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from loopback import LoopbackServer, Reply

from tamis.http_client import DeferredCAContext, async_client

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


def test_the_context_has_the_default_contexts_settings() -> None:
    deferred, default = DeferredCAContext(), ssl.create_default_context()
    assert isinstance(deferred, ssl.SSLContext)
    assert (deferred.verify_mode, deferred.check_hostname, deferred.options,
            deferred.verify_flags, deferred.minimum_version) == (
        default.verify_mode, default.check_hostname, default.options,
        default.verify_flags, default.minimum_version)
    assert deferred.get_ca_certs() == []  # nothing loaded yet
    deferred.load_ca()
    assert len(deferred.get_ca_certs()) > 50  # certifi's bundle, as httpx would load


async def _get(url: str) -> httpx.Response:
    async with async_client() as client:
        return await client.get(url)


@pytest.mark.anyio
async def test_plain_http_never_loads_the_ca_bundle() -> None:
    with LoopbackServer() as server:
        server.route("/", Reply(body="plain"))
        async with async_client() as client:
            response = await client.get(server.url + "/")
            context = client._transport._pool._ssl_context  # type: ignore[attr-defined]
    assert response.text == "plain"
    assert isinstance(context, DeferredCAContext) and context.get_ca_certs() == []


@pytest.mark.anyio
async def test_an_untrusted_certificate_is_refused(tls_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        await _get(tls_url)


@pytest.mark.anyio
async def test_a_trusted_certificate_is_accepted_and_checked(
        tls_url: str, ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))  # httpx's own rule for its CA bundle
    response = await _get(tls_url)
    assert response.text == "hello over tls"
    with pytest.raises(httpx.ConnectError, match="mismatch"):  # the name is checked too
        await _get(tls_url.replace("127.0.0.1", "localhost"))


def test_importing_tamis_does_not_import_httpxs_command_line_tool() -> None:
    code = ("import sys, tamis.core, httpx;"
            " print([m for m in ('rich', 'pygments') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_httpx_main_still_runs_httpxs_command_line_tool() -> None:
    code = "import tamis, httpx, sys; sys.argv = ['httpx', '--help']; httpx.main()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Usage: httpx" in proc.stdout
