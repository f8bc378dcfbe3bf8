"""Benchmark community lists at the scale of the web: 200,000 rules.

    python bench/bench_lists.py

Prints, each beside its comparator from the same run (CPU seconds = user+sys):
- load time of a 200k-rule list: cold (parsed from text) and warm (the parsed form from the
  cache folder, keyed on the list's hash), as a new process would do it;
- the match cost per result with the 200k rules loaded;
- merge + filter + rank of 1,000 raw hits with the 200k rules against the same without lists
  (issue 15: under 2x).
Asserts nothing: the machines here are shared and noisy.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_core import raw_hits

from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.lists import ListsStage
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.rules import Rules
from tamis.pipeline.urls import _site, host_suffixes
from tamis.policy.lists import load_lists
from tamis.policy.lists.load import forget
from tamis.policy.lists.matcher import _path_regex, host_and_parents
from tamis.policy.schema import ListEntry
from tamis.settings import load_config

HOSTS, PATHS, REGEXES = 198_000, 1_500, 500
QUERY = "proxmox thin pool metadata exhaustion recovery"


def big_list(path: Path, hits: list, seed: int = 3) -> None:
    """A uBlacklist ruleset shaped like the real ones: host patterns (a few hosts of the
    answers among them), path-scoped patterns, regex lines."""
    rng = random.Random(seed)
    answer_hosts = sorted({h.url.split("/")[2].removeprefix("www.") for h, _, _ in hits})
    listed = rng.sample(answer_hosts, max(1, len(answer_hosts) // 10))
    lines = ["# generated for bench_lists.py"]
    lines += [f"*://*.{h}/*" for h in listed]
    lines += [f"*://*.farm{i}-{rng.randrange(10**6)}.example/*" for i in range(HOSTS)]
    lines += [f"*://copies{i}.example/questions/*" for i in range(PATHS)]
    lines += [f"/^https?:\\/\\/([^/.]+\\.)*mirror{i}\\.(com|net)\\//" for i in range(REGEXES)]
    path.write_text("\n".join(lines) + "\n")


def cpu() -> float:
    return time.process_time()  # user + sys of this process, fine-grained


def clear_host_caches() -> None:
    for cached in (_site, host_suffixes, host_and_parents,
                   _path_regex):
        cached.cache_clear()


def timed(fn, rounds: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    walls, cpus = [], []
    for _ in range(rounds):
        clear_host_caches()
        c0, w0 = cpu(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(cpu() - c0)
    return statistics.median(walls), statistics.median(cpus)


def pipeline(policy, hits, stage: ListsStage | None) -> None:  # type: ignore[no-untyped-def]
    if stage is not None:
        stage = ListsStage(stage.matcher, stage.statuses)  # fresh per search, as in core
        hits = stage.rewrite(hits)
    candidates, _ = merge(hits, tracking_params=policy.normalise.tracking_params,
                          max_chars=400)
    kept, dropped = filter_candidates(candidates, Rules(policy), QUERY)
    if stage is not None:
        kept, dropped = stage.judge(kept, dropped)
    ranked = rank(kept, QUERY, policy.ranking)
    if stage is not None:
        stage.order(ranked)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = tmp  # the parsed-form cache starts empty
        hits = raw_hits(1000)
        listfile = Path(tmp) / "big.txt"
        big_list(listfile, hits)
        total = HOSTS + PATHS + REGEXES
        entry = ListEntry(name="big", source=str(listfile), action="demote")
        print(f"list: {total:,} rules + the answers' listed hosts ({HOSTS:,} host,"
              f" {PATHS:,} path-scoped, {REGEXES:,} regex), "
              f"{listfile.stat().st_size / 1e6:.1f} MB")

        forget()
        c0, w0 = cpu(), time.perf_counter()
        matcher, [status] = load_lists([entry])
        cold = (time.perf_counter() - w0, cpu() - c0)
        assert matcher is not None and status.state == "ok", status.message
        warms = []
        for _ in range(5):
            forget()
            c0, w0 = cpu(), time.perf_counter()
            load_lists([entry])
            warms.append((time.perf_counter() - w0, cpu() - c0))
        warm = (statistics.median(w for w, _ in warms), statistics.median(c for _, c in warms))
        print(f"load, cold (parse the text):        {cold[0] * 1000:7.0f} ms wall"
              f" {cold[1] * 1000:7.0f} ms CPU")
        print(f"load, warm (parsed form cached):    {warm[0] * 1000:7.0f} ms wall"
              f" {warm[1] * 1000:7.0f} ms CPU   ({cold[0] / warm[0]:.1f}x faster than cold)")
        print(f"  matcher: {len(matcher):,} rules, {matcher.host_count():,} hosts in suffix"
              f" dicts, {len(matcher.regex_rules):,} regexes in one RE2 set,"
              f" {len(matcher.python_regexes)} left to Python re")

        policy = load_config(None).config.policy
        candidates, _ = merge(hits, tracking_params=policy.normalise.tracking_params,
                              max_chars=400)
        urls = [(c.host, c.url, c.path + (f"?{c.query}" if c.query else ""), "https")
                for c in candidates]

        def match_all() -> None:
            for u in urls:
                matcher.match(*u)

        wall, cpu_s = timed(match_all, 15)
        listed = sum(1 for u in urls if matcher.match(*u))
        print(f"match, per result (200k rules):     {wall / len(urls) * 1e6:7.1f} us wall"
              f" {cpu_s / len(urls) * 1e6:7.1f} us CPU   ({len(urls):,} results,"
              f" {listed} listed, cold host caches)")

        stage = ListsStage(matcher, [status])
        runs: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for _ in range(15):  # interleaved, so both see the same machine load
            for with_lists in (False, True):
                runs[with_lists].append(timed(
                    lambda w=with_lists: pipeline(policy, hits, stage if w else None), 1))
        (w0, c0), (w1, c1) = (tuple(statistics.median(x[k] for x in runs[b]) for k in (0, 1))
                              for b in (False, True))
        print(f"rank 1,000 hits, no lists:          {w0 * 1000:7.1f} ms wall"
              f" {c0 * 1000:7.1f} ms CPU")
        print(f"rank 1,000 hits, 200k rules:        {w1 * 1000:7.1f} ms wall"
              f" {c1 * 1000:7.1f} ms CPU   ({w1 / w0:.2f}x wall, {c1 / c0:.2f}x CPU of"
              " no lists; goal under 2x)")


if __name__ == "__main__":
    main()
