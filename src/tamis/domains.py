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

import re
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
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")


class HostParts(NamedTuple):
    subdomain: str
    domain: str
    suffix: str  # the public suffix; "" for an IP or a host under no known suffix


@lru_cache(maxsize=1)
def _table() -> tuple[frozenset[str], frozenset[str]]:
    """(rules, every trie node): read once, on the first lookup."""
    text = TABLE.read_text("utf-8")
    rules_text, _, others = text.partition(f"\n{NOT_RULES}\n")
    lines = rules_text.split("\n")
    comments = {line for line in lines[:10] if line[:2] == "//"} | {""}  # the header
    rules = frozenset(lines).difference(comments)
    return rules, rules | frozenset(others.split("\n")).difference(comments)


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
    rules, nodes = _table()
    found = index = len(labels)
    matched = ""
    for label in reversed(labels):
        low = label.lower()
        candidate = f"{low}.{matched}" if matched else low
        if candidate in nodes:
            index -= 1
            matched = candidate
            if candidate in rules:
                found = index
            continue
        if (f"*.{matched}" if matched else "*") in nodes:
            exception = f"!{low}.{matched}" if matched else f"!{low}"
            return index if exception in nodes else index - 1
        break
    return None if found == len(labels) else found


def split_host(host: str) -> HostParts:
    """``forums.bbc.co.uk`` -> (``forums``, ``bbc``, ``co.uk``); an IP -> ("", ip, "")."""
    netloc = _host(host).replace("\u3002", ".").replace("\uff0e", ".").replace("\uff61", ".")
    if len(netloc) >= 4 and netloc[0] == "[" and netloc[-1] == "]" and _is_ipv6(netloc[1:-1]):
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
