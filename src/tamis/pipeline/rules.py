"""The policy compiled into fast, precise rules: non-answers, demote, prefer, source types.

Every rule here is one the user can read in the YAML. Path patterns (``paths.py``) match
whole path segments, not substrings: ``/shop/`` is the segment ``shop`` at the start of the
path with something below it, so ``hp.com/us-en/shop/tech-takes/...`` (an article) is kept.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import parse_qsl

from tamis.models import Candidate, SourceType
from tamis.pipeline.intent import (
    IntentWords,
    QueryIntent,
    detect_intent,
    name_match,
    query_words,
    shares_word,
)
from tamis.pipeline.paths import PathPattern, PatternSet, path_segments, split_path
from tamis.pipeline.placeholder import PlaceholderTitles
from tamis.pipeline.urls import Unwrapper, host_matches, registrable_domain, site_label
from tamis.pipeline.verdict import NOTHING_LIFTED, HostFacts, Lifted, Verdict, _verdict
from tamis.policy.schema import Policy

__all__ = ["HostFacts", "Lifted", "PathPattern", "PatternSet", "Rules", "Verdict",
           "_verdict", "path_segments"]

# Reasons, as documented in docs/contract.md.
HOST_REASON = "shopping_or_dictionary_host"
ROOT_REASON = "navigational_host_root"
QUERY_REASON = "search_or_shopping_query"
AD_REASON = "ad_click"
PLACEHOLDER_REASON = "placeholder_page"
MEMO_SIZE = 65536  # hosts (and query, host pairs) remembered by one Rules, at most
# No intent (explain-url without a query, intent detection off): every rule applies.
NO_INTENT = QueryIntent("informational", "no query")


class _TypeRule:
    def __init__(self, entries: list[str]) -> None:
        self.domains = frozenset(e.lower() for e in entries if "*" not in e and "/" not in e)
        self.prefixes = tuple(e[:-1].lower() for e in entries if e.endswith(".*"))
        self.paths = PatternSet([PathPattern.parse(e) for e in entries
                                 if e.startswith(("/", "**/"))])

    def matches_host(self, host: str) -> bool:
        if host_matches(host, self.domains):
            return True
        return bool(self.prefixes) and host.startswith(self.prefixes)

    def matches(self, host: str, segments: list[str], has_query: bool) -> bool:
        return self.matches_host(host) or self.paths.first_match(segments,
                                                                 has_query) is not None


# Rules._host_part; the last: the verdict of a path neither path set can take and a title
# no placeholder pattern takes, by lifted.prefer (filled as the search meets them)
_HostPart = tuple[int, HostFacts, str | None, dict[bool, Verdict]]


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
        self.search_pages_last_resort = na.search_pages_last_resort
        self.placeholders = PlaceholderTitles(na.placeholder_titles)
        self.unwrapper = Unwrapper(policy.normalise.wrappers, policy.normalise.redirectors)
        it = policy.intent
        self.intent_enabled = it.enabled
        self.intent_words = IntentWords(
            definitional=frozenset(w.lower() for w in it.definitional_words),
            transactional=frozenset(w.lower() for w in it.transactional_words),
            service=frozenset(w.lower() for w in it.service_words),
            technical=frozenset(w.lower() for w in it.technical_terms),
            max_name_words=it.max_name_words, first_hosts=it.first_hosts)
        self.lifted = {"navigational": Lifted.of(it.navigational),
                       "definitional": Lifted.of(it.definitional),
                       "transactional": Lifted.of(it.transactional),
                       "informational": Lifted.of(it.informational)}
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
        # Every type's path patterns in type order: the first match is the first type's.
        type_paths = [(i, p) for i, (_, rule) in enumerate(self.type_rules)
                      for p in rule.paths.patterns]
        self.type_paths = PatternSet([p for _, p in type_paths])
        self._type_of: dict[int, int] = {}  # pattern: its first type (a text in two types
        for i, p in type_paths:  # is one object: PathPattern.parse keeps one a text)
            self._type_of.setdefault(id(p), i)
        self._hosts: dict[str, HostFacts] = {}
        # has_query: _plain_paths (False: not worked out yet)
        self._plain: dict[bool, tuple[frozenset[str], tuple[str, ...]] | bool | None] = {}
        self._named: dict[tuple[str, str], int] = {}  # (query, host): site_named
        self._queries: dict[str, tuple[bool, bool, bool]] = {}  # query string: query_drops'

    def host_facts(self, host: str) -> HostFacts:
        facts = self._hosts.get(host)
        if facts is None:
            if len(self._hosts) >= MEMO_SIZE:  # the service keeps its rules: stay bounded
                self._hosts.clear()
            kinds = [i for i, (_, rule) in enumerate(self.type_rules) if rule.matches_host(host)]
            facts = self._hosts[host] = HostFacts(
                host_matches(host, self.non_answer_hosts), host_matches(host, self.prefer),
                host_matches(host, self.demote),
                frozenset(self.type_rules[i][0] for i in kinds),
                kinds[0] if kinds else len(self.type_rules), registrable_domain(host))
        return facts

    def site_named(self, query_text: str, host: str) -> int:
        """``site_named``, worked out once per query and host."""
        match = self._named.get((query_text, host))
        if match is None:
            if len(self._named) >= MEMO_SIZE:
                self._named.clear()
            match = self._named[(query_text, host)] = site_named(query_text, host)
        return match

    # -- the rules -----------------------------------------------------------------------
    def is_search_page(self, host: str, segments: list[str]) -> bool:
        if host_matches(host, self.search_hosts) or self._search_engine_host(host):
            return True
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

    @staticmethod
    def _search_engine_host(host: str) -> bool:
        # google.de, www.google.co.uk ...: every country site of the big engines.
        label = site_label(host)
        return label in {"google", "bing", "duckduckgo", "yandex", "baidu"}

    def intent(self, query_text: str, hosts: list[str]) -> QueryIntent:
        """The query's intent (``hosts``: result hosts in the engines' order)."""
        if not query_text.strip():
            return NO_INTENT
        found = detect_intent(query_text, hosts, self.intent_words)
        if not self.intent_enabled:
            return QueryIntent("informational", f"intent rules off (would be {found.kind})")
        return found

    def non_answer(self, host: str, facts: HostFacts, segments: list[str], query: str,
                   named: bool, preferred: str | None, lifted: Lifted = NOTHING_LIFTED,
                   titled: bool = True, subject: str | None = None
                   ) -> tuple[str | None, str | None]:
        """(the reason this URL is not an answer, or None; the exception that kept it).

        ``subject``: the segments as one path (``PatternSet.first_match``), when known.
        ``titled``: the result's title carries a query word (or no title is known). An intent
        keeps a homepage (``host_root``) only when the query names its site or its title
        carries the query's words: the homepage of a site nothing links to the query is the
        non-answer our users measured, whatever the intent."""
        kept_by = None
        listed = facts.listed
        if listed:
            if not host_matches(host, lifted.hosts):
                return HOST_REASON, None
            kept_by = f"hosts:{listed}"
        if not segments and not query and self.host_root == "drop" and not preferred:
            if not named and not (lifted.host_root and titled):
                return ROOT_REASON, None
            kept_by = kept_by or ("query names the site" if named else "host_root")
        pattern = self.path_patterns.first_match(segments, bool(query), subject=subject)
        if pattern is not None:
            if pattern.text not in lifted.path_patterns:
                return f"path_pattern:{pattern.text}", None
            kept_by = kept_by or f"path_pattern:{pattern.text}"
            pattern = self.path_patterns.first_match(segments, bool(query),
                                                     lifted.path_patterns)
            if pattern is not None:
                return f"path_pattern:{pattern.text}", None
        if query and self.query_drops(host, segments, query):
            return QUERY_REASON, None
        return None, kept_by

    def query_drops(self, host: str, segments: list[str], query: str) -> bool:
        """The query string makes it a search or shopping page (``QUERY_REASON``)."""
        facts = self._queries.get(query)  # what the keys alone say, once per query string
        if facts is None:
            keys = _query_keys(query)
            if len(self._queries) >= MEMO_SIZE:
                self._queries.clear()
            facts = self._queries[query] = (bool(self.action_keys & set(keys)), any(
                keys[k] for k in self.query_keys.intersection(keys)), any(keys.values()))
        action, search_key, valued = facts  # an action key; a search key with a value; a value
        return action or (search_key and self.is_search_page(host, segments)) or (
            valued and self.is_search_script(segments))

    def root_demoted(self, segments: list[str], query: str, named: bool,
                     preferred: str | None, lifted: Lifted) -> bool:
        return (self.host_root == "demote" and not segments and not query
                and not preferred and not named and not lifted.host_root)

    def source_type(self, facts: HostFacts, segments: list[str], query: str, demoted: bool,
                    preferred: str | None, subject: str | None = None) -> SourceType:
        """The first type (in ``type_rules`` order) its host or its path is."""
        if demoted:
            return "content-farm"
        first = facts.first_kind
        if first:
            pattern = self.type_paths.first_match(segments, bool(query), subject=subject)
            if pattern is not None:
                first = min(first, self._type_of[id(pattern)])
        if first < len(self.type_rules):
            return self.type_rules[first][0]
        return "official" if preferred else "web"

    def judge(self, host: str, path: str, query: str, query_text: str = "",
              intent: QueryIntent | None = None, title: str | None = None) -> Verdict:
        """``title``: the result's title, when known (None: explain-url on a bare URL)."""
        intent = intent or (self.intent(query_text, [host]) if query_text else NO_INTENT)
        return self._judge_url(host, path, query, query_text, intent, title,
                               self._host_part(query_text, host))

    def judge_all(self, candidates: list[Candidate], query_text: str,
                  intent: QueryIntent) -> list[Verdict]:
        """``judge`` of each candidate (its host, path, query and title), what depends on
        the host alone worked out once per host, what depends on the query once."""
        hosts: dict[str, _HostPart] = {}
        out = []
        prefer = self.lifted[intent.kind].prefer
        plain = self._plain_paths(False)  # what a path must hold for a pattern to take it
        queried = self._plain_paths(True)  # ... with a query string
        placeholder = self.placeholders.match
        # True: the title is certainly no placeholder's (most), found for all at once
        unmatched = self.placeholders.unmatched([c.title for c in candidates])
        judge_url = self._judge_url
        for i, c in enumerate(candidates):
            plain_title = unmatched is not None and unmatched[i]
            host = c.host
            part = hosts.get(host)
            if part is None:
                part = hosts[host] = self._host_part(query_text, host)
            path = c.path
            segments = split_path(path)
            query = c.query
            needs = queried if query else plain
            if needs is not None and segments and part[1].listed is None \
                    and needs[0].isdisjoint(segments):
                # below the root, no listed host, no pattern of either path set can take the
                # path: the host's verdict (once _judge_url has made it) unless the title is a
                # placeholder's or the query string drops it (what _judge_url finds then)
                subject = "/" + "/".join(segments)
                for head in needs[1]:
                    if head in subject:
                        break
                else:
                    verdict = part[3].get(prefer)
                    if verdict is not None and (plain_title or placeholder(
                            c.title, host, part[1].domain) is None) \
                            and not (query and self.query_drops(host, segments, query)):
                        out.append(verdict)
                        continue
            out.append(judge_url(host, path, query, query_text, intent, c.title, part,
                                 segments, plain_title))
        return out

    def _host_part(self, query_text: str, host: str) -> _HostPart:
        """(site_named, its facts, the demote rule naming it unless the query names it)."""
        match = self.site_named(query_text, host)
        facts = self.host_facts(host)
        demoted_by = facts.demoted_by
        return (match, facts,
                f"demote_domains:{demoted_by}" if demoted_by and match != 2 else None, {})

    def _plain_paths(self, has_query: bool = False
                     ) -> tuple[frozenset[str], tuple[str, ...]] | None:
        """What a path (with a query string or not) must hold for a pattern of either path set
        (the non-answer patterns, the source types') to take it, as ``PatternSet`` reads it;
        None when one of them cannot say."""
        plain = self._plain.get(has_query, False)
        if plain is False:
            needs = [s._compile(has_query)[3] if s._is_exact() else None
                     for s in (self.path_patterns, self.type_paths)]
            plain = self._plain[has_query] = None if None in needs else (
                frozenset().union(*(n[0] for n in needs)),  # type: ignore[index]
                tuple(sorted({h for n in needs for h in n[1]})))  # type: ignore[index]
        return plain  # type: ignore[return-value]

    def _judge_url(self, host: str, path: str, query: str, query_text: str,
                   intent: QueryIntent, title: str | None, part: _HostPart,
                   segments: list[str] | None = None, plain_title: bool = False) -> Verdict:
        """``segments``: ``split_path(path)``, when the caller has them (never changed);
        ``plain_title``: the title is known to be no placeholder's (``unmatched``)."""
        match, facts, demoted, plain = part
        lifted = self.lifted[intent.kind]
        named = match == 2
        if segments is None:
            segments = split_path(path)
        if segments and not query and facts.listed is None:
            # below the root, no query string, no listed host: only the path can drop it
            subject = "/" + "/".join(segments)
            needs = self._plain.get(False) or self._plain_paths(False)
            if needs is not None and needs[0].isdisjoint(segments):
                for head in needs[1]:
                    if head in subject:
                        break
                else:  # no pattern of either path set takes it (most paths)
                    if plain_title or self.placeholders.match(title, host, facts.domain) is None:
                        verdict = plain.get(lifted.prefer)  # the host's verdict
                        if verdict is None:
                            preferred = None if demoted else facts.preferred
                            verdict = plain[lifted.prefer] = _verdict(
                                None, demoted, preferred,
                                self.source_type(facts, [], "", bool(demoted), preferred),
                                named, match > 0, lifted.prefer, None)
                        return verdict
            pattern = self.path_patterns.first_match(segments, False, subject=subject)
            if pattern is None:
                drop = None
                if not plain_title and self.placeholders.match(title, host, facts.domain):
                    drop = PLACEHOLDER_REASON
                preferred = None if demoted else facts.preferred
                kind = self.source_type(facts, segments, query, bool(demoted), preferred,
                                        subject)
                return _verdict(drop, demoted, preferred, kind, named, match > 0,
                                lifted.prefer, None)
        preferred = facts.preferred
        subject = "/" + "/".join(segments) if segments else None  # read by both path sets
        # only a homepage needs its title read (the host_root exception)
        titled = (title is None or bool(query) or bool(segments)
                  or shares_word(_query_name(query_text)[1], title))
        drop, kept_by = self.non_answer(host, facts, segments, query, match > 0, preferred,
                                        lifted, titled, subject)
        if drop is None and not plain_title and self.placeholders.match(title, host,
                                                                         facts.domain):
            drop, kept_by = PLACEHOLDER_REASON, None  # parked or for sale: never an answer
        if kept_by:
            kept_by = f"{intent.kind}: {kept_by}"
        if not demoted and self.root_demoted(segments, query, named, preferred, lifted):
            demoted = f"{ROOT_REASON} (host_root: demote)"
        if demoted:
            preferred = None  # a demote rule always wins over prefer
        kind = self.source_type(facts, segments, query, bool(demoted), preferred, subject)
        return _verdict(drop, demoted, preferred, kind, named, match > 0, lifted.prefer, kept_by)


def _query_keys(query: str) -> dict[str, str]:
    """``{name.lower(): value}`` of ``parse_qsl(query, keep_blank_values=True)``."""
    if "%" in query or "+" in query:
        return {k.lower(): v for k, v in parse_qsl(query, keep_blank_values=True)}
    keys = {}
    for piece in query.split("&"):  # nothing to decode: parse_qsl's own steps, as they are
        if piece:
            name, _, value = piece.partition("=")
            keys[name.lower()] = value
    return keys


def site_named(query_text: str, host: str) -> int:
    """Does this query name this site? 2 its whole name (``cure for boredom`` names
    ``thecureforboredom.com``; ``proxmox`` names ``proxmox.com``; ``example.com`` typed),
    1 a part of it, 0 not (see intent.name_match)."""
    if not query_text:
        return 0
    typed, words = _query_name(query_text)
    if typed == registrable_domain(host):
        return 2
    return name_match(words, host) if len(words) <= 6 else 0


@lru_cache(maxsize=1024)
def _query_name(query_text: str) -> tuple[str, tuple[str, ...]]:
    typed = query_text.strip().strip('"').strip().lower().removeprefix("www.").rstrip("/")
    return typed, tuple(query_words(query_text))


def names_site(query_text: str, host: str) -> bool:
    return site_named(query_text, host) == 2
