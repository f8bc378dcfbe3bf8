"""WRITER-DEFECT: one job adding a node per scheduled run, instead of updating one node.

A run family is what a person recognises as one job's per-run records: nodes of one writer
whose titles share one template (dates, times, counters and run ids masked: `titles.py`), at
least `family_min_nodes` of them, created on a real schedule (`schedule.py`: a period of an hour
or more, gaps on it or small multiples of it, or starts inside one window of the time of day).
Bodies do not matter here: a quiet watcher's identical "nothing new" bodies and a report's
template with varying numbers are run records alike. A job that carried on under a second
writer name (moved to another cron host) or a one-word title change is one family when its
stretches never overlap and share one body template and cadence (`jobs.py`).

People and the UI are never writers here (`human_writers`). Members are kept out of the other
verdicts: merging audit records would lose them.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import UTC, datetime
from itertools import pairwise

from tamis.dupes.config import DupesConfig
from tamis.dupes.jobs import JobJoiner, Stretch
from tamis.dupes.models import Item, NodeRecord, id_sort_key, linked_groups
from tamis.dupes.read_fields import Graph
from tamis.dupes.schedule import Schedule, schedule_of
from tamis.dupes.similarity import jaccard, shingles
from tamis.dupes.titles import title_similarity, title_template

_TITLE_SAMPLE = 5
_FAMILY_BODY_SAMPLE = 10


def _one_template(templates: list[str]) -> str:
    """The shared template of titles differing in some token slots: those slots become <id>."""
    token_lists = [t.split() for t in templates]
    if len({len(t) for t in token_lists}) != 1:
        return min(templates, key=lambda t: (-templates.count(t), t))
    return " ".join(
        slot[0] if len(set(slot)) == 1 else "<id>" for slot in zip(*token_lists, strict=True)
    )


def _template_groups(templates: dict[str, list[int]]) -> list[list[str]]:
    """One writer's templates joined when they differ in one token and, in that slot, some of
    them carry a masked id or number: a run id without digits (`job kqzmtp` beside `job <id>`)
    or a number where other runs have an id is still one template."""
    seen: dict[tuple[int, int, tuple[str, ...]], list[str]] = defaultdict(list)
    for template in templates:
        tokens = template.split()
        if len(tokens) < 2:
            continue
        for p in range(len(tokens)):
            seen[(len(tokens), p, (*tokens[:p], *tokens[p + 1 :]))].append(template)
    links: list[tuple[str, str]] = []
    for (_n, p, _rest), group in seen.items():
        masked = [t for t in group if "<" in t.split()[p]]
        if masked:  # only an id-like slot joins: `(acme)` and `(apex)` stay apart
            links.extend((t, masked[0]) for t in group if t in masked or len(masked) < len(group))
    return linked_groups(templates, links)


def _stretches(nodes: list[NodeRecord], config: DupesConfig) -> list[Stretch]:
    """Each writer's runs by title template: templates that differ in a run id are tried
    together first; when their runs together follow no schedule, each template stands alone."""
    humans = {h.casefold() for h in config.human_writers}
    by_writer: defaultdict[str, defaultdict[str, list[int]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for i, node in enumerate(nodes):
        if node.writer is None or node.created is None or not node.title:
            continue
        if node.writer.casefold() in humans:
            continue
        by_writer[node.writer][title_template(node.title)].append(i)

    def stretch(writer: str, template: str, members: list[int]) -> Stretch:
        members = sorted(members, key=lambda i: nodes[i].created or 0.0)
        times = [nodes[i].created or 0.0 for i in members]
        found = None
        if len(members) >= config.family_min_nodes:
            found = schedule_of(times, config)
        return Stretch(writer, template, members, times, found)

    out: list[Stretch] = []
    for writer, templates in by_writer.items():
        for group in _template_groups(templates):
            if len(group) > 1:
                runs = [i for t in group for i in templates[t]]
                joined = stretch(writer, _one_template(group), runs)
                if joined.schedule is not None:
                    out.append(joined)
                    continue
            out.extend(stretch(writer, t, templates[t]) for t in group)
    return out


def find_run_families(graph: Graph, config: DupesConfig) -> tuple[list[Item], set[int]]:
    """WRITER-DEFECT items, and the indexes of their members (kept out of the other verdicts)."""
    nodes = graph.nodes

    def bodies_of(members: list[int]) -> list[str]:
        texts = graph.bodies(nodes[i].id for i in members)
        return [texts.get(nodes[i].id, "") for i in members]

    items: list[Item] = []
    members_all: set[int] = set()
    for job, schedule in JobJoiner(config, bodies_of).jobs(_stretches(nodes, config)):
        members = [i for s in job for i in s.members]
        if schedule is None or len(members) < config.family_min_nodes:
            continue
        members_all.update(members)
        items.append(_family_item(graph, config, job, schedule))
    return items, members_all


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def _family_item(graph: Graph, config: DupesConfig, job: list[Stretch], schedule: Schedule) -> Item:
    """The item for one run family; body similarity is the mean over its latest runs."""
    nodes: list[NodeRecord] = graph.nodes
    members = [i for s in job for i in s.members]
    writers = list(dict.fromkeys(s.writer for s in job))
    writer, template = writers[0], _one_template([s.template for s in job])
    by_time = sorted(members, key=lambda i: (nodes[i].created or 0.0, id_sort_key(nodes[i].id)))
    first, last = nodes[by_time[0]], nodes[by_time[-1]]
    ordered = sorted(members, key=lambda i: id_sort_key(nodes[i].id))
    earliest = {nodes[i].title for i in by_time[:50]}  # a quiet job repeats one title
    title_sim = min(title_similarity(first.title, title) for title in earliest)
    recent = [nodes[i] for i in by_time[-_FAMILY_BODY_SAMPLE:] if nodes[i].body_hash is not None]
    body_sim: float | None = None
    if len(recent) >= 2:
        texts = graph.bodies(n.id for n in recent)
        sets = [shingles(texts.get(n.id, ""), config.shingle_size) for n in recent]
        body_sim = round(statistics.fmean(jaccard(a, b) for a, b in pairwise(sets)), 3)
    span = ((last.created or 0.0) - (first.created or 0.0)) / 86400.0
    who = f"writer {writer}"
    if len(writers) > 1:
        moved = next(s for s in job if s.writer != writer)
        who = f"writer {writer}, then {', '.join(writers[1:])} from {_iso(moved.first)}"
    by = "one writer" if len(writers) == 1 else f"one job under {len(writers)} writer names"
    why = f"{who}: {len(members)} nodes titled \"{template}\", {schedule.label}: {schedule.why}"
    return Item(
        key=f"WRITER-DEFECT|{writer}|{template}",
        verdict="WRITER-DEFECT",
        ids=[nodes[i].id for i in ordered],
        titles=[nodes[i].title for i in ordered[:_TITLE_SAMPLE]],
        action=(
            f"never merge: each node is one run's audit record; fix writer {writers[-1]!r} "
            "to update one node instead of adding one per run"
        ),
        title_similarity=round(title_sim, 3),
        body_similarity=body_sim,
        template=template,
        run_family=True,
        agents=writers,
        span_days=round(span, 1),
        cadence=schedule.label,
        first_created=_iso(first.created),
        last_created=_iso(last.created),
        reason="schedule",
        why=why,
        notes=[f"{len(members)} nodes from one template, {by}, {schedule.label}"],
    )
