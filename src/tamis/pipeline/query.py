"""What a query asks, read from its words and its operators, the way search engines read them.

- ``"a phrase"``: these words together, in this order (``phrases``);
- ``-word``: no result about this word (``-wikipedia``: no Wikipedia page);
- ``site:example.org`` / ``-site:example.org``: only / never results from that site;
- ``lang:fr``: results in that language (passed to the backends that take a language);
- ``+word``, ``intitle:word`` and other ``key:value`` operators: the word itself.

Engines apply the operators themselves, but a fan-out merges answers from backends that do not
(an API that takes the query as plain text), so tamis applies them again to the merged answer.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

_WORD = re.compile(r"[^\W_]+")
_PHRASE = re.compile(r'"([^"]*)"')
_LANG = re.compile(r"^[a-z]{2}(-[a-z]{2})?$")
# key:value tokens that restrict where a word must appear: the value is a word of the query
_FIELD_OPERATORS = frozenset({"intitle", "inurl", "intext", "allintitle", "allinurl",
                              "allintext", "inanchor"})


_MARKS = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")


def fold(text: str) -> str:
    """Lower-case without accents: ``Hövelhof`` -> ``hovelhof`` (the combining marks that
    Unicode's decomposition splits off letters, dropped)."""
    if text.isascii():
        return text.lower()
    return _MARKS.sub("", unicodedata.normalize("NFKD", text.lower()))


class ParsedQuery(NamedTuple):
    words: tuple[str, ...]  # the words to match, lower case (accents kept), no operators
    phrases: tuple[tuple[str, ...], ...]  # each quoted phrase of 2+ words, accents folded
    excluded_words: tuple[str, ...]  # -word
    sites: tuple[str, ...]  # site:x
    excluded_sites: tuple[str, ...]  # -site:x
    language: str | None  # lang:xx


@lru_cache(maxsize=1024)
def parse_query(query: str) -> ParsedQuery:
    """The query's words and operators (a quote left open runs to the end of the query)."""
    text = query if query.count('"') % 2 == 0 else query + '"'
    phrases = tuple(ws for ws in (tuple(_WORD.findall(fold(p))) for p in _PHRASE.findall(text))
                    if len(ws) >= 2)
    words: list[str] = []
    excluded: list[str] = []
    sites: list[str] = []
    excluded_sites: list[str] = []
    language = None
    for token in _PHRASE.sub(lambda m: " " + m.group(1) + " ", text).split():
        negative = token.startswith("-") and len(token) > 1
        body = token[1:] if negative or token.startswith("+") else token
        key, colon, value = body.partition(":")
        key = key.lower()
        if colon and key == "site" and value:
            (excluded_sites if negative else sites).append(_site(value))
            continue
        if colon and key == "lang" and _LANG.match(value.lower()):
            language = value.lower()
            continue
        if colon and key in _FIELD_OPERATORS:
            body = value
        found = _WORD.findall(body.lower())
        (excluded if negative else words).extend(found)
    return ParsedQuery(tuple(words), phrases, tuple(excluded), tuple(sites),
                       tuple(excluded_sites), language)


def _site(value: str) -> str:
    """``site:`` value as a host: ``https://www.x.org/docs`` -> ``x.org``."""
    host = value.lower().split("://", 1)[-1].split("/", 1)[0]
    return host.removeprefix("www.").strip(".")
