"""The dedupe key: one page, one key, however an engine spelled its URL."""

from __future__ import annotations

import pytest

from tamis.pipeline.urls import InvalidURL, clean_url, registrable_domain, site_label
from tamis.settings import load_config
from tamis.text import clean_text

TRACKING = tuple(load_config(None).config.policy.normalise.tracking_params)


def key(url: str) -> str:
    return clean_url(url, TRACKING).key


@pytest.mark.parametrize(("a", "b"), [
    ("http://example.com/a", "https://example.com/a"),                      # scheme folded
    ("https://EXAMPLE.com/a", "https://example.com/a"),                     # host lowercased
    ("https://www.example.com/a", "https://example.com/a"),                 # www. folded
    ("https://example.com:443/a", "https://example.com/a"),                 # default port
    ("http://example.com:80/a", "https://example.com/a"),
    ("https://example.com/a#part", "https://example.com/a"),                # fragment
    ("https://example.com/a/", "https://example.com/a"),                    # trailing slash
    ("https://example.com/a?utm_source=x&utm_medium=y", "https://example.com/a"),
    ("https://example.com/a?fbclid=1&gclid=2&msclkid=3&mc_cid=4&mc_eid=5", "https://example.com/a"),
    ("https://example.com/a?_hsenc=1&_hsmi=2&yclid=3&igshid=4&dclid=5", "https://example.com/a"),
    ("https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"),     # params sorted
    ("https://example.com/%7Euser/a%20b", "https://example.com/~user/a%20b"),  # percent-enc
    ("https://example.com/caf%c3%a9", "https://example.com/café"),
    ("https://bücher.example/x", "https://xn--bcher-kva.example/x"),        # IDN -> punycode
    ("https://example.com/a/./b/../c", "https://example.com/a/c"),
])
def test_same_page_same_key(a: str, b: str) -> None:
    assert key(a) == key(b)


@pytest.mark.parametrize(("a", "b"), [
    ("https://example.com/a?id=1", "https://example.com/a?id=2"),          # content params
    ("https://example.com/a?page=2", "https://example.com/a"),
    ("https://example.com:8443/a", "https://example.com/a"),                 # real port
    ("https://blog.example.com/a", "https://example.com/a"),
    ("https://example.com/AC%2FDC", "https://example.com/AC/DC"),            # escaped slash
])
def test_different_pages_different_keys(a: str, b: str) -> None:
    assert key(a) != key(b)


def test_display_url_keeps_www_and_drops_only_noise() -> None:
    clean = clean_url("https://WWW.Example.com/Path/?utm_source=x&id=3#frag", TRACKING)
    assert clean.url == "https://www.example.com/Path/?id=3"
    assert clean.host == "example.com"


@pytest.mark.parametrize("bad", ["", "   ", "javascript:alert(1)", "mailto:a@b.c",
                                 "www.example.com/no-scheme", "ftp://example.com/f",
                                 "https://", "https://exa mple.com/", "https://x.com/\x00",
                                 "https://example.com/" + "a" * 10_000])
def test_absurd_urls_are_invalid(bad: str) -> None:
    with pytest.raises(InvalidURL):
        clean_url(bad, TRACKING)


@pytest.mark.parametrize(("host", "site", "label"), [
    ("forum.proxmox.com", "proxmox.com", "proxmox"),
    ("news.bbc.co.uk", "bbc.co.uk", "bbc"),
    ("thecureforboredom.com", "thecureforboredom.com", "thecureforboredom"),
    # the list's private section: a blog or a project page is a site of its own
    ("esbuild.github.io", "esbuild.github.io", "esbuild"),
    ("a.b.sacredage.blogspot.com", "sacredage.blogspot.com", "sacredage"),
    ("xn--80aswg.xn--p1ai", "xn--80aswg.xn--p1ai", "xn--80aswg"),  # punycode
    ("a.b.xn--55qx5d.cn", "b.xn--55qx5d.cn", "b"),  # under a rule of two labels, one IDN
    ("xn--bad-.com", "xn--bad-.com", "xn--bad-"),  # not valid punycode: as it is
    ("www.city.kawasaki.jp", "city.kawasaki.jp", "city"),  # an exception to a wildcard rule
    # what names no site stays itself: an address, a public suffix
    ("127.0.0.1", "127.0.0.1", "127.0.0.1"), ("::1", "::1", "::1"),
    ("github.io", "github.io", "github.io"), ("co.uk", "co.uk", "co.uk"), ("", "", ""),
])
def test_registrable_domain_and_site_label_follow_the_public_suffix_list(
        host: str, site: str, label: str) -> None:
    assert (registrable_domain(host), site_label(host)) == (site, label)


def test_clean_text() -> None:
    assert clean_text("<b>Thin&nbsp;pool</b>\n\n  &amp; metadata") == "Thin pool & metadata"
    assert clean_text("&lt;script&gt;x&lt;/script&gt; ok") == "x ok"
    capped = clean_text("word " * 200, cap=50)
    assert len(capped) <= 50 and capped.endswith("…") and "wor…" not in capped
