"""Benchmark `tamis dupes` on generated RA-H OS graphs: CPU, wall time, peak memory, P/R.

    python bench/bench_dupes.py                      # 10k, 30k, 100k, 300k nodes
    python bench/bench_dupes.py --sizes 100000       # one size
    python bench/bench_dupes.py --quality            # P/R per verdict, 5k and 20k, six seeds

The graphs come from `tests/dupes/dupes_graphgen.py`: every case of issue 12 planted (run families
on real schedules, copies, edited copies under reworded titles, stubs) and hard negatives (client
workflows of one family, two machines' migrations, numbered service requests, digit-only
differences, meeting series, `Merged PR #N` series, bursts, a person's daily journal).

Detection runs in a fresh child process per graph, so the figures are its own: CPU seconds
(user+sys) and wall seconds of `find_duplicates` on the SQLite file, and the child's peak resident
memory (ru_maxrss, interpreter and numpy included). Each figure is printed beside its goal
(100,000 nodes: under 15 s CPU and 500 MiB). The parent scores the items against the answer key.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "dupes"))
from dupes_graphgen import VERDICTS, generate, score

GOAL_CPU_SECONDS = 15.0
GOAL_PEAK_MIB = 500.0
GOAL_AT = 100_000


def detect_in_this_process(db: str) -> None:
    """Child mode: run detection once and print its figures as JSON."""
    from tamis.dupes import find_duplicates

    cpu0, wall0 = time.process_time(), time.perf_counter()
    report = find_duplicates(db)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    items = [[i.verdict, i.ids] for i in report.items]
    print(json.dumps({"cpu": cpu, "wall": wall, "peak_mib": peak_kib / 1024,
                      "checked": report.checked, "items": items}))


def run(nodes: int, seed: int, keep: Path | None) -> tuple[dict[str, Any], dict[str, Any]]:
    graph = generate(nodes, seed)
    with tempfile.TemporaryDirectory(prefix="tamis-bench-") as tmp:
        db = (keep or Path(tmp)) / f"bench-{nodes}-{seed}.sqlite"
        db.parent.mkdir(parents=True, exist_ok=True)
        db.unlink(missing_ok=True)
        graph.write_sqlite(db)
        child = subprocess.run(
            [sys.executable, __file__, "--detect", str(db)],
            capture_output=True, text=True, check=True,
        )
    result = json.loads(child.stdout)
    return result, score(graph, [(v, ids) for v, ids in result["items"]])


def _pr(quality: dict[str, Any]) -> str:
    parts = [
        f"{v} P {quality[v]['precision']:.2f} R {quality[v]['recall']:.2f}" for v in VERDICTS
    ]
    neg = quality["negatives"]
    parts.append(f"hard negatives reported {neg['reported']}/{neg['groups']}")
    parts.append(f"family members elsewhere {quality['family_members_elsewhere']}")
    return "; ".join(parts)


def scaling(sizes: list[int], seed: int, keep: Path | None) -> None:
    print(f"tamis dupes on generated graphs (seed {seed}); goal at {GOAL_AT:,} nodes: "
          f"under {GOAL_CPU_SECONDS:.0f} s CPU and {GOAL_PEAK_MIB:.0f} MiB peak")
    previous: tuple[int, float] | None = None
    for nodes in sizes:
        result, quality = run(nodes, seed, keep)
        growth = ""
        if previous is not None:
            ratio = (result["cpu"] / previous[1]) / (nodes / previous[0])
            growth = f", CPU per node x{ratio:.2f} vs the last size"
        goal = ""
        if nodes == GOAL_AT:
            ok = result["cpu"] < GOAL_CPU_SECONDS and result["peak_mib"] < GOAL_PEAK_MIB
            goal = f"  [goal {GOAL_CPU_SECONDS:.0f} s / {GOAL_PEAK_MIB:.0f} MiB: " \
                   f"{'OK' if ok else 'OVER'}]"
        print(f"{nodes:>8,} nodes: {result['cpu']:6.2f} s CPU, {result['wall']:6.2f} s wall, "
              f"peak {result['peak_mib']:5.0f} MiB{growth}{goal}")
        print(f"          {_pr(quality)}")
        previous = (nodes, result["cpu"])


def quality_table(sizes: list[int], seeds: list[int]) -> None:
    print("verdict P/R on generated graphs (an item counts when its ids equal a planted group)")
    print(f"{'nodes':>7} {'seed':>4}  " + "  ".join(f"{v:>22}" for v in VERDICTS)
          + "  negatives  elsewhere")
    worst = {v: [1.0, 1.0] for v in VERDICTS}
    negatives = elsewhere = 0
    for nodes in sizes:
        for seed in seeds:
            _result, q = run(nodes, seed, None)
            cells = []
            for v in VERDICTS:
                p, r = q[v]["precision"], q[v]["recall"]
                worst[v] = [min(worst[v][0], p), min(worst[v][1], r)]
                cells.append(f"P {p:.2f} R {r:.2f} ({q[v]['planted']:>4})")
            negatives += q["negatives"]["reported"]
            elsewhere += q["family_members_elsewhere"]
            print(f"{nodes:>7,} {seed:>4}  " + "  ".join(f"{c:>22}" for c in cells)
                  + f"  {q['negatives']['reported']:>3}/{q['negatives']['groups']:<5}"
                  + f"  {q['family_members_elsewhere']:>4}")
    print("worst: " + "; ".join(f"{v} P {p:.2f} R {r:.2f}" for v, (p, r) in worst.items())
          + f"; hard negatives reported {negatives}; family members elsewhere {elsewhere}"
          + " (goal: every P and R >= 0.95, 0, 0)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=None, help="comma-separated node counts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seeds", default="1,2,3,4,5,6", help="for --quality")
    parser.add_argument("--quality", action="store_true", help="P/R table instead of scaling")
    parser.add_argument("--keep", type=Path, help="write the databases here and keep them")
    parser.add_argument("--detect", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.detect:
        detect_in_this_process(args.detect)
        return
    if args.quality:
        sizes = [int(s) for s in (args.sizes or "5000,20000").split(",")]
        quality_table(sizes, [int(s) for s in args.seeds.split(",")])
        return
    sizes = [int(s) for s in (args.sizes or "10000,30000,100000,300000").split(",")]
    scaling(sizes, args.seed, args.keep)


if __name__ == "__main__":
    main()
