"""Benchmark extraction: top-5 wall time against the sum of page latencies; CPU per 200 kB page.

    python bench/bench_extract.py [--rounds 3] [--cpu-runs 10]

Five fake ~200 kB article pages are served on 127.0.0.1 (a stdlib threaded HTTP server),
answering after 300, 400, 500, 600 and 700 ms. Fetched one after another they would take
the sum (2,500 ms) plus parsing; fetched concurrently under one deadline, with parsing in
worker threads, extraction should take about the slowest page plus the parse of the last.
Each round starts with cold memo caches (passage scores, shingles) and a warm connection
pool is not assumed (the first request of each page opens a connection).

CPU: ``time.process_time`` around the extraction of one generated 200 kB page (decode +
main text to markdown), for an article (trafilatura path) and a forum thread (tamis's own
per-post path). Then, on the WCXB dev pages in ../shared when present: median CPU per page
of ``tamis.extract.extract_text`` beside plain ``trafilatura.extract`` on the same pages,
with its defaults and with the options tamis gives it, interleaved (each first on every
third page: the next on a page runs faster), the median of the per-page ratio of tamis to
trafilatura with tamis's options (paired, so load drift during the run cancels), and how
many sentences the planted-instruction detector flags on them (each
one is a false positive: these are ordinary pages). Prints figures; asserts nothing
(shared, noisy machines).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from tamis.extract import extract_results, injections
from tamis.extract.budget import scored_blocks
from tamis.extract.decode import decode
from tamis.extract.dedupe import shingles
from tamis.extract.html import (
    DEFAULT_OPTIONS,
    TYPE_OPTIONS,
    extract_page,
    extract_text,
    page_type,
    trafilatura_module,
)
from tamis.models import Result
from tamis.policy.schema import ExtractionConfig

LATENCIES_MS = [300, 400, 500, 600, 700]
PAGE_BYTES = 200_000
VOCABULARY = [a + b + c for a in ("ka", "lo", "mi", "nu", "pe", "ra", "si", "to")
              for b in ("ba", "de", "fi", "go", "hu", "ji") for c in ("", "n", "s", "ri")]


def prose(rnd: random.Random, words: int) -> str:
    sentences = []
    while words > 0:
        n = rnd.randint(8, 20)
        sentences.append(" ".join(rnd.choice(VOCABULARY) for _ in range(n)).capitalize() + ".")
        words -= n
    return " ".join(sentences)


def article(seed: int, size: int = PAGE_BYTES) -> str:
    rnd = random.Random(seed)
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Article {seed}</title>"
             "</head><body><nav><a href='/'>Home</a><a href='/blog'>Blog</a></nav><article>"
             f"<h1>Article {seed}</h1>"]
    length = sum(map(len, parts))
    section = 0
    while length < size:
        section += 1
        chunk = f"<h2>Section {section}</h2>" + "".join(
            f"<p>{prose(rnd, 80)}</p>" for _ in range(4))
        if section % 3 == 0:
            chunk += ("<pre><code class='language-python'>def f(x):\n\n    return x * 2\n"
                      "</code></pre>")
        parts.append(chunk)
        length += len(chunk)
    parts.append("</article><footer>Copyright 2026</footer></body></html>")
    return "".join(parts)


def thread(seed: int, size: int = PAGE_BYTES) -> str:
    rnd = random.Random(seed)
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Thread</title></head>"
             "<body><div class='block-body'>"]
    length = 0
    number = 0
    while length < size:
        number += 1
        post = (f"<article class='message message--post' data-author='user{number}'>"
                "<div class='message-inner'><div class='message-cell message-cell--main'>"
                "<article class='message-body js-selectToQuote'><div class='bbWrapper'>"
                f"{prose(rnd, 120)}<br /><br />{prose(rnd, 60)}</div></article>"
                "</div></div></article>")
        parts.append(post)
        length += len(post)
    parts.append("</div></body></html>")
    return "".join(parts)


class Pages:
    """A threaded loopback server: path -> (body, delay)."""

    def __init__(self, routes: dict[str, tuple[bytes, float]]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_GET(self) -> None:
                body, delay = routes[self.path]
                time.sleep(delay)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def result(url: str, rank: int) -> Result:
    return Result(rank=rank, title=f"r{rank}", url=url, host="127.0.0.1", domain="127.0.0.1",
                  source_type="web", engines=["bench"], positions={"bench": rank},
                  score=0.0, snippet="")


async def wall(rounds: int) -> None:
    routes = {f"/page/{i}": (article(i).encode(), ms / 1000)
              for i, ms in enumerate(LATENCIES_MS)}
    server = Pages(routes)
    config = ExtractionConfig(allow_private_hosts=["127.0.0.1"], timeout_seconds=30)
    results = [result(f"http://127.0.0.1:{server.port}/page/{i}", i + 1)
               for i in range(len(LATENCIES_MS))]
    extract_page(article(-1, 5000))  # import trafilatura once, outside the timing
    try:
        async with httpx.AsyncClient(follow_redirects=False, timeout=30) as client:
            walls = []
            for _ in range(rounds):
                shingles.cache_clear()  # every round does the whole work, nothing memoised
                scored_blocks.cache_clear()
                start = time.perf_counter()
                out, summary = await extract_results(results, "kaba section", config,
                                                     client=client)
                walls.append(time.perf_counter() - start)
                assert summary.extracted == len(results), [r.extraction for r in out]
    finally:
        server.close()
    total = sum(LATENCIES_MS)
    med = statistics.median(walls) * 1000
    print(f"pages: {len(LATENCIES_MS)} x ~{PAGE_BYTES // 1000} kB on loopback, "
          f"latencies {LATENCIES_MS} ms")
    print(f"sum of page latencies (sequential): {total:8.1f} ms")
    print(f"slowest page:                       {max(LATENCIES_MS):8.1f} ms")
    print(f"top-5 extraction wall, median of {rounds}: {med:8.1f} ms"
          f"  (min {min(walls) * 1000:.1f}, max {max(walls) * 1000:.1f});"
          f" x{total / med:.2f} faster than the sum")
    print(f"chars used {summary.chars_used} of {summary.budget}")


def cpu(runs: int) -> None:
    for name, make in (("article (trafilatura)", article), ("forum thread (per post)", thread)):
        body = make(99).encode()
        extract_page(decode(body, "text/html; charset=utf-8", html=True))  # warm imports
        times = []
        for _ in range(runs):
            start = time.process_time()
            text = decode(body, "text/html; charset=utf-8", html=True)
            page = extract_page(text)
            markdown, method = page.markdown, page.method
            times.append((time.process_time() - start) * 1000)
        print(f"CPU per {len(body) // 1000} kB page, {name:<24}"
              f" median {statistics.median(times):6.1f} ms (min {min(times):.1f},"
              f" max {max(times):.1f}; {runs} runs;"
              f" method {method}; {len(markdown)} chars out)")
    if trafilatura_module() is None:
        print("note: trafilatura could not be imported; the article used the fallback converter")


def dev_pages(limit: int) -> list[tuple[str, str]]:
    """(html, url) of the WCXB dev pages in ../shared (or $HELDOUT), when they are there."""
    root = Path(os.environ.get("HELDOUT", Path(__file__).resolve().parents[2] / "shared" /
                               "fixtures" / "extract-dev")) / "extract" / "wcxb"
    if not (root / "truth.json").exists():
        return []
    truth = json.loads((root / "truth.json").read_text())
    pages = []
    for key in sorted(truth)[:limit or None]:
        raw = (root / "html" / truth[key]["html"]).read_bytes()
        pages.append((raw.decode("utf-8", "replace"), truth[key].get("url") or ""))
    return pages


def cpu_against_trafilatura(limit: int) -> None:
    """Median CPU per page of tamis's extract_text beside plain trafilatura, same pages:
    trafilatura with its defaults, and with the options tamis gives it (``with_trafilatura``:
    markdown, tables, formatting, no links or images, no deduplication, the page type's
    ``TYPE_OPTIONS``; the type is found in an untimed pass first)."""
    pages = dev_pages(limit)
    if not pages:
        print("no dev pages (../shared/fixtures/extract-dev): CPU beside trafilatura skipped")
        return
    module = trafilatura_module()
    if module is None:
        print("trafilatura cannot be imported: nothing to compare with")
        return
    extract_text(pages[0][0], pages[0][1])
    options = [TYPE_OPTIONS.get(page_type(html, url), DEFAULT_OPTIONS) for html, url in pages]
    times: dict[str, list[float]] = {"tamis": [], "defaults": [], "same": []}
    flagged: list[str] = []
    # Interleaved, so that machine load hits all alike, and each first on a page in turn:
    # the next extractor on the same page runs some ms faster (caches warmed by the first).
    for index, (html, url) in enumerate(pages):
        names = ("tamis", "defaults", "same")
        for name in names[index % 3:] + names[:index % 3]:
            start = time.process_time()
            if name == "tamis":
                text = extract_text(html, url)
                times[name].append(time.process_time() - start)
                flagged += [f"{url}: {flag.text[:100]}" for flag in injections.find(text)]
                continue
            if name == "defaults":
                module.extract(html, url=url, output_format="markdown")
            else:
                module.extract(html, url=url, output_format="markdown", include_tables=True,
                               include_formatting=True, include_links=False,
                               include_images=False, deduplicate=False, **options[index])
            times[name].append(time.process_time() - start)
    ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
    total = {name: sum(values) for name, values in times.items()}
    print(f"CPU per dev page ({len(pages)} WCXB pages), median: tamis extract_text"
          f" {ms['tamis']:6.1f} ms | plain trafilatura.extract, tamis's options"
          f" {ms['same']:6.1f} ms | its defaults {ms['defaults']:6.1f} ms"
          f"  (total {total['tamis']:.1f} s | {total['same']:.1f} s | {total['defaults']:.1f} s)")
    # Paired on each page (both ran back to back): steadier than the ratio of the two
    # medians when the machine's load drifts during the run
    ratios = [mine / same for mine, same in zip(times["tamis"], times["same"], strict=True)
              if same > 0]
    if ratios:
        print(f"paired, per page: median tamis / trafilatura (tamis's options)"
              f" {statistics.median(ratios):.3f} ({len(ratios)} pages)")
    print(f"instruction flags on the dev pages' ordinary text (false positives):"
          f" {len(flagged)} in {len(pages)} pages")
    for line in flagged:
        print(f"  {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cpu-runs", type=int, default=10)
    parser.add_argument("--dev-pages", type=int, default=0,
                        help="dev pages for the CPU comparison (0: all 341)")
    args = parser.parse_args()
    asyncio.run(wall(args.rounds))
    cpu(args.cpu_runs)
    cpu_against_trafilatura(args.dev_pages)


if __name__ == "__main__":
    main()
