"""Benchmark `tamis dupes` on a generated 100,000-node RA-H OS graph; goal: under 15 s.

    python bench/bench_dupes.py [--nodes 100000] [--seed 1] [--keep DIR]

The graph is realistic rather than random: distinct nodes share a Zipf-distributed vocabulary and
title words; scheduled writers leave run families (daily and hourly); some nodes are saved twice
(identical bodies) or edited into a draft (same subject); hard negatives are planted too: client
workflow families (near-identical titles, bodies 0.1-0.3 similar), numbered service requests with
near-identical bodies, and a pathological block of 1,500 nodes all titled "Untitled".

Detection runs in a fresh child process, so the figures are its own: wall time of
`find_duplicates` and the child's peak resident memory (ru_maxrss). The parent checks what was
found against what was planted and prints both.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL_SECONDS = 15.0


# -- generation ---------------------------------------------------------------------------------


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    words: set[str] = set()
    while len(words) < size:
        n = rng.randint(2, 4)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(n)))
    vocab = sorted(words)
    rng.shuffle(vocab)  # frequency rank must not follow spelling
    return vocab


class Graph:
    """Rows for the nodes table plus what was planted, for checking the result."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.vocab = _vocabulary(self.rng, 20_000)
        weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(self.vocab))]
        self.cum_weights = list(itertools.accumulate(weights))
        # Titles are made of content words: skip the commonest, flatter distribution.
        self.title_vocab = self.vocab[50:]
        title_weights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(self.title_vocab))]
        self.title_cum_weights = list(itertools.accumulate(title_weights))
        self.rows: list[tuple[Any, ...]] = []
        self.dims: list[tuple[int, str]] = []
        self.next_id = 1
        self.planted: dict[str, list[list[int]]] = {
            "WRITER-DEFECT": [],
            "SAFE-MERGE": [],
            "HUMAN-DECISION": [],
            "negatives": [],
        }

    def words(self, k: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum_weights, k=k)

    def body(self, low: int = 60, high: int = 220) -> str:
        sentences = []
        for _ in range(self.rng.randint(low, high) // 12):
            sentences.append(" ".join(self.words(12)).capitalize() + ".")
        return " ".join(sentences)

    def title(self) -> str:
        shape = self.rng.randrange(4)
        a, b, c = self.rng.choices(self.title_vocab, cum_weights=self.title_cum_weights, k=3)
        return [
            f"Notes on {a} {b}",
            f"{a.capitalize()} {b} design review",
            f"{a} and {b} {c}",
            f"How {a} handles {b}",
        ][shape]

    def add(self, title: str, body: str, created: str, meta: dict[str, Any] | None = None) -> int:
        node_id = self.next_id
        self.next_id += 1
        self.rows.append((node_id, title, body, created, created, json.dumps(meta or {})))
        return node_id

    def stamp(self, day: float) -> str:
        epoch = 1_704_067_200 + day * 86400  # 2024-01-01
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))

    def build(self, total: int) -> None:
        rng = self.rng
        scale = total / 100_000
        # Scheduled writers leaving one node per run.
        for w in range(int(60 * scale) or 1):
            hourly = w % 5 == 0
            runs = rng.randint(30, 150)
            start = rng.uniform(0, 200)
            name = f"agent-{w}"
            template = rng.choice(
                [
                    "Daily digest {d}",
                    "Inbox sweep {d}",
                    "Run #{n} summary",
                    "Metrics snapshot {d}",
                    "Feed crawl {d}",
                ]
            )
            ids = []
            for k in range(runs):
                day = start + (k / 24 if hourly else k) + rng.uniform(-0.01, 0.01)
                stamp = self.stamp(day)
                title = template.format(
                    d=stamp[:16].replace("T", " ") if hourly else stamp[:10], n=k + 1
                )
                ids.append(self.add(f"{title} ({name})", self.body(30, 90), stamp, {"agent": name}))
            self.planted["WRITER-DEFECT"].append(ids)
        # Saved twice: identical bodies up to whitespace.
        for _ in range(int(1000 * scale)):
            title, body = self.title(), self.body()
            a = self.add(title, body, self.stamp(rng.uniform(0, 300)))
            b = self.add(
                title + " (copy)", body.replace(". ", ".\n\n"), self.stamp(rng.uniform(0, 300))
            )
            self.planted["SAFE-MERGE"].append([a, b])
        # Edited into a draft: same subject, bodies overlapping but not identical.
        for _ in range(int(1000 * scale)):
            title, body = self.title(), self.body(120, 240)
            words = body.split()
            for _edit in range(len(words) // 25):
                words[rng.randrange(len(words))] = self.words(1)[0]
            a = self.add(title, body, self.stamp(rng.uniform(0, 300)))
            b = self.add(title + " draft", " ".join(words), self.stamp(rng.uniform(0, 300)))
            self.planted["HUMAN-DECISION"].append([a, b])
        # Hard negative: client workflow families, near-identical titles, different bodies.
        for _ in range(int(300 * scale)):
            boiler = self.body(40, 50)
            family = [
                self.add(
                    f"Client workflow: intake and weekly reporting ({self.title()[-8:]})",
                    boiler + " " + self.body(120, 160),
                    self.stamp(rng.uniform(0, 300)),
                )
                for _client in range(4)
            ]
            self.planted["negatives"].append(family)
        # Hard negative: service requests differing only in their number.
        ticket = self.body(60, 80)
        for n in range(int(2000 * scale)):
            node_id = self.add(
                f"SR-2023-{n:04d} printer offline",
                ticket + f" Reporter {n}.",
                self.stamp(rng.uniform(0, 300)),
            )
            self.planted["negatives"].append([node_id])
        # Pathological block: many nodes with one title and unrelated bodies.
        for _ in range(int(1500 * scale)):
            node_id = self.add("Untitled", self.body(), self.stamp(rng.uniform(0, 300)))
            self.planted["negatives"].append([node_id])
        # Everything else: distinct nodes sharing vocabulary; a few archived.
        while len(self.rows) < total:
            node_id = self.add(self.title(), self.body(), self.stamp(rng.uniform(0, 300)))
            if rng.random() < 0.02:
                self.dims.append((node_id, "archived"))
            if rng.random() < 0.3:
                self.dims.append((node_id, rng.choice(["research", "ops", "people"])))

    def write(self, path: Path) -> None:
        conn = sqlite3.connect(path)
        conn.executescript(
            """
            CREATE TABLE nodes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, description TEXT,
                notes TEXT, link TEXT, created_at TEXT, updated_at TEXT, metadata TEXT);
            CREATE TABLE edges (id INTEGER PRIMARY KEY, from_node_id INTEGER,
                to_node_id INTEGER, source TEXT);
            CREATE TABLE dimensions (name TEXT PRIMARY KEY);
            CREATE TABLE node_dimensions (node_id INTEGER, dimension TEXT);
            """
        )
        conn.executemany(
            "INSERT INTO nodes (id, title, notes, created_at, updated_at, metadata) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            self.rows,
        )
        conn.executemany("INSERT INTO node_dimensions VALUES (?, ?)", self.dims)
        conn.commit()
        conn.close()


# -- measuring ----------------------------------------------------------------------------------


def detect_in_this_process(db: str) -> None:
    """Child mode: run detection once and print its figures as JSON."""
    from tamis.dupes import find_duplicates

    start = time.perf_counter()
    report = find_duplicates(db)
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(
        json.dumps(
            {
                "seconds": seconds,
                "peak_rss_mib": peak_kib / 1024,
                "checked": report.checked,
                "items": [{"verdict": i.verdict, "ids": i.ids} for i in report.items],
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="write the database here and keep it")
    parser.add_argument("--detect", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.detect:
        detect_in_this_process(args.detect)
        return

    with tempfile.TemporaryDirectory(prefix="tamis-bench-") as tmp:
        db = (args.keep or Path(tmp)) / "bench.sqlite"
        db.parent.mkdir(parents=True, exist_ok=True)
        db.unlink(missing_ok=True)
        started = time.perf_counter()
        graph = Graph(args.seed)
        graph.build(args.nodes)
        graph.write(db)
        size_mib = db.stat().st_size / 2**20
        print(
            f"generated {len(graph.rows):,} nodes ({size_mib:.0f} MiB) "
            f"in {time.perf_counter() - started:.1f} s"
        )
        child = subprocess.run(
            [sys.executable, __file__, "--detect", str(db)],
            capture_output=True,
            text=True,
            check=True,
        )
        result = json.loads(child.stdout)

    status = "OK" if result["seconds"] < GOAL_SECONDS else "OVER GOAL"
    print(
        f"detection: {result['seconds']:.2f} s for {result['checked']:,} nodes "
        f"(goal: under {GOAL_SECONDS:.0f} s) {status}"
    )
    print(
        f"peak memory (child process RSS, interpreter included): {result['peak_rss_mib']:.0f} MiB"
    )
    report_check(graph, result["items"])


def report_check(graph: Graph, items: list[dict[str, Any]]) -> None:
    """Print how much of what was planted was found, and whether any negative was reported."""
    found: dict[str, set[frozenset[int]]] = {}
    reported: set[int] = set()
    for item in items:
        found.setdefault(item["verdict"], set()).add(frozenset(item["ids"]))
        reported.update(item["ids"])
    for verdict in ("WRITER-DEFECT", "SAFE-MERGE", "HUMAN-DECISION"):
        planted = [frozenset(ids) for ids in graph.planted[verdict]]
        hit = sum(1 for ids in planted if ids in found.get(verdict, set()))
        extra = len(found.get(verdict, set())) - hit
        print(f"  {verdict:<14} planted {len(planted):>5}  found {hit:>5}  other {extra:>4}")
    negatives = {i for ids in graph.planted["negatives"] for i in ids}
    print(f"  hard negatives reported: {len(negatives & reported)} of {len(negatives):,}")


if __name__ == "__main__":
    main()
