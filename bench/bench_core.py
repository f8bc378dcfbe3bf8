"""Benchmark the core layer: merge + filter + rank of 1,000 raw results, and CLI start-up.

    python bench/bench_core.py

Goals (issues 2 and 13): pipeline under 20 ms CPU for 1,000 raw results (each stage printed);
`tamis --help` under 0.3 s. Every round starts with cold host caches. Prints figures and
ratios; asserts nothing (machines here are shared and noisy).
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tamis.models import RawHit
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.intent import _match as name_match_cache
from tamis.pipeline.intent import host_labels, name_forms
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.rules import Rules, _verdict, path_segments
from tamis.pipeline.urls import _norm_host, host_suffixes, registrable_domain, site_label
from tamis.settings import load_config

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures" / "searxng"
NOISE = ["", "?utm_source=x", "#frag", "/", "?fbclid=abc", "?page=2", "?ref=home"]


def raw_hits(n: int, seed: int = 7) -> list[tuple[RawHit, int, float]]:
    """n realistic raw hits: the recorded answers, their hosts reused with new paths, URL
    noise that folds, and duplicates across engines."""
    rng = random.Random(seed)
    base = []
    for path in sorted(FIXTURES.glob("*.json")):
        base += json.loads(path.read_text())["results"]
    hits = []
    for i in range(n):
        item = base[i % len(base)]
        url = item["url"].split("#")[0].split("?")[0].rstrip("/")
        if i >= len(base):
            url += f"/variant-{rng.randrange(n // 3)}"
        url += rng.choice(NOISE)
        engines = rng.sample(["bing", "brave", "duckduckgo", "yandex", "google"],
                             rng.randint(1, 3))
        hits.append((RawHit(url=url, title=item["title"], snippet=item["content"],
                            line="searxng", engines=[f"searxng:{e}" for e in engines],
                            positions=[rng.randint(1, 40) for _ in engines]), 0, 1.0))
    return hits


def bench_pipeline(n: int = 1000, rounds: int = 30) -> dict[str, float]:
    """Median CPU seconds (this thread, user+sys) per stage and in all, and wall in all."""
    policy = load_config(None).config.policy
    hits = raw_hits(n)
    query = "proxmox thin pool metadata exhaustion recovery"
    registrable_domain("warm.up.example")  # load the bundled suffix list once
    stages: dict[str, list[float]] = {"merge": [], "filter": [], "rank": [], "total": [],
                                      "wall": []}
    for _ in range(rounds):
        for cached in (registrable_domain, site_label, host_suffixes, host_labels,
                       path_segments, name_forms, name_match_cache, _verdict, _norm_host):
            cached.cache_clear()  # every round cold: no host or path seen before
        wall = time.perf_counter()
        t0 = time.thread_time()
        rules = Rules(policy)
        candidates, _ = merge(hits, tracking_params=policy.normalise.tracking_params,
                              max_chars=400, unwrapper=rules.unwrapper)
        t1 = time.thread_time()
        kept, _ = filter_candidates(candidates, rules, query)
        t2 = time.thread_time()
        rank(kept, query, policy.ranking)
        t3 = time.thread_time()
        stages["wall"].append(time.perf_counter() - wall)
        for name, seconds in (("merge", t1 - t0), ("filter", t2 - t1), ("rank", t3 - t2),
                              ("total", t3 - t0)):
            stages[name].append(seconds)
    return {name: statistics.median(values) for name, values in stages.items()}


def bench_help(rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "--help"],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    p = bench_pipeline()
    print(f"merge+filter+rank, 1,000 raw results: {p['total'] * 1000:.1f} ms CPU median"
          f" ({p['wall'] * 1000:.1f} ms wall)  (goal 20 ms; {p['total'] * 1000 / 20:.2f}x of goal)")
    print(f"  merge {p['merge'] * 1000:.1f} ms, filter {p['filter'] * 1000:.1f} ms,"
          f" rank {p['rank'] * 1000:.1f} ms (CPU)")
    startup = bench_help()
    print(f"`tamis --help` start-up:             {startup * 1000:.0f} ms median"
          f"  (goal 300 ms; {startup / 0.3:.2f}x of goal)")
    baseline = statistics.median(
        [_time([sys.executable, "-c", "pass"]) for _ in range(5)])
    print(f"  of which bare Python start-up:      {baseline * 1000:.0f} ms")


def _time(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
