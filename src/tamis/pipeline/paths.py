"""Path patterns of the policy (``non_answer.path_patterns``, ``page_kinds``, ``source_types``).

Path patterns match whole path segments, not substrings: ``/shop/`` is the segment ``shop``
at the start of the path with something below it, so ``hp.com/us-en/shop/tech-takes/...``
(an article) is no shop.

Pattern syntax: ``/a/b`` anchored at the start of the path; ``**/a`` at any depth; ``*`` is a
wildcard inside one segment (``[ab]`` a set of characters, as in shell globs); a trailing ``/``
needs a segment below; a trailing ``?`` needs a query string. Segments compare
case-insensitively, after percent-decoding.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote


@dataclass(frozen=True, slots=True)
class PathPattern:
    text: str
    segments: tuple[str, ...]
    anywhere: bool
    needs_child: bool
    needs_query: bool
    matchers: tuple[Callable[[str], bool], ...] = field(compare=False, repr=False)
    # "/" and the literal start of its first segment, and "/" after it when that segment is
    # plain text: a path that does not hold it (between its own "/") cannot match
    head: str = "/"

    @classmethod
    def parse(cls, text: str) -> PathPattern:
        anywhere = text.startswith("**/")
        body = text[3:] if anywhere else text.lstrip("/")
        needs_query = body.endswith("?")
        body = body.rstrip("?")
        needs_child = body.endswith("/")
        segments = tuple(s.lower() for s in body.split("/") if s)
        head = "/"
        if segments:
            literal = re.split(r"[*?\[]", segments[0], maxsplit=1)[0]
            head += literal + "/" if literal == segments[0] else literal
        return cls(text, segments, anywhere, needs_child, needs_query,
                   tuple(_segment_matcher(s) for s in segments), head)

    def matches(self, segments: list[str], has_query: bool) -> bool:
        if (self.needs_query and not has_query) or not self.segments:
            return False
        n = len(self.segments)
        need = n + (1 if self.needs_child else 0)
        if len(segments) < need:
            return False
        starts = range(len(segments) - need + 1) if self.anywhere else (0,)
        return any(all(self.matchers[j](segments[i + j]) for j in range(n)) for i in starts)


class PatternSet:
    """Path patterns, tried in their config order: the first that matches wins. A pattern is
    tried only on a path that holds its first segment (``t`` of ``**/t/``), or a segment
    that starts as that segment does (``login.`` of ``**/login.*``): most paths hold none,
    and each of their segments is looked up once, not once per pattern."""

    def __init__(self, patterns: list[PathPattern]) -> None:
        self.patterns = patterns
        self.by_segment: dict[str, list[int]] = {}  # a plain first segment: its patterns
        self.by_start: list[tuple[int, str]] = []  # a first segment's literal start
        self.always: list[int] = []  # a first segment that starts with a wildcard
        for index, pattern in enumerate(patterns):
            literal = pattern.head[1:]
            if literal.endswith("/"):
                self.by_segment.setdefault(literal[:-1], []).append(index)
            elif literal:
                self.by_start.append((index, literal))
            else:
                self.always.append(index)
        self.starts = tuple(start for _, start in self.by_start)

    def first_match(self, segments: list[str], has_query: bool) -> PathPattern | None:
        if not self.patterns or not segments:
            return None
        tried = self.always
        for segment in segments:
            found = self.by_segment.get(segment)
            if found:
                tried = tried + found
            if self.starts and segment.startswith(self.starts):
                tried = tried + [i for i, start in self.by_start if segment.startswith(start)]
        for index in sorted(tried) if tried else ():
            if self.patterns[index].matches(segments, has_query):
                return self.patterns[index]
        return None


@lru_cache(maxsize=256)
def _segment_matcher(glob: str) -> Callable[[str], bool]:
    if not any(c in glob for c in "*?["):
        return glob.__eq__
    regex = re.compile(fnmatch.translate(glob))
    return lambda segment: regex.match(segment) is not None


def split_path(path: str) -> list[str]:
    """The path's segments, percent-decoded and lower-cased (empty ones left out)."""
    if "%" not in path:  # nothing to decode (most paths)
        return [s for s in path.lower().split("/") if s]
    return [unquote(s).lower() for s in path.split("/") if s]


_INDEX_PAGES = frozenset({"index", "default", "home", "main"})


def front_page(path: str, query: str) -> bool:
    """A site's front door: ``/``, ``/en/``, ``/index.html``, ``/en/index.html``."""
    if query:
        return False
    segments = [s for s in path.split("/") if s]
    if segments and segments[-1].lower().partition(".")[0] in _INDEX_PAGES:
        segments.pop()
    return not segments or (len(segments) == 1 and len(segments[0]) <= 5)
