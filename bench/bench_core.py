"""Benchmark the core layer: merge + filter + rank of 1,000 raw results, and CLI start-up.

    python bench/bench_core.py

Goals (issue 2): pipeline under 20 ms for 1,000 raw results; `tamis --help` under 0.3 s.
Prints figures and ratios; asserts nothing (machines here are shared and noisy).
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
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.rules import Rules
from tamis.pipeline.urls import host_suffixes, registrable_domain, site_label
from tamis.policy.loader import load_config

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


def bench_pipeline(n: int = 1000, rounds: int = 30) -> float:
    policy = load_config(None).config.policy
    hits = raw_hits(n)
    query = "proxmox thin pool metadata exhaustion recovery"
    registrable_domain("warm.up.example")  # load the bundled suffix list once
    times = []
    for _ in range(rounds):
        for cached in (registrable_domain, site_label, host_suffixes):
            cached.cache_clear()  # every round cold: no host seen before
        start = time.perf_counter()
        candidates, _ = merge(hits, tracking_params=policy.normalise.tracking_params,
                              max_chars=400)
        kept, _ = filter_candidates(candidates, Rules(policy), query)
        rank(kept, query, policy.ranking)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_help(rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "--help"],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    pipeline = bench_pipeline()
    print(f"merge+filter+rank, 1,000 raw results: {pipeline * 1000:.1f} ms median"
          f"  (goal 20 ms; {pipeline * 1000 / 20:.2f}x of goal)")
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
