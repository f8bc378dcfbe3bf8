"""What a parsed list is: rules with their line numbers, the lines skipped and why.

A ``Rule`` is plain data (tuples of str/int/bool) so the parsed form caches with ``marshal``
and loads fast. Hosts are lowercase ASCII (punycode) without a leading ``www.``, as tamis
folds ``www.`` in every result's host.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

FORMATS = ("ublacklist", "ublock", "hosts", "domains")


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
        parts = [f"{len(self.rules):,} rules ({self.format})"]
        for kind, n in sorted(self.skipped.items()):
            parts.append(f"{n:,} {kind} skipped")
        if self.bad:
            parts.append(f"{len(self.bad):,} bad lines skipped")
        return ", ".join(parts)
