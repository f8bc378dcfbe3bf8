"""A backend request made into the bytes httpx would send, without httpx: the target (path
and query), the headers in httpx's order, the body. For the clients that carry a backend
request themselves (``tamis.http_exchange``: the service's over aiohttp, the CLI's over h11).

Only what tamis's adapters ask is composed here, and only when the result is known to be
httpx's byte for byte (a test compares the two on many URLs, parameters and headers): an
``http``/``https`` URL with a plain lowercase-able host (a name or an IPv4 address), a port
or none, a path of characters httpx leaves as they are (no ``.`` or ``..`` segment, every
``%`` an escape), no user info, no fragment; ``params`` on a URL without a query; ``GET``
without a body or ``POST`` with a JSON body; header names and values of printable ASCII.
Anything else gives ``None``: the caller then builds the request with httpx itself, so an
unusual URL is sent (or refused, in httpx's words) exactly as before.
"""

from __future__ import annotations

import functools
import json as jsonlib
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from tamis.records import FrozenRecord  # == and repr shared, not compiled per class

DEFAULT_PORTS = {"http": 80, "https": 443}
# A URL httpx keeps as it is (read by ``_split``, the regular expression of the test written
# out: compiling it costed about half a percent of a CLI search's CPU):
#   (https?)://(LABEL(\.LABEL)*)(:[1-9][0-9]{0,4})?(/(CHAR)*)?(\?(CHAR|\?)+)?
# LABEL: [A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?; CHAR: one of _KEPT, or % and two hex digits.
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_HOST = _ALNUM | {"-", "."}
_KEPT = _ALNUM | frozenset("-._~!$&'()*+,;=:@/")
_HEXDIGITS = frozenset("0123456789abcdefABCDEF")
_DOT_SEGMENT = re.compile(r"/\.\.?(?:/|$)")
_HEADER_TEXT = re.compile(r"[\x20-\x7e\t]*", re.ASCII)
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+", re.ASCII)
_IPV4ISH = re.compile(r"[0-9]+.[0-9]+.[0-9]+.[0-9]+", re.ASCII)  # httpx's (any separator)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Outgoing(FrozenRecord):
    """What goes on the wire: ``url`` (as httpx's ``str(request.url)``), ``target`` (the
    request line's), ``host`` and ``port`` to connect to, the headers, the body."""

    scheme: str
    host: str
    port: int
    url: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes | None


def _value(value: Any) -> str:
    """httpx's ``primitive_value_to_str``."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    return str(value)


def _query(params: dict[str, Any]) -> str | None:
    """httpx's encoding of ``params`` (``QueryParams`` then ``urlencode``), or None."""
    items: list[tuple[str, str]] = []
    for key, value in params.items():
        values = list(value) if isinstance(value, list | tuple) else [value]
        if not values:
            return None  # an empty list: httpx's edge, left to httpx
        items.extend((str(key), _value(v)) for v in values)
    return urlencode(items)


def compose(method: str, url: str, *, params: dict[str, Any] | None,
            json: Any, headers: dict[str, str],
            base: list[tuple[str, str]]) -> Outgoing | None:
    """The request httpx would build from ``client.build_request(method, url, params=...,
    json=..., headers=...)`` for a client whose headers are ``base``, or None (see above)."""
    if not isinstance(url, str) or not isinstance(method, str):
        return None
    parts = _parts(url)
    if parts is None:
        return None
    scheme, host, port, netloc, path, query = parts
    if params is not None:
        if query is not None:
            return None
        query = _query(params)
        if query is None:
            return None
    target = f"{path}?{query}" if query else path
    given: list[tuple[str, str]] = []
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str) \
                or not _TOKEN.fullmatch(name) or not _HEADER_TEXT.fullmatch(value):
            return None
        given.append((name, value))
    if method == "GET" and json is None:
        body = None
    elif method == "POST" and json is not None:  # after the headers, as httpx
        body = jsonlib.dumps(json, ensure_ascii=False, separators=(",", ":"),
                             allow_nan=False).encode("utf-8")
    else:
        return None
    replaced = {name.lower() for name, _ in given}
    merged = [(n, v) for n, v in base if n.lower() not in replaced] + given
    present = {name.lower() for name, _ in merged}
    if body is not None:
        if "content-length" not in present:
            merged.append(("Content-Length", str(len(body))))
        if "content-type" not in present:
            merged.append(("Content-Type", "application/json"))
    if "host" not in present:
        merged.insert(0, ("Host", netloc))
    return Outgoing(scheme, host, port, f"{scheme}://{netloc}{target}", target, merged,
                    body)


@functools.lru_cache(maxsize=256)
def _parts(url: str) -> tuple[str, str, int, str, str, str | None] | None:
    """(scheme, host, port, netloc, path, query) of a URL httpx keeps as it is, else None
    (kept: a line's endpoint is the same URL each time)."""
    split = _split(url)
    if split is None:
        return None
    scheme, host, port_text, path, query = split
    path = path or "/"
    if _DOT_SEGMENT.search(path):
        return None
    host = host.lower()
    if _IPV4ISH.fullmatch(host) and not _ipv4(host):
        return None
    default = DEFAULT_PORTS[scheme]
    port = int(port_text) if port_text else default
    if port > 65535:
        return None
    return scheme, host, port, host if port == default else f"{host}:{port}", path, query


def _split(url: str) -> tuple[str, str, str | None, str | None, str | None] | None:
    """(scheme, host, port, path, query) of a URL of the form above (None: not one), as
    the groups of its regular expression."""
    scheme = "https" if url.startswith("https://") else "http" if url.startswith(
        "http://") else None
    if scheme is None:
        return None
    rest = url[len(scheme) + 3:]
    end = 0
    while end < len(rest) and rest[end] in _HOST:
        end += 1
    host, rest = rest[:end], rest[end:]
    for label in host.split("."):
        if not label or label[0] == "-" or label[-1] == "-":
            return None
    port = path = query = None
    if rest[:1] == ":":
        end = 1
        while end < len(rest) and rest[end].isdigit() and rest[end].isascii():
            end += 1
        port, rest = rest[1:end], rest[end:]
        if not 1 <= len(port) <= 5 or port[0] == "0":
            return None
    if rest[:1] == "/":
        path, asked, after = rest.partition("?")
        rest = asked + after
        if not _kept(path):
            return None
    if rest:
        query = rest[1:]
        if rest[0] != "?" or not query or not _kept(query.replace("?", "/")):
            return None
    return scheme, host, port, path, query


def _kept(text: str) -> bool:
    """Every character one httpx keeps as it is, every % an escape."""
    for index, char in enumerate(text):
        if char not in _KEPT and (char != "%" or text[index + 1:index + 2] not in _HEXDIGITS
                                  or text[index + 2:index + 3] not in _HEXDIGITS):
            return False
    return True


def _ipv4(host: str) -> bool:
    parts = host.split(".")
    return len(parts) == 4 and all(p.isdigit() and len(p) <= 3 and int(p) <= 255
                                   and (p == "0" or not p.startswith("0")) for p in parts)
