"""WRITER-DEFECT: one writer adding a node per scheduled run, instead of updating one node.

A run family is every node of one writer whose titles share one template (dates, times, run
numbers and ids masked), at least `family_min_nodes` of them, created on a real schedule:

- a period of at least `min_period_hours` (faster is a burst: an import, a paste), with every gap
  (or `schedule_regularity` of them) on that period or a small multiple of it (weekends, missed
  runs), within `schedule_tolerance` of the period and `schedule_max_jitter_minutes`; or
- runs on distinct days that all start inside one `window_minutes` window of the time of day
  (a job started at first login).

People and the UI are never writers here (`human_writers`). Members are kept out of the other
verdicts: merging audit records would lose them.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise

from tamis.dupes.config import DupesConfig
from tamis.dupes.models import Item, NodeRecord, id_sort_key
from tamis.dupes.read_fields import Graph
from tamis.dupes.similarity import jaccard, shingles
from tamis.dupes.titles import title_similarity, title_template

_TITLE_SAMPLE = 5
_FAMILY_BODY_SAMPLE = 10
_NAMES = {3600.0: "hourly", 86400.0: "daily", 604800.0: "weekly"}


@dataclass(frozen=True, slots=True)
class Schedule:
    """What made a family's creation times a schedule, in words a person can check."""

    label: str  # "daily", "every 6 h", "daily window 07:00-07:40 UTC"
    why: str  # "every gap 1-3 x 24 h (+/- 12 min)"


def _period_name(seconds: float) -> str:
    for value, name in _NAMES.items():
        if abs(seconds - value) <= 0.01 * value:
            return name
    if seconds < 86400:
        return f"every {seconds / 3600:g} h"
    return f"every {seconds / 86400:g} days"


def _short(seconds: float) -> str:
    return f"{seconds / 3600:g} h" if seconds < 86400 * 2 else f"{seconds / 86400:g} days"


def _on_period(gaps: list[float], period: float, config: DupesConfig) -> list[int] | None:
    """The multiple of `period` each gap is on, or None when too many gaps are off it."""
    tol = _tolerance(period, config)
    multiples = []
    for gap in gaps:
        k = round(gap / period)
        if 1 <= k <= config.schedule_max_multiple and abs(gap - k * period) <= tol:
            multiples.append(k)
    allowed_off = int((1 - config.schedule_regularity) * len(gaps) + 1e-9)
    if not multiples or len(multiples) < len(gaps) - allowed_off:
        return None
    step = math.gcd(*multiples)
    if multiples.count(step) < config.schedule_min_consecutive * len(gaps):
        return None  # mostly long silences: arrivals that happen to land near a period
    return multiples


def _tolerance(period: float, config: DupesConfig) -> float:
    return min(config.schedule_tolerance * period, config.schedule_max_jitter_minutes * 60)


def schedule_of(times: list[float], config: DupesConfig) -> Schedule | None:
    """The schedule these creation times follow, or None when they follow none."""
    times = sorted(times)
    if len(times) < max(3, config.family_min_nodes):
        return None
    gaps = [b - a for a, b in pairwise(times)]
    floor = config.min_period_hours * 3600
    periods = sorted({p * 3600 for p in config.schedule_periods_hours if p * 3600 >= floor})
    periods.reverse()  # the longest configured period that fits names the schedule...
    if len(times) >= 6 and statistics.median(gaps) >= floor:
        periods.append(statistics.median(gaps))  # ...else the typical gap, given enough runs
    for period in periods:
        multiples = _on_period(gaps, period, config)
        if multiples is None:
            continue
        step = math.gcd(*multiples)
        tol = _tolerance(period, config)
        spread = f"{min(multiples)}" if min(multiples) == max(multiples) else (
            f"{min(multiples)}-{max(multiples)}"
        )
        on = f"{len(multiples)} of {len(gaps)} gaps" if len(multiples) < len(gaps) else (
            "every gap"
        )
        return Schedule(
            _period_name(period * step),
            f"{on} {spread} x {_short(period)} (+/- {tol / 60:.0f} min)",
        )
    return _time_of_day_window(times, config)


def _time_of_day_window(times: list[float], config: DupesConfig) -> Schedule | None:
    if config.window_minutes <= 0 or len(times) < config.window_min_nodes:
        return None
    stamps = [datetime.fromtimestamp(t, UTC) for t in times]
    if all(t % 86400 == 0 for t in times):
        return None  # dates without a time of day (`2024-05-01`) say nothing about a window
    if len({s.date() for s in stamps}) < len(stamps):
        return None  # two runs on one day: not a once-a-day start
    minutes = sorted(s.hour * 60 + s.minute + s.second / 60 for s in stamps)
    gaps = [b - a for a, b in pairwise(minutes)] + [minutes[0] + 1440 - minutes[-1]]
    widest = max(range(len(gaps)), key=gaps.__getitem__)
    width = 1440 - gaps[widest]
    if width > config.window_minutes:
        return None
    start = minutes[(widest + 1) % len(minutes)]
    end = (start + width) % 1440

    def hhmm(m: float) -> str:
        return f"{int(m) // 60:02d}:{int(m) % 60:02d}"

    window = f"{hhmm(start)}-{hhmm(end)} UTC"
    return Schedule(f"daily window {window}", f"{len(times)} runs on distinct days, all {window}")


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
    parent = {t: t for t in templates}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    seen: dict[tuple[int, int, tuple[str, ...]], list[str]] = defaultdict(list)
    for template in templates:
        tokens = template.split()
        if len(tokens) < 2:
            continue
        for p in range(len(tokens)):
            seen[(len(tokens), p, (*tokens[:p], *tokens[p + 1 :]))].append(template)
    for (_n, p, _rest), group in seen.items():
        masked = [t for t in group if "<" in t.split()[p]]
        for template in group:  # only an id-like slot joins: `(acme)` and `(apex)` stay apart
            if masked and (template in masked or len(masked) < len(group)):
                parent[find(template)] = find(masked[0])
    groups: defaultdict[str, list[str]] = defaultdict(list)
    for template in templates:
        groups[find(template)].append(template)
    return list(groups.values())


def find_run_families(graph: Graph, config: DupesConfig) -> tuple[list[Item], set[int]]:
    """WRITER-DEFECT items, and the indexes of their members (kept out of the other verdicts).

    A writer's templates that differ in one token are tried together first; when their runs
    together follow no schedule, each template is tried alone.
    """
    nodes = graph.nodes
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

    items: list[Item] = []
    members_all: set[int] = set()

    def consider(writer: str, template: str, members: list[int]) -> bool:
        if len(members) < config.family_min_nodes:
            return False
        schedule = schedule_of([nodes[i].created or 0.0 for i in members], config)
        if schedule is None:
            return False
        members_all.update(members)
        items.append(_family_item(graph, config, writer, template, members, schedule))
        return True

    for writer, templates in by_writer.items():
        for group in _template_groups(templates):
            joined = [i for t in group for i in templates[t]]
            if len(group) > 1 and consider(writer, _one_template(group), joined):
                continue
            for template in group:
                consider(writer, template, templates[template])
    return items, members_all


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def _family_item(
    graph: Graph,
    config: DupesConfig,
    writer: str,
    template: str,
    members: list[int],
    schedule: Schedule,
) -> Item:
    """The item for one run family; body similarity is the mean over its latest runs."""
    nodes: list[NodeRecord] = graph.nodes
    by_time = sorted(members, key=lambda i: (nodes[i].created or 0.0, id_sort_key(nodes[i].id)))
    first, last = nodes[by_time[0]], nodes[by_time[-1]]
    ordered = sorted(members, key=lambda i: id_sort_key(nodes[i].id))
    title_sim = min(title_similarity(first.title, nodes[i].title) for i in by_time[:50])
    recent = [nodes[i] for i in by_time[-_FAMILY_BODY_SAMPLE:] if nodes[i].body_hash is not None]
    body_sim: float | None = None
    if len(recent) >= 2:
        texts = graph.bodies(n.id for n in recent)
        sets = [shingles(texts.get(n.id, ""), config.shingle_size) for n in recent]
        body_sim = round(statistics.fmean(jaccard(a, b) for a, b in pairwise(sets)), 3)
    span = ((last.created or 0.0) - (first.created or 0.0)) / 86400.0
    why = (
        f"writer {writer}: {len(members)} nodes titled \"{template}\", {schedule.label}: "
        f"{schedule.why}"
    )
    return Item(
        key=f"WRITER-DEFECT|{writer}|{template}",
        verdict="WRITER-DEFECT",
        ids=[nodes[i].id for i in ordered],
        titles=[nodes[i].title for i in ordered[:_TITLE_SAMPLE]],
        action=(
            f"never merge: each node is one run's audit record; fix writer {writer!r} "
            "to update one node instead of adding one per run"
        ),
        title_similarity=round(title_sim, 3),
        body_similarity=body_sim,
        template=template,
        run_family=True,
        agents=[writer],
        span_days=round(span, 1),
        cadence=schedule.label,
        first_created=_iso(first.created),
        last_created=_iso(last.created),
        reason="schedule",
        why=why,
        notes=[f"{len(members)} nodes from one template, one writer, {schedule.label}"],
    )
