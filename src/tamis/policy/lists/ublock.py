"""uBlock Origin / Adblock Plus filter lists: the network rules that apply to a page.

A search result is a page an agent would open (a top-level document), so:

- ``||example.com^`` (and a bare ``example.com`` line, and hosts-file lines, which uBlock
  reads the same) is a host rule: that host and its subdomains, a suffix-set lookup.
  ``||example.com/path*`` is a host rule with a path regex; any other pattern (``|https://``
  anchors, ``*`` wildcards, ``^`` separators, ``/regex/``) is a regex on the whole URL.
- ``@@`` rules are exceptions; ``$important`` rules are not cancelled by them.
- Options: ``document``/``doc``, ``all``, ``popup``, ``third-party``/``3p`` (a result is
  opened from another site's page), ``important``, ``match-case`` keep a rule. Rules only for
  sub-resources (``script``, ``image``, ``xhr``...), first-party only, scoped to the pages
  of some sites (``domain=``), or that modify rather than block (``removeparam``,
  ``redirect``, ``csp``...) are skipped with a count: they say nothing about a page.
- Cosmetic rules (``##``, ``#@#``, ``#?#``, ``#$#``, ``##+js``...) hide parts of pages and are
  skipped with a count. ``!`` and ``[Adblock Plus 2.0]`` lines are comments.

An option tamis does not know makes the line a bad line, reported and skipped.
"""

from __future__ import annotations

import re

from tamis.policy.lists.hosts import cut, fold_host, hosts_line
from tamis.policy.lists.model import BadLine, ParsedList, Rule
from tamis.policy.lists.regex import js_regex, split_regex_literal

_COSMETIC = re.compile(r"#[@?$%]*#|#@?\$\??#|\$\$|#\+js")
_HOST_RULE = re.compile(r"^\|\|([a-z0-9_.*-]+)(\^\|?|/.*|)$")
_BARE_HOST = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)+\.?$")
_IP_LINE = re.compile(r"^[0-9a-f:.%]+\s+\S")

KEEPS = {"document", "doc", "all", "popup", "third-party", "3p", "important",
         "match-case", "~first-party", "~1p", "strict3p"}
RESOURCE_TYPES = {"script", "image", "stylesheet", "css", "object", "xmlhttprequest", "xhr",
                  "subdocument", "frame", "ping", "websocket", "webrtc", "font", "media",
                  "other", "beacon", "object-subrequest", "inline-script", "inline-font",
                  "elemhide", "ehide", "generichide", "ghide", "specifichide", "shide",
                  "genericblock"}
FIRST_PARTY = {"first-party", "1p", "~third-party", "~3p", "strict1p"}
MODIFIERS = {"removeparam", "queryprune", "redirect", "redirect-rule", "csp", "rewrite",
             "replace", "header", "permissions", "urltransform", "uritransform", "badfilter",
             "cname", "urlskip", "denyallow", "method", "to", "empty", "mp4", "noop", "_",
             "cookie", "stealth", "hls", "jsonprune", "network",
             "app", "referrerpolicy", "content", "extension", "jsinject", "urlblock"}


def parse_ublock(text: str) -> ParsedList:
    parsed = ParsedList("ublock")
    for number, raw in enumerate(text.splitlines(), 1):
        rule_line(parsed, number, raw.strip())
    return parsed


def rule_line(parsed: ParsedList, number: int, line: str) -> None:
    if not line:
        return
    if line.startswith(("!", "[")) or re.match(r"^#($|[^#@?$%])", line):
        parsed.comments += 1
        m = re.match(r"^!\s*Title\s*:\s*(.+)$", line, re.I)
        if m and parsed.title is None:
            parsed.title = m.group(1).strip()[:120]
        return
    if _COSMETIC.search(line) and not line.startswith("/"):
        parsed.skipped["cosmetic rules"] += 1
        return
    if _IP_LINE.match(line.lower()):
        hosts_line(parsed, number, line)
        return
    body, exception = line, False
    if body.startswith("@@"):
        body, exception = body[2:], True
    pattern, options = _split_options(body)
    if any(c.isspace() or not c.isprintable() for c in pattern):
        parsed.bad.append(BadLine(number, cut(line), "spaces or control characters in a"
                                  " rule"))
        return
    verdict = _options(options)
    if verdict.startswith("bad:"):
        parsed.bad.append(BadLine(number, cut(line), verdict[4:]))
        return
    if verdict.startswith("skip:"):
        parsed.skipped[verdict[5:]] += 1
        return
    important = "important" in options
    case = "match-case" in options
    if not pattern or pattern in ("*", "|", "||"):
        parsed.bad.append(BadLine(number, cut(line), "a rule that matches every URL"))
        return
    if pattern.startswith("/") and len(pattern) > 2:
        split = split_regex_literal(pattern)
        if split is None or split[1] or split[2]:
            parsed.bad.append(BadLine(number, cut(line), "a regex rule must be /.../"))
            return
        regex, error = js_regex(split[0], ignore_case=not case)
        if regex is None:
            parsed.bad.append(BadLine(number, cut(line), f"invalid regex: {error}"))
            return
        parsed.rules.append(Rule(number, cut(line), exception, important, url_re=regex))
        return
    low = pattern.lower()
    m = _HOST_RULE.match(low)
    if m and "*" not in m.group(1):
        host = fold_host(m.group(1))
        if host is None:
            parsed.bad.append(BadLine(number, cut(line), f"{m.group(1)!r} is not a host name"))
            return
        rest = pattern[len(m.group(1)) + 2:]
        path_re = None
        if rest.startswith("/") and rest.rstrip("*") != "/":
            path_re = _pattern_regex(rest, case, anchored_start=True)
        parsed.rules.append(Rule(number, cut(line), exception, important, host=host,
                                 path_re=path_re))
        return
    if _BARE_HOST.match(low):
        host = fold_host(low)
        if host is not None:
            parsed.rules.append(Rule(number, cut(line), exception, important, host=host))
            return
    parsed.rules.append(Rule(number, cut(line), exception, important,
                             url_re=_pattern_regex(pattern, case)))


def _split_options(body: str) -> tuple[str, list[str]]:
    """``||x.com^$doc,3p`` -> (``||x.com^``, [doc, 3p]). A ``$`` inside a /regex/ is not one."""
    at = body.rfind("$")
    if at <= 0 or (body.startswith("/") and body.rfind("/") > at):
        return body, []
    options = [o.strip().lower() for o in body[at + 1:].split(",") if o.strip()]
    return body[:at], options


def _options(options: list[str]) -> str:
    """'keep', 'skip:<what>' or 'bad:<why>' for a rule's options."""
    types, negated_types = set(), set()
    for option in options:
        name = option.split("=", 1)[0]
        bare = name.lstrip("~")
        if name in ("domain", "from"):
            values = option.split("=", 1)[1].split("|") if "=" in option else []
            if any(not v.startswith("~") for v in values):
                return "skip:rules for some sites' pages only (domain=)"
            continue
        if name in KEEPS:
            if name in ("document", "doc", "all", "popup"):
                types.add("document")
            continue
        if name in FIRST_PARTY:
            return "skip:first-party-only rules"
        if bare in RESOURCE_TYPES:
            (negated_types if name.startswith("~") else types).add(bare)
            continue
        if bare in MODIFIERS:
            return "skip:modifier rules (removeparam, redirect, csp...)"
        return f"bad:unknown option {option!r}"
    if types and "document" not in types:
        return "skip:rules for sub-resources only (script, image...)"
    if "document" in negated_types:
        return "skip:rules for sub-resources only (script, image...)"
    return "keep"


def _pattern_regex(pattern: str, case: bool, *, anchored_start: bool = False) -> str:
    """An ABP pattern as a regex: ``||`` a host boundary, ``|`` an anchor, ``*`` anything,
    ``^`` a separator (anything but a letter, digit or ``_-.%``, or the end)."""
    out = []
    i, n = 0, len(pattern)
    if anchored_start:
        out.append("^")
    elif pattern.startswith("||"):
        out.append(r"^[a-z][a-z0-9+.-]*://(?:[^/?#]*\.)?")
        i = 2
    elif pattern.startswith("|"):
        out.append("^")
        i = 1
    end = ""
    if pattern.endswith("|") and n > i:
        end, n = "$", n - 1
    for c in pattern[i:n]:
        out.append(".*" if c == "*" else r"(?:[^\w.%-]|$)" if c == "^" else re.escape(c))
    regex = "".join(out) + end
    return regex if case else "(?i)" + regex
