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


# Answers of common URLs (what clean_urls's answer-wide scans find plain), with now and then
# an odd one: the scans must not let an odd URL's neighbours, or the odd URL itself, skip
# a look they need.
plain_host = st.sampled_from(["example.com", "www.example.com", "Example.COM", "a.b.example.org",
                              "example.com.", "www.google.com", "bing.com", "xn--p1ai.ru",
                              "1.2.3.4", "a-b.example"])
plain_path = st.one_of(st.just(""), st.builds(lambda rest: "/" + rest, st.text(
    alphabet="ab09-._~:@!$&'()*+,;=/", max_size=14)))
query_piece = st.one_of(
    st.sampled_from(["utm_source=x", "UTM_Medium=y", "fbclid=abc", "ref=home", "page=2",
                     "page=3", "a=", "=", "", "q=a+b", "q=%20c", "b=1", "a=1", "Q%3D=1",
                     "x=1=2", "k", "u=http://a/./b", "%75tm_source=1"]),
    st.text(alphabet="ab=+%2F", max_size=6))
plain_query = st.one_of(st.just(""), st.builds(lambda pieces: "?" + "&".join(pieces),
                                               st.lists(query_piece, max_size=4)))
odd_url = st.sampled_from([
    "https://ex.com/a%2Fb", "https://ex.com/%7euser", "https://ex.com/a/./b",
    "https://ex.com//a", "https://ex.com/[x]", "https://ex.com/.well-known/x",
    "HTTPS://Ex.com/A", "https://ex.com:443/a", "http://ex.com:80/", "https://ex.com:8080/",
    "https://user:pw@ex.com/", "https://[::1]/x", "https://ex.com/a b", "https://ex.com/é",
    "https://ex.com/a#<frag>", "https://münchen.de/", "ftp://ex.com/", " https://ex.com/",
    "https://ex.com/\t", "https://www.google.com/url?q=https://x.org/a%20b",
    "https://ex.com/?a=%", "https://ex.com/a?b#c?d", "https://", "",
    "https://ex.com/" + "a" * 5000])
common_url = st.builds(lambda scheme, host, path, query, frag: f"{scheme}://{host}{path}{query}{frag}",
                       st.sampled_from(["https", "http"]), plain_host, plain_path, plain_query,
                       st.sampled_from(["", "#", "#frag", "#a?b/c"]))


@settings(max_examples=600, deadline=None)
@given(st.lists(common_url, max_size=8), st.lists(odd_url, max_size=1))
def test_batch_of_common_urls_with_an_odd_one(common: list[str], odd: list[str]) -> None:
    raws = common + odd
    assert batch(raws) == one_by_one(raws)
    assert batch(list(reversed(raws))) == one_by_one(list(reversed(raws)))


def test_answer_wide_scans_hold_for_each_url() -> None:
    shapes = ["https://www.Example.com./a/b/?utm_source=x&b=&a=1&a=2&fbclid=1#f",
              "http://example.com?a=1&a=1", "https://example.com/a?&&ref=x", "https://e.x/a/"]
    for odd in ["https://ex.com/a%2Fb", "https://ex.com/a/./b", "https://ex.com/[x]", "", None,
                "https://ex.com/é", "https://ex.com/a b"]:
        raws = [*shapes, odd]
        assert batch(raws) == one_by_one(raws)  # type: ignore[arg-type]
    assert batch(shapes)[0] == ("https://www.example.com/a/b/?b=&a=1&a=2",
                                "example.com/a/b?a=1&a=2&b", "example.com", "/a/b/", "b&a=1&a=2",
                                False)
