"""The service's client parses each absolute URL once (``ServiceClient._merge_url``): the
requests it builds are the plain httpx client's, URL for URL, with a base URL or without,
and a URL httpx refuses is refused every time."""

from __future__ import annotations

import httpx
import pytest

from tamis.http_transport import ServiceClient, _parsed

pytestmark = pytest.mark.anyio

URLS = ["http://127.0.0.1:8888/search", "https://user:pw@example.org:8443/a%20b/c?x=1&y=%2F#f",
        "http://[::1]:9/p", "https://例え.jp/パス?q=é", "relative/path", "/rooted?q=1"]


@pytest.mark.parametrize("base_url", ["", "https://base.example/sub"])
@pytest.mark.parametrize("url", URLS)
async def test_the_same_requests_as_httpx(url: str, base_url: str):
    params = {"q": "a b&c", "format": "json", "pageno": 2}
    async with ServiceClient(base_url=base_url) as ours, \
            httpx.AsyncClient(base_url=base_url) as plain:
        for _ in range(2):  # the second time from the parsed URL kept
            mine = ours.build_request("GET", url, params=params)
            theirs = plain.build_request("GET", url, params=params)
            assert str(mine.url) == str(theirs.url)
            assert mine.url.raw_path == theirs.url.raw_path
            assert mine.headers.raw == theirs.headers.raw
        assert ours.build_request("GET", url).url == plain.build_request("GET", url).url


async def test_a_kept_url_is_not_changed_by_a_request_built_from_it():
    url = "http://127.0.0.1:8888/search"
    async with ServiceClient() as client:
        client.build_request("GET", url, params={"q": "one"})
        assert client.build_request("GET", url, params={"q": "two"}).url.query == b"q=two"
        assert str(_parsed(url)) == url


@pytest.mark.parametrize("url", ["http://example.org:99x/", "http://example.org/\n",
                                 "http://[::1/"])
async def test_an_invalid_url_is_refused_every_time(url: str):
    async with ServiceClient() as client:
        for _ in range(2):
            with pytest.raises(httpx.InvalidURL):
                client.build_request("GET", url)
