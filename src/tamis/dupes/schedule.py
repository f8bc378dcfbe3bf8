"""When creation times are a schedule: the evidence that a writer's nodes are per-run records.

A schedule is either

- a period of at least `min_period_hours` (faster is a burst: an import, a paste), with every gap
  (or `schedule_regularity` of them) on that period or a small multiple of it (weekends, missed
  runs), within `schedule_tolerance` of the period and `schedule_max_jitter_minutes`, and so
  close to it that arrivals at random times would fit it as well less than
  `schedule_max_chance` of the time (a cron is off by seconds; four webhook notes landing
  within 20 minutes of 2 h multiples is a one-in-thirty chance, not a schedule); or
- runs on distinct days that all start inside one `window_minutes` window of the time of day
  (a job started at first login).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise

from tamis.dupes.config import DupesConfig

_NAMES = {3600.0: "hourly", 86400.0: "daily", 604800.0: "weekly"}
_CLOCK_GRAIN = 60.0  # seconds: creation times rounded to the minute still show a cron's precision


@dataclass(frozen=True, slots=True)
class Schedule:
    """What made a family's creation times a schedule, in words a person can check."""

    label: str  # "daily", "every 6 h", "daily window 07:00-07:40 UTC"
    why: str  # "every gap 1-3 x 24 h (+/- 12 min)"
    period: float  # seconds between runs: one job keeps it when it moves to another host


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
    """The multiple of `period` each gap is on, or None when too many gaps are off it, or when
    gaps this far off the period would land on it by chance too often."""
    tol = _tolerance(period, config)
    multiples = []
    worst = _CLOCK_GRAIN
    for gap in gaps:
        k = round(gap / period)
        if 1 <= k <= config.schedule_max_multiple and abs(gap - k * period) <= tol:
            multiples.append(k)
            worst = max(worst, abs(gap - k * period))
    # An arrival at a random time lands within `worst` of a multiple of the period with a
    # chance of about 2 * worst / period; every on-schedule gap doing so by accident is rarer.
    if multiples and (2 * worst / period) ** len(multiples) > config.schedule_max_chance:
        return None  # a few webhook notes that happen to fall ~2 h apart
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
            period * step,
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
    return Schedule(
        f"daily window {window}", f"{len(times)} runs on distinct days, all {window}", 86400.0
    )
