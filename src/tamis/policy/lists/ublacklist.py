"""uBlacklist rulesets, as the extension reads them (its ruleset and subscription specs).

- Match patterns ``<scheme>://<host>/<path>``: scheme ``*`` (http and https), ``http`` or
  ``https``; host ``*``, ``*.example.com`` (the domain and its subdomains) or
  ``example.com`` (that host only); a path glob where ``*`` is any run of characters,
  matched against the path and the query string. ``*://*.example.com/*`` is a host rule
  (a suffix-set lookup); a path-scoped pattern is a host rule with a path regex.
- Regular expressions: ``/re/flags``, ``url/re/``, ``url =~ /re/`` (JavaScript literals,
  searched in the whole URL).
- ``@`` before a rule unblocks what it matches; ``@N`` (N = 1, 2...) highlights: tamis has no
  colours, so highlight rules are skipped with a count, as are ``@if(...)``-guarded patterns
  (they test the search page, which tamis does not have) and expressions on other
  variables (``title``, ``host``, ``$site``...).
- ``#`` comments, at the start of a line or after a rule; YAML front matter (``---``).

Anything else is a bad line, reported with its number and skipped.
"""

from __future__ import annotations

import re

from tamis.policy.lists.hosts import cut, fold_host
from tamis.policy.lists.model import BadLine, ParsedList, Rule
from tamis.policy.lists.regex import js_regex, split_regex_literal

_PATTERN = re.compile(r"^(\*|https?|[a-z][a-z0-9+.-]*)://([^/\s]*)(/\S*)$", re.I)
_EXPRESSION = re.compile(r"^(title|host|path|scheme|url|\$\w+|!|\()", re.I)
_URL_REGEX = re.compile(r"^url\s*(?:=~)?\s*(/.*)$", re.I)
_GUARD = re.compile(r"\s@if\s*\(")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")


def glob_regex(glob: str) -> str:
    """A match-pattern path glob as an anchored regex: ``*`` is any run of characters."""
    return "^" + ".*".join(re.escape(piece) for piece in glob.split("*")) + "$"


def parse_ublacklist(text: str) -> ParsedList:
    parsed = ParsedList("ublacklist")
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":  # YAML front matter
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
            m = re.match(r"^name\s*:\s*(.+)$", lines[i].strip())
            if m:
                parsed.title = m.group(1).strip().strip("'\"")[:120]
        else:
            start = 0  # no closing '---': not front matter
    for number, raw in enumerate(lines[start:], start + 1):
        rule_line(parsed, number, raw.strip())
    return parsed


def rule_line(parsed: ParsedList, number: int, line: str) -> None:
    if not line or line.startswith("#"):
        parsed.comments += bool(line)
        return
    if line.startswith("*://*.") and line.endswith("/*") and _HOST_CHARS.issuperset(
            line[6:-2]):  # the common case, '*://*.example.com/*', at a glance
        host = fold_host(line[6:-2])
        if host is not None:
            parsed.rules.append(Rule(number, cut(line), host=host))
            return
    body, exception = line, False
    if body.startswith("@"):
        m = re.match(r"^@(\d+)", body)
        if m and int(m.group(1)) >= 1:
            parsed.skipped["highlight rules"] += 1
            return
        body = body[1:].lstrip()
        exception = True
    if body.startswith("/") or _URL_REGEX.match(body):
        literal = body if body.startswith("/") else _URL_REGEX.match(body).group(1)  # type: ignore[union-attr]
        _regex_rule(parsed, number, line, literal, exception)
        return
    pattern = body.split("#", 1)[0].strip()
    if "@if" in pattern and _GUARD.search(" " + pattern):
        parsed.skipped["@if-guarded patterns"] += 1
        return
    m = _PATTERN.match(pattern)
    if m is None:
        if _EXPRESSION.match(body):
            parsed.skipped["expressions on title/host/site"] += 1
            return
        parsed.bad.append(BadLine(number, cut(line), "not a match pattern, regex or comment"))
        return
    scheme, host_part, path = m.group(1).lower(), m.group(2).lower(), m.group(3)
    if scheme not in ("*", "http", "https"):
        parsed.skipped["non-web schemes"] += 1
        return
    rule_scheme = None if scheme == "*" else scheme
    path_re = None if path == "/*" else glob_regex(path)
    if host_part == "*":
        url = "^https?://[^/]+" if rule_scheme is None else f"^{rule_scheme}://[^/]+"
        url += "(?:/.*)?$" if path_re is None else path_re[1:]
        parsed.rules.append(Rule(number, cut(line), exception=exception, url_re=url))
        return
    subdomains = host_part.startswith("*.")
    name = host_part[2:] if subdomains else host_part
    host = fold_host(name) if "*" not in name and ":" not in name else None
    if host is None:
        why = ("'*' may only start the host ('*.example.com')" if "*" in name
               else f"{name!r} is not a host name")
        parsed.bad.append(BadLine(number, cut(line), why))
        return
    parsed.rules.append(Rule(number, cut(line), exception=exception, host=host,
                             subdomains=subdomains, path_re=path_re, scheme=rule_scheme))


def _regex_rule(parsed: ParsedList, number: int, line: str, literal: str,
                exception: bool) -> None:
    split = split_regex_literal(literal)
    if split is None:
        parsed.bad.append(BadLine(number, cut(line), "a regex must be /.../ with inner '/'"
                                  " escaped"))
        return
    source, flags, rest = split
    if rest and not rest.startswith("#"):
        parsed.bad.append(BadLine(number, cut(line), "text after the regex"))
        return
    regex, error = js_regex(source, flags)
    if regex is None:
        parsed.bad.append(BadLine(number, cut(line), f"invalid regex: {error}"))
        return
    parsed.rules.append(Rule(number, cut(line), exception=exception, url_re=regex))
