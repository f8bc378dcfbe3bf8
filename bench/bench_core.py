"""Benchmark the core layer: merge + filter + rank of 1,000 raw results, and CLI start-up.

    python bench/bench_core.py
    python bench/bench_core.py --instructions   # per-stage instruction counts (valgrind)

Goals (issues 2 and 13): pipeline under 20 ms CPU for 1,000 raw results (each stage printed);
`tamis --help` under 0.3 s. Every round starts with cold host caches.

The one-time set-up a fresh process (a CLI search) pays for the pipeline: in fresh processes
(bytecode cached, as an installed tamis), the CPU of importing the pipeline's modules once the
models and schema they need are imported, of compiling the built-in policy (``Rules``), and of
the first pipeline run on a recorded answer, beside the same pipeline run again in the same
process (what the set-up adds). Also the pipeline on
each recorded SearXNG answer of tests/fixtures/searxng (what one uncached search costs):
cold (fresh rules, no host seen before: a CLI call) and warm (rules and host caches kept, as
`tamis serve` keeps them). Prints figures and ratios; asserts nothing (machines here are
shared and noisy: the minimum of the rounds is printed beside the median).
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tamis.backends.searxng import SearXNG, parse_searxng
from tamis.models import RawHit
from tamis.pipeline import intent, paths, rules, urls
from tamis.pipeline import query as query_parsing
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.rules import Rules
from tamis.policy.schema import LineConfig, Policy
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


# Read once a process, whatever the hosts (a CLI search pays it once, beside the pipeline):
# not a memo of what was seen, so kept across rounds.
LOADED_ONCE = (urls._suffix_list,)


def cold_caches() -> None:
    """Every memo of the pipeline emptied: no host, path or query seen before."""
    for module in (intent, paths, query_parsing, rules, urls):
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)) and value not in LOADED_ONCE:
                value.cache_clear()


def run_pipeline(hits: list[tuple[RawHit, int, float]], query: str, policy: Policy,
                 rules: Rules | None = None) -> tuple[float, float, float]:
    """CPU seconds (this thread, user+sys) of merge, filter and rank (``rules``: kept from an
    earlier search, as the service keeps them; None: compiled here, inside merge's time)."""
    t0 = time.thread_time()
    rules = rules or Rules(policy)
    candidates, _ = merge(hits, tracking_params=policy.normalise.tracking_params,
                          max_chars=400, unwrapper=rules.unwrapper)
    t1 = time.thread_time()
    kept, _ = filter_candidates(candidates, rules, query)
    t2 = time.thread_time()
    rank(kept, query, policy.ranking)
    t3 = time.thread_time()
    return t1 - t0, t2 - t1, t3 - t2


class GCPauses:
    """CPU seconds this thread spent in the cyclic garbage collector (gc.callbacks)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.thread_time()
        else:
            self.seconds += time.thread_time() - self._start


def bench_pipeline(n: int = 1000, rounds: int = 30) -> dict[str, list[float]]:
    """CPU seconds per round: per stage, in all, of it in the garbage collector, and wall."""
    policy = load_config(None).config.policy
    hits = raw_hits(n)
    query = "proxmox thin pool metadata exhaustion recovery"
    urls.registrable_domain("warm.up.example")  # load the suffix list once
    stages: dict[str, list[float]] = {"merge": [], "filter": [], "rank": [], "total": [],
                                      "wall": [], "gc": []}
    pauses = GCPauses()
    gc.callbacks.append(pauses)
    for _ in range(rounds):
        cold_caches()  # every round cold
        wall = time.perf_counter()
        before = pauses.seconds
        merged, filtered, ranked = run_pipeline(hits, query, policy)
        stages["wall"].append(time.perf_counter() - wall)
        stages["gc"].append(pauses.seconds - before)
        for name, seconds in (("merge", merged), ("filter", filtered), ("rank", ranked),
                              ("total", merged + filtered + ranked)):
            stages[name].append(seconds)
    gc.callbacks.remove(pauses)
    return stages


def recorded_answers() -> list[tuple[str, list[tuple[RawHit, int, float]]]]:
    """(query, hits) of each recorded SearXNG answer, read as the SearXNG backend reads it."""
    adapter = SearXNG(LineConfig(name="searxng", type="searxng"))
    answers = []
    for path in sorted(FIXTURES.glob("*.json")):
        payload = json.loads(path.read_text())
        parsed = parse_searxng(adapter, payload)
        answers.append((payload["query"], [(hit, 0, 1.0) for hit in parsed.hits]))
    return answers


def bench_answers(rounds: int = 40) -> list[tuple[str, int, list[float], list[float]]]:
    """(query, hits, cold CPU seconds per round, warm CPU seconds per round) per answer."""
    policy = load_config(None).config.policy
    out = []
    for query, hits in recorded_answers():
        cold, warm = [], []
        for _ in range(rounds):
            cold_caches()
            cold.append(sum(run_pipeline(hits, query, policy)))
        rules = Rules(policy)
        run_pipeline(hits, query, policy, rules)  # the service has seen these hosts
        for _ in range(rounds):
            warm.append(sum(run_pipeline(hits, query, policy, rules)))
        out.append((query, len(hits), cold, warm))
    return out


FRESH = """
import json, sys, time
from pathlib import Path
import tamis.models, tamis.policy.schema, tamis.settings  # what the pipeline needs, not its own
from tamis.backends.searxng import SearXNG, parse_searxng
from tamis.policy.schema import LineConfig
policy = tamis.settings.load_config(None).config.policy
payload = json.loads(Path({answer!r}).read_text())
hits = [(h, 0, 1.0) for h in parse_searxng(SearXNG(LineConfig(name="searxng", type="searxng")),
                                           payload).hits]
t0 = time.thread_time()
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.lists import ListsStage
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.rules import Rules
t1 = time.thread_time()
rules = Rules(policy)
t2 = time.thread_time()
times = []
for rules in (rules, Rules(policy)):
    start = time.thread_time()
    candidates, _ = merge(hits, tracking_params=policy.normalise.tracking_params,
                          max_chars=400, unwrapper=rules.unwrapper)
    kept, _ = filter_candidates(candidates, rules, payload["query"])
    rank(kept, payload["query"], policy.ranking)
    times.append(time.thread_time() - start)
print(t1 - t0, t2 - t1, *times)
"""


def bench_fresh(rounds: int = 7) -> list[list[float]]:
    """[import, Rules(), first run, run again] CPU seconds of each fresh process."""
    import os
    import tempfile

    code = FRESH.format(answer=str(sorted(FIXTURES.glob("*.json"))[-1]))
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = tmp
        subprocess.run([sys.executable, "-c", code], env=env, check=True,
                       capture_output=True)  # untimed: writes the bytecode
        return [[float(x) for x in subprocess.run(
            [sys.executable, "-c", code], env=env, check=True, capture_output=True,
            text=True).stdout.split()] for _ in range(rounds)]


STAGE = """
import operator, os, subprocess, sys
sys.path.insert(0, {bench!r})
import bench_core as b
from tamis.pipeline.rules import Rules
from tamis.settings import load_config
policy = load_config(None).config.policy
hits, query = b.raw_hits(1000), "proxmox thin pool metadata exhaustion recovery"
tracking = policy.normalise.tracking_params
b.run_pipeline(hits, query, policy)  # every module imported, every pattern compiled
rules = Rules(policy)
candidates, _ = b.merge(hits, tracking_params=tracking, max_chars=400, unwrapper=rules.unwrapper)
kept, _ = b.filter_candidates(candidates, rules, query)
b.cold_caches()
rules = Rules(policy)
stage = {{"merge": lambda: b.merge(hits, tracking_params=tracking, max_chars=400,
                                   unwrapper=rules.unwrapper),
          "filter": lambda: b.filter_candidates(candidates, rules, query),
          "rank": lambda: b.rank(kept, query, policy.ranking)}}[sys.argv[1]]
subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True)
result = operator.call(stage)  # counted: only what runs inside operator.call
"""


def bench_instructions() -> dict[str, int] | None:
    """Instructions (valgrind's callgrind, when installed) of one cold round of each stage on
    the 1,000 raw hits: the same count on a busy machine as on an idle one. None without
    valgrind. About 30 s a stage."""
    import re
    import shutil

    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        return None
    code = STAGE.format(bench=str(Path(__file__).parent))
    counts = {}
    for stage in ("merge", "filter", "rank"):
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             "--toggle-collect=_operator_call", "--callgrind-out-file=/dev/null",
             sys.executable, "-c", code, stage], capture_output=True, text=True, check=True)
        found = re.search(r"Collected : (\d+)", run.stderr)
        if found is None:
            return None
        counts[stage] = int(found.group(1))
    return counts


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.2f} ms (min {min(values) * 1000:.2f})"


def bench_help(rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "--help"],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    if "--instructions" in sys.argv[1:]:
        counts = bench_instructions()
        if counts is None:
            print("error: --instructions needs valgrind (callgrind and callgrind_control)")
            sys.exit(1)
        print("instructions, one cold round on 1,000 raw results (callgrind): " + ", ".join(
            f"{stage} {n / 1e6:.2f}M" for stage, n in counts.items())
            + f", in all {sum(counts.values()) / 1e6:.2f}M")
        return
    stages = bench_pipeline()
    p = {name: statistics.median(values) for name, values in stages.items()}
    low = {name: min(values) for name, values in stages.items()}
    print(f"merge+filter+rank, 1,000 raw results: {p['total'] * 1000:.1f} ms CPU median"
          f" (min {low['total'] * 1000:.1f}; {p['wall'] * 1000:.1f} ms wall)"
          f"  (goal 20 ms; {p['total'] * 1000 / 20:.2f}x of goal)")
    print(f"  merge {p['merge'] * 1000:.1f} ms, filter {p['filter'] * 1000:.1f} ms,"
          f" rank {p['rank'] * 1000:.1f} ms (CPU median; min {low['merge'] * 1000:.1f},"
          f" {low['filter'] * 1000:.1f}, {low['rank'] * 1000:.1f})")
    print(f"  of it in the garbage collector: {statistics.mean(stages['gc']) * 1000:.1f} ms"
          " a round on average (full collections of the whole process's heap included)")
    for query, n, cold, warm in bench_answers():
        print(f"recorded SearXNG answer, {n} hits ({query[:40]}): cold {_ms(cold)},"
              f" warm {_ms(warm)} CPU")
    fresh = bench_fresh()
    imports, compiled, first, again = ([row[i] for row in fresh] for i in range(4))
    print(f"fresh process set-up: pipeline imports {_ms(imports)}, Rules(policy) {_ms(compiled)};"
          f" first pipeline run on the {len(recorded_answers()[-1][1])}-hit answer {_ms(first)}"
          f" beside a second run in the same process {_ms(again)} CPU")
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
