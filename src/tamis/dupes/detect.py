"""The three verdicts, and `find_duplicates`, the one entry point of the package.

- WRITER-DEFECT (run family): titles from one template once dates, times, run numbers and ids are
  masked, one writer, at least `family_min_nodes` nodes created on a regular cadence. Never merged:
  each node is one run's audit record. Its members are left out of the other two verdicts.
- SAFE-MERGE: identical bodies after whitespace normalisation (trivially short bodies ignored).
  Still only a candidate: a human decides.
- HUMAN-DECISION: near-identical titles carrying the same numbers, and bodies whose word-shingle
  Jaccard similarity reaches `body_threshold` without being identical: propose an edge.

Title overlap alone never makes a cluster: families of distinct nodes with similar titles (client
workflows, per-machine migrations) have bodies only 0.1-0.3 similar and are not reported.

Candidates come from blocking titles by the numbers they carry and by deletion neighbourhoods of
their word stems (titles equal up to one word); a block with too many pairs is split by
MinHash/LSH over body shingles. No all-pairs comparison anywhere, and bodies are fetched only for
candidates.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from itertools import combinations, pairwise, product
from pathlib import Path
from typing import Any

from tamis.dupes.config import DupesConfig, load_config
from tamis.dupes.errors import DupesError
from tamis.dupes.models import Item, NodeRecord, PairEvidence, Report, id_sort_key
from tamis.dupes.similarity import (
    band_keys,
    dice,
    jaccard,
    lsh_pairs,
    mask_dice,
    minhash,
    normalise_title,
    shingles,
    title_blocks,
    title_mask,
    title_numbers,
    title_similarity,
    title_template,
    title_trigrams,
)
from tamis.dupes.sources import Graph, JsonlGraph, RecordsGraph, SqliteGraph
from tamis.dupes.state import compare_with_previous, load_state, save_state

_TITLE_SAMPLE = 5
_FAMILY_BODY_SAMPLE = 10
_CADENCES = (("hourly", 3600.0), ("daily", 86400.0), ("weekly", 604800.0), ("monthly", 2629800.0))


def _r(x: float) -> float:
    return round(x, 3)


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def _sorted_ids(nodes: list[NodeRecord], members: Iterable[int]) -> list[int]:
    return sorted(members, key=lambda i: id_sort_key(nodes[i].id))


# -- WRITER-DEFECT ------------------------------------------------------------------------------


def cadence_of(times: list[float], config: DupesConfig) -> tuple[float, str] | None:
    """The typical gap between runs and its name, or None when creation times are not regular.

    A gap is on cadence when it is within `cadence_tolerance` of one, two or three typical gaps
    (a missed run is still a cadence); `cadence_regularity` of the gaps must be on it.
    """
    gaps = [b - a for a, b in pairwise(sorted(times))]
    if not gaps:
        return None
    typical = statistics.median(gaps)
    if typical <= 0 or typical < config.min_cadence_minutes * 60:
        return None
    on = 0
    for gap in gaps:
        k = round(gap / typical)
        if 1 <= k <= 3 and abs(gap - k * typical) <= config.cadence_tolerance * typical:
            on += 1
    if on < config.cadence_regularity * len(gaps):
        return None
    for name, seconds in _CADENCES:
        if abs(typical - seconds) <= 0.15 * seconds:
            return typical, name
    if typical < 86400:
        return typical, f"every {typical / 3600:.1f} h"
    return typical, f"every {typical / 86400:.1f} days"


def find_run_families(graph: Graph, config: DupesConfig) -> tuple[list[Item], set[int]]:
    """WRITER-DEFECT items, and the indexes of their members (kept out of the other verdicts)."""
    nodes = graph.nodes
    humans = {h.casefold() for h in config.human_writers}
    groups: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for i, node in enumerate(nodes):
        if node.writer is None or node.created is None or not node.title:
            continue
        if node.writer.casefold() in humans:
            continue
        groups[(node.writer, title_template(node.title))].append(i)

    items: list[Item] = []
    members_all: set[int] = set()
    for (writer, template), members in groups.items():
        if len(members) < config.family_min_nodes:
            continue
        times = [nodes[i].created for i in members if nodes[i].created is not None]
        cadence = cadence_of(times, config)
        if cadence is None:
            continue
        members_all.update(members)
        items.append(_family_item(graph, config, writer, template, members, cadence[1]))
    return items, members_all


def _family_item(
    graph: Graph,
    config: DupesConfig,
    writer: str,
    template: str,
    members: list[int],
    cadence: str,
) -> Item:
    """The item for one run family; body similarity is the mean over its latest runs."""
    nodes = graph.nodes
    by_time = sorted(members, key=lambda i: (nodes[i].created or 0.0, id_sort_key(nodes[i].id)))
    first, last = nodes[by_time[0]], nodes[by_time[-1]]
    ordered = _sorted_ids(nodes, members)
    first_grams = title_trigrams(normalise_title(first.title))
    title_sim = min(
        dice(first_grams, title_trigrams(normalise_title(nodes[i].title))) for i in members
    )
    recent = [nodes[i] for i in by_time[-_FAMILY_BODY_SAMPLE:] if nodes[i].body_hash is not None]
    body_sim: float | None = None
    if len(recent) >= 2:
        texts = graph.bodies(n.id for n in recent)
        sets = [shingles(texts.get(n.id, ""), config.shingle_size) for n in recent]
        body_sim = _r(statistics.fmean(jaccard(a, b) for a, b in pairwise(sets)))
    span = ((last.created or 0.0) - (first.created or 0.0)) / 86400.0
    return Item(
        key=f"WRITER-DEFECT|{writer}|{template}",
        verdict="WRITER-DEFECT",
        ids=[nodes[i].id for i in ordered],
        titles=[nodes[i].title for i in ordered[:_TITLE_SAMPLE]],
        action=(
            f"never merge: each node is one run's audit record; fix writer {writer!r} "
            "to update one node instead of adding one per run"
        ),
        title_similarity=_r(title_sim),
        body_similarity=body_sim,
        template=template,
        run_family=True,
        agents=[writer],
        span_days=round(span, 1),
        cadence=cadence,
        first_created=_iso(first.created),
        last_created=_iso(last.created),
        notes=[f"{len(members)} nodes from one template, one writer, {cadence}"],
    )


# -- SAFE-MERGE ---------------------------------------------------------------------------------


def find_identical_bodies(graph: Graph, exclude: set[int]) -> list[Item]:
    """SAFE-MERGE items: groups of nodes whose whitespace-normalised bodies are identical."""
    nodes = graph.nodes
    groups: defaultdict[bytes, list[int]] = defaultdict(list)
    for i, node in enumerate(nodes):
        if node.body_hash is not None and i not in exclude:
            groups[node.body_hash].append(i)
    items: list[Item] = []
    for digest, members in groups.items():
        if len(members) < 2:
            continue
        ordered = _sorted_ids(nodes, members)
        titles = [nodes[i].title for i in ordered]
        notes: list[str] = []
        numbers = {title_numbers(t) for t in titles}
        if len(numbers) > 1:
            notes.append(
                "titles carry different numbers: possibly distinct records sharing one body"
            )
        sample = titles[:20]
        title_sim = min(title_similarity(sample[0], t) for t in sample[1:])
        if title_sim < 0.5:
            notes.append("titles differ: one body filed under different subjects")
        items.append(
            Item(
                key=f"SAFE-MERGE|{digest.hex()[:20]}",
                verdict="SAFE-MERGE",
                ids=[nodes[i].id for i in ordered],
                titles=titles[:_TITLE_SAMPLE],
                action="bodies identical: merge only on an explicit human decision",
                title_similarity=_r(title_sim),
                body_similarity=1.0,
                template=_shared_template(titles),
                notes=notes,
            )
        )
    return items


def _shared_template(titles: list[str]) -> str | None:
    templates = {title_template(t) for t in titles}
    return templates.pop() if len(templates) == 1 else None


# -- HUMAN-DECISION -----------------------------------------------------------------------------


class _BodyCache:
    """Body shingles (for exact comparison) and LSH band keys (for splitting big blocks).

    Bodies are fetched from the source in batches, only for nodes that need them. Band keys are
    kept for reuse; shingle sets only for nodes that will be compared exactly.
    """

    def __init__(self, graph: Graph, config: DupesConfig) -> None:
        self.graph = graph
        self.config = config
        self.sets: dict[int, frozenset[int]] = {}
        self.bands: dict[int, tuple[int, ...]] = {}

    def _shingled(self, indexes: list[int]) -> Iterator[tuple[int, frozenset[int]]]:
        nodes = self.graph.nodes
        size = self.config.shingle_size
        for start in range(0, len(indexes), 2000):
            chunk = indexes[start : start + 2000]
            texts = self.graph.bodies(nodes[i].id for i in chunk)
            for i in chunk:
                yield i, shingles(texts.get(nodes[i].id, ""), size)

    def ensure(self, indexes: Iterable[int]) -> None:
        missing = [i for i in dict.fromkeys(indexes) if i not in self.sets]
        self.sets.update(self._shingled(missing))

    def __getitem__(self, i: int) -> frozenset[int]:
        return self.sets[i]

    def lsh(self, members: list[int]) -> set[tuple[int, int]]:
        """Pairs of members whose bodies are likely similar (MinHash LSH), never all pairs."""
        size, rows = self.config.minhash_size, self.config.lsh_rows
        missing = [i for i in members if i not in self.bands]
        for i, shingle_set in self._shingled(missing):
            self.bands[i] = band_keys(minhash(shingle_set, size), rows)
        return lsh_pairs({i: self.bands[i] for i in members})


def _block_pairs(
    left: list[int], right: list[int] | None, bodies: _BodyCache, max_pairs: int
) -> Iterable[tuple[int, int]]:
    """Candidate pairs within one title group (right is None) or across two similar groups."""
    if right is None:
        if len(left) * (len(left) - 1) // 2 <= max_pairs:
            return combinations(left, 2)
        return bodies.lsh(left)
    if len(left) * len(right) <= max_pairs:
        return product(left, right)
    right_set = set(right)
    return [(a, b) for a, b in bodies.lsh(left + right) if (a in right_set) != (b in right_set)]


_MASK_SLACK = 0.03  # a trigram mask's Dice is within about 0.01 of the exact one


def find_near_duplicates(graph: Graph, config: DupesConfig, exclude: set[int]) -> list[Item]:
    """HUMAN-DECISION items: same subject, bodies overlapping by at least `body_threshold`.

    Nodes are grouped by normalised title and the numbers it carries; distinct titles become
    candidates through deletion neighbourhoods of their word stems (`title_blocks`) and must
    reach `title_threshold` (trigram Dice). Any block with more than `max_block_pairs` pairs is
    split by MinHash/LSH over body shingles. Only then are bodies fetched and compared exactly.
    """
    nodes = graph.nodes
    groups: defaultdict[tuple[tuple[int, ...], str], list[int]] = defaultdict(list)
    for i, node in enumerate(nodes):
        if i in exclude or node.body_hash is None:
            continue
        norm = normalise_title(node.title)
        if norm:
            groups[(title_numbers(node.title), norm)].append(i)
    keys = list(groups)
    members_of = [groups[k] for k in keys]
    del groups
    threshold, max_pairs = config.title_threshold, config.max_block_pairs
    bodies = _BodyCache(graph, config)
    masks: dict[int, int] = {}
    candidates: dict[tuple[int, int], float] = {}

    def title_dice(u: int, v: int) -> float:
        """Exact trigram Dice of two distinct titles, 0.0 when the masks rule it out."""
        for w in (u, v):
            if w not in masks:
                masks[w] = title_mask(keys[w][1])
        if mask_dice(masks[u], masks[v]) < threshold - _MASK_SLACK:
            return 0.0
        return dice(title_trigrams(keys[u][1]), title_trigrams(keys[v][1]))

    def add(pairs: Iterable[tuple[int, int]], tsim: float) -> None:
        for a, b in pairs:
            if nodes[a].body_hash == nodes[b].body_hash:
                continue  # identical bodies are SAFE-MERGE
            pair = (a, b) if a < b else (b, a)
            if tsim > candidates.get(pair, 0.0):
                candidates[pair] = tsim

    for members in members_of:  # one title, several nodes
        if len(members) > 1:
            add(_block_pairs(members, None, bodies, max_pairs), 1.0)
    similar_titles: dict[tuple[int, int], float] = {}
    for block in title_blocks([k[1] for k in keys], [k[0] for k in keys]):
        n = len(block)
        if n * (n - 1) // 2 <= max_pairs:
            for u, v in combinations(block, 2):
                if (u, v) not in similar_titles and (d := title_dice(u, v)) >= threshold:
                    similar_titles[(u, v)] = d
            continue
        # Many titles share all but one stem: let the bodies pick the pairs.
        title_of = {i: u for u in block for i in members_of[u]}
        for a, b in bodies.lsh(list(title_of)):
            u, v = title_of[a], title_of[b]
            d = 1.0 if u == v else title_dice(u, v)
            if d >= threshold:
                add([(a, b)], d)
    masks.clear()
    for (u, v), d in similar_titles.items():
        add(_block_pairs(members_of[u], members_of[v], bodies, max_pairs), d)
    del similar_titles
    bodies.bands.clear()
    return _clusters(graph, _verified(candidates, bodies, config.body_threshold))


def _verified(
    candidates: dict[tuple[int, int], float], bodies: _BodyCache, threshold: float
) -> list[tuple[int, int, float, float]]:
    """Candidate pairs whose body shingle Jaccard reaches the threshold, with both similarities.

    Pairs are checked in batches; a node's shingles are dropped after its last pair, so memory
    follows the batch, not the number of candidates.
    """
    remaining: defaultdict[int, int] = defaultdict(int)
    for a, b in candidates:
        remaining[a] += 1
        remaining[b] += 1
    edges: list[tuple[int, int, float, float]] = []
    ordered = sorted(candidates)
    for start in range(0, len(ordered), 5000):
        batch = ordered[start : start + 5000]
        bodies.ensure(i for pair in batch for i in pair)
        for a, b in batch:
            bsim = jaccard(bodies[a], bodies[b])
            if bsim >= threshold:
                edges.append((a, b, candidates[(a, b)], bsim))
            for i in (a, b):
                remaining[i] -= 1
                if not remaining[i]:
                    del bodies.sets[i]
    return edges


def _clusters(graph: Graph, edges: list[tuple[int, int, float, float]]) -> list[Item]:
    nodes = graph.nodes
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _t, _s in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    by_root: defaultdict[int, list[tuple[int, int, float, float]]] = defaultdict(list)
    for edge in edges:
        by_root[find(edge[0])].append(edge)

    connected = graph.connected((nodes[a].id, nodes[b].id) for a, b, _t, _s in edges)
    items: list[Item] = []
    for cluster_edges in by_root.values():
        members = {i for a, b, _t, _s in cluster_edges for i in (a, b)}
        ordered = _sorted_ids(nodes, members)
        pairs = []
        for a, b, tsim, bsim in cluster_edges:
            ida, idb = sorted((nodes[a].id, nodes[b].id), key=id_sort_key)
            link = None if connected is None else frozenset((ida, idb)) in connected
            pairs.append(PairEvidence(ida, idb, _r(tsim), _r(bsim), link))
        pairs.sort(key=lambda p: (id_sort_key(p.a), id_sort_key(p.b)))
        titles = [nodes[i].title for i in ordered]
        if all(p.connected for p in pairs):
            action = "already connected by an edge: nothing to do; never merge"
        else:
            action = "same subject, bodies differ: propose connect (an edge), never merge"
        items.append(
            Item(
                key=f"HUMAN-DECISION|{nodes[ordered[0]].id}",
                verdict="HUMAN-DECISION",
                ids=[nodes[i].id for i in ordered],
                titles=titles[:_TITLE_SAMPLE],
                action=action,
                title_similarity=min(p.title_similarity for p in pairs),
                body_similarity=min(p.body_similarity for p in pairs),
                template=_shared_template(titles),
                pairs=pairs,
            )
        )
    return items


# -- entry points -------------------------------------------------------------------------------


def detect(graph: Graph, config: DupesConfig) -> list[Item]:
    """Every candidate cluster in the graph, sorted by verdict, then first id."""
    families, in_family = find_run_families(graph, config)
    items = families
    items += find_identical_bodies(graph, in_family)
    items += find_near_duplicates(graph, config, in_family)
    items.sort(key=Item.sort_key)
    return items


def open_graph(
    db: str | Path | None = None,
    *,
    jsonl: str | Path | None = None,
    nodes: Iterable[Mapping[str, Any]] | None = None,
    config: DupesConfig,
) -> Graph:
    """The source named by exactly one of `db`, `jsonl` and `nodes`."""
    given = [x is not None for x in (db, jsonl, nodes)]
    if sum(given) != 1:
        raise DupesError("give exactly one input: a database (--db) or a JSON Lines file (--jsonl)")
    if db is not None:
        return SqliteGraph(db, config)
    if jsonl is not None:
        return JsonlGraph(jsonl, config)
    assert nodes is not None
    return RecordsGraph(nodes, config)


def find_duplicates(
    db: str | Path | None = None,
    *,
    jsonl: str | Path | None = None,
    nodes: Iterable[Mapping[str, Any]] | None = None,
    config: DupesConfig | str | Path | None = None,
    state: str | Path | None = None,
) -> Report:
    """Detect duplicate candidates, read-only, and return the report.

    Give one input: `db` (an RA-H OS SQLite file), `jsonl` (one node per line) or `nodes`
    (mappings with id, title, notes/content, created_at, metadata). `config` is a `DupesConfig` or
    a YAML file with a `dupes:` section. With `state`, the previous report there marks items new,
    changed or UNFIXED and lists vanished ones, and this report replaces it (atomically).
    Raises `DupesError` with a one-line message for any bad input.
    """
    start = time.perf_counter()
    cfg = config if isinstance(config, DupesConfig) else load_config(config)
    previous = load_state(state) if state is not None else None
    graph = open_graph(db, jsonl=jsonl, nodes=nodes, config=cfg)
    try:
        items = detect(graph, cfg)
    finally:
        graph.close()
    report = Report(
        items=items,
        checked=len(graph.nodes),
        seconds=round(time.perf_counter() - start, 3),
        source=graph.info,
    )
    if previous is not None:
        compare_with_previous(report, previous)
    if state is not None:
        save_state(state, report)
    return report
