"""Search engines' redirect wrappers (``policy.normalise.wrappers``): the page a wrapper URL
points at (``bing.com/ck/a?u=a1...``, ``google.com/url?q=...``), or that it is an ad click."""

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


class Unwrapper:
    """The wrapper list of the policy (``normalise.wrappers``), compiled once."""

    def __init__(self, wrappers: Iterable[Any]) -> None:
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
        self._hosts = frozenset(r.domain for r in rules if not r.any_country)
        self._countries = tuple(sorted({r.domain for r in rules if r.any_country}))
        self._may: dict[str, bool] = {}  # host: may_wrap
        self._takers: dict[str, tuple[_WrapperRule, ...]] = {}  # host: the rules taking it

    def may_wrap(self, host: str) -> bool:
        """False when no rule's host is this (lower-cased) host: ``unwrap`` of a URL on it
        is the URL itself, whatever its path. True does not mean it is a wrapper."""
        known = self._may.get(host)
        if known is None:
            if len(self._may) >= 65536:
                self._may.clear()
            known = self._may[host] = self._may_wrap(host)
        return known

    def may_wrap_at(self, host: str, path: str) -> bool:
        """False when no rule takes this (lower-cased) host and this path (as ``urlsplit``
        splits them): ``unwrap`` of such a URL is the URL itself."""
        takers = self._takers.get(host)
        if takers is None:
            if len(self._takers) >= 65536:
                self._takers.clear()
            takers = self._takers[host] = tuple(
                r for r in self.rules if r.host_ok(host)) if self.may_wrap(host) else ()
        return bool(takers) and any(rule.path_ok(path) for rule in takers)

    def _may_wrap(self, host: str) -> bool:
        if not self.rules:
            return False
        if any(d in host for d in self._countries):  # 'google.*': its host_ok needs this
            return True
        start = 0  # the host and every name after one of its dots (the rules' host_ok)
        while True:
            if host[start:] in self._hosts:
                return True
            start = host.find(".", start) + 1
            if not start:
                return False

    def unwrap(self, url: str, depth: int = 0) -> tuple[str, bool]:
        """(the page the wrapper points at, is it an ad click); the URL itself otherwise."""
        if depth > 3 or not self.rules:
            return url, False
        head = url[:100].lower()
        for hint in self.hints:
            if hint in head:
                break
        else:
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
        return url, False


@lru_cache(maxsize=1)
def default_unwrapper() -> Unwrapper:
    """The built-in wrapper list (``policy.normalise.wrappers`` of default.yaml)."""
    from tamis.policy.loader import builtin_data
    from tamis.policy.schema import Normalise

    data = builtin_data()["policy"]["normalise"]
    return Unwrapper(Normalise.model_validate(data).wrappers)


def unwrap(url: str, unwrapper: Unwrapper | None = None) -> str:
    """The page a search engine's redirect wrapper points at; the URL itself otherwise."""
    return (unwrapper or default_unwrapper()).unwrap(url)[0]
