"""Bytes to text: what kind of body this is, and in which charset it is written.

Kind: the Content-Type header, checked against the first bytes: a PDF is read as a PDF
whatever its header says; an image, archive, executable or any other binary served as
text/html or text/plain is refused (``unsupported_type``), never decoded as text.

Charset: byte-order mark, then the HTTP header, then
``<meta charset>``, then strict UTF-8, then ``charset_normalizer`` (installed with httpx),
else UTF-8 with replacement characters. Decoding never raises.
"""

from __future__ import annotations

import codecs
import contextlib
import re

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
TEXT_APPLICATION_TYPES = frozenset({"application/json", "application/xml", "application/x-yaml",
                                    "application/yaml", "application/toml"})
SNIFF_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})

_MAGIC = (
    (b"%PDF", "application/pdf"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x89PNG", "image/png"),
    (b"GIF8", "image/gif"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"RIFF", "application/octet-stream"),
    (b"\x1f\x8b", "application/gzip"),
    (b"7z\xbc\xaf", "application/x-7z-compressed"),
    (b"Rar!", "application/vnd.rar"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
    (b"OggS", "audio/ogg"),
    (b"ID3", "audio/mpeg"),
    (b"\x7fELF", "application/x-executable"),
    (b"MZ", "application/x-msdownload"),
)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_META = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]{1,40})""", re.I)


def media_type(content_type: str | None) -> str:
    """``text/html; charset=x`` -> ``text/html``."""
    return (content_type or "").split(";")[0].strip().lower()


def header_charset(content_type: str | None) -> str | None:
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset":
            return value.strip().strip("\"'") or None
    return None


def sniff_binary(head: bytes) -> str | None:
    """The binary type the first bytes announce, or None for what looks like text."""
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None
    if b"\x00" in head[:1024]:
        return "application/octet-stream"
    return None


def classify(content_type: str | None) -> str:
    """``html``, ``text``, ``pdf``, ``sniff`` (unknown: look at the bytes) or ``binary``.

    Text is ``text/*``, JSON and XML (``application/json``, ``application/xml`` and the
    ``+json`` / ``+xml`` types): read as they are, without main-text extraction.
    """
    kind = media_type(content_type)
    if kind in HTML_TYPES:
        return "html"
    if kind in PDF_TYPES:
        return "pdf"
    if kind in TEXT_TYPES or kind.startswith("text/") or kind in TEXT_APPLICATION_TYPES:
        return "text"
    if kind.startswith("application/") and kind.endswith(("+json", "+xml")):
        return "text"
    if kind in SNIFF_TYPES:
        return "sniff"
    return "binary"


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def detect_charset(body: bytes, content_type: str | None, html: bool) -> str:
    """The codec to decode ``body`` with (see the module docstring for the order)."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name
    codec = _codec(header_charset(content_type))
    if codec:
        return codec
    if html:
        match = _META.search(body[:4096])
        codec = _codec(match.group(1).decode("ascii", "replace")) if match else None
        if codec:
            return codec
    with contextlib.suppress(UnicodeDecodeError):
        body.decode("utf-8")
        return "utf-8"
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - installed with httpx
        return "utf-8"
    best = from_bytes(body[:200_000]).best()
    return _codec(best.encoding if best else None) or "utf-8"


def decode(body: bytes, content_type: str | None, html: bool) -> str:
    """The body as text; undecodable bytes become U+FFFD instead of raising."""
    return body.decode(detect_charset(body, content_type, html), errors="replace")
