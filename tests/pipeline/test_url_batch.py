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
