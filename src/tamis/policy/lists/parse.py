"""Parse a list file in its format, detected from its lines when the config says ``auto``."""

from __future__ import annotations

import re

from tamis.policy.lists.hosts import parse_domains, parse_hosts
from tamis.policy.lists.model import ParsedList
from tamis.policy.lists.ublacklist import parse_ublacklist
from tamis.policy.lists.ublock import parse_ublock

PARSERS = {
    "ublacklist": parse_ublacklist,
    "ublock": parse_ublock,
    "hosts": parse_hosts,
    "domains": parse_domains,
}

_UBLACKLIST = re.compile(r"^@?\d*\s*((\*|https?)://|/.+/[a-z]*\s*(#.*)?$|url\s*(=~)?\s*/)")
_UBLOCK = re.compile(r"(^\|\|)|(^@@)|(#[@?$]?#)|(\^(\$|$))|(^\|https?:)")
_HOSTS = re.compile(r"^[0-9a-fA-F:.]+(%\S+)?\s+\S")
_DOMAIN = re.compile(r"^(\*\.|\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+\.?\s*(#.*)?$")


def detect_format(text: str, sample: int = 2000) -> str:
    """The format most of the first ``sample`` rule lines are written in."""
    votes = {"ublacklist": 0, "ublock": 0, "hosts": 0, "domains": 0}
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        votes["ublacklist"] += 5  # uBlacklist front matter
    seen = 0
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("[adblock") or line.lower().startswith("[adblock"):
            votes["ublock"] += 50
            continue
        if line.startswith("!"):
            votes["ublock"] += 1
            continue
        if line.startswith("#") and not line.startswith("##"):
            continue
        seen += 1
        if _UBLOCK.search(line):
            votes["ublock"] += 2
        elif _UBLACKLIST.match(line):
            votes["ublacklist"] += 2
        elif _HOSTS.match(line):
            votes["hosts"] += 2
        elif _DOMAIN.match(line):
            votes["domains"] += 2
        if seen >= sample:
            break
    best = max(votes.values())
    if best == 0:
        return "domains"
    for name in ("ublock", "ublacklist", "hosts", "domains"):
        if votes[name] == best:
            return name
    return "domains"  # pragma: no cover


def parse_list(text: str, fmt: str = "auto") -> ParsedList:
    text = text.removeprefix("\ufeff")
    chosen = detect_format(text) if fmt == "auto" else fmt
    return PARSERS[chosen](text)
