"""The policy compiled into fast, precise rules: non-answers, demote, prefer, source types.

Every rule here is one the user can read in the YAML. Path patterns match whole path
segments, not substrings: ``/shop/`` is the segment ``shop`` at the start of the path with
something below it, so ``hp.com/us-en/shop/tech-takes/...`` (an article) is kept.

Pattern syntax: ``/a/b`` anchored at the start of the path; ``**/a`` at any depth; ``*`` is a
wildcard inside one segment; a trailing ``/`` needs a segment below; a trailing ``?`` needs a
query string. Segments compare case-insensitively, after percent-decoding.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote

from tamis.models import SourceType
from tamis.pipeline.urls import host_matches, registrable_domain, site_label
from tamis.policy.schema import Policy

# Reasons, as documented in docs/contract.md.
HOST_REASON = "shopping_or_dictionary_host"
ROOT_REASON = "navigational_host_root"
QUERY_REASON = "search_or_shopping_query"

# Words that do not name a site in a navigational query ("proxmox official site").
NAV_FILLER = {"official", "site", "website", "homepage", "home", "page", "www", "web",
              "com", "org", "net", "io", "dev", "app", "ai"}


@dataclass(frozen=True)
class PathPattern:
    text: str
    segments: tuple[str, ...]
    anywhere: bool
    needs_child: bool
    needs_query: bool
    matchers: tuple[Callable[[str], bool], ...]

    @classmethod
    def parse(cls, text: str) -> PathPattern:
        anywhere = text.startswith("**/")
        body = text[3:] if anywhere else text.lstrip("/")
        needs_query = body.endswith("?")
        body = body.rstrip("?")
        needs_child = body.endswith("/")
        segments = tuple(s.lower() for s in body.split("/") if s)
        return cls(text, segments, anywhere, needs_child, needs_query,
                   tuple(_segment_matcher(s) for s in segments))

    def matches(self, segments: list[str], has_query: bool) -> bool:
        if self.needs_query and not has_query:
            return False
        n = len(self.segments)
        if n == 0:
            return False
        need = n + (1 if self.needs_child else 0)
        if len(segments) < need:
            return False
        first = self.segments[0]
        if self.anywhere and _is_literal(first) and first not in segments:
            return False
        starts = range(len(segments) - need + 1) if self.anywhere else (0,)
        return any(all(self.matchers[j](segments[i + j]) for j in range(n)) for i in starts)


class PatternSet:
    """Path patterns indexed by their first literal segment, tried in their config order."""

    def __init__(self, patterns: list[PathPattern]) -> None:
        self.patterns = patterns
        self.by_first: dict[str, list[int]] = {}
        self.always: list[int] = []
        for i, p in enumerate(patterns):
            first = p.segments[0] if p.segments else ""
            if p.anywhere or not first or not _is_literal(first):
                self.always.append(i)
            else:
                self.by_first.setdefault(first, []).append(i)

    def first_match(self, segments: list[str], has_query: bool) -> PathPattern | None:
        if not self.patterns:
            return None
        candidates = self.always + (self.by_first.get(segments[0], []) if segments else [])
        for i in sorted(candidates):
            if self.patterns[i].matches(segments, has_query):
                return self.patterns[i]
        return None


def _is_literal(glob: str) -> bool:
    return not any(c in glob for c in "*?[")


def _segment_matcher(glob: str) -> Callable[[str], bool]:
    if _is_literal(glob):
        return glob.__eq__
    regex = re.compile(fnmatch.translate(glob))
    return lambda segment: regex.match(segment) is not None


def path_segments(path: str) -> list[str]:
    return [unquote(s).lower() for s in path.split("/") if s]


@dataclass(frozen=True)
class Verdict:
    """What the policy says of one URL. ``drop`` is a reason or None."""

    drop: str | None
    demoted: str | None  # the rule that demotes it, e.g. "demote_domains:medium.com"
    preferred: str | None  # the prefer_domains entry it matched
    source_type: SourceType

    @property
    def action(self) -> str:
        if self.drop:
            return "DROP"
        if self.demoted:
            return "DEMOTE"
        if self.preferred:
            return "PREFER"
        return "KEEP"


class _TypeRule:
    def __init__(self, entries: list[str]) -> None:
        self.domains = frozenset(e.lower() for e in entries if "*" not in e and "/" not in e)
        self.prefixes = tuple(e[:-1].lower() for e in entries if e.endswith(".*"))
        self.paths = PatternSet([PathPattern.parse(e) for e in entries
                                 if e.startswith(("/", "**/"))])

    def matches(self, host: str, segments: list[str], has_query: bool) -> bool:
        if host_matches(host, self.domains):
            return True
        if self.prefixes and host.startswith(self.prefixes):
            return True
        return self.paths.first_match(segments, has_query) is not None


class Rules:
    """A policy compiled once per search."""

    def __init__(self, policy: Policy) -> None:
        na = policy.non_answer
        self.policy = policy
        self.non_answer_hosts = frozenset(h.lower() for h in na.hosts)
        self.path_patterns = PatternSet([PathPattern.parse(p) for p in na.path_patterns])
        self.query_keys = frozenset(k.lower() for k in na.query_keys)
        self.search_segments = frozenset(s.lower() for s in na.search_path_segments)
        self.search_hosts = frozenset(h.lower() for h in na.search_hosts)
        self.action_keys = frozenset(k.lower() for k in na.action_keys)
        self.host_root = na.host_root
        self.demote = frozenset(d.lower() for d in policy.demote_domains)
        self.prefer = frozenset(d.lower() for d in policy.prefer_domains)
        st = policy.source_types
        self.type_rules: list[tuple[SourceType, _TypeRule]] = [
            ("code", _TypeRule(st.code)),
            ("qa", _TypeRule(st.qa)),
            ("discussion", _TypeRule(st.discussion)),
            ("forum", _TypeRule(st.forum)),
            ("official", _TypeRule(st.official)),
        ]

    # -- the rules -----------------------------------------------------------------------
    def is_search_page(self, host: str, segments: list[str]) -> bool:
        if host_matches(host, self.search_hosts) or self._search_engine_host(host):
            return True
        if not segments:
            return True  # a site root with a search key: WordPress '/?s=...'
        return any(s in self.search_segments for s in segments)

    @staticmethod
    def _search_engine_host(host: str) -> bool:
        # google.de, www.google.co.uk ...: every country site of the big engines.
        label = site_label(host)
        return label in {"google", "bing", "duckduckgo", "yandex", "baidu"}

    def non_answer(self, host: str, path: str, query: str, query_text: str,
                   preferred: str | None) -> str | None:
        """The reason this URL is not an answer, or None."""
        if host_matches(host, self.non_answer_hosts):
            return HOST_REASON
        segments = path_segments(path)
        if (not segments and not query and self.host_root == "drop" and not preferred
                and not names_site(query_text, host)):
            return ROOT_REASON
        pattern = self.path_patterns.first_match(segments, bool(query))
        if pattern is not None:
            return f"path_pattern:{pattern.text}"
        if query:
            keys = {k.lower(): v for k, v in parse_qsl(query, keep_blank_values=True)}
            if self.action_keys & set(keys):
                return QUERY_REASON
            if any(keys.get(k) for k in self.query_keys) and self.is_search_page(host, segments):
                return QUERY_REASON
        return None

    def root_demoted(self, host: str, path: str, query: str, query_text: str,
                     preferred: str | None) -> bool:
        return (self.host_root == "demote" and not path_segments(path) and not query
                and not preferred and not names_site(query_text, host))

    def source_type(self, host: str, path: str, query: str, demoted: bool,
                    preferred: str | None) -> SourceType:
        if demoted:
            return "content-farm"
        segments = path_segments(path)
        for kind, rule in self.type_rules:
            if rule.matches(host, segments, bool(query)):
                return kind
        return "official" if preferred else "web"

    def judge(self, host: str, path: str, query: str, query_text: str = "") -> Verdict:
        preferred = host_matches(host, self.prefer)
        drop = self.non_answer(host, path, query, query_text, preferred)
        demoted_by = host_matches(host, self.demote)
        demoted = f"demote_domains:{demoted_by}" if demoted_by else None
        if not demoted and self.root_demoted(host, path, query, query_text, preferred):
            demoted = f"{ROOT_REASON} (host_root: demote)"
        if demoted:
            preferred = None  # a demote rule always wins over prefer
        kind = self.source_type(host, path, query, bool(demoted), preferred)
        return Verdict(drop=drop, demoted=demoted, preferred=preferred, source_type=kind)


def names_site(query_text: str, host: str) -> bool:
    """Is this a navigational query for this site? ``cure for boredom`` names
    ``thecureforboredom.com``; ``proxmox`` names ``proxmox.com``."""
    if not query_text:
        return False
    label = re.sub(r"[^a-z0-9]", "", site_label(host).lower())
    if not label:
        return False
    words = re.findall(r"[a-z0-9]+", query_text.lower())
    words = [w for w in words if w not in NAV_FILLER]
    compact = "".join(words)
    if len(compact) < 3:
        return False
    if compact == label:
        return True
    # "cure for boredom" -> "thecureforboredom"; short queries only, so a topic query that
    # happens to contain a brand ("proxmox thin pool ...") is not navigational.
    if len(words) <= 4 and len(compact) >= 5 and compact in label:
        return True
    # "example.com" typed as a query, or the registrable domain spelled out.
    return query_text.strip().lower().removeprefix("www.") == registrable_domain(host)
