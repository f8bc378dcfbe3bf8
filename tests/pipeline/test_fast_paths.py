"""URL and query fast paths give exactly what the standard library gives on any input:
the common URL split by one regex (as ``urlsplit`` splits it), parameter names and query
keys read without ``unquote``/``parse_qsl`` when nothing is escaped."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline.rules import _query_keys
from tamis.pipeline.urls import (
    _SIMPLE_URL,
    InvalidURL,
    _escape_unsafe,
    _param_name,
    _split,
)

url_chars = st.text(alphabet="aZ09-._~:/?#[]@!$&'()*+,;=% \"<>\\^`{|}\té", max_size=30)
urls = st.builds(lambda scheme, host, rest: f"{scheme}{host}{rest}",
                 st.sampled_from(["http://", "HTTPS://", "https://", "ftp://", "http:/", ""]),
                 st.one_of(st.sampled_from(["Example.com", "a-b.c.de", ""]),
                           st.text(alphabet="aZ09.-_:@[]", max_size=12)),
                 st.one_of(url_chars, st.builds(lambda lead, rest: lead + rest,
                                                st.sampled_from("/?#"), url_chars)))


def plain_split(raw: str) -> tuple[str, str, int | None, str, str] | str:
    try:
        parts = urlsplit(raw)
        netloc = parts.netloc
        if ":" in netloc or "@" in netloc or "[" in netloc:
            port, hostname = parts.port, parts.hostname or ""
        else:
            port, hostname = None, netloc
    except ValueError:
        return "invalid"
    return parts.scheme.lower(), hostname, port, parts.path, parts.query


@settings(max_examples=500, deadline=None)
@given(urls)
def test_split_is_urlsplit(raw: str) -> None:
    try:
        parts = _split(raw)
    except InvalidURL:
        assert plain_split(raw) == "invalid"
        return
    assert tuple(parts)[:5] == plain_split(raw)
    if parts.plain:  # the escaping passes are skipped: they would change nothing
        assert _escape_unsafe(parts.path) == parts.path
        assert _escape_unsafe(parts.query) == parts.query


def test_the_common_url_takes_the_fast_path() -> None:
    assert _SIMPLE_URL.match("https://forum.proxmox.com/threads/x.1/?page=2#post-3")
    assert not _SIMPLE_URL.match("https://user@host/")  # the library reads user info
    assert _split("HTTPS://Example.COM/A?b=1#c").plain


pieces = st.text(alphabet="aZ%2b+=&;é0", max_size=16)


@settings(max_examples=400, deadline=None)
@given(pieces)
def test_param_name_and_query_keys_are_the_library_s(query: str) -> None:
    for piece in query.split("&"):
        assert _param_name(piece) == unquote(piece.split("=", 1)[0].replace("+", " ")).lower()
    assert _query_keys(query) == {k.lower(): v
                                  for k, v in parse_qsl(query, keep_blank_values=True)}


def test_a_hit_with_more_engines_than_positions_fails_as_before() -> None:
    import pytest

    from tamis.models import RawHit
    from tamis.pipeline.merge import merge

    hit = RawHit(url="https://a.example/x", line="l", engines=["l:a", "l:b"], positions=[1])
    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is shorter than argument 1"):
        merge([(hit, 0, 1.0)], tracking_params=[], max_chars=100)


hosts = st.one_of(
    st.builds(lambda sub, dom: sub + dom, st.sampled_from(["", "www.", "a.b.", ".", "x"]),
              st.sampled_from(["bing.com", "google.co.uk", "google.", "l.facebook.com",
                               "facebook.com", "reddit.com", "out.reddit.com", "example.org",
                               "notbing.com", "bing.com.", "yandex.ru", ""])),
    st.text(alphabet="abgilno.ce", max_size=14))


@settings(max_examples=400, deadline=None)
@given(hosts)
def test_may_wrap_is_false_only_where_no_wrapper_rule_takes_the_host(host: str) -> None:
    from tamis.pipeline.unwrap import default_unwrapper

    unwrapper = default_unwrapper()
    if not unwrapper.may_wrap(host):
        assert not any(rule.host_ok(host) for rule in unwrapper.rules)
