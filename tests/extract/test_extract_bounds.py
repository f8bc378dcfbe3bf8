"""Pages that are slow to parse are parsed in the bounded worker process: the deadline
really stops the work, and they do not starve the other pages (issue #16, item 9)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest
from extract_support import PageServer, article_of_size

from tamis.extract import read_url
from tamis.extract.worker import WorkerError, run_worker
from tamis.policy.schema import ExtractionConfig


def tiny_tags(size: int) -> bytes:
    return b"<html><body>" + b"<p>a</p>" * (size // 8) + b"</body></html>"


def children() -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        text = (task / "children").read_text()
        found.update(int(pid) for pid in text.split())
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_the_deadline_kills_the_worker() -> None:
    before = children()

    async def main() -> None:
        with pytest.raises(WorkerError) as caught:
            await run_worker("html", tiny_tags(6_000_000), seconds=0.5)
        assert caught.value.kind == "Timeout"

    asyncio.run(main())
    assert children() <= before


def test_a_large_page_is_parsed_in_the_worker(server: PageServer,
                                             config: ExtractionConfig) -> None:
    url = server.add("/bounds/large", article_of_size(200_000, seed=5, title="Large one"))
    config.isolate_over_bytes = 100_000

    async def main():
        async with httpx.AsyncClient(follow_redirects=False) as client:
            return await read_url(url, config=config, client=client)

    answer = asyncio.run(main())
    assert answer.status in ("ok", "truncated") and answer.title == "Large one"
    assert "parsed in the bounded worker" in (answer.detail or "")


def test_slow_pages_do_not_starve_a_small_one(server: PageServer,
                                             config: ExtractionConfig) -> None:
    heavy = server.add("/bounds/heavy", tiny_tags(4_000_000))
    small = server.add("/bounds/small", article_of_size(3000, seed=6, title="Small one"))
    config.timeout_seconds = 8

    async def main():
        async with httpx.AsyncClient(follow_redirects=False) as client:
            slow = [read_url(heavy, config=config, client=client) for _ in range(8)]
            return await asyncio.gather(read_url(small, config=config, client=client), *slow)

    answers = asyncio.run(main())
    assert answers[0].status == "ok" and answers[0].title == "Small one", answers[0]
    for answer in answers[1:]:
        assert answer.status in ("ok", "empty", "failed:Timeout"), answer


def test_pathological_css_is_read_in_linear_time() -> None:
    # a long run with no ';' in a style attribute and no '{' before an '@' in <style>: the
    # rule and declaration regexes once backtracked quadratically here (minutes of CPU)
    page = ("<html><head><style>" + "b" * 200_000 + "@x{}</style></head><body><article>"
            "<h1>Visible words</h1><p style='" + "a" * 200_000 + "'>Visible words stay in"
            " the text of this page.</p></article></body></html>").encode()

    async def main():
        return await run_worker("html", page, seconds=20)

    answer = asyncio.run(main())
    assert "Visible words stay" in answer.text
