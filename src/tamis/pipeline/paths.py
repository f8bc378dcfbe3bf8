"""Path patterns of the policy (``non_answer.path_patterns``, ``source_types``), compiled.

Path patterns match whole path segments, not substrings: ``/shop/`` is the segment ``shop``
at the start of the path with something below it, so ``hp.com/us-en/shop/tech-takes/...``
(an article) is kept.

Pattern syntax: ``/a/b`` anchored at the start of the path; ``**/a`` at any depth; ``*`` is a
wildcard inside one segment; a trailing ``/`` needs a segment below; a trailing ``?`` needs a
query string. Segments compare case-insensitively, after percent-decoding.

A ``PatternSet`` answers "the first pattern, in config order, that matches" with one regular
expression over the path (its patterns as alternatives, in order); ``PathPattern.matches`` is
the plain definition, used where the expression cannot answer (a segment holding ``/``, a
``[`` glob, patterns to skip) and checked against it in the tests.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import unquote


class PathPattern(NamedTuple):  # a NamedTuple: a dataclass costs 0.5-1 ms to create at import
    text: str
    segments: tuple[str, ...]
    anywhere: bool
    needs_child: bool
    needs_query: bool
    first_literal: bool = True
    head: str = ""  # the literal start of a glob first segment ("login" of "login.*")

    @classmethod
    def parse(cls, text: str) -> PathPattern:
        return _parse(text)

    @property
    def matchers(self) -> tuple[Callable[[str], bool], ...]:
        """One test per segment (globs compiled when first asked: ``matches`` alone)."""
        return tuple(_segment_matcher(s) for s in self.segments)

    def matches(self, segments: list[str], has_query: bool) -> bool:
        if self.needs_query and not has_query:
            return False
        n = len(self.segments)
        if n == 0:
            return False
        need = n + (1 if self.needs_child else 0)
        if len(segments) < need:
            return False
        if self.anywhere:
            if self.first_literal:
                if self.segments[0] not in segments:
                    return False
            elif self.head and not any(s.startswith(self.head) for s in segments):
                return False
        starts = range(len(segments) - need + 1) if self.anywhere else (0,)
        matchers = self.matchers
        return any(all(matchers[j](segments[i + j]) for j in range(n)) for i in starts)

    def regex(self) -> str | None:
        """This pattern over ``/seg/seg...`` (segments holding no ``/``); None when it can
        never match, or has a ``[`` set (only ``matches`` answers those)."""
        if not self.segments or any("[" in s for s in self.segments):
            return None
        body = "".join("/" + _segment_regex(s) for s in self.segments)
        head = _ANY_DEPTH if self.anywhere else ""
        return head + body + ("(?=/)" if self.needs_child else "(?=/|\\Z)")


@lru_cache(maxsize=4096)
def _parse(text: str) -> PathPattern:
    """``PathPattern.parse``: patterns are immutable, one object per text (a policy compiled
    again, as a CLI's each search or a test's each ``Rules``, parses none twice)."""
    anywhere = text.startswith("**/")
    body = text[3:] if anywhere else text.lstrip("/")
    needs_query = body.endswith("?")
    body = body.rstrip("?")
    needs_child = body.endswith("/")
    segments = tuple(s.lower() for s in body.split("/") if s)
    first = segments[0] if segments else ""
    return PathPattern(text, segments, anywhere, needs_child, needs_query, _is_literal(first),
                       _GLOB.split(first, maxsplit=1)[0])


_GLOB = re.compile(r"[*?\[]")
_ANY_DEPTH = "(?:/[^/]++)*?"  # whole segments before, fewest first


def _segment_regex(glob: str) -> str:
    """One segment's glob (``*``, ``?``, literal characters) within one segment."""
    return "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c)
                   for c in glob)


class PatternSet:
    """Path patterns, tried in their config order: the first that matches wins."""

    def __init__(self, patterns: list[PathPattern]) -> None:
        self.patterns = patterns
        # built when first asked (a search asks with has_query False, most often only)
        self._compiled: dict[bool, _Compiled] = {}
        self._exact: bool | None = None

    @property
    def compiled(self) -> dict[bool, _Compiled] | None:
        """The expressions for both has_query values; None when some pattern needs the plain
        definition (``PathPattern.matches``)."""
        return ({has_query: self._compile(has_query) for has_query in (False, True)}
                if self._is_exact() else None)

    def _is_exact(self) -> bool:
        if self._exact is None:
            self._exact = _all_exact(tuple(self.patterns))
        return self._exact

    def _compile(self, has_query: bool) -> _Compiled:
        """One alternation for this has_query, and which pattern each alternative is; and a
        quicker test of whether any of them can match (what every path must hold, or one
        regex with the patterns at any depth sharing one walk down the path), so a path no
        pattern takes (most) is read once."""
        compiled = self._compiled.get(has_query)
        if compiled is None:
            match, chosen, maybe, needs = _compile(tuple(self.patterns), has_query)
            compiled = self._compiled[has_query] = (
                match, [self.patterns[i] for i in chosen], maybe, needs)
        return compiled

    def first_match(self, segments: list[str], has_query: bool,
                    skip: frozenset[str] = frozenset(),
                    subject: str | None = None) -> PathPattern | None:
        """``subject``: ``"/" + "/".join(segments)``, when the caller has it."""
        if not self.patterns or not segments:
            return None
        if not skip and self._is_exact():
            if subject is None:
                subject = "/" + "/".join(segments)
            if subject.count("/") == len(segments):  # no segment holds a '/' (%2F)
                match, chosen, maybe, needs = (self._compiled.get(has_query)
                                               or self._compile(has_query))
                if needs is not None:
                    literals, heads = needs
                    if literals.isdisjoint(segments):  # no pattern's literal segment here
                        for head in heads:
                            if head in subject:
                                break
                        else:  # nor any segment one of the glob segments can match
                            return None
                elif maybe is not None and maybe(subject) is None:
                    return None
                if match.compiled is None:
                    if match.asked < PLAIN_FIRST:  # a few paths: the definition, no regex
                        match.asked += 1
                        for pattern in chosen:  # (the patterns left out never match here)
                            if pattern.matches(segments, has_query):
                                return pattern
                        return None
                    match.compiled = re.compile(match.body).match
                found = match.compiled(subject)
                return chosen[found.lastindex - 1] if found and found.lastindex else None
        for pattern in self.patterns:
            if pattern.text not in skip and pattern.matches(segments, has_query):
                return pattern
        return None


@lru_cache(maxsize=256)
def _all_exact(patterns: tuple[PathPattern, ...]) -> bool:
    """Can the expressions answer for every one of ``patterns`` (``PatternSet._is_exact``)?
    Worked out once per process for each list of patterns (a policy compiled again, as a CLI's
    each search, builds no regex text again)."""
    return all(p.regex() is not None or not p.segments for p in patterns)


_Needs = tuple[frozenset[str], tuple[str, ...]]
# (match of the alternation, its patterns, the quick test or None, what a path must hold)
_Compiled = tuple["_Alternation", list[PathPattern], Callable[[str], object] | None,
                  _Needs | None]
# Paths that hold what some pattern needs, answered by the plain definition before the
# alternation is compiled (a compile costs 1-3 ms: a CLI search, one process per query, meets
# a few such paths; a service, or an answer of hundreds, compiles it and reads each in one go)
PLAIN_FIRST = 64


@lru_cache(maxsize=256)
def _compile(patterns: tuple[PathPattern, ...], has_query: bool
             ) -> tuple[_Alternation, tuple[int, ...], Callable[[str], object] | None,
                        _Needs | None]:
    """``PatternSet._compile`` of these patterns (the chosen ones by index), built once per
    process for each list of patterns (a policy compiled again compiles nothing again)."""
    chosen = [(i, p, r) for i, p in enumerate(patterns)
              if (has_query or not p.needs_query) and (r := p.regex()) is not None]
    body = "|".join(f"({r})" for _, _, r in chosen) or "(?!)"
    needs = _needs([p for _, p, _ in chosen])
    return (_Alternation(body), tuple(i for i, _, _ in chosen),
            _any_of([r for _, _, r in chosen]) if needs is None else None, needs)


class _Alternation:
    """The patterns as one regex (``body``), compiled when ``PLAIN_FIRST`` paths have asked
    (``asked``); the answer is the same either way (``tests/pipeline/test_paths.py``)."""

    __slots__ = ("asked", "body", "compiled")

    def __init__(self, body: str) -> None:
        self.body = body
        self.asked = 0
        self.compiled: Callable[[str], re.Match[str] | None] | None = None


def _needs(patterns: list[PathPattern]) -> _Needs | None:
    """What a path must hold for one of ``patterns`` to match it: one of their literal
    segments, or (a pattern of globs only) ``/`` + the literal start of a glob segment
    somewhere; None when some pattern needs nothing of the kind (``**/*.php``)."""
    literals: set[str] = set()
    heads: set[str] = set()
    for pattern in patterns:
        if not pattern.segments:
            return None
        literal = next((s for s in pattern.segments if _is_literal(s)), None)
        if literal is not None:
            literals.add(literal)
            continue
        head = max((_GLOB.split(s, maxsplit=1)[0] for s in pattern.segments), key=len)
        if not head:
            return None
        heads.add("/" + head)
    return frozenset(literals), tuple(sorted(heads))


def _any_of(regexes: list[str]) -> Callable[[str], object]:
    """``match`` of a regex that matches a path where one of ``regexes`` (``regex()``s)
    does: the anchored ones as one group, those at any depth behind one shared head."""
    anchored = [r for r in regexes if not r.startswith(_ANY_DEPTH)]
    deep = [r[len(_ANY_DEPTH):] for r in regexes if r.startswith(_ANY_DEPTH)]
    parts = ([f"(?:{'|'.join(anchored)})"] if anchored else []) + (
        [f"{_ANY_DEPTH}(?:{'|'.join(deep)})"] if deep else [])
    return re.compile("|".join(parts) or "(?!)").match


def _is_literal(glob: str) -> bool:
    return not any(c in glob for c in "*?[")


@lru_cache(maxsize=4096)
def _segment_matcher(glob: str) -> Callable[[str], bool]:
    if _is_literal(glob):
        return glob.__eq__
    regex = re.compile(fnmatch.translate(glob))
    return lambda segment: regex.match(segment) is not None


def split_path(path: str) -> list[str]:
    """The path's segments, percent-decoded and lower-cased (empty ones left out)."""
    if "%" not in path:  # nothing to decode: lower-case once
        parts = path.lower().split("/")
        if "//" in path:
            return [s for s in parts if s]
        if not parts[0]:  # without '//', only the first and the last can be empty
            del parts[0]
        if parts and not parts[-1]:
            parts.pop()
        return parts
    return [unquote(s).lower() for s in path.split("/") if s]


# ``split_path``, remembered (the judge of every result splits its own path, once: a memo
# there costs more than it saves, and gives the garbage collector two objects a path)
path_segments = lru_cache(maxsize=65536)(split_path)
