"""Host names in list files: validate, fold to tamis's form, and the two simple formats.

- ``hosts``: hosts(5) lines, ``0.0.0.0 example.com other.example`` (any IP address; the
  loopback names ``localhost`` & co. are not rules). A hosts entry names that host only.
- ``domains``: one domain a line (``*.example.com`` and ``.example.com`` are accepted); a
  domain line covers the domain and its subdomains, as uBlacklist's domains subscriptions do.

Both take ``#`` comments, at the start of a line or after the entry.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from tamis.policy.lists.model import BadLine, ParsedList, Rule

_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST = re.compile(rf"^{_LABEL}(?:\.{_LABEL})+$")
LOCAL_NAMES = frozenset({
    "localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost",
    "ip6-loopback", "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters",
    "ip6-allhosts", "0.0.0.0",
})


def fold_host(raw: str) -> str | None:
    """``WWW.Example.COM.`` -> ``example.com``; None when it is not a host name."""
    host = raw.strip().rstrip(".").lower()
    if not host or len(host) > 253:
        return None
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    if _HOST.match(host) is None:
        return None
    if host[host.rfind(".") + 1:].isdigit():
        return None  # an IP address, not a name
    if host.startswith("www.") and host.count(".") >= 2:
        host = host[4:]
    return host


def cut(text: str, n: int = 200) -> str:
    shown = text if text.isprintable() else ascii(text)[1:-1]  # no terminal sequence is shown
    return shown if len(shown) <= n else shown[: n - 1] + "…"


def _is_ip(token: str) -> bool:
    try:
        ipaddress.ip_address(token.split("%", 1)[0])
    except ValueError:
        return False
    return True


def hosts_line(parsed: ParsedList, number: int, line: str) -> None:
    """One hosts(5) line into ``parsed`` (also used by uBlock lists, which accept them)."""
    body = line.split("#", 1)[0].split()
    if not _is_ip(body[0]):
        parsed.bad.append(BadLine(number, cut(line), "not 'IP-address host...'"))
        return
    if len(body) == 1:
        parsed.bad.append(BadLine(number, cut(line), "an address with no host name"))
        return
    for name in body[1:]:
        if name.lower() in LOCAL_NAMES:
            parsed.skipped["loopback names"] += 1
            continue
        host = fold_host(name)
        if host is None:
            parsed.bad.append(BadLine(number, cut(line), f"{name!r} is not a host name"))
            continue
        parsed.rules.append(Rule(number, cut(line), host=host, subdomains=False))


def _rule_lines(parsed: ParsedList, text: str) -> Iterator[tuple[int, str]]:
    """(line number, stripped line) of every line that is not blank or a ``#`` comment;
    comments are counted, and a title comment is kept."""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            parsed.comments += bool(line)
            _title(parsed, line)
            continue
        yield number, line


def parse_hosts(text: str) -> ParsedList:
    parsed = ParsedList("hosts")
    for number, line in _rule_lines(parsed, text):
        hosts_line(parsed, number, line)
    return parsed


def parse_domains(text: str) -> ParsedList:
    parsed = ParsedList("domains")
    for number, line in _rule_lines(parsed, text):
        entry = line.split("#", 1)[0].strip()
        name = entry.removeprefix("*.").removeprefix(".")
        host = fold_host(name) if " " not in entry and "\t" not in entry else None
        if host is None:
            why = ("a hosts-file line in a domains list" if _is_ip(entry.split()[0])
                   else "not a domain name")
            parsed.bad.append(BadLine(number, cut(line), why))
            continue
        parsed.rules.append(Rule(number, cut(line), host=host, subdomains=True))
    return parsed


def _title(parsed: ParsedList, comment: str) -> None:
    m = re.match(r"^[#!]\s*Title\s*:\s*(.+)$", comment, re.I)
    if m and parsed.title is None:
        parsed.title = m.group(1).strip()[:120]
