"""What a parsed list is: rules with their line numbers, the lines skipped and why.

A ``Rule`` is plain data (tuples of str/int/bool) so the parsed form caches with ``marshal``
and loads fast. Hosts are lowercase ASCII (punycode) without a leading ``www.``, as tamis
folds ``www.`` in every result's host.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple


class Rule(NamedTuple):
    line: int  # 1-based line in the list file
    text: str  # the line as written (cut at 200 characters)
    exception: bool = False  # uBlock '@@', uBlacklist '@': unblocks what other rules match
    important: bool = False  # uBlock '$important': not cancelled by an exception
    host: str | None = None  # host rule: this host (and its subdomains when subdomains)
    subdomains: bool = True
    path_re: str | None = None  # with host: a regex on path + '?query', else every path
    url_re: str | None = None  # no host: a regex searched in the whole URL
    scheme: str | None = None  # 'http' or 'https' when the rule names one


@dataclass
class BadLine:
    line: int
    text: str
    why: str


@dataclass
class ParsedList:
    format: str
    rules: list[Rule] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # kind of rule -> lines skipped
    comments: int = 0
    title: str | None = None  # a uBlacklist front matter 'name', an ABP '! Title:'

    def summary(self) -> str:
        return summarise(self.format, len(self.rules), self.skipped, self.bad)

    def compile(self) -> CompiledList:
        """The compact form the matcher uses and the cache keeps: each plain host rule is
        one int in a dict (``line << 3 | subdomains << 2 | exception << 1 | important``);
        path-scoped, scheme-bound and regex rules stay whole in ``other``."""
        hosts: dict[str, int] = {}
        other: list[Rule] = []
        for r in self.rules:
            if r.host is None or r.path_re is not None or r.scheme is not None \
                    or r.host in hosts:
                other.append(r)
                continue
            hosts[r.host] = (r.line << 3 | r.subdomains << 2 | r.exception << 1
                             | r.important)
        return CompiledList(self.format, hosts, other, len(self.rules), self.bad,
                            self.skipped, self.comments, self.title)


@dataclass
class CompiledList:
    format: str
    hosts: dict[str, int]
    other: list[Rule]
    rule_count: int
    bad: list[BadLine] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    comments: int = 0
    title: str | None = None
    source_lines: list[str] | None = None  # the list's lines, for the text of a host rule

    def summary(self) -> str:
        return summarise(self.format, self.rule_count, self.skipped, self.bad)

    def rule_lines(self) -> list[int]:
        return sorted([code >> 3 for code in self.hosts.values()]
                      + [r.line for r in self.other])

    def line_text(self, line: int) -> str:
        if self.source_lines is None or not 0 < line <= len(self.source_lines):
            return f"line {line}"
        text = self.source_lines[line - 1].strip()
        return text if len(text) <= 200 else text[:199] + "…"


def summarise(fmt: str, rules: int, skipped: Counter[str], bad: list[BadLine]) -> str:
    parts = [f"{rules:,} rules ({fmt})"]
    for kind, n in sorted(skipped.items()):
        parts.append(f"{n:,} {kind} skipped")
    if bad:
        parts.append(f"{len(bad):,} bad lines skipped")
    return ", ".join(parts)
