"""The URL handed to the agent is the engine's URL: unwrapped, tracking parameters gone, and
nothing else changed (no '//' collapsed, no re-encoding). The dedupe key may fold freely."""

from __future__ import annotations

import base64
from urllib.parse import parse_qsl, quote, unquote, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline.urls import clean_url
from tamis.settings import load_config

TRACKING = tuple(load_config(None).config.policy.normalise.tracking_params)
TRACKING_KEYS = ["utm_source", "utm_medium", "fbclid", "gclid", "msclkid", "_hsenc", "igshid"]

label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
hosts = st.builds(lambda labels, tld: ".".join([*labels, tld]),
                  st.lists(label, min_size=1, max_size=3), st.sampled_from(["com", "org", "de"]))
segment_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                       max_size=12).map(lambda s: quote(s, safe="-._~:@!$&'()*+,;=%"))
segments = st.lists(st.one_of(segment_text, st.just(""), st.just("https:"), st.just("%2F"),
                              st.just("a+b")), max_size=6)
content_key = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(
    lambda k: k.lower() not in {"sa", "si", "ei", "ved", "usg", "spm", "scm", "cvid", "_ga",
                                "_gl"} and not k.startswith("utm_"))
value = st.text(alphabet="abcXYZ019 +/%:é", max_size=8).map(
    lambda v: quote(v, safe="+/:"))
params = st.lists(st.tuples(st.one_of(content_key, st.sampled_from(TRACKING_KEYS)), value),
                  max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["http", "https", "HTTPS"]), hosts, segments, params)
def test_returned_url_keeps_scheme_host_path_and_content_params(
        scheme: str, host: str, path_segments: list[str],
        query: list[tuple[str, str]]) -> None:
    path = "/" + "/".join(path_segments)
    raw = f"{scheme}://{host}{path}" + ("?" + "&".join(f"{k}={v}" for k, v in query)
                                         if query else "")
    out = urlsplit(clean_url(raw, TRACKING).url)
    src = urlsplit(raw)
    assert out.scheme == src.scheme.lower()
    assert out.hostname == src.hostname
    assert unquote(out.path) == unquote(src.path or "/")
    content = [(k, v) for k, v in parse_qsl(src.query, keep_blank_values=True)
               if k not in TRACKING_KEYS]
    assert parse_qsl(out.query, keep_blank_values=True) == content


@pytest.mark.parametrize(("raw", "shown"), [
    # '//' inside the path is part of the address
    ("https://web.archive.org/web/2020/https://example.com/a",
     "https://web.archive.org/web/2020/https://example.com/a"),
    # '+', '%22' and the order of parameters are the engine's
    ("https://books.google.com/books?id=BO&dq=%22Lige+Gardner%22+-wikipedia&utm_source=x",
     "https://books.google.com/books?id=BO&dq=%22Lige+Gardner%22+-wikipedia"),
    ("https://example.com/AC%2FDC/caf%C3%A9?b=2&a=1", "https://example.com/AC%2FDC/caf%C3%A9?b=2&a=1"),
    ("https://wikimonde.com/article/Sider_%28tribu%29", "https://wikimonde.com/article/Sider_%28tribu%29"),
    # only a space (never valid in a URL) is escaped; the fragment and user info go
    ("https://bear.app/faq/Hide notes/#top", "https://bear.app/faq/Hide%20notes/"),
    ("https://user:secret@Example.COM:443/a", "https://example.com/a"),
    ("http://[2001:db8::1]/x", "http://[2001:db8::1]/x"),
    ("http://[2001:db8::1]:8080/x?fbclid=1", "http://[2001:db8::1]:8080/x"),
])
def test_shown_url_is_the_engines(raw: str, shown: str) -> None:
    assert clean_url(raw, TRACKING).url == shown


def test_the_key_still_folds_what_the_url_keeps() -> None:
    a = clean_url("https://example.com//a/./b/?y=2&x=1", TRACKING)
    b = clean_url("http://www.example.com/a/b?x=1&y=2", TRACKING)
    assert a.key == b.key and a.url != b.url


def _bing(target: str) -> str:
    code = base64.urlsafe_b64encode(target.encode()).decode().rstrip("=")
    return f"https://www.bing.com/ck/a?!&&p=abc&u=a1{code}&ntb=1"


@pytest.mark.parametrize(("wrapped", "target"), [
    # Yahoo, 2001-2003: the page follows '/*' in the path, in two forms
    ("http://srd.yahoo.com/srst/352027/genserv/2/2/*http://www.genservices.com/",
     "http://www.genservices.com/"),
    ("http://srd.yahoo.com/srct/241015/Georgetown+University+Law+Center/1/2/*http://"
     "dir.yahoo.com/Regional/Law_School/", "http://dir.yahoo.com/Regional/Law_School/"),
    ("http://srd.yahoo.com/S=2766679:WS1/R=1/K=gamespot+portugal/T=1036148892/F=621185/"
     "*http://www.gamespot.pt/", "http://www.gamespot.pt/"),
    ("http://srd.yahoo.com/srst/31267211/Gina+McKee/1/1/*http://us.imdb.com/Title?0171865",
     "http://us.imdb.com/Title?0171865"),
    # Yahoo today: /RU=<escaped target>/
    ("https://r.search.yahoo.com/_ylt=AwrP;_ylu=Y29s/RV=2/RE=1620059310/RO=10/"
     "RU=https%3a%2f%2fen.wikipedia.org%2fwiki%2fWheatstone_bridge/RK=2/RS=yPyz-",
     "https://en.wikipedia.org/wiki/Wheatstone_bridge"),
    ("https://www.google.com/url?q=https://www.instagram.com/giupy22/%3Fhl%3Den&sa=U&ved=2a",
     "https://www.instagram.com/giupy22/?hl=en"),
    (_bing("https://serverfault.com/questions/1/x"), "https://serverfault.com/questions/1/x"),
])
def test_wrappers_are_unwrapped(wrapped: str, target: str) -> None:
    assert clean_url(wrapped, TRACKING).url == target


@pytest.mark.parametrize(("wrapped", "target"), [
    # issue 33: About.com's click tracker (its host named, its target half-escaped)
    ("http://clk.about.com/?zi=1/XJ&sdn=linux&zu=http%3A//linux.about.com/od/commands/l/"
     "blcmdl.htm", "http://linux.about.com/od/commands/l/blcmdl.htm"),
    ("https://click.mail.example.net/?qs=abc&u=https://docs.example.org/guide?id=7",
     "https://docs.example.org/guide?id=7"),
    ("https://vk.com/away.php?to=https%3A%2F%2Fexample.org%2Fpage&cc_key=",  # path named
     "https://example.org/page"),
    ("https://forum.example.com/redirect.php?url=https%253A%252F%252Fexample.org%252Fdeep",
     "https://example.org/deep"),  # escaped twice
    ("https://example.com/out/?url=https://www.google.com/url?q=https://example.org/x",
     "https://example.org/x"),  # a redirector around an engine's wrapper
])
def test_a_click_tracker_is_unwrapped_by_its_shape(wrapped: str, target: str) -> None:
    assert clean_url(wrapped, TRACKING).url == target


@pytest.mark.parametrize("kept", [
    "https://www.facebook.com/sharer/sharer.php?u=https://example.org/a",  # share links
    "https://twitter.com/intent/tweet?url=https%3A%2F%2Fexample.org%2Fa&text=x",
    "https://www.linkedin.com/shareArticle?mini=true&url=https://example.org/a",
    "https://t.me/share/url?url=https://example.org/a",
    "https://www.reddit.com/submit?url=https://example.org/a",
    "https://example.com/login?next=https://example.com/account",  # after a login
    "https://accounts.example.com/oauth/authorize?redirect_uri=https://app.example.com/cb",
    "https://validator.w3.org/check?uri=https://example.org/",  # tools about a page
    "https://translate.google.com/translate?sl=auto&u=https://example.org/",
    "https://web.archive.org/web/2020/https://example.org/",  # archives: in the path
    "https://archive.org/wayback/available?url=https://example.org/",
    "https://example.com/out?url=https://a.org/x&ref=https://b.org/y",  # which of two?
    "https://clk.example.com/?u=not-a-url",
    "https://example.com/out?url=https://localhost/",  # no host with a dot: not a page
])
def test_a_url_in_a_query_is_not_enough_to_unwrap(kept: str) -> None:
    cleaned = clean_url(kept, TRACKING).url
    assert urlsplit(cleaned).hostname == urlsplit(kept).hostname


def test_the_redirector_shapes_are_the_configs() -> None:
    from tamis.pipeline.rules import Rules

    config = load_config(None, overrides={"policy": {"normalise": {"redirectors": {
        "host_labels": [], "path_words": ["hop"]}}}}).config
    unwrapper = Rules(config.policy).unwrapper
    assert unwrapper.unwrap("https://clk.about.com/?zu=http://a.example.org/x")[0] \
        == "https://clk.about.com/?zu=http://a.example.org/x"
    assert unwrapper.unwrap("https://example.com/hop.php?to=http://a.example.org/x")[0] \
        == "http://a.example.org/x"


def test_an_ad_click_is_flagged() -> None:
    assert clean_url("https://www.bing.com/aclick?ld=e8x&u=aHR0cHM", TRACKING).ad
    assert not clean_url("https://www.bing.com/search?q=x", TRACKING).ad


def test_explain_url_keeps_ipv6_brackets() -> None:
    from click.testing import CliRunner

    from tamis.interfaces.cli import cli

    result = CliRunner().invoke(cli, ["explain-url", "http://[2001:db8::1]/x"])
    assert result.exit_code == 0
    assert result.stdout.rstrip().endswith("http://[2001:db8::1]/x")
