"""Every list format, every rule kind, exceptions and broken lines, on real-format files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tamis.policy.lists import ListMatcher, detect_format, parse_list
from tamis.policy.lists.matcher import ListInfo

DATA = Path(__file__).parent / "data"


def matcher_for(name: str, fmt: str = "auto", action: str = "demote") -> ListMatcher:
    return matcher_of((DATA / name).read_text("utf-8"), fmt, action)


def matcher_of(text: str, fmt: str = "auto", action: str = "demote") -> ListMatcher:
    compiled = parse_list(text, fmt).compile()
    compiled.source_lines = text.splitlines()
    return ListMatcher([(ListInfo("t", action), compiled)])


def lines_matching(m: ListMatcher, url: str) -> list[int]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    host = host[4:] if host.startswith("www.") and host.count(".") >= 2 else host
    pq = parts.path + (f"?{parts.query}" if parts.query else "")
    return [x.line for x in m.match(host, url, pq, parts.scheme)]


def test_formats_are_detected() -> None:
    assert detect_format((DATA / "so-copies.ublacklist.txt").read_text()) == "ublacklist"
    assert detect_format((DATA / "copycats.ublock.txt").read_text()) == "ublock"
    assert detect_format((DATA / "ad-hosts.txt").read_text()) == "hosts"
    assert detect_format((DATA / "farms.domains.txt").read_text()) == "domains"
    assert detect_format("||a.com^\n||b.com^\n") == "ublock"
    assert detect_format("*://*.a.com/*\n/b\\.com/\n") == "ublacklist"


def test_ublacklist_rules_comments_and_front_matter() -> None:
    parsed = parse_list((DATA / "so-copies.ublacklist.txt").read_text(), "ublacklist")
    assert parsed.title == "Stack Overflow copycats (tamis test list)"
    assert [r.line for r in parsed.rules] == [6, 7, 8, 9, 10]
    assert parsed.bad == []
    m = matcher_for("so-copies.ublacklist.txt")
    assert lines_matching(m, "https://newbedev.com/q/1") == [6]
    assert lines_matching(m, "https://www.newbedev.com/q/1") == [6]  # www. folded
    assert lines_matching(m, "https://cdn.newbedev.com/q/1") == [6]  # *. covers subdomains
    assert lines_matching(m, "https://exchangetuts.com/index.php/q") == [9]  # the regex line
    assert lines_matching(m, "https://notexchangetuts.com/q") == []  # anchored regex
    assert lines_matching(m, "https://blog.newbedev.com/post") == []  # '@' unblocks
    assert lines_matching(m, "https://stackoverflow.com/q/1") == []


def test_ublacklist_every_rule_kind() -> None:
    text = "\n".join([
        "*://example.com/*",            # 1 that host only
        "*://*.sub.example.org/*",      # 2 domain and subdomains
        "*://paths.example/hoge/*",     # 3 path-scoped
        "https://secure.example/*",     # 4 one scheme
        "*://*/wp-login.php*",          # 5 every host, one path
        "url =~ /casefree\\.example/i",  # 6 url regex with flags
        "url/plain\\.example/",         # 7 '=~' omitted
        "@1*://highlight.example/*",    # 8 highlight: skipped
        "*://*.amazon.com/* @if($category=\"images\")",  # 9 guarded: skipped
        "title =~ /spam/",              # 10 expression: skipped
        "ftp://files.example/*",        # 11 non-web scheme: skipped
        "/a\\/b[/]c/ # a class may hold '/'",  # 12 regex, then a comment
        "*://www.qinterest.*/",         # 13 bad: '*' not at the start
        "just some words",              # 14 bad
        "/x/ trailing",                 # 15 bad: text after the regex
        "/(/",                          # 16 bad: invalid regex
    ])
    parsed = parse_list(text, "ublacklist")
    assert [(b.line, b.why.split(":")[0]) for b in parsed.bad] == [
        (13, "'*' may only start the host ('*.example.com')"),
        (14, "not a match pattern, regex or comment"),
        (15, "text after the regex"), (16, "invalid regex")]
    assert parsed.skipped == {"highlight rules": 1, "@if-guarded patterns": 1,
                              "expressions on title/host/site": 1, "non-web schemes": 1}
    m = matcher_of(text, "ublacklist", "drop")
    assert lines_matching(m, "https://example.com/x") == [1]
    assert lines_matching(m, "https://a.example.com/x") == []
    assert lines_matching(m, "https://sub.example.org/") == [2]
    assert lines_matching(m, "https://deep.sub.example.org/") == [2]
    assert lines_matching(m, "https://paths.example/hoge/fuga.html") == [3]
    assert lines_matching(m, "https://paths.example/other") == []
    assert lines_matching(m, "https://secure.example/") == [4]
    assert lines_matching(m, "http://secure.example/") == []
    assert lines_matching(m, "https://blog.example/wp-login.php?x=1") == [5]
    assert lines_matching(m, "https://CaseFree.Example/") == [6]
    assert lines_matching(m, "https://plain.example/") == [7]
    assert lines_matching(m, "https://highlight.example/") == []
    assert lines_matching(m, "https://q.example/a/b/c") == [12]


def test_ublock_network_rules_options_and_cosmetics() -> None:
    parsed = parse_list((DATA / "copycats.ublock.txt").read_text(), "ublock")
    assert parsed.title == "Copycat sites (tamis test list)"
    assert parsed.skipped == {
        "cosmetic rules": 4,
        "rules for sub-resources only (script, image...)": 1,
        "rules for some sites' pages only (domain=)": 1,
        "modifier rules (removeparam, redirect, csp...)": 1,
        "first-party-only rules": 1,
    }
    assert [(b.line, b.why) for b in parsed.bad] == [
        (27, "'bad..host' is not a host name"),
        (28, "unknown option 'frobnicate'"),
        (29, "a regex rule must be /.../"),
    ]
    m = matcher_for("copycats.ublock.txt")
    assert lines_matching(m, "https://newbedev.com/a") == [5]
    assert lines_matching(m, "https://x.newbedev.com/a") == [5]
    assert lines_matching(m, "https://stackoom.com/q") == [6]  # $third-party: a result is
    assert lines_matching(m, "https://blog.stackoom.com/q") == []  # @@ exception
    assert lines_matching(m, "https://itectec.com/p") == [7]  # $document
    assert lines_matching(m, "https://codegrepr.com/questions/12/x") == [8]
    assert lines_matching(m, "https://codegrepr.com/about") == []  # path-scoped
    assert lines_matching(m, "https://ads.example.net/x") == []  # $script,image: skipped
    assert lines_matching(m, "https://exchangetuts.net/q/1") == [14]  # /regex/
    assert lines_matching(m, "https://copy.example.org/mirror/") == [15]  # |...| anchors
    assert lines_matching(m, "https://copy.example.org/mirror/x") == []
    assert lines_matching(m, "https://good.always.example.org/") == [16]  # $important wins
    assert lines_matching(m, "https://plaincopy.example.com/x") == [18]  # a bare host line
    assert lines_matching(m, "https://hostscopy.example.com/") == [20]  # a hosts line


def test_hosts_file() -> None:
    parsed = parse_list((DATA / "ad-hosts.txt").read_text(), "hosts")
    assert parsed.title == "Test hosts file (tamis)"
    assert sorted(r.host for r in parsed.rules) == [
        "content-farm.example", "other-spam.example", "seo-spam.example", "tabbed.example"]
    assert parsed.skipped == {"loopback names": 3}
    assert [(b.line, b.why) for b in parsed.bad] == [
        (8, "an address with no host name"), (9, "not 'IP-address host...'"),
        (10, "'bad_host_!.example' is not a host name")]
    m = matcher_for("ad-hosts.txt")
    assert lines_matching(m, "https://content-farm.example/a") == [5]
    assert lines_matching(m, "https://sub.content-farm.example/a") == []  # hosts: that host
    assert lines_matching(m, "https://www.seo-spam.example/") == [6]


def test_domains_list() -> None:
    parsed = parse_list((DATA / "farms.domains.txt").read_text(), "domains")
    assert [b.line for b in parsed.bad] == [6, 7]
    m = matcher_for("farms.domains.txt")
    assert lines_matching(m, "https://a.b.content-farm.example/") == [2]
    assert lines_matching(m, "https://wildcard-farm.example/") == [3]
    assert lines_matching(m, "https://x.dotted-farm.example/") == [4]
    assert lines_matching(m, "https://xn--bcher-farm-9db.example/") == [5]  # punycode


def test_a_broken_list_keeps_every_good_line() -> None:
    text = "||good.example^\n\x00\x01garbage\n||also-good.example^\n"
    parsed = parse_list(text, "ublock")
    assert [r.host for r in parsed.rules] == ["good.example", "also-good.example"]
    assert [b.line for b in parsed.bad] == [2]


def test_two_hundred_thousand_rules() -> None:
    lines = [f"*://*.farm{i}.example/*" for i in range(199_000)]
    lines += [f"*://paths{i}.example/copy/*" for i in range(500)]
    lines += [f"/^https?:\\/\\/mirror{i}\\.example\\.(com|net)\\//" for i in range(500)]
    parsed = parse_list("\n".join(lines), "auto")
    assert parsed.format == "ublacklist" and len(parsed.rules) == 200_000 and not parsed.bad
    m = matcher_of("\n".join(lines))
    assert lines_matching(m, "https://www.farm123456.example/x") == [123_457]
    assert lines_matching(m, "https://paths42.example/copy/1") == [199_043]
    assert lines_matching(m, "https://paths42.example/other") == []
    assert lines_matching(m, "http://mirror499.example.net/q") == [200_000]
    assert lines_matching(m, "https://farm1.example.org/") == []
    assert lines_matching(m, "https://stackoverflow.com/questions/1") == []


@pytest.mark.parametrize("fmt", ["ublacklist", "ublock", "hosts", "domains"])
def test_an_empty_or_comment_only_list_has_no_rules(fmt: str) -> None:
    parsed = parse_list("# nothing here\n\n", fmt)
    assert parsed.rules == [] and parsed.bad == []
