"""URL work: validate, unwrap redirect wrappers, clean for display, and the dedupe key.

No library does the whole job (see ``shared/notes/libraries.md``), so this is ours, on the
stdlib. Registrable domains come from the Public Suffix List table in ``tamis.domains``; it is
never fetched at run time.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

MAX_URL_LENGTH = 4096
DEFAULT_PORTS = {"http": 80, "https": 443}
# Characters left unescaped in paths and in query parts (RFC 3986 unreserved + sub-delims).
PATH_SAFE = "/:@!$&'()*+,;=-._~"
QUERY_SAFE = ":@!$'()*+,;/?-._~"


_PLAIN_PATH = re.compile(r"^[A-Za-z0-9/:@!$&'()*+,;=\-._~]*$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Hosts that wrap result links in a redirect; a URL naming none of them is not unwrapped.
_WRAPPER_HINTS = ("google.", "bing.com", "duckduckgo.com", "yahoo.com", "yandex.",
                  "facebook.com", "reddit.com", "youtube.com", "href.li", "nullrefer.com",
                  "safelinks.protection")


class InvalidURL(ValueError):
    """A result's URL that cannot be a web page (no scheme, javascript:, too long...)."""


@dataclass(slots=True)
class CleanURL:
    url: str  # what the user sees: unwrapped, tracking stripped, fragment dropped
    key: str  # the dedupe key: also scheme and www. folded, trailing slash and params sorted
    host: str  # lowercased, punycode, no www.
    path: str
    query: str


@lru_cache(maxsize=1)
def _extractor():  # type: ignore[no-untyped-def]
    from tamis.domains import split_host  # the bundled suffix table: no network, ever

    return split_host


@lru_cache(maxsize=65536)
def registrable_domain(host: str) -> str:
    """``forum.proxmox.com`` -> ``proxmox.com``; ``bbc.co.uk`` stays; an IP stays itself."""
    if not host:
        return host
    ext = _extractor()(host)
    if ext.domain and ext.suffix:
        return f"{ext.domain}.{ext.suffix}"
    return host


@lru_cache(maxsize=65536)
def site_label(host: str) -> str:
    """The name part of the registrable domain: ``thecureforboredom`` of its .com."""
    ext = _extractor()(host)
    return ext.domain or host


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


# ---------------------------------------------------------------------------- unwrapping
def _param(query: str, *names: str) -> str | None:
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key in names and value:
            return value
    return None


def _bing_u(value: str) -> str | None:
    """Bing's ``u=a1<base64url of the target>``."""
    if value.startswith(("http://", "https://")):
        return value
    if not value.startswith("a1"):
        return None
    raw = value[2:]
    try:
        return base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def unwrap(url: str, depth: int = 0) -> str:
    """The page a search engine's redirect wrapper points at; the URL itself otherwise."""
    if depth > 3:
        return url
    head = url[:80].lower()
    if not any(hint in head for hint in _WRAPPER_HINTS):
        return url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = parts.path
    target: str | None = None
    if (host.startswith(("google.", "www.google.")) or ".google." in host) and path in (
        "/url", "/imgres", "/interstitial", "/aclk"
    ):
        target = _param(parts.query, "q", "url", "imgrefurl", "adurl")
    elif host.endswith("bing.com") and path.startswith("/ck/a"):
        value = _param(parts.query, "u")
        target = _bing_u(value) if value else None
    elif host.endswith("duckduckgo.com") and path in ("/l/", "/l"):
        target = _param(parts.query, "uddg")
    elif host.endswith("search.yahoo.com") and "/RU=" in path:
        m = re.search(r"/RU=([^/]+)/", path + "/")
        target = unquote(m.group(1)) if m else None
    elif host.endswith(("yandex.ru", "yandex.com")) and path.startswith(("/clck/", "/redir")):
        target = _param(parts.query, "url", "l")
    elif host in ("l.facebook.com", "lm.facebook.com") and path == "/l.php":
        target = _param(parts.query, "u")
    elif host == "out.reddit.com" or (host.endswith("reddit.com") and path == "/out"):
        target = _param(parts.query, "url")
    elif host == "www.youtube.com" and path == "/redirect":
        target = _param(parts.query, "q")
    elif host in ("href.li", "nullrefer.com"):
        target = parts.query or None
    elif host.endswith("safelinks.protection.outlook.com"):
        target = _param(parts.query, "url")
    if target and target.startswith(("http://", "https://")):
        return unwrap(target, depth + 1)
    return url


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


def _norm_host(netloc_host: str) -> str:
    host = netloc_host.strip(".").lower()
    if not host:
        raise InvalidURL("no host")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise InvalidURL("host is not a valid domain name") from None
    if not re.fullmatch(r"[a-z0-9._:\-\[\]]+", host):
        raise InvalidURL("host has characters a domain name cannot have")
    return host


@lru_cache(maxsize=64)
def _tracking_matcher(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One compiled regex for every tracking-parameter glob (``utm_*``, ``fbclid``...)."""
    body = "|".join(fnmatch.translate(p.lower()) for p in patterns) or "(?!)"
    return re.compile(body)


def _is_tracking(name: str, patterns: tuple[str, ...]) -> bool:
    return _tracking_matcher(patterns).match(name.lower()) is not None


def clean_url(raw: str, tracking: tuple[str, ...]) -> CleanURL:
    """Unwrap, validate and normalise one result URL. Raises InvalidURL."""
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidURL("empty url")
    raw = raw.strip()
    if len(raw) > MAX_URL_LENGTH:
        raise InvalidURL(f"url longer than {MAX_URL_LENGTH} characters")
    if not raw.isprintable() and _CONTROL.search(raw):
        raise InvalidURL("url contains control characters")
    raw = unwrap(raw)
    try:
        parts = urlsplit(raw)
        netloc = parts.netloc
        if ":" in netloc or "@" in netloc or "[" in netloc:
            port, hostname = parts.port, parts.hostname or ""
        else:
            port, hostname = None, netloc
    except ValueError as exc:
        raise InvalidURL(f"unparseable url: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise InvalidURL(f"not a web page: scheme {scheme + ':' if scheme else '(none)'}")
    host = _norm_host(hostname)
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = _norm_percent(parts.path or "/", PATH_SAFE)
    if "/." in path or "//" in path:
        path = posixpath.normpath(path) + ("/" if path.endswith("/") and path != "/" else "")
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    if path in (".", ""):
        path = "/"
    params = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not _is_tracking(k, tracking)
    ] if parts.query else []
    query = "&".join(
        f"{quote(k, safe=QUERY_SAFE)}={quote(v, safe=QUERY_SAFE)}" if v != "" else
        quote(k, safe=QUERY_SAFE)
        for k, v in params
    )
    url = urlunsplit((scheme, netloc, path, query, ""))
    bare = host[4:] if host.startswith("www.") and host.count(".") >= 2 else host
    key_netloc = bare if port in (None, DEFAULT_PORTS[scheme]) else f"{bare}:{port}"
    key_path = path.rstrip("/") or "/"
    key_query = "&".join(sorted(query.split("&"))) if query else ""
    key = f"{key_netloc}{key_path}" + (f"?{key_query}" if key_query else "")
    return CleanURL(url=url, key=key, host=bare, path=path, query=query)


# ------------------------------------------------------------------------- text cleaning
_TAG = re.compile(r"<[^>]{0,2000}>")


def clean_text(text: str, cap: int | None = None) -> str:
    """Strip HTML tags, unescape entities, collapse whitespace, cap at a word boundary."""
    import html

    if not text:
        return ""
    if "<" in text or "&" in text:
        text = html.unescape(_TAG.sub(" ", text))
        text = _TAG.sub(" ", text)  # tags that were entity-escaped in the source
    text = " ".join(text.split())
    if cap is not None and len(text) > cap:
        cut = text[: cap - 1]
        space = cut.rfind(" ")
        if space > cap // 2:
            cut = cut[:space]
        text = cut.rstrip(" ,;:.-") + "…"
    return text
