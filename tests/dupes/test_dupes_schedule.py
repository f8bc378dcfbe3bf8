"""A writer defect is a schedule: a period of an hour or more, gaps on it or small multiples
of it, or starts within one window of the time of day; bursts and irregular notes are not."""

from __future__ import annotations

import random

import pytest

from tamis.dupes import DupesConfig
from tamis.dupes.schedule import schedule_of

H = 3600.0
MONDAY = 1_704_067_200.0 + 6 * H  # 2024-01-01 06:00 UTC


def times_from(gaps_hours: list[float], start: float = MONDAY) -> list[float]:
    times = [start]
    for gap in gaps_hours:
        times.append(times[-1] + gap * H)
    return times


@pytest.mark.parametrize(
    ("gaps_hours", "label"),
    [
        ([24, 24, 24, 24], "daily"),
        ([24, 24.2, 23.9, 48, 24], "daily"),  # a missed run is still a schedule
        ([24, 24, 24, 24, 72, 24, 24, 24, 24, 72, 24], "daily"),  # weekdays only
        ([1, 1.1, 0.95, 1, 1.05], "hourly"),  # a few minutes of run time either way
        ([168, 168.1, 167.9], "weekly"),
        ([6, 6, 6, 6], "every 6 h"),
        ([72, 72, 72, 72, 72, 72], "every 3 days"),
    ],
)
def test_schedules(gaps_hours: list[float], label: str) -> None:
    found = schedule_of(times_from(gaps_hours), DupesConfig())

    assert found is not None and found.label == label


@pytest.mark.parametrize(
    "gaps_hours",
    [
        [24, 120, 3, 700],  # irregular: someone's notes
        [0.01, 0.01, 0.01, 0.01],  # a burst: an import, not a schedule
        [0.1, 0.12, 0.09, 0.11, 0.1, 0.1],  # every 6 minutes: under the one-hour floor
        [26.5, 51.2, 167.4],  # meetings on three odd days
        [5.0, 49.0, 97.0],  # mostly long silences that happen to land near a period
        [2.3, 5.7, 2.25],  # webhook notes within 20 min of 2 h multiples: too loose to be chance
    ],
)
def test_not_schedules(gaps_hours: list[float]) -> None:
    assert schedule_of(times_from(gaps_hours), DupesConfig()) is None


def test_runs_starting_in_one_morning_window_are_a_schedule() -> None:
    rng = random.Random(5)
    days = sorted(rng.sample(range(40), 12))  # a job run at first login, not every day
    times = [MONDAY + d * 24 * H + rng.uniform(0, 40 * 60) for d in days]

    found = schedule_of(times, DupesConfig())

    assert found is not None and found.label.startswith("daily window 06:")


def test_notes_saved_at_any_hour_are_not_a_window() -> None:
    rng = random.Random(6)
    times = [MONDAY + d * 24 * H + rng.uniform(0, 9 * H) for d in range(0, 30, 3)]

    assert schedule_of(times, DupesConfig()) is None


def test_the_floor_and_the_tolerance_are_config() -> None:
    six_minutes = times_from([0.1] * 8)
    assert schedule_of(six_minutes, DupesConfig()) is None
    found = schedule_of(
        six_minutes, DupesConfig(min_period_hours=0.05, schedule_periods_hours=[0.1])
    )
    assert found is not None
