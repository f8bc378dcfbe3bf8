"""Hostile URLs and bodies: private addresses, redirects, size caps, gzip bombs, types, charsets."""

from __future__ import annotations

import gzip
import zlib

import httpx
import pytest
from extract_support import HTML, PageServer, article_of_size, gzip_bomb, run

from tamis.extract import fetch as fetch_module
from tamis.extract import get_page
from tamis.extract.decode import decode
from tamis.extract.fetch import MAX_REDIRECTS
from tamis.extract.safety import AllowList, is_public
from tamis.pipeline.fanout import USER_AGENT
from tamis.policy.schema import ExtractionConfig

ARTICLE = article_of_size(3000, seed=3, title="Safety article")


def get(url: str, config: ExtractionConfig):
    return run(lambda client: get_page(url, config=config, client=client))


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://localhost/", "http://[::1]/", "http://0.0.0.0/",
    "http://10.1.2.3/", "http://192.168.0.1/", "http://172.16.5.4/",
    "http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]/",
    "http://2130706433/", "http://100.64.0.1/", "http://224.0.0.1/", "http://[fe80::1]/",
])
def test_private_addresses_are_refused(url: str) -> None:
    page = get(url, ExtractionConfig())
    assert page.status == "failed:PrivateAddress", (url, page)
    assert "non-public address" in (page.detail or "")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "gopher://x/",
                                 "javascript:alert(1)", "data:text/html,hi"])
def test_only_http_and_https(url: str) -> None:
    assert get(url, ExtractionConfig()).status == "failed:UnsupportedScheme"


@pytest.mark.parametrize(("url", "detail"), [
    ("file:///etc/passwd", "only http and https are fetched, not file:"),
    ("example.org/page", "no scheme: give it as https://..."),
    ("", "no scheme: give it as https://..."),
])
def test_the_refusal_says_what_scheme_to_give(url: str, detail: str) -> None:
    assert get(url, ExtractionConfig()).detail == detail


def test_address_classes() -> None:
    import ipaddress
    assert is_public(ipaddress.ip_address("93.184.216.34"))
    assert is_public(ipaddress.ip_address("2606:2800:220:1:248:1893:25c8:1946"))
    for text in ("127.0.0.1", "10.0.0.1", "::1", "fc00::1", "::", "255.255.255.255"):
        assert not is_public(ipaddress.ip_address(text)), text


def test_allow_list_takes_hosts_and_ranges(server: PageServer) -> None:
    url = server.add("/allowed", ARTICLE)
    for allowed in (["127.0.0.1"], ["127.0.0.0/8"]):
        assert get(url, ExtractionConfig(allow_private_hosts=allowed)).status == "ok"
    assert get(server.url("/allowed", "localhost"),
               ExtractionConfig(allow_private_hosts=["localhost"])).status == "ok"
    # Plain http goes to the address that was checked; the Host header keeps the name.
    assert server.hits_for("/allowed")[-1].headers["host"] == f"localhost:{server.port}"
    assert AllowList.parse(["LocalHost.", "10.0.0.0/8"]).allows_host("localhost")


def test_a_redirect_to_a_private_address_is_refused(server: PageServer) -> None:
    # The first hop is allow-listed by NAME (localhost); the redirect goes to the same
    # server by ADDRESS (127.0.0.1), which is not allowed: the second hop must be refused.
    target = server.add("/private-target", ARTICLE)
    start = server.add("/to-private", status=302, headers={"Location": target})
    config = ExtractionConfig(allow_private_hosts=["localhost"])
    page = get(server.url("/to-private", "localhost"), config)
    assert page.status == "failed:PrivateAddress"
    assert "127.0.0.1" in (page.detail or "")
    assert server.hits_for("/to-private") and not server.hits_for("/private-target")
    # Allowing the address too makes the same chain work: the refusal was the hop check.
    both = ExtractionConfig(allow_private_hosts=["localhost", "127.0.0.1"])
    assert get(server.url("/to-private", "localhost"), both).status == "ok"
    assert start


def test_redirects_are_followed_hop_by_hop(server: PageServer, config: ExtractionConfig) -> None:
    server.add("/final", ARTICLE)
    server.add("/hop2", status=307, headers={"Location": "/final"})
    url = server.add("/hop1", status=301, headers={"Location": server.url("/hop2")})
    page = get(url, config)
    assert page.status == "ok"
    assert page.final_url == server.url("/final")
    hit = server.hits_for("/final")[-1]
    assert hit.headers["user-agent"] == USER_AGENT
    assert hit.headers["host"] == f"127.0.0.1:{server.port}"


def test_too_many_redirects(server: PageServer, config: ExtractionConfig) -> None:
    server.add("/loop", status=302, headers={"Location": "/loop"})
    page = get(server.url("/loop"), config)
    assert page.status == "failed:TooManyRedirects"
    assert len(server.hits_for("/loop")) == MAX_REDIRECTS + 1


def test_redirect_to_another_scheme(server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/to-file", status=302, headers={"Location": "file:///etc/passwd"})
    assert get(url, config).status == "failed:UnsupportedScheme"


def test_a_redirect_to_a_broken_punycode_host_is_named_not_unexpected(
        server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/to-broken", status=302, headers={"Location": "http://xn--a.example/"})
    page = get(url, config)
    assert page.status == "failed:InvalidRedirect"
    assert (page.detail or "").startswith("redirect to an invalid host name: ")


def test_an_oversize_page_is_cut_at_max_bytes(server: PageServer) -> None:
    paragraph = b"<p>" + b"word " * 200 + b"</p>\n"

    def chunks():
        yield b"<html><head><title>Huge</title></head><body><article>"
        for _ in range(3000):  # ~3 MB, never fully sent
            yield paragraph

    url = server.add("/huge", chunks=chunks)
    config = ExtractionConfig(allow_private_hosts=["127.0.0.1"], max_bytes=200_000)
    page = get(url, config)
    assert page.status == "ok"
    assert page.detail == "body cut at 200000 bytes (extraction.max_bytes)"
    assert 0 < len(page.text) < 200_000


def test_a_gzip_bomb_stops_at_the_cap(server: PageServer, monkeypatch) -> None:
    bomb = gzip_bomb(50_000_000)  # ~50 kB on the wire, 50 MB inflated
    assert len(bomb) < 100_000
    url = server.add("/bomb", bomb, headers={**HTML, "Content-Encoding": "gzip"})
    produced: list[int] = []
    original = fetch_module._Inflater.feed

    def counting(self, data: bytes, limit: int) -> bytes:
        out = original(self, data, limit)
        produced.append(len(out))
        return out

    monkeypatch.setattr(fetch_module._Inflater, "feed", counting)
    config = ExtractionConfig(allow_private_hosts=["127.0.0.1"], max_bytes=1_000_000)
    page = get(url, config)
    assert sum(produced) <= 1_000_001  # never inflated past the cap
    assert page.status == "ok" and page.text.strip() == "bomb"
    assert page.detail == "body cut at 1000000 bytes (extraction.max_bytes)"


def raw_deflate(body: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-15)
    return compressor.compress(body) + compressor.flush()


def test_gzip_and_deflate_pages_are_read(server: PageServer, config: ExtractionConfig) -> None:
    body = ARTICLE.encode()
    for path, encoded, encoding in (("/gz", gzip.compress(body), "gzip"),
                                    ("/deflate", zlib.compress(body), "deflate"),
                                    ("/rawdeflate", raw_deflate(body), "deflate")):
        url = server.add(path, encoded, headers={**HTML, "Content-Encoding": encoding})
        page = get(url, config)
        assert page.status == "ok", (path, page)
        assert "Safety article" in page.title
    url = server.add("/br", b"\x00\x01", headers={**HTML, "Content-Encoding": "br"})
    assert get(url, config).status == "failed:UnsupportedEncoding"


@pytest.mark.parametrize(("body", "content_type", "detail"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00", "image/png", "image/png"),
    (b"PK\x03\x04\x14\x00", "application/zip", "application/zip"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "", "image/png"),
    # served as text/html or text/plain: sniffed and refused, never decoded as text
    (b"\x89PNG\r\n\x1a\n\x00\x00IHDR", "text/html", "image/png served as text/html"),
    (b"\x7fELF\x02\x01\x01\x00" + bytes(64), "text/html; charset=utf-8",
     "application/x-executable served as text/html"),
    (gzip.compress(b"<html><body>inside</body></html>"), "text/html",
     "application/gzip served as text/html"),
    (b"PK\x03\x04\x14\x00", "text/plain", "application/zip served as text/plain"),
])
def test_binary_types_are_unsupported(server: PageServer, config: ExtractionConfig,
                                      body: bytes, content_type: str, detail: str) -> None:
    path = f"/binary-{abs(hash((body, content_type)))}"
    headers = {"Content-Type": content_type} if content_type else {}
    page = get(server.add(path, body, headers=headers), config)
    assert page.status == "unsupported_type"
    assert page.detail == detail


def test_plain_text_is_read(server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/plain", "Line one.\n\n\n\nLine two.   \n",
                     headers={"Content-Type": "text/plain; charset=utf-8"})
    page = get(url, config)
    assert page.status == "ok" and page.text == "Line one.\n\nLine two."
    url = server.add("/json", '{"answer": 42}', headers={"Content-Type": "application/json"})
    assert get(url, config).text == '{"answer": 42}'


def test_charsets(server: PageServer, config: ExtractionConfig) -> None:
    text = "<html><head>{meta}<title>Café crème</title></head><body><article><h1>Café crème" \
           "</h1><p>{para}</p></article></body></html>"
    para = "Le café crème est servi à la française, très chaud, avec une tartine. " * 8
    meta_page = text.format(meta='<meta charset="windows-1252">', para=para).encode("cp1252")
    url = server.add("/meta-charset", meta_page, headers={"Content-Type": "text/html"})
    assert get(url, config).title == "Café crème"
    header_page = text.format(meta="", para=para).encode("iso-8859-1")
    url = server.add("/header-charset", header_page,
                     headers={"Content-Type": "text/html; charset=ISO-8859-1"})
    page = get(url, config)
    assert page.title == "Café crème" and "française" in page.text
    # Undeclared and not UTF-8: guessed, never an exception.
    guessed = text.format(meta="", para=para).encode("cp1252")
    url = server.add("/guess-charset", guessed, headers={"Content-Type": "text/html"})
    assert "caf" in get(url, config).text.lower()
    assert decode(b"\xff\xfe\x00garbage\x81", "text/html; charset=nonsense", html=True)


def test_http_errors_and_connection_errors(server: PageServer, config: ExtractionConfig) -> None:
    assert get(server.url("/missing"), config).status == "failed:HTTP404"
    url = server.add("/server-error", "<h1>oops</h1>", status=500)
    assert get(url, config).status == "failed:HTTP500"
    page = get("http://127.0.0.1:9/closed-port", config)  # discard port: nothing listens
    assert page.status == "failed:ConnectError"


def test_bodies_not_read_past_the_cap_for_error_pages(server: PageServer,
                                                      config: ExtractionConfig) -> None:
    url = server.add("/big-403", "<p>" + "x " * 200_000 + "</p>", status=403)
    assert get(url, config).status == "failed:HTTP403"


def test_the_client_must_not_follow_redirects_itself(server: PageServer,
                                                     config: ExtractionConfig) -> None:
    target = server.add("/private-again", ARTICLE)
    server.add("/auto", status=302, headers={"Location": target})

    async def go(_client: httpx.AsyncClient):
        async with httpx.AsyncClient(follow_redirects=True) as following:
            return await get_page(server.url("/auto", "localhost"),
                                  config=ExtractionConfig(allow_private_hosts=["localhost"]),
                                  client=following)
    page = run(go)
    assert page.status == "failed:PrivateAddress"  # even a following client is stepped
