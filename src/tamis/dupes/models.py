"""The data `tamis dupes` works on and hands back: nodes as read, clusters found, the report.

Nodes are kept light (no body text: a hash and a length) so 100,000 of them fit in little memory;
bodies are fetched again from the source only for the few candidates that need comparing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

NodeId = int | str
Verdict = Literal["WRITER-DEFECT", "SAFE-MERGE", "HUMAN-DECISION"]
Status = Literal["new", "seen", "changed", "UNFIXED"]

VERDICT_ORDER: dict[str, int] = {"WRITER-DEFECT": 0, "SAFE-MERGE": 1, "HUMAN-DECISION": 2}
SCHEMA_VERSION = 1
T = TypeVar("T", bound=Hashable)


def id_sort_key(node_id: NodeId) -> tuple[int, int | str]:
    """Sort integers numerically and before strings, so mixed ids still sort stably."""
    return (0, node_id) if isinstance(node_id, int) else (1, str(node_id))


def linked_groups(items: Iterable[T], links: Iterable[tuple[T, T]]) -> list[list[T]]:
    """`items` split into the groups that `links` join, through a union-find: each group in the
    order of `items`, the groups in the order of their first item."""
    parent: dict[T, T] = {}

    def find(x: T) -> T:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in links:
        parent[find(a)] = find(b)
    groups: defaultdict[T, list[T]] = defaultdict(list)
    for item in items:
        groups[find(item)].append(item)
    return list(groups.values())


@dataclass(slots=True)
class NodeRecord:
    """One node as read: what detection needs, without the body text itself."""

    id: NodeId
    title: str
    created: float | None  # epoch seconds, UTC
    writer: str | None
    body_hash: bytes | None  # None when the body is empty or trivially short
    body_chars: int


@dataclass(slots=True)
class SourceInfo:
    """Where the nodes came from and how the schema was read."""

    kind: Literal["sqlite", "jsonl", "records"]
    path: str | None
    body_column: str | None
    has_dimensions: bool = False
    has_edges: bool = False
    archived_skipped: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": self.path,
            "body_column": self.body_column,
            "dimensions": self.has_dimensions,
            "edges": self.has_edges,
            "archived_skipped": self.archived_skipped,
        }


@dataclass(slots=True)
class PairEvidence:
    """Why two nodes were put together: the numbers a human checks first."""

    a: NodeId
    b: NodeId
    title_similarity: float
    body_similarity: float
    connected: bool | None = None  # already joined by an edge (None: the source has no edges)


@dataclass(slots=True)
class Item:
    """One candidate cluster with its verdict, evidence and the action a human should take."""

    key: str
    verdict: Verdict
    ids: list[NodeId]
    titles: list[str]
    action: str
    title_similarity: float
    body_similarity: float | None
    template: str | None = None
    run_family: bool = False
    agents: list[str] = field(default_factory=list)
    span_days: float | None = None
    cadence: str | None = None
    first_created: str | None = None
    last_created: str | None = None
    notes: list[str] = field(default_factory=list)
    pairs: list[PairEvidence] = field(default_factory=list)
    status: Status = "new"
    added_ids: list[NodeId] = field(default_factory=list)
    reason: str = ""  # schedule, identical bodies, similar bodies, stub
    why: str = ""  # one line a person can check in seconds

    def sort_key(self) -> tuple[int, tuple[int, int | str], str]:
        return (VERDICT_ORDER[self.verdict], id_sort_key(self.ids[0]), self.key)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "verdict": self.verdict,
            "status": self.status,
            "ids": self.ids,
            "titles": self.titles,
            "action": self.action,
            "evidence": {
                "reason": self.reason,
                "why": self.why,
                "title_similarity": self.title_similarity,
                "body_similarity": self.body_similarity,
                "template": self.template,
                "notes": self.notes,
            },
        }
        if self.run_family:
            out["run_family"] = True
            out["agents"] = self.agents
            out["span_days"] = self.span_days
            out["cadence"] = self.cadence
            out["template"] = self.template
            out["first_created"] = self.first_created
            out["last_created"] = self.last_created
        if self.pairs:
            out["evidence"]["pairs"] = [asdict(p) for p in self.pairs]
        if self.added_ids:
            out["added_ids"] = self.added_ids
        return out


@dataclass(slots=True)
class Vanished:
    """A cluster in the previous report that is no longer found."""

    key: str
    verdict: str
    ids: list[NodeId]


@dataclass(slots=True)
class Report:
    """The whole answer: every candidate cluster, how many nodes were checked, how long it took."""

    items: list[Item]
    checked: int
    seconds: float
    source: SourceInfo
    vanished: list[Vanished] = field(default_factory=list)
    previous_report: bool = False  # a state file with a previous report was read

    def counts(self) -> dict[str, int]:
        out = {verdict: 0 for verdict in VERDICT_ORDER}
        for item in self.items:
            out[item.verdict] += 1
        out["UNFIXED"] = sum(1 for item in self.items if item.status == "UNFIXED")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "checked": self.checked,
            "seconds": self.seconds,
            "source": self.source.to_dict(),
            "counts": self.counts(),
            "items": [item.to_dict() for item in self.items],
            "vanished": [asdict(v) for v in self.vanished],
            "compared_with_previous": self.previous_report,
        }
