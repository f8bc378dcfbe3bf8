"""Search engines' redirect wrappers (``policy.normalise.wrappers``): the page a wrapper URL
points at (``bing.com/ck/a?u=a1...``, ``google.com/url?q=...``), or that it is an ad click;
and any other click tracker by its shape (``policy.normalise.redirectors``).

A redirector by shape: one query parameter, and only one, holds an absolute http(s) URL
(percent-encoded once or twice, or not), and the host's first label (``clk.about.com``) or
the path's last word (``/out``, ``/away.php``) names a redirect endpoint. What must hold
against a false unwrap: a page that carries a URL in its query without being a redirect (a
share link ``/sharer.php?u=``, ``/intent/tweet?url=``, a login page's ``?next=``, an OAuth
``redirect_uri``, a validator's ``?uri=``, a translator's ``?u=``) is not named like a
redirect endpoint, and a link with two URLs in its query does not say which is the page."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, NamedTuple
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit


def _param(query: str, names: tuple[str, ...]) -> str | None:
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key in names and value:
            return value
    return None


def _bing_a1(value: str) -> str | None:
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


class _WrapperRule(NamedTuple):
    """One ``policy.normalise.wrappers`` entry, ready to match a host and path."""

    domain: str  # "bing.com", or "google." for 'google.*'
    any_country: bool
    exact: frozenset[str]
    prefixes: tuple[str, ...]
    param: tuple[str, ...]
    path_marker: str | None
    tail_marker: str | None
    whole_query: bool
    decode: str
    ad: bool

    def host_ok(self, host: str) -> bool:
        if self.any_country:
            return host.startswith(self.domain) or f".{self.domain}" in host
        return host == self.domain or host.endswith("." + self.domain)

    def path_ok(self, path: str) -> bool:
        return path in self.exact or path.startswith(self.prefixes)

    def target(self, url: str, parts: SplitResult) -> str | None:
        found: str | None = None
        if self.param:
            found = _param(parts.query, self.param)
        elif self.path_marker is not None:
            path = parts.path
            at = path.find(self.path_marker)
            if at >= 0:
                found = unquote(path[at + len(self.path_marker):].split("/", 1)[0])
        elif self.tail_marker is not None:
            at = url.find(self.tail_marker, url.find(parts.netloc) + len(parts.netloc))
            if at >= 0:
                found = url[at + len(self.tail_marker):]
                if found[:6].lower().startswith(("http%3", "https%")):
                    found = unquote(found)
        elif self.whole_query:
            found = parts.query or None
        if found and self.decode == "bing_a1":
            found = _bing_a1(found)
        return found


_EXTENSION = re.compile(r"\.(php[0-9]?|aspx?|jsp|cgi|pl|html?)$")


def _absolute(value: str) -> str | None:
    """``value`` when it is an absolute http(s) URL with a host (once or twice
    percent-encoded: decoded), else None."""
    head = value[:8].lower()
    if head.startswith(("http%3a", "https%3a")):
        value = unquote(value)
        head = value[:8].lower()
    if not head.startswith(("http://", "https://")):
        return None
    try:
        host = urlsplit(value).hostname
    except ValueError:
        return None
    return value if host and "." in host else None


def _may_hold_url(text: str) -> bool:
    """False when ``text`` holds no 'http' in any usual case (no copy of it is made: this is
    asked of every result URL)."""
    return "ttp" in text or "TTP" in text


class Redirectors:
    """``policy.normalise.redirectors``: click trackers known by their shape."""

    def __init__(self, settings: Any = None) -> None:
        self.host_labels = frozenset(w.lower() for w in getattr(settings, "host_labels", ()))
        self.path_words = frozenset(w.lower() for w in getattr(settings, "path_words", ()))

    def shaped(self, host: str, path: str) -> bool:
        """The host's first label (of a subdomain) or the path's last word, its extension
        left out, names a redirect endpoint."""
        label, dot, rest = host.partition(".")
        if dot and "." in rest and label in self.host_labels:
            return True
        word = path.rstrip("/").rpartition("/")[2].lower()
        return bool(word) and _EXTENSION.sub("", word) in self.path_words

    def target(self, host: str, parts: SplitResult) -> str | None:
        """The one absolute URL a redirector's query carries; None when the link is not
        shaped like a redirector, or carries no URL, or two."""
        if "http" not in parts.query.lower() or not self.shaped(host, parts.path):
            return None
        found: str | None = None
        for _key, value in parse_qsl(parts.query, keep_blank_values=True):
            url = _absolute(value.strip())
            if url is not None:
                if found is not None:
                    return None  # which of the two is the page is not said
                found = url
        return found


class Unwrapper:
    """The wrapper list of the policy (``normalise.wrappers``) and its redirector shapes
    (``normalise.redirectors``), compiled once."""

    def __init__(self, wrappers: Iterable[Any], redirectors: Any = None) -> None:
        self.redirectors = Redirectors(redirectors)
        rules = []
        for w in wrappers:
            host = w.host.lower()
            any_country = host.endswith(".*")
            paths = list(w.paths) or ["*"]
            rules.append(_WrapperRule(
                domain=host[:-1] if any_country else host, any_country=any_country,
                exact=frozenset(p for p in paths if not p.endswith("*")),
                prefixes=tuple(p[:-1] for p in paths if p.endswith("*")),
                param=tuple(w.param), path_marker=w.path_marker, tail_marker=w.tail_marker,
                whole_query=w.whole_query, decode=w.decode, ad=w.ad))
        self.rules = tuple(rules)
        # A URL whose head names none of these hosts is no wrapper: the common, cheap case.
        self.hints = tuple(sorted({r.domain for r in rules}))
        self._takers: dict[str, tuple[_WrapperRule, ...]] = {}  # host: the rules taking it

    def may_wrap_at(self, host: str, path: str, query: str = "") -> bool:
        """False when no rule takes this (lower-cased) host, path and query (as ``urlsplit``
        splits them): ``unwrap`` of such a URL is the URL itself."""
        if _may_hold_url(query) and self.redirectors.shaped(host, path):
            return True
        takers = self._takers.get(host)
        if takers is None:
            if len(self._takers) >= 65536:
                self._takers.clear()
            takers = self._takers[host] = tuple(r for r in self.rules if r.host_ok(host))
        return bool(takers) and any(rule.path_ok(path) for rule in takers)

    def unwrap(self, url: str, depth: int = 0) -> tuple[str, bool]:
        """(the page the wrapper points at, is it an ad click); the URL itself otherwise."""
        if depth > 3 or not self.rules:
            return url, False
        head = url[:100].lower()
        for hint in self.hints:
            if hint in head:
                break
        else:
            if not _may_hold_url(url[8:]):  # neither a listed wrapper nor a redirector
                return url, False
        try:
            parts = urlsplit(url)
        except ValueError:
            return url, False
        host = (parts.hostname or "").lower()
        for rule in self.rules:
            if not (rule.host_ok(host) and rule.path_ok(parts.path)):
                continue
            if rule.ad:
                return url, True
            target = rule.target(url, parts)
            if target:
                target = re.sub(r"^(https?):/+", r"\1://", target.strip(), flags=re.I)
                if target.lower().startswith(("http://", "https://")):
                    return self.unwrap(target, depth + 1)
        target = self.redirectors.target(host, parts)
        if target is not None:
            return self.unwrap(re.sub(r"^(https?):/+", r"\1://", target, flags=re.I), depth + 1)
        return url, False


@lru_cache(maxsize=1)
def default_unwrapper() -> Unwrapper:
    """The built-in wrapper list (``policy.normalise.wrappers`` of default.yaml)."""
    from tamis.policy.loader import builtin_data
    from tamis.policy.schema import Normalise

    normalise = Normalise.model_validate(builtin_data()["policy"]["normalise"])
    return Unwrapper(normalise.wrappers, normalise.redirectors)


def unwrap(url: str, unwrapper: Unwrapper | None = None) -> str:
    """The page a search engine's redirect wrapper points at; the URL itself otherwise."""
    return (unwrapper or default_unwrapper()).unwrap(url)[0]
