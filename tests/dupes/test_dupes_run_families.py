"""Run families that do not look like a dated series (issue 32): quiet watchers, reports titled
by a counter or a weekday, a job that moved to another writer; and the near misses that stay
apart (two hosts at once, two cadences, one entity per run)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tamis.dupes import find_duplicates

START = datetime(2024, 5, 1, 6, 0, tzinfo=UTC)  # a Wednesday


def _node(node_id: int, title: str, body: str, at: datetime, **meta: Any) -> dict[str, Any]:
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"id": node_id, "title": title, "notes": body, "created_at": stamp, "metadata": meta}


def _check_body(k: int, host: str = "db-1") -> str:
    return (
        f"Checked {180 + k % 7} endpoints on {host}: {170 + k % 5} healthy, {k % 3} degraded. "
        f"Median latency {90 + 7 * k % 40} ms. Disk usage on the primary volume {60 + k % 9}%. "
        f"Backups verified: {12 + k % 3} of 14."
    )


def _items(nodes: list[dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    return [(item.verdict, item.ids) for item in find_duplicates(nodes=nodes).items]


def test_a_quiet_watcher_is_one_family_never_a_safe_merge_or_a_stub() -> None:
    nodes = []
    for k in range(1, 25):
        body = "No new items in #support." if k % 6 else f"{k % 4 + 1} new items in #support."
        at = START + timedelta(hours=k, seconds=17 * k % 90)
        nodes.append(_node(k, "Watch support", body, at, agent="support-watcher"))
    nodes.append(_node(99, "Watch support", "", START - timedelta(days=40)))  # typed by a person

    (item,) = find_duplicates(nodes=nodes).items

    assert (item.verdict, item.ids) == ("WRITER-DEFECT", list(range(1, 25)))
    assert item.cadence == "hourly"


def test_weekday_names_and_ordinal_days_in_titles_are_dates() -> None:
    weekday = [
        _node(k, f"Acme metrics report: {(START + timedelta(days=k)):%a %-d %b}", _check_body(k),
              START + timedelta(days=k, minutes=k % 4), agent="report-job")
        for k in range(14)
    ]
    ordinal = [
        _node(100 + k, f"Uptime check - {_ordinal(k + 1)} of May", _check_body(k),
              START + timedelta(hours=6 * k), writer="uptime-job")
        for k in range(12)
    ]

    assert _items(weekday + ordinal) == [
        ("WRITER-DEFECT", list(range(14))),
        ("WRITER-DEFECT", list(range(100, 112))),
    ]


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"


def test_a_job_moved_to_another_host_is_one_family_naming_both_writers() -> None:
    nodes = []
    for k in range(20):
        moved = k >= 8
        at = START + timedelta(days=k, minutes=40 if moved else 0)  # the new host starts later
        writer = "digest@scheduler" if moved else "digest@cron-a"
        nodes.append(_node(k, f"Backup check #{k + 101}", _check_body(k), at, agent=writer))

    (item,) = find_duplicates(nodes=nodes).items

    assert (item.verdict, item.ids) == ("WRITER-DEFECT", list(range(20)))
    assert item.agents == ["digest@cron-a", "digest@scheduler"]
    assert "'digest@scheduler'" in item.action
    assert "then digest@scheduler from 2024-05-09" in item.why


def test_two_hosts_running_one_check_at_once_are_two_families() -> None:
    nodes = [
        _node(10 * k + h, "Nightly health check", _check_body(k, host),
              START + timedelta(days=k, minutes=20 * h), agent=f"check-{host}")
        for k in range(10)
        for h, host in enumerate(["alpha", "bravo"])
    ]

    assert _items(nodes) == [
        ("WRITER-DEFECT", [10 * k for k in range(10)]),
        ("WRITER-DEFECT", [10 * k + 1 for k in range(10)]),
    ]


def test_a_daily_job_then_a_weekly_one_under_one_title_are_two_jobs() -> None:
    daily = [
        _node(k, f"Sync report {START + timedelta(days=k):%Y-%m-%d}", _check_body(k),
              START + timedelta(days=k), agent="sync-daily")
        for k in range(10)
    ]
    weekly = [
        _node(100 + k, f"Sync report {START + timedelta(days=12 + 7 * k):%Y-%m-%d}",
              _check_body(k), START + timedelta(days=12 + 7 * k), agent="sync-weekly")
        for k in range(6)
    ]

    assert _items(daily + weekly) == [
        ("WRITER-DEFECT", list(range(10))),
        ("WRITER-DEFECT", list(range(100, 106))),
    ]


def test_two_bots_whose_quiet_bodies_name_them_are_two_jobs() -> None:
    def quiet(bot: str) -> str:
        return (f"Quiet run of {bot}: nothing new since the last run. No items collected, "
                "no alerts raised, nothing to summarise. Next run as scheduled.")

    nodes = [
        _node(k, f"Feed crawl {START + timedelta(days=k):%Y-%m-%d}",
              quiet("sweep-bot" if k < 10 else "crawl-bot"), START + timedelta(days=k),
              agent="sweep-bot" if k < 10 else "crawl-bot")
        for k in range(20)
    ]

    assert _items(nodes) == [("WRITER-DEFECT", list(range(10))),
                             ("WRITER-DEFECT", list(range(10, 20)))]


def test_a_title_word_that_changes_with_the_month_is_one_job() -> None:
    nodes = [
        _node(k, f"Acme daily check ({(START + timedelta(days=20 + k)):%B})", _check_body(k),
              START + timedelta(days=20 + k, minutes=k % 5), agent="acme-checker")
        for k in range(24)
    ]

    (item,) = find_duplicates(nodes=nodes).items

    assert (item.verdict, item.ids) == ("WRITER-DEFECT", list(range(24)))
    assert item.template == "acme daily check <id>"


def test_one_entity_per_run_on_a_schedule_is_not_a_run_family() -> None:
    clients = ["Acme", "Apex", "Axis", "Aero", "Alto", "Arca", "Argo", "Atlas"]
    nodes = [
        _node(k, f"Client onboarding: {client}", f"Onboarding record for {client}. "
              + _check_body(0), START + timedelta(hours=k), agent="crm-sync")
        for k, client in enumerate(clients)
    ]

    assert all(verdict != "WRITER-DEFECT" for verdict, _ids in _items(nodes))
