"""Registrable domains from a compact Public Suffix List table shipped with tamis.

``split_host(host)`` answers exactly what ``tldextract.TLDExtract(suffix_list_urls=(),
cache_dir=None)(host)`` answers (subdomain, domain, suffix; public suffixes only, PSL private
domains not treated as suffixes), without importing tldextract, ``requests`` or ``idna`` and
without building a trie: the table ``public_suffixes.txt`` beside this file lists every trie
node, so a lookup is a few set probes. It is built from tldextract's bundled snapshot:

    python -m tamis.domains --build     # needs the dev dependency tldextract

Punycode labels (``xn--p1ai``) match because the table also holds each internationalised rule
in its ASCII form, every combination, checked to decode back with ``idna`` at build time.
``tests/pipeline/test_domains.py`` compares this module with tldextract over many hosts.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

TABLE = Path(__file__).with_name("public_suffixes.txt")
NOT_RULES = "// trie nodes that are not rules:"
_IPV4 = re.compile(
    r"^(?:(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])\.)"
    r"{3}(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])$",
    re.ASCII,
)
# The characters of a plain host name (what the pipeline asks about): ``_host`` of a name of
# these alone, not ending in a dot, is the name itself, and it holds none of the ideographic
# full stops. (Looked for by ``str.strip``: a regex costs 0.8M instructions to compile, in
# every CLI process.)
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")


class HostParts(NamedTuple):
    subdomain: str
    domain: str
    suffix: str  # the public suffix; "" for an IP or a host under no known suffix


class _Table:
    """The table's rules and its other trie nodes (the lines of each section, sorted).

    A CLI call looks up a few hosts: it bisects the file's text (``_Sampled``), never split
    into its 7,000 lines (splitting and hashing them was 2% of a CLI search's CPU). After
    ``PROBES_BEFORE_SETS`` probes (a service, a large ranking) the lines go into sets."""

    PROBES_BEFORE_SETS = 512

    def __init__(self) -> None:
        text = TABLE.read_text("utf-8")
        rules_text, _, others = text.partition(f"\n{NOT_RULES}\n")
        lines = rules_text.split("\n", 10)[:10]
        header = sum(len(line) + 1 for line in itertools.takewhile(
            lambda line: line[:2] == "//", lines))
        self.rules_text = rules_text[header:] + "\n"
        self.others_text = others if others.endswith("\n") else others + "\n"
        self.sets: tuple[frozenset[str], frozenset[str]] | None = None
        self.index: tuple[_Sampled, _Sampled] | None = None  # (rules, others), when first asked
        self.probes = 0
        self.top: dict[str, tuple[bool, bool]] = {}  # holds() of a top-level item, once each

    def holds_top(self, item: str) -> tuple[bool, bool]:
        """``holds(item)`` of an item one label long or ``*.`` and one label (``com``,
        ``*.com``): asked again for every host under the same suffix, so kept (a table fact,
        not a host's: a few hundred at most, bounded all the same)."""
        known = self.top.get(item)
        if known is None:
            if len(self.top) >= 4096:
                self.top.clear()
            known = self.top[item] = self.holds(item)
        return known

    def holds(self, item: str) -> tuple[bool, bool]:
        """(a rule, a trie node)."""
        if self.sets is None:
            self.probes += 1
            if self.probes <= self.PROBES_BEFORE_SETS:
                if self.index is None:
                    self.index = (_Sampled(self.rules_text), _Sampled(self.others_text))
                rules, others = self.index
                rule = rules.holds(item)
                return rule, rule or others.holds(item)
            rules = frozenset(self.rules_text.split("\n")) - {""}
            self.sets = rules, rules | (frozenset(self.others_text.split("\n")) - {""})
        rules, nodes = self.sets
        return item in rules, item in nodes


class _Sampled:
    """``_holds`` of one text in fewer steps: the first line after every ``STEP`` characters,
    read once, bisected in C (``bisect``) to the stretch of text that holds ``item`` if any
    line does, then that stretch searched for the whole line (``tests/pipeline/test_domains.py``
    compares the answers with ``_holds``)."""

    STEP = 512

    def __init__(self, text: str) -> None:
        self.text = "\n" + text  # every line between two line breaks
        self.keys: list[str] = []  # sampled lines, in the text's (sorted) order
        self.breaks: list[int] = []  # the index in self.text of the break before each
        before = 0
        while 0 <= before < len(self.text) - 1:
            self.keys.append(self.text[before + 1:self.text.find("\n", before + 1)])
            self.breaks.append(before)
            before = self.text.find("\n", before + self.STEP)

    def holds(self, item: str) -> bool:
        if "\n" in item or not item:
            return False
        i = bisect_right(self.keys, item)  # keys[i - 1] <= item < keys[i]
        if i == 0:
            return False
        breaks = self.breaks
        end = breaks[i] + 1 if i < len(breaks) else len(self.text)
        return self.text.find(f"\n{item}\n", breaks[i - 1], end) >= 0


def _holds(text: str, item: str) -> bool:
    """Whether ``item`` is a line of ``text`` (sorted lines, each ended by a line break)."""
    if "\n" in item or not item:
        return False
    lo, hi = 0, len(text)  # each the start of a line (or the end)
    while lo < hi:
        before = text.rfind("\n", lo, (lo + hi) // 2)
        start = before + 1 if before >= 0 else lo
        end = text.find("\n", start)
        line = text[start:end]
        if line == item:
            return True
        if line < item:
            lo = end + 1
        else:
            hi = start
    return False


@lru_cache(maxsize=1)
def _table() -> _Table:
    """Read once, on the first lookup."""
    return _Table()


def _host(url: str) -> str:
    """The host of a URL-like string, as tldextract's ``lenient_netloc`` finds it."""
    start = url.find("//")
    if start == 0:
        url = url[2:]
    elif start >= 2 and url[start - 1] == ":" and not set(url[:start - 1]) - _SCHEME_CHARS:
        url = url[start + 2:]
    authority = url.partition("/")[0].partition("?")[0].partition("#")[0]
    after_userinfo = authority.rpartition("@")[-1]
    if after_userinfo and after_userinfo[0] == "[":
        before, bracket, _ = after_userinfo.partition("]")
        if bracket:
            return f"{before}]"
    return after_userinfo.partition(":")[0].strip().rstrip(".\u3002\uff0e\uff61")


def _is_ipv6(text: str) -> bool:
    from ipaddress import AddressValueError, IPv6Address

    try:
        IPv6Address(text)
    except AddressValueError:
        return False
    return True


def _suffix_index(labels: list[str]) -> int | None:
    """Index of the first label of the public suffix, or None when there is none."""
    table = _table()
    found = index = len(labels)
    matched = ""
    for label in reversed(labels):
        low = label.lower()
        if matched:
            candidate = f"{low}.{matched}"
            is_rule, is_node = table.holds(candidate)
        else:  # the last label: the same for most hosts
            candidate = low
            is_rule, is_node = table.holds_top(low)
        if is_node:
            index -= 1
            matched = candidate
            if is_rule:
                found = index
            continue
        wildcard = f"*.{matched}" if matched else "*"
        if (table.holds_top(wildcard) if "." not in matched else table.holds(wildcard))[1]:
            exception = f"!{low}.{matched}" if matched else f"!{low}"
            return index if table.holds(exception)[1] else index - 1
        break
    return None if found == len(labels) else found


def split_host(host: str) -> HostParts:
    """``forums.bbc.co.uk`` -> (``forums``, ``bbc``, ``co.uk``); an IP -> ("", ip, "")."""
    if host and host[-1] != "." and not host.strip(_NAME_CHARS):
        netloc = host  # (no '[': no IPv6 address)
    else:
        netloc = _host(host).replace("\u3002", ".").replace("\uff0e", ".").replace("\uff61", ".")
        if len(netloc) >= 4 and netloc[0] == "[" and netloc[-1] == "]" and _is_ipv6(
                netloc[1:-1]):
            return HostParts("", netloc, "")
    labels = netloc.split(".")
    index = _suffix_index(labels)
    if index is None:
        if len(labels) == 4 and netloc[0].isdecimal() and _IPV4.fullmatch(netloc):
            return HostParts("", netloc, "")
        return HostParts(".".join(labels[:-1]), labels[-1], "")
    subdomain = ".".join(labels[:index - 1]) if index >= 2 else ""
    domain = labels[index - 1] if index > 0 else ""
    return HostParts(subdomain, domain, ".".join(labels[index:]))


def build_table(public_rules: list[str], source: str) -> str:
    """The text of ``public_suffixes.txt`` for the PSL's public rules (ICANN section)."""
    import itertools

    import idna  # a dependency of tldextract: only needed to build

    def forms(label: str) -> list[str]:
        if label.isascii():
            return [label]
        out = [label]
        try:
            ascii_form = idna.encode(label).decode("ascii")
        except idna.IDNAError:
            ascii_form = "xn--" + label.encode("punycode").decode("ascii")
        try:
            if idna.decode(ascii_form) == label:
                out.append(ascii_form)
        except (idna.IDNAError, UnicodeError, IndexError):
            pass
        return out

    rules: set[str] = set()
    for rule in public_rules:
        for combo in itertools.product(*(forms(label) for label in rule.split("."))):
            rules.add(".".join(combo))
    nodes = {".".join(labels[i:]) for labels in (r.split(".") for r in rules)
             for i in range(len(labels))}
    header = [f"// Public suffixes (ICANN section) from {source}.",
              "// Generated by `python -m tamis.domains --build`; do not edit."]
    return "\n".join([*header, *sorted(rules), NOT_RULES, *sorted(nodes - rules)]) + "\n"


def _build() -> None:  # pragma: no cover - run by hand when tldextract is upgraded
    import pkgutil
    from importlib.metadata import version

    from tldextract.suffix_list import extract_tlds_from_suffix_list

    snapshot = pkgutil.get_data("tldextract", ".tld_set_snapshot")
    assert snapshot is not None
    public, _private = extract_tlds_from_suffix_list(snapshot.decode("utf-8"))
    source = f"tldextract {version('tldextract')}'s bundled snapshot"
    TABLE.write_text(build_table(public, source), "utf-8")
    print(f"wrote {TABLE}")


if __name__ == "__main__":  # pragma: no cover
    import sys

    if sys.argv[1:] != ["--build"]:
        sys.exit("usage: python -m tamis.domains --build")
    _build()
