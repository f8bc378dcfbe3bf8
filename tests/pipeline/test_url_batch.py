"""``clean_urls`` (the merge's one pass over an answer's URLs) answers exactly what
``clean_url`` answers for each URL: the same cleaned URL, key, host, path, query and ad flag,
or the same InvalidURL message."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline.url_batch import clean_urls
from tamis.pipeline.urls import InvalidURL, clean_url, default_unwrapper

TRACKING = ("utm_*", "fbclid", "gclid", "ref")

url_chars = st.text(alphabet="aZ09-._~:/?#[]@!$&'()*+,;=% \"<>\\^`{|}\t\x01é", max_size=30)
urls = st.builds(lambda scheme, host, rest: f"{scheme}{host}{rest}",
                 st.sampled_from(["http://", "HTTPS://", "https://", "ftp://", " http://", ""]),
                 st.one_of(st.sampled_from(["Example.com", "www.a-b.c.de", "www.google.com",
                                            "bing.com", "...", "xn--p1ai", ""]),
                           st.text(alphabet="aZ09.-_:@[]", max_size=12)),
                 st.one_of(url_chars, st.builds(lambda lead, rest: lead + rest,
                                                st.sampled_from(["/", "?", "#", "/url?q=",
                                                                 "/ck/a?u=a1", "/aclick?"]),
                                                url_chars)))


def one_by_one(raws: list[str]) -> list[tuple[str, str, str, str, str, bool] | str]:
    out: list[tuple[str, str, str, str, str, bool] | str] = []
    for raw in raws:
        try:
            c = clean_url(raw, TRACKING, default_unwrapper())
        except InvalidURL as exc:
            out.append(f"invalid: {exc}")
            continue
        out.append((c.url, c.key, c.host, c.path, c.query, c.ad))
    return out


def batch(raws: list[str]) -> list[tuple[str, str, str, str, str, bool] | str]:
    return [f"invalid: {c}" if isinstance(c, InvalidURL) else c
            for c in clean_urls(raws, TRACKING, default_unwrapper())]


@settings(max_examples=400, deadline=None)
@given(st.lists(urls, max_size=6))
def test_batch_is_clean_url_of_each(raws: list[str]) -> None:
    assert batch(raws) == one_by_one(raws)


def test_common_and_odd_urls() -> None:
    raws = ["https://www.Example.com/a/b/?utm_source=x&b=2&a=1#f", "http://example.com",
            "https://example.com//a/./b?%62=1", "https://www.google.com/url?q=https://x.org/",
            "https://www.bing.com/aclick?ld=e8x&u=aHR0cHM", "https://.../x", "ftp://a.b/",
            "https://ex.com/é", "https://ex.com/a\xa0", "https://ex.com/?fbclid=1&ref=2",
            "https://ex.com/?a+b=c%20d&Q=1", "https://ex.com/" + "a" * 5000]
    assert batch(raws) == one_by_one(raws)
    assert batch(raws)[0][:2] == ("https://www.example.com/a/b/?b=2&a=1", "example.com/a/b?a=1&b=2")


def regex_groups(raw: str) -> tuple[str, str, str | None, str | None] | None:
    from tamis.pipeline.urls import _SIMPLE_URL

    found = _SIMPLE_URL.match(raw)
    return found.groups() if found else None  # type: ignore[return-value]


split_cases = ["https://a.example", "http://a.example/", "https://a.example?x=/y#z",
               "https://a.example#f?x/y", "https://a.example/p?q?r#s#t", "https:///x",
               "https://user@a.example/x", "https://a.example:8080/x", "https://[::1]/x",
               "https://a.example/p#frag<x>", "https://a.example/p q", "https://a.example/\x7f",
               "https://xn--bcher-kva.example./%E2%82%AC?a=%20", "https://1.2.3.4/x",
               "HTTPS://A.example/x", "https://a.example/%2F/./x//y", "https://"]


@settings(max_examples=1000, deadline=None)
@given(st.one_of(urls, st.sampled_from(split_cases)))
def test_simple_groups_is_the_regex_split(raw: str) -> None:
    from tamis.pipeline.url_batch import _HOST_NAME, simple_groups

    if not raw.isascii():
        return  # (clean_urls asks for ASCII URLs only)
    fast = simple_groups(raw)
    if fast is None:
        return  # the regex answers
    if _HOST_NAME(fast[1]):
        assert fast == regex_groups(raw)
    else:  # a host name the regex refuses (user info, a port, brackets, none): no split
        assert regex_groups(raw) is None


def test_simple_groups_takes_the_common_urls() -> None:
    from tamis.pipeline.url_batch import simple_groups

    assert simple_groups("https://a.example/p?q?r#s#t") == ("https", "a.example", "/p", "q?r")
    assert simple_groups("http://a.example?x=/y") == ("http", "a.example", None, "x=/y")
    assert simple_groups("https://a.example#f") == ("https", "a.example", None, None)
    assert simple_groups("HTTPS://a.example/") is None  # (the regex takes it)
    assert simple_groups("https://a.example/p#<f>") is None


paths = st.builds(lambda rest: "/" + rest, st.text(
    alphabet="aZ09-._~:/@!$&'()*+,;=%[]", max_size=12))


@settings(max_examples=1000, deadline=None)
@given(st.one_of(paths, st.sampled_from(["/", "/a/", "//", "/.a", "/a/.", "/a.b/c", "/%41",
                                         "/[x]", "/a//b", "/a/b/", "/~x/_y-z"])))
def test_plain_key_path_is_the_regex(path: str) -> None:
    from tamis.pipeline.url_batch import plain_key_path
    from tamis.pipeline.urls import _PLAIN_KEY_PATH

    assert regex_groups(f"https://a.example{path}")[2] == path  # type: ignore[index]
    assert plain_key_path(path) == bool(_PLAIN_KEY_PATH.fullmatch(path))
