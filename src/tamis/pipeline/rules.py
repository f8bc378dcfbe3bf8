"""The policy compiled into rules: proven non-answers, page kinds, demote, prefer, source types.

Every rule here is one the user can read in the YAML. Two kinds of rule:

- ``non_answer``: what proves a result answers no query (a search-results page, a cart, an ad,
  a parked domain): dropped, with the rule as the reason;
- ``page_kinds``: pages that answer some queries and not others (a shop answers "buy x", a
  sign-in page "gmail sign in", a homepage a query naming its site): ``rank`` moves them down a
  bounded number of places unless the query asks for them.

Path patterns (``paths.py``) match whole path segments, not substrings: ``/shop/`` is the
segment ``shop`` at the start of the path with something below it, so
``hp.com/us-en/shop/tech-takes/...`` (an article) is no shop.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from tamis.models import Candidate, SourceType
from tamis.pipeline.intent import IntentWords, QueryIntent, SiteNames, detect_intent
from tamis.pipeline.paths import PathPattern, PatternSet, front_page, split_path
from tamis.pipeline.placeholder import PlaceholderTitles
from tamis.pipeline.query import parse_query
from tamis.pipeline.relevance import names_page
from tamis.pipeline.urls import Unwrapper, host_matches, registrable_domain, site_label
from tamis.pipeline.verdict import HostFacts, Verdict
from tamis.policy.schema import PageKind, Policy

__all__ = ["HostFacts", "PathPattern", "PatternSet", "Rules", "Verdict"]

# Reasons, as documented in docs/contract.md.
HOST_REASON = "non_answer_host"
QUERY_REASON = "search_or_shopping_query"
PLACEHOLDER_REASON = "placeholder_page"
KIND_REASON = "page_kind"  # page_kind:shop: a kind that answers nothing for this intent
MEMO_SIZE = 65536  # hosts remembered by one Rules (the service keeps its rules), at most
# No intent (explain-url without a query, intent detection off): no intent asks for a kind.
NO_INTENT = QueryIntent("informational", "no query")
SEARCH_ENGINES = frozenset({"google", "bing", "duckduckgo", "yandex", "baidu"})
SOURCE_TYPES: tuple[SourceType, ...] = ("code", "qa", "discussion", "forum", "official")


class _HostsAndPaths:
    """A list of entries that are domains, host prefixes ('forum.*') or path patterns."""

    def __init__(self, entries: list[str]) -> None:
        self.domains = frozenset(e.lower() for e in entries if "*" not in e and "/" not in e)
        self.prefixes = tuple(e[:-1].lower() for e in entries if e.endswith(".*"))
        self.paths = [PathPattern.parse(e) for e in entries if e.startswith(("/", "**/"))]

    def matches_host(self, host: str) -> bool:
        return bool(host_matches(host, self.domains)) or host.startswith(self.prefixes or ("\0",))


class _Kind:
    """A page kind (``policy.page_kinds.<name>``), compiled."""

    def __init__(self, name: str, kind: PageKind) -> None:
        self.name = name
        self.hosts = frozenset(h.lower() for h in kind.hosts)
        self.paths = [PathPattern.parse(p) for p in kind.path_patterns]
        self.front_page = kind.front_page
        self.phrases = tuple(tuple(w.lower().split()) for w in kind.query_words if w.strip())
        self.intents = frozenset(kind.intents)
        self.non_answer_for = frozenset(kind.non_answer_for)

    def asked_by(self, words: tuple[str, ...], intent: QueryIntent) -> str | None:
        """Why the query asks for this kind, or None."""
        for phrase in self.phrases:
            n = len(phrase)
            if any(words[i:i + n] == phrase for i in range(len(words) - n + 1)):
                return f"query word '{' '.join(phrase)}'"
        if intent.kind in self.intents:
            return f"{intent.kind} query"
        return None


class Rules:
    """A policy compiled once per search (or once per process, by the service)."""

    def __init__(self, policy: Policy) -> None:
        na = policy.non_answer
        self.policy = policy
        self.non_answer_hosts = frozenset(h.lower() for h in na.hosts)
        self.path_patterns = PatternSet([PathPattern.parse(p) for p in na.path_patterns])
        self.query_keys = frozenset(k.lower() for k in na.query_keys)
        self.search_segments = frozenset(s.lower() for s in na.search_path_segments)
        self.search_hosts = frozenset(h.lower() for h in na.search_hosts)
        self.action_keys = frozenset(k.lower() for k in na.action_keys)
        self.search_pages_last_resort = na.search_pages_last_resort
        self.placeholders = PlaceholderTitles(na.placeholder_titles)
        self.unwrapper = Unwrapper(policy.normalise.wrappers, policy.normalise.redirectors)
        self.kinds = [_Kind(name, kind) for name, kind in policy.page_kinds.items()]
        # every kind's path patterns in kind order: the first that matches is the first kind's
        self.kind_paths = PatternSet([p for k in self.kinds for p in k.paths])
        self.kind_of = {id(p): k for k in reversed(self.kinds) for p in k.paths}
        it = policy.intent
        self.intent_enabled = it.enabled
        self.intent_words = IntentWords(
            definitional=frozenset(w.lower() for w in it.definitional_words),
            transactional=frozenset(w.lower() for w in it.transactional_words),
            service=frozenset(w.lower() for w in it.service_words),
            technical=frozenset(w.lower() for w in it.technical_terms),
            max_name_words=it.max_name_words, first_hosts=it.first_hosts)
        self.prefer_counts = {"navigational": it.navigational.prefer,
                              "definitional": it.definitional.prefer,
                              "transactional": it.transactional.prefer,
                              "informational": it.informational.prefer}
        self.demote = frozenset(d.lower() for d in policy.demote_domains)
        self.prefer = frozenset(d.lower() for d in policy.prefer_domains)
        st = policy.source_types
        self.type_rules = [(t, _HostsAndPaths(getattr(st, t))) for t in SOURCE_TYPES]
        self.type_paths = PatternSet([p for _, rule in self.type_rules for p in rule.paths])
        self.type_of = {id(p): t for t, rule in reversed(self.type_rules) for p in rule.paths}
        self._hosts: dict[str, HostFacts] = {}

    def host_facts(self, host: str) -> HostFacts:
        facts = self._hosts.get(host)
        if facts is None:
            if len(self._hosts) >= MEMO_SIZE:
                self._hosts.clear()
            kind = next((k.name for k in self.kinds if host_matches(host, k.hosts)), None)
            source_type = next((t for t, rule in self.type_rules if rule.matches_host(host)),
                               None)
            facts = self._hosts[host] = HostFacts(
                host_matches(host, self.non_answer_hosts), host_matches(host, self.prefer),
                host_matches(host, self.demote), kind, source_type, registrable_domain(host))
        return facts

    def intent(self, query_text: str, hosts: list[str]) -> QueryIntent:
        """The query's intent (``hosts``: result hosts in the engines' order)."""
        if not query_text.strip():
            return NO_INTENT
        found = detect_intent(query_text, hosts, self.intent_words)
        if not self.intent_enabled:
            return QueryIntent("informational", f"intent rules off (would be {found.kind})")
        return found

    # -- non-answers ---------------------------------------------------------------------
    def non_answer(self, host: str, facts: HostFacts, segments: list[str], query: str,
                   title: str | None) -> str | None:
        """The reason this URL answers no query, or None."""
        if facts.listed:
            return HOST_REASON
        pattern = self.path_patterns.first_match(segments, bool(query))
        if pattern is not None:
            return f"path_pattern:{pattern.text}"
        if query and self.query_drops(host, segments, query):
            return QUERY_REASON
        if self.placeholders.match(title, host, facts.domain):
            return PLACEHOLDER_REASON  # parked or for sale: never an answer
        return None

    def query_drops(self, host: str, segments: list[str], query: str) -> bool:
        """The query string makes it a search or shopping page (``QUERY_REASON``)."""
        keys = {k.lower(): v for k, v in parse_qsl(query, keep_blank_values=True)}
        if self.action_keys & keys.keys():
            return True
        if any(keys[k] for k in self.query_keys & keys.keys()) and self.is_search_page(
                host, segments):
            return True
        return any(keys.values()) and self.is_search_script(segments)

    def is_search_page(self, host: str, segments: list[str]) -> bool:
        if host_matches(host, self.search_hosts) or site_label(host) in SEARCH_ENGINES:
            return True  # google.de, www.google.co.uk ...: every country site of the engines
        if not segments:
            return True  # a site root with a search key: WordPress '/?s=...'
        return any(s in self.search_segments for s in segments)

    def is_search_script(self, segments: list[str]) -> bool:
        """``search.php``, ``smartsearch.cgi``, ``search.asp``: a site's own search page."""
        for segment in segments:
            stem, dot, _ = segment.partition(".")
            if dot and (stem in self.search_segments
                        or (stem.endswith("search") and not stem.endswith("research"))):
                return True
        return False

    # -- what the page is ----------------------------------------------------------------
    def page_kind(self, facts: HostFacts, front: bool, segments: list[str], query: str
                  ) -> _Kind | None:
        """The first kind (in config order) whose hosts, paths or front page (``front``) it
        is."""
        pattern = self.kind_paths.first_match(segments, bool(query))
        by_path = self.kind_of[id(pattern)] if pattern else None
        for kind in self.kinds:
            if kind.name == facts.kind or kind is by_path or (kind.front_page and front):
                return kind
        return None

    def source_type(self, facts: HostFacts, segments: list[str], query: str, demoted: bool,
                    preferred: str | None) -> SourceType:
        """The first type (in ``SOURCE_TYPES`` order) its host or its path is."""
        if demoted:
            return "content-farm"
        pattern = self.type_paths.first_match(segments, bool(query))
        by_path = self.type_of[id(pattern)] if pattern else None
        for kind in SOURCE_TYPES:
            if kind in (facts.source_type, by_path):
                return kind
        return "official" if preferred else "web"

    def judge(self, host: str, path: str, query: str, query_text: str = "",
              intent: QueryIntent | None = None, title: str | None = None) -> Verdict:
        """``title``: the result's title, when known (None: explain-url on a bare URL)."""
        intent = intent or (self.intent(query_text, [host]) if query_text else NO_INTENT)
        return self._judge(host, path, query, title, _Asked(self, query_text, intent))

    def judge_all(self, candidates: list[Candidate], query_text: str,
                  intent: QueryIntent) -> list[Verdict]:
        asked = _Asked(self, query_text, intent)
        return [self._judge(c.host, c.path, c.query, c.title, asked) for c in candidates]

    def _judge(self, host: str, path: str, query: str, title: str | None,
               asked: _Asked) -> Verdict:
        facts = self.host_facts(host)
        segments = split_path(path)
        drop = self.non_answer(host, facts, segments, query, title)
        front = front_page(path, query)
        match = asked.sites.named(host, title if front else None) if asked.sites else 0
        demoted = f"demote_domains:{facts.demoted_by}" if facts.demoted_by and match != 2 \
            else None
        preferred = None if demoted else facts.preferred
        kind = self.page_kind(facts, front, segments, query)
        kept_by = None
        if kind is not None:
            kept_by = "the query names the site" if match == 2 else asked.kinds[kind.name]
            if kind.front_page and preferred and not kept_by:
                kept_by = f"prefer_domains:{preferred}"  # a docs or repo front door
            # ... unless its title names what the query asks for (the book on sale): then it
            # only moves down
            if not kept_by and not drop and asked.intent.kind in kind.non_answer_for and not (
                    title and names_page(asked.parsed, title)):
                drop = f"{KIND_REASON}:{kind.name}"
        return Verdict(drop=drop, demoted=demoted, preferred=preferred,
                       source_type=self.source_type(facts, segments, query, bool(demoted),
                                                    preferred),
                       named=match == 2, named_part=match > 0,
                       prefer_counts=self.prefer_counts[asked.intent.kind],
                       kept_by=kept_by, kind=kind.name if kind else None)


class _Asked:
    """What the query asks, read once for every result it is judged with."""

    def __init__(self, rules: Rules, query_text: str, intent: QueryIntent) -> None:
        self.intent = intent
        self.parsed = parse_query(query_text)
        self.sites = SiteNames(query_text) if query_text else None
        # why the query asks for each page kind (None: it does not)
        self.kinds = {kind.name: kind.asked_by(self.parsed.words, intent) for kind in rules.kinds}
