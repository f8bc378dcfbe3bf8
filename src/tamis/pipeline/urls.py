"""URL work: validate, unwrap redirect wrappers, clean for display, and the dedupe key.

No library does the whole job of cleaning (see ``shared/notes/libraries.md``), so that is
ours, on the stdlib. Registrable domains come from the Public Suffix List that the
``publicsuffixlist`` package ships; it is never fetched at run time.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import posixpath
import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote, unquote, urlsplit

from tamis.errors import InvalidURL
from tamis.pipeline.unwrap import Unwrapper, default_unwrapper, unwrap

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList

__all__ = ["CleanURL", "InvalidURL", "Unwrapper", "clean_url", "default_unwrapper",
           "host_matches", "host_suffixes", "registrable_domain", "site_label", "unwrap"]

MAX_URL_LENGTH = 4096
DEFAULT_PORTS = {"http": 80, "https": 443}
# Characters left unescaped in paths and in query parts (RFC 3986 unreserved + sub-delims).
PATH_SAFE = "/:@!$&'()*+,;=-._~"
QUERY_SAFE = ":@!$'()*+,;/?-._~"


_PLAIN_PATH = re.compile(r"^[A-Za-z0-9/:@!$&'()*+,;=\-._~]*$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

class CleanURL(NamedTuple):
    """A result URL as ``clean_url`` made it: what is shown, and what pages are told apart by."""

    url: str  # what the user sees: unwrapped, tracking stripped, fragment dropped
    key: str  # the dedupe key: also scheme and www. folded, trailing slash and params sorted
    host: str  # lowercased, punycode, no www.
    path: str  # normalised, for the rules
    query: str  # normalised content parameters, for the rules
    ad: bool = False  # an engine's paid ad click (policy.normalise.wrappers, ad: true)


@cache
def _suffix_list() -> PublicSuffixList:
    """The list, with its private section (a blog on blogspot.com is a site of its own), read
    on the first lookup, once a process. Its internationalised rules stay as the list writes
    them, in Unicode (``_site`` asks about such a host in Unicode): the list's punycode copy of
    every rule would triple the CPU of reading it, on every CLI call."""
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(accept_encoded_idn=False)


@lru_cache(maxsize=65536)
def _site(host: str) -> tuple[str, str] | None:
    """(registrable domain, its public suffix) of a host name (lower case, IDN labels in
    punycode, as ``clean_url`` gives it); None for an IP address or a public suffix itself."""
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    idn = "xn--" in host
    if idn:
        try:
            host = host.encode("ascii").decode("idna")
        except UnicodeError:
            idn = False  # not valid punycode: asked as it is
    suffixes = _suffix_list()
    site = suffixes.privatesuffix(host)
    if site is None:
        return None
    public = suffixes.publicsuffix(site)
    if idn:
        site, public = site.encode("idna").decode("ascii"), public.encode("idna").decode("ascii")
    return site, public


def registrable_domain(host: str) -> str:
    """``forum.proxmox.com`` -> ``proxmox.com``; ``bbc.co.uk`` stays; ``user.github.io`` is a
    site of its own; an IP address, or a host that is a public suffix itself, stays as it is."""
    found = _site(host) if host else None
    return host if found is None else found[0]


def site_label(host: str) -> str:
    """The name part of the registrable domain: ``thecureforboredom`` of its .com, ``esbuild``
    of esbuild.github.io; an IP address or a public suffix names nothing more."""
    found = _site(host) if host else None
    return host if found is None else found[0][:-len(found[1]) - 1]


@lru_cache(maxsize=65536)
def host_suffixes(host: str) -> tuple[str, ...]:
    """``a.b.example.com`` -> (``a.b.example.com``, ``b.example.com``, ``example.com``)."""
    parts = host.split(".")
    return tuple(".".join(parts[i:]) for i in range(len(parts) - 1))


def host_matches(host: str, domains: frozenset[str]) -> str | None:
    """The entry of ``domains`` that ``host`` is, or is a subdomain of; else None."""
    for candidate in host_suffixes(host):
        if candidate in domains:
            return candidate
    return None


# ----------------------------------------------------------------------- normalisation
def _norm_percent(text: str, safe: str) -> str:
    """Decode what needs no escaping, escape what does, with upper-case hex.

    An escaped slash stays escaped: ``AC%2FDC`` is one path segment, not two.
    """
    if _PLAIN_PATH.match(text):
        return text  # nothing escaped, nothing to escape: the common case
    pieces = re.split(r"%2[fF]", text)
    return "%2F".join(
        quote(unquote(p, errors="surrogateescape"), safe=safe, errors="surrogateescape")
        for p in pieces
    )


_HOST_CHARS = re.compile(r"[a-z0-9._:\-\[\]]+")


@lru_cache(maxsize=65536)
def _norm_host(netloc_host: str) -> str:
    """Lower-cased, punycode. Raises InvalidURL (never cached: lru_cache keeps results)."""
    host = netloc_host.strip(".").lower()
    if not host:
        raise InvalidURL("no host")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise InvalidURL("host is not a valid domain name") from None
    if not _HOST_CHARS.fullmatch(host):
        raise InvalidURL("host has characters a domain name cannot have")
    return host


class _Tracking(NamedTuple):
    """Tracking-parameter globs (``utm_*``, ``fbclid``...), compiled: the names without a
    wildcard as a set, the others as one regex (None when there are none)."""

    exact: frozenset[str]
    globs: Callable[[str], object] | None


@lru_cache(maxsize=64)
def _tracking(patterns: tuple[str, ...]) -> _Tracking:
    lowered = [p.lower() for p in patterns]
    exact = frozenset(p for p in lowered if not any(c in p for c in "*?["))
    globs = [p for p in lowered if p not in exact]
    return _Tracking(exact, re.compile("|".join(fnmatch.translate(p) for p in globs)).match
                     if globs else None)


_UNSAFE = re.compile(r'[ "<>\\^`{|}]')


def _escape_unsafe(text: str) -> str:
    """Escape only what can never stand in a URL (a space, quotes, braces...): nothing else
    changes, so the URL handed on is the engine's, byte for byte."""
    return _UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", text)


def _content_pieces(query: str, tracking: tuple[str, ...]) -> list[str]:
    """The query string's pieces minus tracking parameters, each exactly as it was."""
    if not query:
        return []
    exact, globs = _tracking(tracking)
    kept = []
    for piece in query.split("&"):
        if piece:
            name = _param_name(piece)
            if name not in exact and (globs is None or globs(name) is None):
                kept.append(piece)
    return kept


def _param_name(piece: str) -> str:
    """The decoded, lower-cased name of one ``k=v`` piece (``+`` is a space)."""
    name = piece.partition("=")[0]
    if "%" in name or "+" in name:
        name = unquote(name.replace("+", " "))
    return name.lower()


_PLAIN = r"[A-Za-z0-9\-._~:@!$'()*,;/?]"
_PLAIN_QUERY_PIECE = re.compile(f"^{_PLAIN}+(={_PLAIN}+)?$")  # nothing to normalise


def _key_piece(piece: str) -> str:
    """One ``k=v`` piece with its percent-encoding normalised (``+`` is a space)."""
    if _PLAIN_QUERY_PIECE.match(piece):
        return piece
    k, eq, v = piece.partition("=")
    k = quote(unquote(k.replace("+", " ")), safe=QUERY_SAFE)
    if not eq or v == "":
        return k
    return f"{k}={quote(unquote(v.replace('+', ' ')), safe=QUERY_SAFE)}"


class _Parts(NamedTuple):
    """A URL split as ``urlsplit`` splits it (scheme lower-cased)."""

    scheme: str
    hostname: str
    port: int | None
    path: str
    query: str


def _split(raw: str) -> _Parts:
    """Raises InvalidURL."""
    try:
        parts = urlsplit(raw)
        netloc = parts.netloc
        if ":" in netloc or "@" in netloc or "[" in netloc:
            port, hostname = parts.port, parts.hostname or ""
        else:
            port, hostname = None, netloc
    except ValueError as exc:
        raise InvalidURL(f"unparseable url: {exc}") from None
    return _Parts(parts.scheme.lower(), hostname, port, parts.path, parts.query)


def _checked(raw: str) -> str:
    """The URL stripped. Raises InvalidURL for what can never be a web page's URL."""
    if not isinstance(raw, str):
        raise InvalidURL("empty url")
    raw = raw.strip()
    if not raw:
        raise InvalidURL("empty url")
    if len(raw) > MAX_URL_LENGTH:
        raise InvalidURL(f"url longer than {MAX_URL_LENGTH} characters")
    if not raw.isprintable() and _CONTROL.search(raw):
        raise InvalidURL("url contains control characters")
    return raw


def _key_path(raw_path: str) -> str:
    """The path with percent-encoding, dot segments and repeated slashes normalised."""
    path = _norm_percent(raw_path or "/", PATH_SAFE)
    if "/." in path or "//" in path:
        path = posixpath.normpath(path) + ("/" if path.endswith("/") and path != "/" else "")
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if path in (".", ""):
        path = "/"
    return path


def clean_url(raw: str, tracking: tuple[str, ...],
              unwrapper: Unwrapper | None = None) -> CleanURL:
    """Unwrap, validate and clean one result URL. Raises InvalidURL.

    ``url`` is the engine's URL unwrapped, minus tracking parameters, fragment and user
    info: scheme and host lower-cased (IDN as punycode), a default port dropped, the path and
    every other parameter exactly as given. ``key`` folds everything that names the same page.
    """
    raw = _checked(raw)
    unwrapper = unwrapper or default_unwrapper()
    parts, ad = _split(raw), False
    if unwrapper.may_wrap_at(parts.hostname.lower(), parts.path, parts.query):
        raw, ad = unwrapper.unwrap(raw)
        parts = _split(raw)  # the URL the wrapper points at
    scheme, port = parts.scheme, parts.port
    if scheme not in ("http", "https"):
        raise InvalidURL(f"not a web page: scheme {scheme + ':' if scheme else '(none)'}")
    host = _norm_host(parts.hostname)
    shown_host = f"[{host}]" if ":" in host else host  # IPv6 keeps its brackets
    default_port = port in (None, DEFAULT_PORTS[scheme])
    netloc = shown_host if default_port else f"{shown_host}:{port}"
    pieces = _content_pieces(parts.query, tracking)
    shown_path = _escape_unsafe(parts.path) or "/"
    shown_query = _escape_unsafe("&".join(pieces))
    url = (f"{scheme}://{netloc}{shown_path}?{shown_query}" if shown_query
           else f"{scheme}://{netloc}{shown_path}")

    # The dedupe key (and what the rules read): percent-encoding, dot segments and repeated
    # slashes normalised, www. and scheme folded, parameters sorted.
    path = _key_path(parts.path)
    query = "&".join([_key_piece(p) for p in pieces]) if pieces else ""
    bare = host[4:] if host.startswith("www.") and host.count(".") >= 2 else host
    shown_bare = f"[{bare}]" if ":" in bare else bare
    key_netloc = shown_bare if default_port else f"{shown_bare}:{port}"
    key_path = path.rstrip("/") or "/"
    key_query = "&".join(sorted(query.split("&"))) if query else ""
    key = f"{key_netloc}{key_path}" + (f"?{key_query}" if key_query else "")
    return CleanURL(url, key, bare, path, query, ad)
