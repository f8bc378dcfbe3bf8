"""Every loaded list compiled into one matcher: what lists say of one URL, in microseconds.

- Plain host rules (nearly all of a real list) are one dict per list, host -> an int (line
  and flags): a result's host and each of its parent domains is one lookup, whatever the
  number of rules, and the dict loads from the cache with no rebuilding.
- Path-scoped host rules carry a regex tried only when their host matched (compiled once,
  on first use).
- Rules that must look at every URL (uBlacklist ``/regex/`` lines, uBlock patterns not
  anchored to a host) are compiled together into ONE RE2 set: one automaton pass a URL
  finds every rule that matches. A regex RE2 cannot take (look-arounds, back-references)
  is kept aside as a Python regex (counted in ``python_regexes``).

Exceptions (``@@``, ``@``) cancel what any list matched, except ``$important`` rules, as
both extensions do across their subscriptions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from tamis.policy.lists.model import CompiledList, Rule

ACTION_STRENGTH = {"drop": 3, "rewrite": 2, "demote": 1, "prefer": 0}


@dataclass(frozen=True, slots=True)
class ListInfo:
    """What the matcher needs to know of one list (from its config entry)."""

    name: str
    action: str
    rewrite_to: str | None = None
    copies: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ListMatch:
    """One list's rule that matched a URL."""

    list: str
    action: str
    line: int
    text: str
    rewrite_to: str | None
    copies: tuple[str, ...]

    @property
    def reason(self) -> str:
        return f"list:{self.list}:{self.line}"


@lru_cache(maxsize=65536)
def host_and_parents(host: str) -> tuple[str, ...]:
    """``a.b.example.com`` -> itself, ``b.example.com``, ``example.com``, ``com``."""
    parts = host.split(".")
    return tuple(".".join(parts[i:]) for i in range(len(parts)))


@lru_cache(maxsize=8192)
def _path_regex(source: str) -> re.Pattern[str]:
    return re.compile(source)


class ListMatcher:
    def __init__(self, lists: list[tuple[ListInfo, CompiledList]]) -> None:
        self.infos = [info for info, _ in lists]
        self.lists = [compiled for _, compiled in lists]
        self.host_dicts = [compiled.hosts for compiled in self.lists]
        self.hosts: dict[str, list[tuple[int, Rule]]] = {}  # the other host rules
        self.regex_rules: list[tuple[int, Rule]] = []
        self.python_regexes: list[tuple[re.Pattern[str], int, Rule]] = []
        self.rule_count = sum(c.rule_count for c in self.lists)
        for index, compiled in enumerate(self.lists):
            for rule in compiled.other:
                if rule.host is not None:
                    self.hosts.setdefault(rule.host, []).append((index, rule))
                elif rule.url_re is not None:
                    self.regex_rules.append((index, rule))
        self.rewrites = any(i.action == "rewrite" for i in self.infos)
        self._set = self._compile_set()

    def _compile_set(self):  # type: ignore[no-untyped-def]
        if not self.regex_rules:
            return None
        from tamis.extras import require

        re2 = require("re2", "lists")
        options = re2.Options()
        options.max_mem = 256 << 20
        automaton = re2.Set.SearchSet(options)
        kept: list[tuple[int, Rule]] = []
        for index, rule in self.regex_rules:
            try:
                automaton.Add(rule.url_re)
            except Exception:  # RE2 has no look-arounds or back-references: Python's re does
                self.python_regexes.append((re.compile(rule.url_re or ""), index, rule))
                continue
            kept.append((index, rule))
        self.regex_rules = kept
        if not kept:
            return None
        automaton.Compile()
        return automaton

    def __len__(self) -> int:
        return self.rule_count

    def match(self, host: str, url: str, path_query: str, scheme: str) -> list[ListMatch]:
        """What every list says of one URL: at most one match per list, in list order."""
        found: dict[int, tuple[int, bool, str | None]] = {}  # list -> line, important, text
        excepted = False
        parents = host_and_parents(host)
        for index, hosts in enumerate(self.host_dicts):
            for name in parents:
                code = hosts.get(name)
                if code is None or (name != host and not code & 4):
                    continue
                if code & 2:
                    excepted = True
                elif index not in found or (code >> 3) < found[index][0]:
                    found[index] = (code >> 3, bool(code & 1), None)
        if self.hosts:
            for name in parents:
                for index, rule in self.hosts.get(name, ()):
                    if name != host and not rule.subdomains:
                        continue
                    if rule.scheme is not None and rule.scheme != scheme:
                        continue
                    if rule.path_re is not None and _path_regex(rule.path_re).search(
                            path_query) is None:
                        continue
                    excepted = self._note(found, index, rule) or excepted
        if self._set is not None:
            for i in self._set.Match(url) or ():
                index, rule = self.regex_rules[i]
                excepted = self._note(found, index, rule) or excepted
        for regex, index, rule in self.python_regexes:
            if regex.search(url) is not None:
                excepted = self._note(found, index, rule) or excepted
        if not found:
            return []
        out = []
        for index in sorted(found):
            line, important, text = found[index]
            if excepted and not important:
                continue
            info = self.infos[index]
            out.append(ListMatch(info.name, info.action, line,
                                 text if text is not None else self.lists[index].line_text(line),
                                 info.rewrite_to, info.copies))
        return out

    @staticmethod
    def _note(found: dict[int, tuple[int, bool, str | None]], index: int, rule: Rule) -> bool:
        """Record a matched rule; True when it is an exception."""
        if rule.exception:
            return True
        if index not in found or rule.line < found[index][0]:
            found[index] = (rule.line, rule.important, rule.text)
        return False


def strongest(matches: list[ListMatch], actions: tuple[str, ...]) -> ListMatch | None:
    """The match whose action is the strongest among ``actions`` (drop > rewrite > demote >
    prefer); the first list in config order on a tie."""
    best = None
    for m in matches:
        if m.action in actions and (best is None
                                    or ACTION_STRENGTH[m.action] > ACTION_STRENGTH[best.action]):
            best = m
    return best
