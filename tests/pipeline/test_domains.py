"""tamis.domains answers exactly what tldextract (bundled snapshot, no private domains) answers,
for every suffix rule and many hosts around it; and the shipped table is the one that
tldextract's snapshot builds."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.domains import TABLE, build_table, split_host
from tamis.pipeline.urls import registrable_domain, site_label

tldextract = pytest.importorskip("tldextract")  # a dev dependency: the reference
from tldextract.suffix_list import extract_tlds_from_suffix_list  # noqa: E402

FIXTURES = Path(__file__).parents[1] / "fixtures"


@lru_cache(maxsize=1)
def reference():  # type: ignore[no-untyped-def]
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def expected(host: str) -> tuple[str, str, str]:
    ext = reference()(host)
    return ext.subdomain, ext.domain, ext.suffix


def snapshot_rules() -> tuple[list[str], list[str]]:
    data = pkgutil.get_data("tldextract", ".tld_set_snapshot")
    assert data is not None
    return extract_tlds_from_suffix_list(data.decode("utf-8"))


def hosts_around(rule: str) -> list[str]:
    """Hosts that land on, under and beside one rule, in Unicode and punycode forms."""
    base = rule.lstrip("!").replace("*", "wild")
    out = [base, f"x.{base}", f"a.b.{base}", f"WWW.Example.{base.upper()}", f"{base}."]
    if not base.isascii():
        puny = base.encode("idna").decode("ascii") if all(
            label.isascii() or label for label in base.split(".")) else base
        out += [puny, f"shop.{puny}", f"a.b.{puny}", f"x.{puny.upper()}"]
    return out


def test_the_table_is_built_from_tldextracts_snapshot() -> None:
    public, _private = snapshot_rules()
    from importlib.metadata import version

    built = build_table(public, f"tldextract {version('tldextract')}'s bundled snapshot")
    assert TABLE.read_text("utf-8") == built, "regenerate: python -m tamis.domains --build"


def test_every_rule_and_the_hosts_around_it_split_as_tldextract_splits_them() -> None:
    public, private = snapshot_rules()
    hosts = [h for rule in public + private for h in hosts_around(rule)]
    assert len(hosts) > 40_000
    mismatches = [(h, split_host(h), expected(h)) for h in hosts if split_host(h) != expected(h)]
    assert mismatches == []


EDGE_CASES = [
    "", ".", "..", "...", "a..b", "com", "co.uk", "localhost", "foo.internal", "forum.proxmox.com",
    "news.bbc.co.uk", "user.github.io", "x.blogspot.com", "127.0.0.1", "127.0.0.1.", "1.2.3",
    "256.1.1.1", "01.2.3.4", "[2001:db8::1]", "[::1]", "2001:db8::1", "[not-ipv6]", "[::1",
    "http://user:pw@Forum.Proxmox.COM:8006/path?q=1#f", "//cdn.example.co.jp/x", "mailto:a@b.com",
    "example.com:443", "EXAMPLE.COM", "www.city.kawasaki.jp", "city.kawasaki.jp", "a.b.kawasaki.jp",
    "kawasaki.jp", "www.ck", "foo.ck", "ck", "a.b.c.ck", "foo.sch.uk", "x.foo.sch.uk",
    "xn--p1ai", "пример.рф", "xn--e1afmkfd.xn--p1ai", "a.xn--55qx5d.cn", "xn--invalid--.com",
    "xn--.com", "example。com", "example．co．uk", "example｡de", " spaced.com ", "tab\t.com",
    "*.kawasaki.jp", "!city.kawasaki.jp", "a.*.jp", "ex-ample.com.", "ex_ample.co.uk",
    "münchen.de", "xn--mnchen-3ya.de", "ÖBB.AT", "192.168.0.1:8080", "http://[::1]:80/",
]


@pytest.mark.parametrize("host", EDGE_CASES)
def test_edge_cases_split_as_tldextract_splits_them(host: str) -> None:
    assert split_host(host) == expected(host)


def fixture_hosts() -> list[str]:
    hosts = []
    for path in sorted(FIXTURES.rglob("*.json")):
        try:
            data = json.loads(path.read_text("utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        hosts += [r["url"] for r in data.get("results", []) if isinstance(r, dict)
                  and isinstance(r.get("url"), str)] if isinstance(data, dict) else []
    return hosts


def test_recorded_result_urls_split_as_tldextract_splits_them() -> None:
    urls = fixture_hosts()
    assert len(urls) > 20
    assert [split_host(u) for u in urls] == [expected(u) for u in urls]


LABEL = st.one_of(
    st.sampled_from(["com", "co", "uk", "jp", "kawasaki", "city", "ck", "www", "xn--p1ai",
                     "рф", "github", "io", "xn--55qx5d", "cn", "", "*", "!city", "sch", "1",
                     "255", "xn--", "XN--P1AI", "Co", "UK"]),
    st.text(alphabet="abcxyz019-_.:/@[]\u3002рф", max_size=6),
)


@settings(max_examples=3000, deadline=None, database=None)
@given(st.lists(LABEL, min_size=1, max_size=5))
def test_random_hosts_split_as_tldextract_splits_them(labels: list[str]) -> None:
    host = ".".join(labels)
    assert split_host(host) == expected(host)


def test_registrable_domain_and_site_label_keep_their_meaning() -> None:
    for host in [*EDGE_CASES, "forum.proxmox.com", "pve.proxmox.com", "a.b.c.d.example.org"]:
        ext = reference()(host)
        want = f"{ext.domain}.{ext.suffix}" if ext.domain and ext.suffix else host
        assert registrable_domain(host) == (want if host else host)
        assert site_label(host) == (ext.domain or host)


def test_registrable_domains_import_neither_tldextract_nor_requests() -> None:
    code = ("import sys; from tamis.pipeline.urls import registrable_domain;"
            " assert registrable_domain('forum.proxmox.com') == 'proxmox.com';"
            " print(sorted(m for m in ('tldextract', 'requests', 'idna', 'filelock')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_the_table_bisected_and_in_sets_holds_the_same_lines() -> None:
    """A CLI call's few lookups bisect the file's text; later ones use sets: the same answers
    for every line of the table, near misses, and what is no line (the header, '', a break)."""
    from tamis import domains

    bisected, in_sets = domains._Table(), domains._Table()
    bisected.PROBES_BEFORE_SETS = 10**9  # type: ignore[misc]
    in_sets.probes = in_sets.PROBES_BEFORE_SETS
    text = domains.TABLE.read_text("utf-8")
    lines = [line for line in text.split("\n") if line]
    probes = [*lines, *(line + "x" for line in lines[::7]), *(line[1:] for line in lines[::7]),
              "", "com\nuk", "aaaa", "\uffff"]
    for item in probes:
        assert bisected.holds(item) == in_sets.holds(item), item
    assert bisected.sets is None and in_sets.sets is not None
    assert bisected.holds("co.uk") == (True, True) and bisected.holds("bd") == (False, True)
    assert not any(bisected.holds(line)[1] for line in lines if line.startswith("//"))


def test_the_sampled_table_holds_what_the_plain_bisection_holds() -> None:
    """``_Sampled.holds`` (bisect on sampled lines, then one find) answers ``_holds``: every
    line, near misses on both sides, items before the first and after the last line, and a
    small step (many samples) as well as one larger than the text (one sample)."""
    from tamis import domains

    table = domains._Table()
    for text in (table.rules_text, table.others_text):
        lines = [line for line in text.split("\n") if line]
        probes = [*lines, *(line + "x" for line in lines[::5]), *(line[:-1] for line in lines[::5]),
                  *(line + "\n" for line in lines[::50]), "", "\n", "!", "\uffff", "0", "zzzz"]
        for step in (1, 7, 512, 10**7):
            sampled = domains._Sampled.__new__(domains._Sampled)
            sampled.STEP = step  # type: ignore[misc]
            sampled.__init__(text)  # type: ignore[misc]
            for item in probes:
                assert sampled.holds(item) == domains._holds(text, item), (step, item)


def test_top_level_probes_kept_answer_as_when_asked_afresh() -> None:
    from tamis.domains import _table

    hosts = ["a.example.com", "b.example.COM", "x.kawasaki.jp", "city.kawasaki.jp", "foo.ck",
             "www.ck", "a.b.unknowntld", "localhost", "xn--e1afmkfd.xn--p1ai", "EXAMPLE.UK"]
    table = _table()
    table.top.clear()
    fresh = [split_host(h) for h in hosts]
    assert table.top  # the second host under a suffix finds it kept
    assert [split_host(h) for h in hosts] == fresh == [expected(h) for h in hosts]
