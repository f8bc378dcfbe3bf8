"""One job across its stretches: a writer's runs under one title template, joined to the next
stretch when the same job carried on under another writer name or a one-word title change.

A job moved from one cron host to another (or renamed once) leaves two writer names on one
series; a title that names the month (`... 3rd of May`, `... 1st of June`) leaves one template
per month. A person joins such stretches when they

- never overlap in time (two hosts running the same check at once are two jobs),
- keep the same period where each is a schedule by itself,
- follow one another within the schedule's reach (`schedule_max_multiple` periods),
- share one body template: the word shingles, numbers masked, that most of each stretch's
  bodies carry (a different job under the same title writes different bodies, or names
  another bot in them),
- hold a few runs each: two neighbours together at least twice `family_min_nodes` (a title
  word that changes every run or two names an entity, not a stretch of one job),
- and together keep one cadence: the joined runs are a schedule, or each long stretch is one
  with the same period (a job moved to a host that starts it at another minute).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from tamis.dupes.config import DupesConfig
from tamis.dupes.models import linked_groups
from tamis.dupes.schedule import Schedule, schedule_of
from tamis.dupes.similarity import jaccard, shingles

_DIGITS_RE = re.compile(r"\d+")
_BODY_SAMPLE = 9  # bodies read per stretch for its template: enough for a majority
# One job's stretches carry the same body template, up to the sample's noise; two jobs whose
# bodies differ only in a name (`Quiet run of sync-bot: ...`) stay below this.
_TEMPLATE_AGREEMENT = 0.8


@dataclass(slots=True)
class Stretch:
    """One writer's runs under one title template, in creation order."""

    writer: str
    template: str
    members: list[int]  # node indexes, by creation time
    times: list[float]
    schedule: Schedule | None = None
    body_template: frozenset[int] | None = field(default=None, repr=False)

    @property
    def first(self) -> float:
        return self.times[0]

    @property
    def last(self) -> float:
        return self.times[-1]


BodiesOf = Callable[[list[int]], list[str]]


def body_template(bodies: list[str], size: int) -> frozenset[int]:
    """The shingles (numbers masked) that at least half of these bodies carry: a report's
    numbers change from run to run, and a few sampled runs may share one by chance."""
    counts: Counter[int] = Counter()
    for body in bodies:
        counts.update(shingles(_DIGITS_RE.sub("0", body), size))
    need = max(1, (len(bodies) + 1) // 2)
    return frozenset(s for s, n in counts.items() if n >= need)


def _linked(stretches: list[Stretch]) -> list[list[Stretch]]:
    """Stretches that may be one job: the same template under two writers, or one writer's
    templates differing in one word. Each group is in order of first run."""
    keys: defaultdict[tuple[str, ...], list[int]] = defaultdict(list)
    for k, stretch in enumerate(stretches):
        keys[("", stretch.template)].append(k)
        tokens = stretch.template.split()
        if len(tokens) >= 2:
            for p in range(len(tokens)):
                keys[(stretch.writer, str(p), *tokens[:p], "", *tokens[p + 1 :])].append(k)
    links = [(k, linked[0]) for linked in keys.values() for k in linked[1:]]
    return [sorted((stretches[k] for k in group), key=lambda s: s.first)
            for group in linked_groups(range(len(stretches)), links)]


class JobJoiner:
    """Joins stretches into jobs; reads bodies (a few per stretch) only for linked stretches."""

    def __init__(self, config: DupesConfig, bodies_of: BodiesOf) -> None:
        self.config = config
        self.bodies_of = bodies_of

    def jobs(self, stretches: list[Stretch]) -> list[tuple[list[Stretch], Schedule | None]]:
        """Every stretch in exactly one job; a job's schedule, or None when it keeps none."""
        out: list[tuple[list[Stretch], Schedule | None]] = []
        for group in _linked(stretches):
            for chain in self._chains(group):
                out.extend(self._judged(chain))
        return out

    def _chains(self, group: list[Stretch]) -> list[list[Stretch]]:
        """Each stretch appended to the latest-ending chain it follows (the group is in order
        of first run); chains that ended beyond any schedule's reach are no longer tried."""
        longest = max((s.schedule.period for s in group if s.schedule is not None), default=0.0)
        reach = (self.config.schedule_max_multiple + 0.5) * max(
            longest, self.config.min_period_hours * 3600
        )
        chains: list[list[Stretch]] = []
        open_chains: list[list[Stretch]] = []
        for stretch in group:
            open_chains = [c for c in open_chains if c[-1].last >= stretch.first - reach]
            before = [c for c in open_chains if self._follows(c[-1], stretch)]
            if before:
                max(before, key=lambda c: c[-1].last).append(stretch)
            else:
                chains.append([stretch])
                open_chains.append(chains[-1])
        return chains

    def _follows(self, earlier: Stretch, later: Stretch) -> bool:
        if earlier.last >= later.first:
            return False  # overlapping in time: two jobs at once
        if len(earlier.members) + len(later.members) < 2 * self.config.family_min_nodes:
            # A title word that changes every run or two names an entity (`Onboarding: Acme`,
            # `Onboarding: Apex`), not a stretch of one job.
            return False
        periods = [s.schedule.period for s in (earlier, later) if s.schedule is not None]
        if len(periods) == 2 and abs(periods[0] - periods[1]) > (
            self.config.schedule_tolerance * min(periods)
        ):
            return False  # a weekly job and a daily one: two cadences, two jobs
        reach = max(periods, default=self.config.min_period_hours * 3600)
        if later.first - earlier.last > (self.config.schedule_max_multiple + 0.5) * reach:
            return False
        a, b = self._template_of(earlier), self._template_of(later)
        if not a and not b:
            return False
        return jaccard(a, b) >= _TEMPLATE_AGREEMENT

    def _template_of(self, stretch: Stretch) -> frozenset[int]:
        if stretch.body_template is None:
            step = max(1, len(stretch.members) // _BODY_SAMPLE)
            sample = stretch.members[::step][:_BODY_SAMPLE]
            stretch.body_template = body_template(
                self.bodies_of(sample), self.config.shingle_size
            )
        return stretch.body_template

    def _judged(self, chain: list[Stretch]) -> list[tuple[list[Stretch], Schedule | None]]:
        if len(chain) == 1:
            return [(chain, chain[0].schedule)]
        times = sorted(t for s in chain for t in s.times)
        joined = schedule_of(times, self.config)
        if joined is None:
            joined = self._one_period(chain)
        if joined is None:
            return [([s], s.schedule) for s in chain]
        return [(chain, joined)]

    def _one_period(self, chain: list[Stretch]) -> Schedule | None:
        """The schedule every long stretch keeps, when they keep the same period."""
        kept = [s.schedule for s in chain if len(s.members) >= self.config.family_min_nodes]
        if not kept or any(s is None for s in kept):
            return None
        schedules = [s for s in kept if s is not None]
        first = schedules[0]
        tolerance = self.config.schedule_tolerance * first.period
        if any(abs(s.period - first.period) > tolerance for s in schedules):
            return None
        return Schedule(first.label, "; ".join(s.why for s in schedules), first.period)
