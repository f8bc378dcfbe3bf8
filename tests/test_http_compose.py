"""``tamis.http_compose`` builds the request httpx would build, byte for byte, or declines
(None) and leaves it to httpx: compared with httpx's own ``build_request`` on the adapters'
requests and on many generated URLs, parameters and headers."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tamis.http_client import USER_AGENT, tamis_client
from tamis.http_compose import _split, compose

CLIENT = httpx.AsyncClient(headers={"User-Agent": USER_AGENT})
BASE = [(k.decode(), v.decode()) for k, v in CLIENT.headers.raw]


def httpx_wire(method: str, url: str, params: Any, json: Any, headers: dict[str, str]
               ) -> tuple[str, str, list[tuple[str, str]], bytes | None] | None:
    try:
        request = CLIENT.build_request(method, url, params=params, json=json, headers=headers)
    except Exception:
        return None
    body = request.read() or None
    return (str(request.url), request.url.raw_path.decode("ascii"),
            [(k.decode(), v.decode()) for k, v in request.headers.raw], body)


def ours(method: str, url: str, params: Any, json: Any, headers: dict[str, str]
         ) -> tuple[str, str, list[tuple[str, str]], bytes | None] | None:
    out = compose(method, url, params=params, json=json, headers=headers, base=BASE)
    return None if out is None else (out.url, out.target, out.headers, out.body)


def same_or_declined(method: str, url: str, params: Any = None, json: Any = None,
                     headers: dict[str, str] | None = None) -> bool:
    """True when ours declined; asserts it equals httpx's when it did not."""
    mine = ours(method, url, params, json, headers or {})
    if mine is None:
        return True
    theirs = httpx_wire(method, url, params, json, headers or {})
    assert mine == theirs, (method, url, params, json, headers)
    host = httpx.URL(url)
    out = compose(method, url, params=params, json=json, headers=headers or {}, base=BASE)
    assert out is not None and (out.host, out.port) == (host.raw_host.decode(), host.port or
                                                        {"http": 80, "https": 443}[host.scheme])
    return False


@pytest.mark.parametrize("method,url,params,json,headers", [
    ("GET", "http://127.0.0.1:8888/search", {"q": "a b/c?d=é&x", "format": "json",
                                             "pageno": 1, "safesearch": 0}, None, {}),
    ("GET", "https://api.search.brave.com/res/v1/web/search",
     {"q": "proxmox", "count": 10, "extra_snippets": True, "x": None, "l": ["a", "b"]},
     None, {"X-Subscription-Token": "k1", "Accept": "application/json"}),
    ("POST", "https://api.tavily.com/search", None,
     {"query": "é", "max_results": 5, "include": ["a"], "n": None, "f": 1.5},
     {"Authorization": "Bearer k"}),
    ("POST", "https://api.exa.ai/search", None, {"query": "q"},
     {"x-api-key": "k", "content-type": "application/json"}),
    ("GET", "http://Search.EXAMPLE:80/a/b%2Fc", {}, None, {"user-agent": "other"}),
    ("GET", "https://h.example:443/x?format=json", None, None, {}),
    ("GET", "http://localhost:8080/x?y=1&z=", None, None, {"Host": "pinned.example"}),
])
def test_the_adapters_requests_are_httpxs(method: str, url: str, params: Any, json: Any,
                                          headers: dict[str, str]) -> None:
    assert not same_or_declined(method, url, params, json, headers)


@pytest.mark.parametrize("url", [
    "http://h/a/../b", "http://h/a/./b", "http://user:pw@h/", "http://h/#frag", "http://h/p?",
    "http://[::1]:8080/", "http://1-2.3.4/", "http://01.2.3.4/", "http://h:99999/",
    "ftp://h/", "//h/x", "http://h/a b", "http://h/é", "http://bücher.example/",
    "http://h/%zz", "http:///x",
])
def test_unusual_urls_are_left_to_httpx(url: str) -> None:
    assert ours("GET", url, {"q": "x"}, None, {}) is None or \
        not same_or_declined("GET", url, {"q": "x"})


def test_what_it_does_not_know_it_declines() -> None:
    assert ours("GET", "http://h/x?a=1", {"q": "x"}, None, {}) is None  # query and params
    assert ours("POST", "http://h/x", None, None, {}) is None  # no body
    assert ours("GET", "http://h/x", {"q": []}, None, {}) is None
    assert ours("GET", "http://h/x", None, None, {"X-K": "é"}) is None
    assert ours("GET", "http://h/x", None, None, {"X-K": "a\r\nb"}) is None
    assert ours("GET", "http://h/x", None, None, {"Bad Name": "v"}) is None


def test_the_client_headers_are_the_tamis_clients() -> None:
    assert [(k.decode(), v.decode()) for k, v in tamis_client(1.0).headers.raw] == BASE


URL_CHARS = st.sampled_from([*"aZ09-._~!$&'()*+,;=:@/%?#[]\\^|{}` é", "%41", "%2f"])
HOSTS = st.sampled_from(["h", "H.Example", "1.2.3.4", "1.2.3.400", "a-b.c", "-a", "a..b",
                         "127.0.0.1", "xn--bcher-kva.example", "1x2.3.4.5", "[::1]"])
PARAM_VALUES = st.one_of(st.text(max_size=6), st.integers(), st.booleans(), st.none(),
                         st.floats(allow_nan=False),
                         st.lists(st.text(max_size=3), min_size=0, max_size=2))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scheme=st.sampled_from(["http", "https"]), host=HOSTS,
       port=st.sampled_from(["", ":80", ":443", ":8080", ":0", ":080", ":65536"]),
       path=st.lists(URL_CHARS, max_size=8).map(lambda p: "/" + "".join(p)),
       params=st.one_of(st.none(), st.dictionaries(st.text(max_size=4), PARAM_VALUES,
                                                   max_size=3)),
       headers=st.dictionaries(st.sampled_from(["Accept", "X-Api-Key", "user-agent",
                                                "Host", "Content-Type", "x-k"]),
                               st.text(st.sampled_from("ab é\t"), max_size=3), max_size=3),
       post=st.booleans())
def test_generated_requests_are_httpxs_or_declined(scheme: str, host: str, port: str,
                                                   path: str, params: Any,
                                                   headers: dict[str, str],
                                                   post: bool) -> None:
    url = f"{scheme}://{host}{port}{path}"
    if post:
        same_or_declined("POST", url, None, {"query": path, "n": params}, headers)
    else:
        same_or_declined("GET", url, params, None, headers)


# The URLs composed here, as a regular expression (``http_compose._split`` reads it by hand).
_CHAR = r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2}"
URL = re.compile(
    r"(https?)://([A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*)"
    rf"(?::([1-9][0-9]{{0,4}}))?(/(?:{_CHAR})*)?(?:\?((?:{_CHAR}|\?)+))?", re.ASCII)
PIECES = st.sampled_from([*"aZ09-._~!$&'()*+,;=:@/%?#[] é²\n", "%41", "%2f", "%g1", "http://",
                          "https://", "h.example", "a-b", ":80", ":0", ":123456", "..",
                          "-", "1.2.3.4"])


def _by_regex(url: str) -> tuple[str | None, ...] | None:
    match = URL.fullmatch(url)
    return None if match is None else match.groups()


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=10).map("".join))
def test_a_url_is_split_as_its_regular_expression_splits_it(text: str) -> None:
    for url in (text, "http://" + text, "https://h" + text):
        assert _split(url) == _by_regex(url), url


@pytest.mark.parametrize("url", [
    "http://h", "https://a.b-c.d:8080/x/%41?q=1?2", "http://h?x", "http://h:1", "http://h:/",
    "http://h:01/", "http://h:123456/", "http://-h/", "http://h-/", "http://a..b/",
    "http://h/%", "http://h/%4", "http://h/?", "http://h/a#b", "http://h:8०/", "http://h/é",
    "http://1.2.3.4:65535/search", "http://h/a b", "http://h\n", "http://h/x\n"])
def test_the_split_of_edge_urls(url: str) -> None:
    assert _split(url) == _by_regex(url), url
