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


def naive_in_this_process(db: str) -> None:
    """Child mode: the rule `tamis dupes` replaced, as a yardstick run on the same file.

    Two nodes are duplicates when their title words overlap by more than 70% (Jaccard of the
    casefolded word sets); clusters are the connected pairs. All pairs above the threshold are
    found exactly, without comparing all pairs: identical word sets are grouped, and two
    different sets that reach the threshold share one of their rarest words (prefix filtering).
    """
    import math
    import sqlite3
    from collections import Counter, defaultdict

    from tamis.dupes.titles import normalise_title

    cpu0 = time.process_time()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    by_words: defaultdict[frozenset[str], list[int]] = defaultdict(list)
    for node_id, title in conn.execute("SELECT id, title FROM nodes"):
        by_words[frozenset(normalise_title(title or "").split())].append(node_id)
    conn.close()
    sets = [w for w in by_words if w]
    freq = Counter(word for words in sets for word in words)
    parent = {node_id: node_id for ids in by_words.values() for node_id in ids}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(a: int, b: int) -> None:
        parent[find(a)] = find(b)

    index: defaultdict[str, list[int]] = defaultdict(list)
    for k, words in enumerate(sets):
        ranked = sorted(words, key=lambda w: (freq[w], w))
        prefix = len(ranked) - math.ceil(0.7 * len(ranked)) + 1  # J > 0.7 shares one of these
        seen: set[int] = set()
        for word in ranked[:prefix]:
            for other in index[word]:
                if other in seen:
                    continue
                seen.add(other)
                b = sets[other]
                if len(words & b) / len(words | b) > 0.7:
                    join(by_words[words][0], by_words[b][0])
            index[word].append(k)
    for ids in by_words.values():
        for node_id in ids[1:]:
            join(node_id, ids[0])
    clusters: defaultdict[int, list[int]] = defaultdict(list)
    for node_id in parent:
        clusters[find(node_id)].append(node_id)
    items = [["NAIVE", sorted(ids)] for ids in clusters.values() if len(ids) > 1]
    cpu = time.process_time() - cpu0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"cpu": cpu, "peak_mib": peak_kib / 1024, "items": items}))


def _naive_line(graph: Any, naive: dict[str, Any]) -> str:
    """What the title-overlap rule reports on the same graph, in the same terms."""
    flagged = {i for _v, ids in naive["items"] for i in ids}
    groups = {frozenset(ids) for _v, ids in naive["items"]}
    planted = [frozenset(g) for v in VERDICTS for g in graph.planted[v]]
    negatives = sum(1 for g in graph.negatives if flagged & set(g))
    exact = sum(1 for g in planted if g in groups)
    return (f"naive title-overlap rule (> 70% title words), same file: {naive['cpu']:6.2f} s CPU, "
            f"peak {naive['peak_mib']:5.0f} MiB; {len(groups):,} clusters, planted clusters "
            f"matched {exact}/{len(planted)}, hard negatives reported "
            f"{negatives}/{len(graph.negatives)}")


def _child(mode: str, db: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, mode, str(db)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run(
    nodes: int, seed: int, keep: Path | None, naive: bool = False
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Detection on a generated graph: its figures, its scores, and (with `naive`) the line of
    the title-overlap rule run on the same file right after it."""
    graph = generate(nodes, seed)
    with tempfile.TemporaryDirectory(prefix="tamis-bench-") as tmp:
        db = (keep or Path(tmp)) / f"bench-{nodes}-{seed}.sqlite"
        db.parent.mkdir(parents=True, exist_ok=True)
        db.unlink(missing_ok=True)
        graph.write_sqlite(db)
        result = _child("--detect", db)
        yardstick = _naive_line(graph, _child("--naive", db)) if naive else ""
    return result, score(graph, [(v, ids) for v, ids in result["items"]]), yardstick


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
        result, quality, yardstick = run(nodes, seed, keep, naive=True)
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
        print(f"          {yardstick}")
        previous = (nodes, result["cpu"])


def quality_table(sizes: list[int], seeds: list[int]) -> None:
    print("verdict P/R on generated graphs (an item counts when its ids equal a planted group)")
    print(f"{'nodes':>7} {'seed':>4}  " + "  ".join(f"{v:>22}" for v in VERDICTS)
          + "  negatives  elsewhere")
    worst = {v: [1.0, 1.0] for v in VERDICTS}
    negatives = elsewhere = 0
    for nodes in sizes:
        for seed in seeds:
            _result, q, _naive = run(nodes, seed, None)
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
    parser.add_argument("--naive", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.detect:
        detect_in_this_process(args.detect)
        return
    if args.naive:
        naive_in_this_process(args.naive)
        return
    if args.quality:
        sizes = [int(s) for s in (args.sizes or "5000,20000").split(",")]
        quality_table(sizes, [int(s) for s in args.seeds.split(",")])
        return
    sizes = [int(s) for s in (args.sizes or "10000,30000,100000,300000").split(",")]
    scaling(sizes, args.seed, args.keep)


if __name__ == "__main__":
    main()
