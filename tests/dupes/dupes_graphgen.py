"""A generated RA-H OS graph with planted duplicate cases and hard negatives, with its answer key.

Shared by the tests (`test_dupes_generated.py`) and the benchmark (`bench/bench_dupes.py`).
Every case named in issue 12 is planted, each as a group of node ids with the verdict it must get
(or as a hard negative that must not appear in any item):

- WRITER-DEFECT: scheduled writers adding one node per run: daily with jitter, hourly, every few
  hours, weekly, weekdays only (gaps 24/72 h), daily with missed runs, a job that starts inside
  one morning window on irregular days; titles carrying dates, times, run numbers, short hex or
  alphanumeric run ids (`run-3f9a2c`) and UUIDs; some families are "quiet runs" with identical
  bodies (never SAFE-MERGE). Issue 32's shapes too (`dupes_graphgen_runs.py`): quiet watchers
  whose runs are mostly byte-identical, reports, digests and checks titled by a counter, a date
  in another format or nothing that varies, over one body template with varying numbers, a
  series split across two writers; and two hosts' same check, one writer's two reports (each
  its own family).
- SAFE-MERGE: a node saved twice or three times (identical bodies up to whitespace), under the
  same title, a "(copy)" title or another title; three saves in a burst by one agent.
- HUMAN-DECISION: edited copies (body shingle Jaccard 0.42-0.78) under reworded titles:
  version markers (`(2)`, `(v2)`, `- updated`, `(draft)`, `More on:`, `(follow-up)`), one or two
  words changed, words reordered; a stub (empty or "TODO" body) beside its full node under an
  identical title.
- hard negatives, as hard as the real ones: one family's client workflows (near-identical titles,
  shared boilerplate, bodies 0.1-0.3 similar), two machines' migrations (shared steps), numbered
  service requests (one template, bodies 0.3-0.8 similar, titles differing in the number),
  digit-only differences (`Rack A3` / `Rack A4`, `Q3` / `Q4`: similar bodies, different digits),
  meeting series titled by date (typed in the UI, by a person, or by a note-taking app at
  irregular hours), `Merged PR #N` series from a webhook (bursty arrivals), an importer's bursts
  minutes apart, a person's daily journal typed in the UI every evening, stubs under different
  titles, "Untitled" nodes (some empty), and an agent's alerts under one title whenever
  something breaks.

Nothing here looks at how the detector works: cases are drawn from the description of what a
real graph holds, and the similarity ranges are properties of the planted text.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dupes_graphgen_runs import REPORT_TITLES, RunFamilies
from dupes_graphgen_text import DAY, VERDICTS, shingle_jaccard

__all__ = ["GeneratedGraph", "generate", "score", "shingle_jaccard"]


class GeneratedGraph(RunFamilies):
    """Rows for an RA-H OS database plus the answer key (`planted`, `negatives`)."""

    # -- planted cases ---------------------------------------------------------------------

    def copies(self) -> None:
        rng = self.rng
        title, body = self.title(), self.body()
        shape = rng.choice(["same", "copy", "other", "triple-burst", "numbered"])
        at = self.when()
        if shape == "numbered":
            title = f"{title} for 2024-{rng.randint(1, 12):02d}"
        ids = [self.add(title, body, at)]
        if shape == "triple-burst":
            agent = {"agent": f"clipper-{rng.randint(1, 9)}"}
            self.rows[-1]["metadata"] = agent
            for k in (1, 2):
                ids.append(
                    self.add(title, body.replace(". ", ".\n"), at + k * rng.uniform(20, 200), agent)
                )
        else:
            other = {
                "same": title,
                "copy": f"{title} (copy)",
                "other": self.title(),
                "numbered": title,
            }[shape]
            ids.append(self.add(other, body.replace(". ", ".\n\n"), self.when()))
        self.plant("SAFE-MERGE", shape, ids)

    def edits(self) -> None:
        rng = self.rng
        title, body = self.title(), self.body(100, 240)
        shape = rng.choice(
            [
                "same",
                "(2)",
                "(v2)",
                "- updated",
                "(draft)",
                "More on:",
                "(follow-up)",
                "one-word",
                "two-words",
                "reorder",
                "triple",
            ]
        )
        a, b = self.tw(2)
        words = title.split()
        if shape == "More on:":
            other = f"More on: {title}"
        elif shape == "one-word":
            words[-1] = a
            other = " ".join(words)
        elif shape == "two-words":
            words[-1], words[0] = a, b.capitalize()
            other = " ".join(words)
        elif shape == "reorder":
            other = " ".join(words[len(words) // 2 :] + words[: len(words) // 2])
        elif shape in ("same", "triple"):
            other = title
        else:
            other = f"{title} {shape}"
        at = self.when()
        ids = [self.add(title, body, at)]
        second = self.edited(body)
        self.note_similarity("edited copy", body, second)
        ids.append(self.add(other, second, at + rng.uniform(1, 60) * DAY))
        if shape == "triple":
            third = self.edited(body)
            ids.append(self.add(f"{title} (final)", third, at + rng.uniform(61, 90) * DAY))
        self.plant("HUMAN-DECISION", shape, ids)

    def stub(self) -> None:
        title, body = self.title(), self.body()
        stub_body = self.rng.choice(["", "TODO", "tbd", "  ", "(empty)"])
        a = self.add(title, body, self.when())
        b = self.add(title, stub_body, self.when())
        self.plant("HUMAN-DECISION", "stub", [a, b])

    # -- the whole graph -------------------------------------------------------------------

    def build(self, total: int) -> GeneratedGraph:
        scale = total / 10_000
        n = max(1, round(scale))
        for w in range(max(6, round(20 * scale))):
            self.run_family(w)
        for w in range(max(3, round(6 * scale))):
            self.quiet_watcher(w)
        self.report_offset = self.rng.randrange(len(REPORT_TITLES))
        for w in range(max(4, round(12 * scale))):
            self.template_report(w)
        for w in range(max(2, round(4 * scale))):
            self.split_series(w)
        for w in range(max(1, round(2 * scale))):
            self.parallel_hosts(w)
            self.two_reports(w)
        for _ in range(max(2, round(6 * scale))):
            self.unscheduled_alerts()
        for _ in range(round(150 * scale)):
            self.copies()
        for _ in range(round(150 * scale)):
            self.edits()
        for _ in range(round(40 * scale)):
            self.stub()
        for _ in range(round(30 * scale)):
            self.client_workflows()
        for _ in range(round(20 * scale)):
            self.migrations()
        for _ in range(4 * n):
            self.service_requests(self.rng.randint(5, 40))
        for _ in range(round(30 * scale)):
            self.digit_only()
        for _ in range(round(15 * scale)):
            self.meetings()
        for _ in range(round(6 * scale)):
            self.merged_prs()
        for _ in range(round(6 * scale)):
            self.import_burst()
        for _ in range(round(4 * scale)):
            self.journal()
        for _ in range(round(5 * scale)):
            self.stub_negatives()
        for _ in range(round(60 * scale)):
            self.untitled()
        while len(self.rows) < total:
            node_id = self.add(self.title(), self.body(), self.when())
            if self.rng.random() < 0.3:
                self.rows[-1]["dimensions"] = [self.rng.choice(["research", "ops", "people"])]
            del node_id
        order = list(range(len(self.rows)))
        self.rng.shuffle(order)  # insertion order must not reveal the plant
        self.rows = [self.rows[i] for i in order]
        return self

    def write_sqlite(self, path: Path) -> Path:
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
            (
                (
                    r["id"],
                    r["title"],
                    r["notes"],
                    r["created_at"],
                    r["created_at"],
                    json.dumps(r["metadata"]),
                )
                for r in self.rows
            ),
        )
        conn.executemany(
            "INSERT INTO node_dimensions VALUES (?, ?)",
            ((r["id"], d) for r in self.rows for d in r["dimensions"]),
        )
        conn.commit()
        conn.close()
        return path


def generate(total: int, seed: int) -> GeneratedGraph:
    return GeneratedGraph(seed).build(total)


def score(graph: GeneratedGraph, items: Iterable[tuple[str, Iterable[Any]]]) -> dict[str, Any]:
    """Precision and recall per verdict (an item matches a planted group with exactly its ids),
    hard-negative groups reported, and run-family members found in another verdict."""
    found: dict[str, set[frozenset[Any]]] = {v: set() for v in VERDICTS}
    verdict_of: dict[Any, set[str]] = {}
    for verdict, ids in items:
        group = frozenset(ids)
        found[verdict].add(group)
        for i in group:
            verdict_of.setdefault(i, set()).add(verdict)
    out: dict[str, Any] = {}
    for verdict in VERDICTS:
        planted = {frozenset(g) for g in graph.planted[verdict]}
        hit = len(planted & found[verdict])
        out[verdict] = {
            "planted": len(planted),
            "reported": len(found[verdict]),
            "precision": hit / len(found[verdict]) if found[verdict] else 1.0,
            "recall": hit / len(planted) if planted else 1.0,
            "missed": [
                kind
                for g, kind in zip(graph.planted[verdict], graph.kinds[verdict], strict=True)
                if frozenset(g) not in found[verdict]
            ],
        }
    bad = [
        kind
        for g, kind in zip(graph.negatives, graph.negative_kinds, strict=True)
        if any(i in verdict_of for i in g)
    ]
    out["negatives"] = {"groups": len(graph.negatives), "reported": len(bad), "kinds": bad}
    family_ids = {i for g in graph.planted["WRITER-DEFECT"] for i in g}
    out["family_members_elsewhere"] = sum(
        1 for i in family_ids if verdict_of.get(i, set()) - {"WRITER-DEFECT"}
    )
    return out
