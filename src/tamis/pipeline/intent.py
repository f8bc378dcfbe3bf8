"""Query intent, detected deterministically from the query and the hosts it was answered with.

No model, no network: word lists from the policy (``policy.intent``) and the shape of the
query. The intent decides which non-answer rules apply (see ``rules.Rules.judge``):

- ``navigational``: the query names a site, brand, product or organisation (a bare domain;
  its words spell the name of one of the first result hosts; or it asks for sites, "free
  grammar test online"; or it is a short name with no question, technical term or other
  marker). A homepage, a shop or store page can answer it.
- ``definitional``: "define x", "x meaning", "what words rhyme with x", or one plain word.
  A dictionary page can answer it.
- ``transactional``: buy, price, cheap...; or a model number ("LG U8180"). A shop can answer.
- ``informational``: questions, technical terms, longer queries: every rule applies exactly
  as our users measured it (mission.md sections 3 and 5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal, NamedTuple

from tamis.pipeline.query import fold, parse_query
from tamis.pipeline.urls import registrable_domain

IntentKind = Literal["navigational", "definitional", "transactional", "informational"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DOMAIN = re.compile(r"^(?:https?://)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})/?$")
_MODEL = re.compile(r"^(?=(?:.*\d){3})(?=.*[a-z])[a-z0-9-]{4,14}$")  # u8180, rtx4090, sm-g991b
_QUESTION = frozenset({"how", "what", "why", "when", "where", "who", "whom", "which", "whose",
                       "can", "could", "does", "do", "did", "is", "are", "should", "would",
                       "will", "was", "were"})
# Words that carry no name: "the owl club" is the name "owl club".
_FILLER = frozenset({"the", "a", "an", "of", "and", "for", "in", "on", "to", "de", "la", "le",
                     "les", "du", "des", "el", "los", "der", "die", "das", "und", "official",
                     "site", "website", "homepage", "home", "page", "www", "com", "org", "net"})


class QueryIntent(NamedTuple):  # a NamedTuple: a dataclass costs 0.5-1 ms to create at import
    kind: IntentKind
    reason: str  # why, in a few words: "names site telekwiaciarnia.pl", "question word 'how'"


def _umlaut(text: str) -> str:
    """The German spelling of umlauts, as domain names write them: ``hoevelhof``."""
    return (text.lower().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")
            .replace("ß", "ss"))


def query_words(query: str) -> list[str]:
    """The words of the query without search operators (site:, -word, quotes, +)."""
    return list(parse_query(query).words)


@lru_cache(maxsize=65536)
def host_labels(host: str) -> tuple[str, ...]:
    """Name labels of a host, without its public suffix and www: ``futureplanning.thearc.org``
    -> (``futureplanning``, ``thearc``); ``ci.west-point.ne.us`` -> (``ci``, ``westpoint``)."""
    domain = registrable_domain(host)
    suffix_len = len(domain.split(".", 1)[1]) + 1 if "." in domain else 0
    names = host[: len(host) - suffix_len] if suffix_len else host
    return tuple(label.replace("-", "") for label in names.split(".")
                 if label and label != "www")


def _spellings(words: list[str] | tuple[str, ...]) -> set[str]:
    joined = " ".join(words)
    return {re.sub(r"[\W_]", "", fold(joined)), re.sub(r"[\W_]", "", _umlaut(joined))}


class NameForms(NamedTuple):
    """The ways a query can spell a site's name, computed once per query."""

    content: tuple[str, ...]
    compacts: tuple[str, ...]  # the words run together, accents folded or spelled out
    initials: str
    cores: tuple[str, ...]  # distinctive words (5+ letters) of a short name


@lru_cache(maxsize=1024)
def name_forms(words: tuple[str, ...]) -> NameForms:
    content = tuple(w for w in words if w not in _FILLER) or words
    compacts = tuple(sorted(c for c in _spellings(words) | _spellings(content) if len(c) >= 3))
    initials = "".join(w[0] for w in content) if len(content) >= 2 else ""
    cores = tuple(sorted({sp for w in content for sp in (fold(w), _umlaut(w)) if len(sp) >= 5}))
    return NameForms(content, compacts, initials if len(initials) >= 3 else "",
                     cores if 2 <= len(content) <= 3 else ())


def name_match(words: list[str] | tuple[str, ...], host: str) -> int:
    """How well these query words spell the name of this host: 2 the whole name (``the owl
    club`` -> ``theowlclub.net``, ``hövelhof`` -> ``hoevelhof.de``), 1 a part of it (``west
    point nebraska`` -> ``ci.west-point.ne.us``, ``John McCain`` -> ``mccain2000.com``,
    ``golden books`` -> ``goldenbough.com``), 0 not at all."""
    if not words:
        return 0
    return _match(name_forms(tuple(words)), host)


@lru_cache(maxsize=65536)
def _match(forms: NameForms, host: str) -> int:
    labels = [label for label in host_labels(host) if len(label) >= 3]
    if not labels or not forms.content:
        return 0
    one_word = len(forms.content) == 1
    partial = False
    for compact in forms.compacts:
        for label in labels:
            if compact == label:
                return 2
            if one_word:
                # one word: the label is that word plus a little ("logitechg"), no more
                if label.startswith(compact) and len(label) - len(compact) <= 2:
                    return 2
                continue
            if len(forms.content) <= 4 and len(compact) >= 5 and compact in label:
                return 2
            if len(label) >= 6 and label in compact and len(label) * 2 >= len(compact):
                partial = True
    if forms.initials and forms.initials in labels:
        return 2
    # one distinctive word of a short name is the label's core: mccain -> mccain2000
    if any(label.startswith(core) or label.endswith(core)
           for core in forms.cores for label in labels):
        partial = True
    return 1 if partial else 0


class IntentWords(NamedTuple):
    """The policy's word lists (``policy.intent``), as sets."""

    definitional: frozenset[str]
    transactional: frozenset[str]
    service: frozenset[str]
    technical: frozenset[str]
    max_name_words: int
    first_hosts: int


def detect_intent(query: str, hosts: Sequence[str], words_cfg: IntentWords) -> QueryIntent:
    """The intent of ``query``; ``hosts`` are the result hosts in the engines' order."""
    raw = query.strip().strip('"').strip()
    words = query_words(query)
    if not words:
        return QueryIntent("informational", "no words")
    content = [w for w in words if w not in _FILLER] or words
    domain = _DOMAIN.match(fold(raw).replace(" ", "").strip('"/'))
    if domain and "." in domain.group(1):
        return QueryIntent("navigational", f"a domain: {domain.group(1)}")
    question = words[0] in _QUESTION or raw.endswith("?")
    for w in words:
        if w in words_cfg.definitional:
            return QueryIntent("definitional", f"definition word '{w}'")
    if words[0] == "what" and len(words) <= 4 and words[1:2] in (["is"], ["are"]) \
            and not any(w in words_cfg.technical for w in words):
        return QueryIntent("definitional", "'what is' + a term")
    for w in words:
        if w in words_cfg.transactional:
            return QueryIntent("transactional", f"shopping word '{w}'")
    technical = next((w for w in words if w in words_cfg.technical), None)
    if not question and not technical:
        for host in hosts[: words_cfg.first_hosts]:
            if name_match(words, host):
                return QueryIntent("navigational", f"names site {host}")
    service = next((w for w in words if w in words_cfg.service), None)
    if service and not technical:
        return QueryIntent("navigational", f"asks for sites ('{service}')")
    if question:
        return QueryIntent("informational", f"question '{words[0]}'" if words[0] in _QUESTION
                           else "question mark")
    if technical:
        return QueryIntent("informational", f"technical term '{technical}'")
    if any(_MODEL.match(w) for w in content) and len(content) <= 4:
        model = next(w for w in content if _MODEL.match(w))
        return QueryIntent("transactional", f"model name '{model}'")
    if len(content) == 1 and words[0].isalpha() and words[0].isascii():
        return QueryIntent("definitional", "one word")
    if len(content) <= words_cfg.max_name_words:
        return QueryIntent("navigational", f"a name ({len(content)} words, no question)")
    return QueryIntent("informational", f"{len(content)} words")


_TITLE_PARTS = re.compile(r"\s+[-|–—:·•»]\s+|\s*[|•»]\s*")
MAX_RUN = 4  # the most query words a site's name runs to


class SiteNames:
    """Does this query name a site? ``named(host, front_title)``: 2 its whole name (``cure
    for boredom`` names ``thecureforboredom.com``; ``proxmox`` names ``proxmox.com``;
    ``example.com`` typed; a run of the query's words spells a label of the host, or the brand
    its front page's title (``front_title``) leads or ends with: ``volt bulgaria`` names
    volt.bg, titled ``Volt Bulgaria - Home``), 1 a part of it, 0 not (see ``name_match``). A
    long query names a site as well as a short one. Worked out once for the query, then asked
    of each result's host."""

    def __init__(self, query_text: str) -> None:
        self.typed = query_text.strip().strip('"').strip().lower().removeprefix("www.") \
            .rstrip("/")
        self.words = tuple(query_words(query_text))
        self.forms = name_forms(self.words)
        runs = _runs(self.words)
        # runs of two words or more, long enough to be a site's label (``the owl club``)
        self.label_runs = frozenset(run for run, n in runs.items() if n >= 2 and len(run) >= 5
                                    ) if len(self.words) > 1 else frozenset()
        self.brand_runs = frozenset(run for run in runs if len(run) >= 4)
        self._hosts: dict[str, int] = {}  # what the host alone says (``named``)

    def named(self, host: str, front_title: str | None = None) -> int:
        """2, 1 or 0 for ``host`` (and its front page's title)."""
        by_host = self._hosts.get(host)
        if by_host is None:  # the pages of one site: its host asked once
            by_host = self._hosts[host] = self._named_host(host)
        if by_host == 2 or not front_title:
            return by_host
        parts = [p for p in _TITLE_PARTS.split(front_title.strip()) if p]
        brands = {re.sub(r"[\W_]", "", fold(p)) for p in (parts[:1] + parts[-1:])}
        if not self.brand_runs.isdisjoint(brands):
            return 2
        return by_host

    def _named_host(self, host: str) -> int:
        if self.typed == registrable_domain(host):
            return 2
        match = _match(self.forms, host) if self.words else 0  # name_match
        if match == 2:
            return 2
        if not self.label_runs.isdisjoint(host_labels(host)):
            return 2
        return match


@lru_cache(maxsize=1024)
def _runs(words: tuple[str, ...]) -> dict[str, int]:
    """Each run of up to ``MAX_RUN`` consecutive words, run together and accents folded:
    its number of words."""
    out: dict[str, int] = {}
    for n in range(1, MAX_RUN + 1):
        for i in range(len(words) - n + 1):
            out.setdefault(re.sub(r"[\W_]", "", fold("".join(words[i:i + n]))), n)
    return out
