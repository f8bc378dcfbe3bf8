"""SAFE-MERGE and HUMAN-DECISION: identical bodies, the same subject, and stubs.

- SAFE-MERGE: bodies identical after whitespace normalisation, titles carrying the same record
  numbers (two invoices sharing an unfilled template are two records). Still a human decision.
- HUMAN-DECISION, similar bodies: every body proposes candidates through MinHash/LSH
  (`sketch.py`), whatever its title; titles then confirm or reject. Version markers are noise
  (`titles.core_title`); record numbers are not: titles carrying different ones are two subjects.
  A pair is kept when its body shingle Jaccard reaches `body_threshold` with agreeing titles
  (trigram Dice >= `title_threshold`), or `body_threshold_any_title` whatever the titles.
- HUMAN-DECISION, stub: an empty or stub body (under `min_body_chars`) under a title identical to
  one other node's (or to other stubs'): a person wants to see it; it is never compared by body.

Members of run families are never considered (they are audit records).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from tamis.dupes.config import DupesConfig
from tamis.dupes.models import Item, NodeRecord, PairEvidence, id_sort_key, linked_groups
from tamis.dupes.read_fields import Graph
from tamis.dupes.similarity import jaccard, shingles
from tamis.dupes.sketch import lsh_pairs
from tamis.dupes.titles import (
    core_title,
    dice,
    markers_dropped,
    normalise_title,
    record_numbers,
    title_similarity,
    title_template,
    title_trigrams,
)

_TITLE_SAMPLE = 5
_BATCH = 5000
Edge = tuple[int, int, float, float]


def _r(x: float) -> float:
    return round(x, 3)


def _sorted_ids(nodes: list[NodeRecord], members: Iterable[int]) -> list[int]:
    return sorted(members, key=lambda i: id_sort_key(nodes[i].id))


def _shared_template(titles: list[str]) -> str | None:
    templates = {title_template(t) for t in titles}
    return templates.pop() if len(templates) == 1 else None


def _numbers(nums: tuple[int, ...]) -> str:
    return "no numbers" if not nums else "the numbers " + " ".join(map(str, nums))


# -- SAFE-MERGE ---------------------------------------------------------------------------------


def find_identical_bodies(graph: Graph, exclude: set[int]) -> list[Item]:
    """SAFE-MERGE items: nodes whose whitespace-normalised bodies are identical."""
    nodes = graph.nodes
    groups: defaultdict[bytes, list[int]] = defaultdict(list)
    for i, node in enumerate(nodes):
        if node.body_hash is not None and i not in exclude:
            groups[node.body_hash].append(i)
    items: list[Item] = []
    for digest, members in groups.items():
        if len(members) < 2:
            continue
        by_numbers: defaultdict[tuple[int, ...], list[int]] = defaultdict(list)
        for i in members:
            by_numbers[record_numbers(nodes[i].title)].append(i)
        for nums, part in by_numbers.items():
            if len(part) >= 2:
                suffix = "" if len(by_numbers) == 1 else f"|{'-'.join(map(str, nums))}"
                items.append(_safe_item(nodes, digest.hex()[:20] + suffix, part, nums))
    return items


def _safe_item(
    nodes: list[NodeRecord], key: str, members: list[int], nums: tuple[int, ...]
) -> Item:
    ordered = _sorted_ids(nodes, members)
    titles = [nodes[i].title for i in ordered]
    sample = titles[:20]
    title_sim = min(title_similarity(sample[0], t) for t in sample[1:])
    notes = []
    if title_sim < 0.5:
        notes.append("titles differ: one body filed under different subjects")
    chars = nodes[ordered[0]].body_chars
    why = (
        f"bodies identical after whitespace ({len(ordered)} nodes, {chars:,} chars); "
        f"titles {title_sim:.2f} similar, {_numbers(nums)}"
    )
    return Item(
        key=f"SAFE-MERGE|{key}",
        verdict="SAFE-MERGE",
        ids=[nodes[i].id for i in ordered],
        titles=titles[:_TITLE_SAMPLE],
        action="bodies identical: merge only on an explicit human decision",
        title_similarity=_r(title_sim),
        body_similarity=1.0,
        template=_shared_template(titles),
        notes=notes,
        reason="identical bodies",
        why=why,
    )


# -- HUMAN-DECISION: similar bodies -------------------------------------------------------------


def find_near_duplicates(graph: Graph, config: DupesConfig, exclude: set[int]) -> list[Item]:
    """HUMAN-DECISION items: bodies proposed by LSH, confirmed by titles, verified exactly."""
    nodes = graph.nodes
    index = graph.sketches.index
    keep = np.ones(len(index), dtype=bool)
    seen: set[bytes] = set()
    for row, i in enumerate(index.tolist()):
        digest = nodes[i].body_hash
        if i in exclude or digest is None or digest in seen:
            keep[row] = False  # one representative per identical body: the rest is SAFE-MERGE
        else:
            seen.add(digest)
    del seen
    numbers: dict[int, tuple[int, ...]] = {}
    grams: dict[int, frozenset[str]] = {}

    def title_of(i: int) -> tuple[tuple[int, ...], frozenset[str]]:
        if i not in numbers:
            numbers[i] = record_numbers(nodes[i].title)
            grams[i] = title_trigrams(core_title(nodes[i].title))
        return numbers[i], grams[i]

    candidates: dict[tuple[int, int], float] = {}
    for a, b in lsh_pairs(graph.sketches, keep, config.lsh_min_estimate, config.max_bucket):
        nums_a, grams_a = title_of(a)
        nums_b, grams_b = title_of(b)
        if nums_a != nums_b:
            continue  # titles carrying different record numbers: two records
        candidates[(a, b)] = dice(grams_a, grams_b)
    edges = _verified(graph, config, candidates)
    return _clusters(graph, edges)


def _accept(config: DupesConfig, tsim: float, bsim: float) -> bool:
    if bsim >= 1.0:
        return False  # identical bodies are SAFE-MERGE
    if tsim >= config.title_threshold:
        return bsim >= config.body_threshold
    return bsim >= config.body_threshold_any_title


def _verified(
    graph: Graph, config: DupesConfig, candidates: dict[tuple[int, int], float]
) -> list[Edge]:
    """Candidate pairs whose exact body shingle Jaccard passes, with both similarities.

    Bodies are fetched in batches; a node's shingles are dropped after its last pair, so memory
    follows the batch, not the number of candidates.
    """
    nodes = graph.nodes
    remaining: defaultdict[int, int] = defaultdict(int)
    for a, b in candidates:
        remaining[a] += 1
        remaining[b] += 1
    sets: dict[int, frozenset[int]] = {}
    edges: list[Edge] = []
    ordered = sorted(candidates)
    for start in range(0, len(ordered), _BATCH):
        batch = ordered[start : start + _BATCH]
        missing = list(dict.fromkeys(i for pair in batch for i in pair if i not in sets))
        texts = graph.bodies(nodes[i].id for i in missing)
        for i in missing:
            sets[i] = shingles(texts.get(nodes[i].id, ""), config.shingle_size)
        del texts
        for a, b in batch:
            tsim = candidates[(a, b)]
            bsim = jaccard(sets[a], sets[b])
            if _accept(config, tsim, bsim):
                edges.append((a, b, tsim, bsim))
            for i in (a, b):
                remaining[i] -= 1
                if not remaining[i]:
                    del sets[i]
    return edges


def _clusters(graph: Graph, edges: list[Edge]) -> list[Item]:
    nodes = graph.nodes
    links = [(a, b) for a, b, _t, _s in edges]
    members = dict.fromkeys(i for link in links for i in link)
    cluster_of = {i: k for k, group in enumerate(linked_groups(members, links)) for i in group}
    by_cluster: defaultdict[int, list[Edge]] = defaultdict(list)
    for edge in edges:
        by_cluster[cluster_of[edge[0]]].append(edge)

    connected = graph.connected((nodes[a].id, nodes[b].id) for a, b, _t, _s in edges)
    items: list[Item] = []
    for cluster_edges in by_cluster.values():
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
        weakest = min(cluster_edges, key=lambda e: e[3])
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
                reason="similar bodies",
                why=_near_why(nodes, weakest, len(ordered)),
            )
        )
    return items


def _near_why(nodes: list[NodeRecord], edge: Edge, size: int) -> str:
    a, b, tsim, bsim = edge
    ta, tb = nodes[a].title, nodes[b].title
    where = "" if size == 2 else f"{size} nodes; weakest pair {nodes[a].id}-{nodes[b].id}: "
    marked = markers_dropped(ta) or markers_dropped(tb)
    dropped = " once version markers are dropped" if marked else ""
    titles = f"titles {tsim:.2f} similar{dropped}"
    if tsim < 0.5:
        titles = f"bodies alone suffice (titles only {tsim:.2f} similar)"
    return (
        f"{where}bodies {bsim:.2f} similar (word shingles), {titles}, "
        f"both with {_numbers(record_numbers(ta))}"
    )


# -- HUMAN-DECISION: stubs ----------------------------------------------------------------------


def find_stubs(graph: Graph, config: DupesConfig, exclude: set[int]) -> list[Item]:
    """Stub (or empty) bodies under a title identical to another node's: their own reason."""
    nodes = graph.nodes
    stub_titles = {
        normalise_title(n.title)
        for i, n in enumerate(nodes)
        if n.body_hash is None and i not in exclude
    }
    stub_titles -= {normalise_title(t) for t in config.generic_titles}
    stub_titles.discard("")
    if not stub_titles:
        return []
    groups: defaultdict[str, list[int]] = defaultdict(list)
    for i, node in enumerate(nodes):
        if i not in exclude:
            title = normalise_title(node.title)
            if title in stub_titles:
                groups[title].append(i)
    items: list[Item] = []
    for members in groups.values():
        full = [i for i in members if nodes[i].body_hash is not None]
        if len(members) < 2 or len(full) > 1:
            continue  # alone, or a title shared by several full nodes: it names no one subject
        ordered = _sorted_ids(nodes, members)
        stubs = [nodes[i] for i in ordered if nodes[i].body_hash is None]
        described = ", ".join(
            f"{n.id} ({'empty' if not n.body_chars else f'{n.body_chars} chars'})" for n in stubs
        )
        if full:
            beside = f" beside {nodes[full[0]].id} ({nodes[full[0]].body_chars:,} chars)"
            action = "a stub beside its full node: delete or fill the stub, by hand; never merge"
        else:
            beside = ""
            action = "stubs under one title: keep one, by hand; never merge automatically"
        items.append(
            Item(
                key=f"HUMAN-DECISION|stub|{nodes[ordered[0]].id}",
                verdict="HUMAN-DECISION",
                ids=[nodes[i].id for i in ordered],
                titles=[nodes[i].title for i in ordered[:_TITLE_SAMPLE]],
                action=action,
                title_similarity=1.0,
                body_similarity=None,
                template=_shared_template([nodes[i].title for i in ordered]),
                reason="stub",
                why=f'identical titles "{nodes[ordered[0]].title}"; stub {described}{beside}',
            )
        )
    return items
