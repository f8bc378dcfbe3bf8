"""Fetch one page safely: redirects followed hop by hop, each hop vetted, bytes capped.

The shared client must not follow redirects (``follow_redirects=False``): every
``Location`` is resolved and checked by ``safety.check_url`` before it is asked (at most
``MAX_REDIRECTS`` hops).

Size: the body is streamed raw and decompressed here, with zlib's ``max_length``, so that
neither the compressed nor the decompressed size can exceed ``max_bytes`` (a gzip bomb
stops at the cap after a few kilobytes of input). A body cut at the cap is kept: the page
is extracted from what was read and the result says so (``cut`` here, a ``detail`` later).
Only gzip and deflate are asked for (``Accept-Encoding``); anything else is refused.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import httpx

from tamis.extract.decode import classify, media_type, sniff_binary
from tamis.extract.models import UNSUPPORTED, ExtractError, failed
from tamis.extract.safety import AllowList, Target, check_url, host_header, pinned_url
from tamis.pipeline.fanout import USER_AGENT

MAX_REDIRECTS = 5
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ERROR_BODY_BYTES = 65_536  # enough of an error page to recognise a bot wall
HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.1",
    "Accept-Encoding": "gzip, deflate",
}


@dataclass
class Fetched:
    """A final (non-redirect) answer with its body, decompressed and capped."""

    url: str
    final_url: str
    status_code: int
    headers: dict[str, str]
    body: bytes
    kind: str  # html | text | pdf (see decode.classify; binary bodies are refused)
    content_type: str
    cut: bool = False  # the body was longer than the cap and was cut


class _Inflater:
    """gzip / deflate with a bound on the output of every call."""

    def __init__(self, encoding: str) -> None:
        self._encoding = encoding
        self._zlib: zlib._Decompress | None = None

    def feed(self, data: bytes, limit: int) -> bytes:
        if self._zlib is None:
            if self._encoding == "deflate":
                zlib_header = len(data) >= 2 and (data[0] & 0x0F) == 8 and (
                    (data[0] << 8) | data[1]) % 31 == 0
                self._zlib = zlib.decompressobj(15 if zlib_header else -15)
            else:
                self._zlib = zlib.decompressobj(31)
        return self._zlib.decompress(data, max(1, limit))


def _decoder(headers: httpx.Headers) -> _Inflater | None:
    encodings = [e.strip().lower() for e in headers.get("content-encoding", "").split(",")]
    encodings = [e for e in encodings if e and e != "identity"]
    if not encodings:
        return None
    if len(encodings) == 1 and encodings[0] in ("gzip", "x-gzip", "deflate"):
        return _Inflater("deflate" if encodings[0] == "deflate" else "gzip")
    raise ExtractError(failed("UnsupportedEncoding"),
                       f"content-encoding {', '.join(encodings)} was not asked for")


async def read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """The body, decompressed, at most ``max_bytes``; and whether it was cut."""
    inflater = _decoder(response.headers)
    chunks: list[bytes] = []
    size = raw_size = 0
    try:
        async for raw in response.aiter_raw():
            raw_size += len(raw)
            data = inflater.feed(raw, max_bytes - size + 1) if inflater else raw
            size += len(data)
            chunks.append(data)
            if size > max_bytes or raw_size > max_bytes:
                body = b"".join(chunks)[:max_bytes]
                return body, True
    except zlib.error as exc:
        raise ExtractError(failed("DecodeError"), f"bad compressed body: {exc}") from None
    return b"".join(chunks), False


def _error_kind(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return "Timeout"
    return type(exc).__name__


async def _send(client: httpx.AsyncClient, target: Target) -> httpx.Response:
    """Open the stream for one hop; plain http goes to a vetted address (DNS pinning)."""
    headers = dict(HEADERS)
    urls = [target.url]
    if target.scheme == "http":
        headers["Host"] = host_header(target)
        urls = [pinned_url(target, address) for address in target.addresses]
    last: httpx.HTTPError | None = None
    for url in urls:
        request = client.build_request("GET", url, headers=headers)
        try:
            return await client.send(request, stream=True, follow_redirects=False)
        except httpx.ConnectError as exc:  # try the host's next address
            last = exc
        except UnicodeError as exc:  # httpx decodes a redirect's xn-- host before answering
            raise ExtractError(failed("InvalidRedirect"),
                               f"redirect to an invalid host name: {exc}") from None
        except httpx.HTTPError as exc:
            raise ExtractError(failed(_error_kind(exc)), str(exc) or _error_kind(exc)) from None
    assert last is not None
    raise ExtractError(failed(_error_kind(last)), str(last) or _error_kind(last))


async def fetch_page(url: str, *, client: httpx.AsyncClient, allow: AllowList,
                     max_bytes: int) -> Fetched:
    """Fetch ``url`` (redirects checked hop by hop). Raises ExtractError with a status."""
    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        target = await check_url(current, allow)
        response = await _send(client, target)
        try:
            location = response.headers.get("location")
            if response.status_code in REDIRECT_CODES and location:
                try:
                    current = str(httpx.URL(current).join(location.strip()))
                except (httpx.InvalidURL, ValueError):
                    raise ExtractError(failed("InvalidRedirect"),
                                       f"redirect to an invalid URL: {location[:200]!r}") from None
                continue
            return await _final(url, current, response, max_bytes)
        except httpx.HTTPError as exc:
            raise ExtractError(failed(_error_kind(exc)), str(exc) or _error_kind(exc)) from None
        finally:
            await response.aclose()
    raise ExtractError(failed("TooManyRedirects"), f"more than {MAX_REDIRECTS} redirects")


async def _final(url: str, final_url: str, response: httpx.Response,
                 max_bytes: int) -> Fetched:
    content_type = response.headers.get("content-type", "")
    kind = classify(content_type)
    headers = dict(response.headers)
    if kind == "binary" and response.status_code < 400:
        raise ExtractError(UNSUPPORTED, media_type(content_type))
    cap = max_bytes if response.status_code < 400 else min(max_bytes, ERROR_BODY_BYTES)
    body, cut = await read_capped(response, cap)
    sniffed = sniff_binary(body[:2048])
    if sniffed == "application/pdf" and response.status_code < 400:
        kind = "pdf"
    elif kind == "pdf" and response.status_code < 400:
        pass  # declared a PDF: the PDF reader says what it is
    elif kind in ("sniff", "binary"):
        if sniffed and response.status_code < 400:
            raise ExtractError(UNSUPPORTED, sniffed)
        kind = "html" if b"<" in body[:4096] else "text"
    elif sniffed and response.status_code < 400:
        raise ExtractError(UNSUPPORTED, f"{sniffed} served as {media_type(content_type) or kind}")
    return Fetched(url=url, final_url=final_url, status_code=response.status_code,
                   headers=headers, body=body, kind=kind, content_type=content_type, cut=cut)
