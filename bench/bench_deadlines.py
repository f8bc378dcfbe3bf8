"""Benchmark: do page parses keep the extraction deadline, and where does a parse belong?

    python bench/bench_deadlines.py [--src DIR ...] [--skip-real] [--skip-serve]

Part 1, on the WCXB dev pages (``../shared/fixtures/extract-dev`` or ``$HELDOUT``): each
page's size, its count of '<' (what the routing reads: an element is about two), and the
CPU of ``extract_page`` in this process; how many pages each line of
``extraction.isolate_over_tags`` would send to the bounded worker process, and the CPU of
one worker start (the price of each page sent there) beside an in-process parse. Then
synthetic shapes with the same count of '<' (flat paragraphs, links or spans inside one
paragraph: trafilatura is quadratic in those), parsed in this process: the worst a parse
in a thread can cost at the line.

Part 2, the pages of issue 33 (``'<p>a b c</p>\\n' * 111000``, 1.44 MB), served on
127.0.0.1, for each checkout's ``src`` given with ``--src`` (default: this one), in the same
run: ``tamis read`` with ``timeout_seconds: 3``; ``tamis search`` with five such pages and
a 10 s deadline; ``tamis serve --workers 1`` with eight such reads at once and a small
page's read one second later, beside the same small read alone. Wall, CPU (the process and
its children) and peak RSS (the tamis process itself, and its largest child). Prints
figures; asserts nothing (a shared, noisy machine: read the CPU and the ratios).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from loopback import LoopbackServer, Reply, free_port

ROOT = Path(__file__).parents[1]
HEAVY = "<html><body>" + "<p>a b c</p>\n" * 111000 + "</body></html>"
SMALL = ("<html><head><title>Thin pools</title></head><body><article><h1>Thin pools</h1>"
         + "".join(f"<p>Step {i}: extend the metadata volume of pool {i}.</p>"
                   for i in range(20)) + "</article></body></html>")
SHAPES = {
    "flat paragraphs": lambda n: "<p>a b c</p>\n" * n,
    "list items": lambda n: "<ul>" + "<li>item text</li>" * n + "</ul>",
    "table cells": lambda n: "<table><tr>" + "<td>w</td>" * n + "</tr></table>",
    "spans in one paragraph": lambda n: "<p>" + "<span>w</span> " * n + "</p>",
    "links in one paragraph": lambda n: "<p>" + '<a href="/x">w</a> ' * n + "</p>",
}
RUNNER = """
import atexit, resource, sys
def report():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write("\\nRUSAGE %f %d %f %d\\n" % (own.ru_utime + own.ru_stime, own.ru_maxrss,
                     kids.ru_utime + kids.ru_stime, kids.ru_maxrss))
atexit.register(report)
sys.argv = ["tamis", *sys.argv[1:]]
from tamis.interfaces.cli import cli
cli()
"""


def dev_pages() -> list[Path]:
    base = Path(os.environ.get("HELDOUT") or ROOT.parent / "shared/fixtures/extract-dev")
    return sorted(base.rglob("*.html"))


def cpu_of(call, *args) -> float:
    start = time.process_time()
    call(*args)
    return time.process_time() - start


def part_real(lines: list[int]) -> None:
    from tamis.extract.html import extract_page

    extract_page("<p>warm up</p>", None)
    rows = []
    for path in dev_pages():
        body = path.read_bytes()
        text = body.decode("utf-8", "replace")
        rows.append((len(body), body.count(b"<"), cpu_of(extract_page, text,
                                                           "https://example.org/")))
    if not rows:
        print("no dev pages found: part 1 skipped")
        return
    rows.sort(key=lambda r: r[1])
    n = len(rows)

    def pct(values: list[float], p: float) -> float:
        return sorted(values)[min(n - 1, int(p * n))]

    marks = [r[1] for r in rows]
    cpus = [r[2] for r in rows]
    print(f"{n} dev pages: '<' p50 {pct(marks, .5):,} p90 {pct(marks, .9):,} p99"
          f" {pct(marks, .99):,} max {max(marks):,}; parse CPU p50 {pct(cpus, .5) * 1000:.0f}"
          f" ms p99 {pct(cpus, .99) * 1000:.0f} ms max {max(cpus) * 1000:.0f} ms;"
          f" {sum(r[0] > 1_500_000 for r in rows)} over 1.5 MB")
    per_mark = sorted(r[2] / r[1] * 1e6 for r in rows if r[1] > 2000)
    print(f"  CPU per '<' (pages over 2,000): median {per_mark[len(per_mark) // 2]:.0f} us,"
          f" max {per_mark[-1]:.0f} us")
    for line in lines:
        over = [r for r in rows if r[1] > line]
        kept = [r[2] for r in rows if r[1] <= line]
        print(f"  isolate_over_tags {line:>6,}: {len(over):3} pages ({100 * len(over) / n:4.1f} %)"
              f" to the worker; slowest kept in a thread {max(kept) * 1000:.0f} ms CPU")
    import asyncio

    from tamis.extract.worker import run_worker

    small = SMALL.encode()
    before = resource_children()
    asyncio.run(run_worker("html", small, url="https://example.org/", seconds=30))
    worker = resource_children() - before
    inline = cpu_of(extract_page, SMALL, "https://example.org/")
    print(f"  one worker start + a small page: {worker * 1000:.0f} ms CPU (child), beside"
          f" the same page in this process: {inline * 1000:.1f} ms CPU")
    for line in lines:
        print(f"  shapes at {line:,} '<' (about {line // 2:,} elements), CPU in this process:")
        for name, make in SHAPES.items():
            html = "<html><body><article>" + make(line // 2) + "</article></body></html>"
            print(f"    {name:24} {cpu_of(extract_page, html, 'https://example.org/'):6.2f} s")


def resource_children() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_cli(src: Path, args: list[str], home: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src), "XDG_CACHE_HOME": str(home / "cache"),
           "XDG_CONFIG_HOME": str(home / "cfg")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUNNER, *args], env=env, capture_output=True,
                          text=True, timeout=600)
    wall = time.perf_counter() - start
    match = re.search(r"RUSAGE (\S+) (\d+) (\S+) (\d+)", done.stderr)
    own_cpu, own_rss, kid_cpu, kid_rss = (float(x) for x in match.groups()) if match else (
        0, 0, 0, 0)
    statuses = re.findall(r'"(?:status|extraction)": "([^"]+)"', done.stdout)
    try:
        answer = json.loads(done.stdout)
        inside = answer["timing"]["total_seconds"] if "timing" in answer else answer["seconds"]
    except (ValueError, KeyError, TypeError):
        inside = float("nan")
    return {"wall": wall, "cpu": own_cpu + kid_cpu, "rss": own_rss / 1024,
            "child_rss": kid_rss / 1024, "exit": done.returncode,
            "statuses": ",".join(sorted(set(statuses))),
            "inside": inside}


def write_config(home: Path, searxng: str, timeout: float, extract_timeout: float) -> Path:
    path = home / "tamis.yaml"
    path.write_text(f"backends:\n  - {{name: searxng, base_url: '{searxng}'}}\n"
                    f"timeout: {timeout}\ncache: {{enabled: false}}\nstore: {{url: 'memory:'}}\n"
                    "extraction: {allow_private_hosts: ['127.0.0.1'], timeout_seconds: "
                    f"{extract_timeout}, top_n: 5}}\n")
    return path


def tree_rss_mb(pid: int, children: bool = True) -> float:
    """The resident memory of a process (and its children), from /proc."""
    total = 0
    pids = [pid]
    while pids:
        current = pids.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
            below = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except (OSError, AttributeError):
            continue
        pids.extend(int(c) for c in below if children)
    return total / 1024


def tree_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def part_serve(src: Path, pages: LoopbackServer, home: Path) -> None:
    config = write_config(home, pages.url, 10, 10)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(src), "XDG_CACHE_HOME": str(home / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve", "--port",
                             str(port), "--workers", "1", "--config", str(config)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                httpx.get(url + "/healthz")
                break
            except httpx.TransportError:
                time.sleep(0.1)

        def read(path: str) -> tuple[float, str]:
            start = time.perf_counter()
            answer = httpx.post(url + "/v1/read", json={"url": pages.url + path}, timeout=120)
            return time.perf_counter() - start, answer.json().get("status", answer.text[:60])

        alone = read("/small")
        peak = [tree_rss_mb(proc.pid)]
        own = [tree_rss_mb(proc.pid, children=False)]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak.append(tree_rss_mb(proc.pid))
                own.append(tree_rss_mb(proc.pid, children=False))
                time.sleep(0.1)

        threading.Thread(target=sample, daemon=True).start()
        with ThreadPoolExecutor(9) as pool:
            heavy = [pool.submit(read, f"/heavy/{i}") for i in range(8)]
            time.sleep(1)
            small = read("/small")
            results = [f.result() for f in heavy]
        cpu_then = tree_cpu(proc.pid)
        time.sleep(5)
        after = tree_cpu(proc.pid) - cpu_then
        stop.set()
        print(f"  serve --workers 1: small read alone {alone[0]:.2f} s ({alone[1]}); beside 8"
              f" heavy reads {small[0]:.2f} s ({small[1]}); heavy reads ended in"
              f" {max(r[0] for r in results):.1f} s ({', '.join(sorted({r[1] for r in results}))})"
              f"; service RSS peak {max(own):.0f} MB ({max(peak):.0f} MB with its parse"
              f" workers); CPU in the 5 s"
              f" after: {after:.1f} s")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def part_item6(src: Path, serve: bool) -> None:
    print(f"\n{src}:")
    with LoopbackServer() as pages, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        pages.route("/small", Reply(body=SMALL, content_type="text/html"))
        for i in range(8):
            pages.route(f"/heavy/{i}", Reply(body=HEAVY, content_type="text/html"))
        pages.route("/search", Reply(json={"results": [
            {"url": f"{pages.url}/heavy/{i}", "title": f"Page {i}", "content": "a b c",
             "engine": "bing"} for i in range(5)]}))
        config = write_config(home, pages.url, 10, 3)
        small = run_cli(src, ["read", pages.url + "/small", "--config", str(config)], home)
        print(f"  read of a small page (the comparator): wall {small['wall']:.1f} s (its own"
              f" seconds: {small['inside']:.1f}), CPU {small['cpu']:.1f} s, peak RSS"
              f" {small['rss']:.0f} MB")
        read = run_cli(src, ["read", pages.url + "/heavy/0", "--config", str(config)], home)
        print(f"  read, deadline 3 s: wall {read['wall']:.1f} s (its own seconds:"
              f" {read['inside']:.1f}), CPU {read['cpu']:.1f} s,"
              f" peak RSS {read['rss']:.0f} MB (largest child {read['child_rss']:.0f} MB),"
              f" {read['statuses']}")
        config = write_config(home, pages.url, 10, 10)
        found = run_cli(src, ["search", "a b c", "--config", str(config)], home)
        print(f"  search, 5 pages, deadline 10 s: wall {found['wall']:.1f} s (its own"
              f" total_seconds: {found['inside']:.1f}), CPU"
              f" {found['cpu']:.1f} s, peak RSS {found['rss']:.0f} MB (largest child"
              f" {found['child_rss']:.0f} MB), {found['statuses']}")
        if serve:
            part_serve(src, pages, home)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", action="append", type=Path,
                        help="a checkout's src directory (repeat to compare; default: this)")
    parser.add_argument("--lines", default="4000,8000,16000",
                        help="isolate_over_tags values to report on")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-serve", action="store_true")
    args = parser.parse_args()
    if not args.skip_real:
        part_real([int(x) for x in args.lines.split(",")])
    for src in args.src or [ROOT / "src"]:
        part_item6(src.resolve(), not args.skip_serve)


if __name__ == "__main__":
    main()
