"""URL and query fast paths give exactly what the standard library gives on any input:
parameter names read without ``unquote`` when nothing is escaped, and the redirect-wrapper
test that lets a URL skip ``unwrap``."""

from __future__ import annotations

from urllib.parse import unquote

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline.urls import InvalidURL, _param_name, _split

url_chars = st.text(alphabet="aZ09-._~:/?#[]@!$&'()*+,;=% \"<>\\^`{|}\té", max_size=30)
urls = st.builds(lambda scheme, host, rest: f"{scheme}{host}{rest}",
                 st.sampled_from(["http://", "HTTPS://", "https://", "ftp://", "http:/", ""]),
                 st.one_of(st.sampled_from(["Example.com", "a-b.c.de", ""]),
                           st.text(alphabet="aZ09.-_:@[]", max_size=12)),
                 st.one_of(url_chars, st.builds(lambda lead, rest: lead + rest,
                                                st.sampled_from("/?#"), url_chars)))


pieces = st.text(alphabet="aZ%2b+=&;é0", max_size=16)


@settings(max_examples=400, deadline=None)
@given(pieces)
def test_param_name_is_the_library_s(query: str) -> None:
    for piece in query.split("&"):
        assert _param_name(piece) == unquote(piece.split("=", 1)[0].replace("+", " ")).lower()


def test_a_hit_with_more_engines_than_positions_is_refused() -> None:
    import pytest

    from tamis.models import RawHit

    with pytest.raises(ValueError, match="2 engines but 1 positions"):
        RawHit(url="https://a.example/x", line="l", engines=["l:a", "l:b"], positions=[1])


def test_an_engine_named_twice_keeps_its_best_position_once() -> None:
    from tamis.models import RawHit

    hit = RawHit(url="https://a.example/x", line="l", engines=["l:b", "l:a", "l:b"],
                 positions=[7, 2, 3])
    assert (hit.engines, hit.positions) == (["l:b", "l:a"], [3, 2])


hosts = st.one_of(
    st.builds(lambda sub, dom: sub + dom, st.sampled_from(["", "www.", "a.b.", ".", "x"]),
              st.sampled_from(["bing.com", "google.co.uk", "google.", "l.facebook.com",
                               "facebook.com", "reddit.com", "out.reddit.com", "example.org",
                               "notbing.com", "bing.com.", "yandex.ru", ""])),
    st.text(alphabet="abgilno.ce", max_size=14))


wrapped = st.builds(lambda head, rest: head + rest,
                    st.sampled_from(["https://www.bing.com/ck/a?u=", "https://www.google.de/url?q=",
                                     "https://www.reddit.com/out?url=", "https://Www.Reddit.com/r/",
                                     "http://l.facebook.com/l.php?u=", "https://a.b.EXAMPLE.org",
                                     "https://www.youtube.com/redirect?q=", "https://.../",
                                     "https://clk.example.com/?zu=http%3A//",
                                     "https://example.org/away.php?to=https://"]),
                    url_chars)


@settings(max_examples=600, deadline=None)
@given(st.one_of(urls, wrapped))
def test_a_url_no_wrapper_rule_takes_is_never_unwrapped(raw: str) -> None:
    """clean_url skips ``unwrap`` for a URL that ``may_wrap_at`` rules out."""
    from tamis.pipeline.unwrap import default_unwrapper
    from tamis.pipeline.urls import _checked

    try:
        raw = _checked(raw)
        parts = _split(raw)
    except InvalidURL:
        return
    unwrapper = default_unwrapper()
    if not unwrapper.may_wrap_at(parts.hostname.lower(), parts.path, parts.query):
        assert unwrapper.unwrap(raw) == (raw, False)


paths = st.one_of(st.sampled_from(["", "/", "/out", "/ck/a", "/l.php", "/url", "/aclk"]),
                  st.builds(lambda a, b: a + b, st.sampled_from(["/", "/ck/", "/r/", "/l"]),
                            st.text(alphabet="a/.l?ckout", max_size=8)))


@settings(max_examples=400, deadline=None)
@given(hosts, paths)
def test_may_wrap_at_is_false_only_where_no_rule_takes_host_and_path(host: str,
                                                                     path: str) -> None:
    from tamis.pipeline.unwrap import default_unwrapper

    unwrapper = default_unwrapper()
    takes = any(rule.host_ok(host) and rule.path_ok(path) for rule in unwrapper.rules)
    assert unwrapper.may_wrap_at(host, path) == takes
