"""The run families of the generated graph (`dupes_graphgen.py`): scheduled jobs that add one
node per run, in every shape a real graph holds them, and the near misses that are not one.

Planted as WRITER-DEFECT (each group must come back as exactly one item):

- classic series: titles carrying dates, times, run numbers, hex or alphanumeric run ids, UUIDs;
- quiet watchers: a watcher that mostly finds nothing writes the same short body every run
  ("No new items in ...", "Checked ... Nothing new since the last run"), byte-identical across
  most of its runs, now and then a run that found something;
- reports, digests and checks whose titles carry a counter (`#41`, `no. 7`, `00412`), a date
  in another format (`Wed 1 May`, `1st of May`, `5/1`, `20240501`, `week 18`, `1.5.`) or
  nothing that varies, while the body is one template with a few varying numbers;
- a series split across two writers: the same job moved from one cron host to another part way
  through (two writer names, one cadence, one template, never overlapping in time);
- near misses that must stay apart: two hosts running the same check at the same time (two
  writers, overlapping: two families), one writer running two different reports on one cadence
  (two families).

A new hard negative, in no item at all: an agent that files alerts under one title whenever
something breaks (no schedule; the bodies share only a header).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from dupes_graphgen_negatives import HardNegatives
from dupes_graphgen_text import DAY, EPOCH_2024, HOUR

_ID_CHARS = "abcdefghjkmnpqrstuvwxyz23456789"
SHAPES = ["daily", "hourly", "every-6h", "every-4h", "weekly", "weekdays", "missed", "window"]
_TITLES = ["date", "datetime", "runno", "hex", "alnum", "uuid", "month"]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
_MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"]
_WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
_STEP = {"hourly": HOUR, "every-6h": 6 * HOUR, "every-4h": 4 * HOUR, "weekly": 7 * DAY}
# Title shapes of reports, digests and checks: a counter, a date in another format, nothing.
REPORT_TITLES = [
    "hash", "number", "padded", "run", "weekday-date", "ordinal-of", "us-short", "compact",
    "week", "dotted", "constant", "constant",
]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class RunFamilies(HardNegatives):
    """Scheduled writers (planted WRITER-DEFECT) and one unscheduled agent (a hard negative)."""

    report_offset = 0  # which title shape the first report takes: every shape at every size

    def run_times(self, shape: str, runs: int, start: float | None = None) -> list[float]:
        """Creation times of `runs` runs on schedule `shape` (cron jitter of seconds to minutes)."""
        rng = self.rng
        if start is None:
            start = EPOCH_2024 + rng.randint(0, 200) * DAY + rng.choice([2, 6, 7, 9, 18]) * HOUR
        jitter = rng.uniform(5, 300)
        times: list[float] = []
        t = start
        while len(times) < runs:
            if shape == "weekdays" and ((t - EPOCH_2024) // DAY) % 7 in (5, 6):
                t += DAY  # 2024-01-01 is a Monday: skip Saturday and Sunday
                continue
            if shape == "missed" and rng.random() < 0.2:
                t += DAY
                continue
            if shape == "window":
                if rng.random() < 0.35:
                    t += DAY
                    continue
                times.append(t + rng.uniform(0, 40 * 60))  # starts at first login, 40 min window
                t += DAY
                continue
            times.append(t + rng.uniform(-jitter, jitter))
            t += _STEP.get(shape, DAY)
        return times

    def run_count(self, shape: str) -> int:
        return self.rng.randint(5, 20) if shape == "weekly" else self.rng.randint(8, 60)

    def writer_of(self, name: str, key: str | None = None) -> tuple[dict[str, Any], list[str]]:
        """Metadata and dimensions naming writer `name` under one of the writer keys."""
        key = key or self.rng.choice(["agent", "created_by", "writer", "dimension"])
        if key == "dimension":
            return {}, [f"agent:{name}"]
        return {key: name}, []

    # -- classic series --------------------------------------------------------------------

    def run_family(self, w: int) -> None:
        rng = self.rng
        name = f"{rng.choice(['digest', 'sweep', 'sync', 'crawl', 'backup', 'report'])}-bot-{w}"
        shape = SHAPES[w % len(SHAPES)]  # every shape at every size
        times = self.run_times(shape, self.run_count(shape))
        title_shape = _TITLES[(w + w // len(SHAPES)) % len(_TITLES)]
        label = rng.choice(["Daily digest", "Inbox sweep", "Feed crawl", "Metrics snapshot"])
        quiet = rng.random() < 0.25
        quiet_body = (
            f"Quiet run of {name}: nothing new since the last run. No items collected, no alerts "
            "raised, nothing to summarise. Next run as scheduled."
        )
        meta, dims = self.writer_of(name)
        template_words = self.sentence(10)
        ids = []
        for k, at in enumerate(times):
            stamp = self.stamp(at)
            run_title = {
                "date": f"{label} {stamp[:10]}",
                "datetime": f"{label} {stamp[:10]} {stamp[11:16]}",
                "runno": f"{label}: run #{k + 1}",
                "hex": f"{label} run-{rng.getrandbits(24):06x}",
                "alnum": f"{label} job {''.join(rng.choices(_ID_CHARS, k=6))}",
                "uuid": f"{label} {uuid.UUID(int=rng.getrandbits(128))}",
                "month": f"{label} {stamp[8:10]} {_MONTHS[int(stamp[5:7]) - 1]} {stamp[:4]}",
            }[title_shape]
            body = quiet_body if quiet else f"{template_words} {self.body(30, 90)}"
            ids.append(self.add(run_title, body, at, meta, dims))
        self.plant("WRITER-DEFECT", f"{shape}/{title_shape}{'/quiet' if quiet else ''}", ids)

    # -- quiet watchers --------------------------------------------------------------------

    def quiet_watcher(self, w: int) -> None:
        rng = self.rng
        subject = self.tw(1)[0]  # what this watcher watches: its own channel, mailbox, feed
        place = rng.choice([f"#{subject}", f"the {subject} mailbox", f"the {subject} feeds",
                            f"the {subject} shared drive", f"the {subject} price list"])
        what = place.removeprefix("the ").removeprefix("#")
        name = f"{what.split()[-1]}-watcher-{w}"
        shape = rng.choice(["hourly", "every-4h", "daily", "weekdays", "every-6h"])
        times = self.run_times(shape, self.run_count(shape))
        quiet_body = rng.choice(
            [
                f"No new items in {place}.",
                f"Checked {place}. Nothing new since the last run.",
                f"Checked {place}: no changes since the last check, nothing to report.",
                f"Nothing new in {place} since the last run. No action needed.",
            ]
        )
        title_shape = rng.choice(["constant", "date", "count"])
        found_share = rng.uniform(0.05, 0.3)  # most runs find nothing
        meta, dims = self.writer_of(name)
        ids = []
        for at in times:
            stamp = self.stamp(at)
            found = rng.random() < found_share
            count = rng.randint(1, 6) if found else 0
            body = quiet_body
            if found:
                items = "; ".join(self.title() for _ in range(count))
                body = f"{count} new items in {place}: {items}."
            title = {
                "constant": f"Watch {what}",
                "date": f"{what.capitalize()} watch {stamp[:10]}",
                "count": f"{what.capitalize()} watch: {count or 'no'} new items",
            }[title_shape]
            ids.append(self.add(title, body, at, meta, dims))
        self.plant("WRITER-DEFECT", f"quiet/{shape}/{title_shape}", ids)

    # -- reports, digests and checks -------------------------------------------------------

    def report_title(self, shape: str, label: str, k: int, at: float, first: int) -> str:
        day = datetime.fromtimestamp(at, UTC)
        month, weekday = _MONTHS[day.month - 1], _WEEKDAYS[day.weekday()]
        return {
            "hash": f"{label} #{first + k}",
            "number": f"{label} no. {first + k}",
            "padded": f"{label} {first + k:05d}",
            "run": f"{label}, run {first + k}",
            "weekday-date": f"{label}: {weekday} {day.day} {month}",
            "ordinal-of": f"{label} - {_ordinal(day.day)} of {_MONTH_NAMES[day.month - 1]}",
            "us-short": f"{label} {day.month}/{day.day}",
            "compact": f"{label} {day:%Y%m%d}",
            "week": f"{label} week {day.isocalendar().week}",
            "dotted": f"{label} {day.day}.{day.month}.",
            "constant": label,
        }[shape]

    def report_body(self, kind: str, subject: str) -> str:
        rng = self.rng
        n = rng.randint
        if kind == "check":
            return (
                f"Checked {n(180, 220)} endpoints of {subject}: {n(170, 200)} healthy, {n(0, 9)} "
                f"degraded, {n(0, 3)} down. Median latency {n(80, 260)} ms, p95 {n(300, 900)} ms. "
                f"Certificates expiring within 30 days: {n(0, 4)}. Disk usage on the primary "
                f"volume {n(40, 95)}%. Backups verified: {n(10, 14)} of 14."
            )
        if kind == "report":
            return (
                f"{subject.capitalize()} metrics: {n(100, 900)} signups ({n(-20, 30)}% on the "
                f"previous period), {n(2000, 9000)} active users, churn {n(1, 9)}.{n(0, 9)}%. "
                f"Tickets opened {n(10, 90)}, closed {n(10, 90)}, median time to close "
                f"{n(2, 40)} h. Revenue {n(10, 99)},{n(100, 999)} EUR. Top referrer: "
                f"{self.tw(1)[0]}."
            )
        highlights = "; ".join(self.title() for _ in range(rng.randint(2, 4)))
        return (
            f"Digest of {subject}: {n(5, 60)} new posts across {n(3, 12)} feeds, {n(0, 9)} "
            f"flagged for reading, {n(0, 5)} duplicates skipped. Highlights: {highlights}."
        )

    def template_report(self, w: int) -> None:
        rng = self.rng
        kind = rng.choice(["check", "report", "digest"])
        subject = self.tw(1)[0]
        label = {
            "check": f"{subject.capitalize()} uptime check",
            "report": f"{subject.capitalize()} metrics report",
            "digest": f"{subject.capitalize()} reading digest",
        }[kind]
        title_shape = REPORT_TITLES[(w + self.report_offset) % len(REPORT_TITLES)]
        shape = rng.choice(["daily", "weekdays", "every-6h", "hourly", "weekly", "missed"])
        times = self.run_times(shape, self.run_count(shape))
        first = rng.randint(1, 400)
        meta, dims = self.writer_of(f"{kind}-job-{w}")
        ids = [
            self.add(self.report_title(title_shape, label, k, at, first),
                     self.report_body(kind, subject), at, meta, dims)
            for k, at in enumerate(times)
        ]
        self.plant("WRITER-DEFECT", f"{kind}/{shape}/{title_shape}", ids)

    # -- one job, two writers; two jobs, one template --------------------------------------

    def split_series(self, w: int) -> None:
        """The same job moved from one cron host to another part way through."""
        rng = self.rng
        job = rng.choice(["digest", "backup-check", "sync", "metrics"])
        shape = rng.choice(["daily", "weekdays", "every-6h", "hourly", "missed"])
        times = self.run_times(shape, rng.randint(12, 60))
        cut = rng.randint(3, len(times) - 3)
        if rng.random() < 0.5:  # the new host starts the job at another minute or hour
            shift = rng.uniform(-0.3, 0.3) * _STEP.get(shape, DAY)
            times[cut:] = [t + shift for t in times[cut:]]
        old, new = f"{job}@cron-{w}", f"{job}-{w}@scheduler"
        title_shape = rng.choice(["date", "hash", "constant", "compact"])
        kind = rng.choice(["check", "report", "digest"])
        subject = self.tw(1)[0]
        label = f"{subject.capitalize()} {job} {kind}"  # reports are titled by their subject
        ids = []
        for k, at in enumerate(times):
            stamp = self.stamp(at)
            title = (f"{label} {stamp[:10]}" if title_shape == "date"
                     else self.report_title(title_shape, label, k, at, 1))
            meta, dims = self.writer_of(old if k < cut else new, "agent")
            ids.append(self.add(title, self.report_body(kind, subject), at, meta, dims))
        self.plant("WRITER-DEFECT", f"split/{shape}/{title_shape}", ids)

    def parallel_hosts(self, w: int) -> None:
        """Two hosts run the same check at the same time: two jobs, two families."""
        rng = self.rng
        shape = rng.choice(["daily", "every-6h", "hourly"])
        runs = self.run_count(shape)
        start = EPOCH_2024 + rng.randint(0, 200) * DAY + 3 * HOUR
        check = rng.choice(["nightly health check", "backup verification", "disk usage check"])
        label = f"{self.tw(1)[0].capitalize()} {check}"  # one title for both hosts
        for host in rng.sample(["alpha", "bravo", "carbon", "delta"], 2):
            meta, dims = self.writer_of(f"check-{host}-{w}")
            ids = [
                self.add(label, self.report_body("check", f"host {host}"), at, meta, dims)
                for at in self.run_times(shape, runs, start + rng.uniform(0, 2 * HOUR))
            ]
            self.plant("WRITER-DEFECT", f"parallel/{shape}", ids)

    def two_reports(self, w: int) -> None:
        """One writer runs two different reports on one cadence: two families."""
        rng = self.rng
        meta, dims = self.writer_of(f"reporter-{w}")
        shape = rng.choice(["daily", "weekdays", "weekly"])
        start = EPOCH_2024 + rng.randint(0, 200) * DAY + 6 * HOUR
        runs = self.run_count(shape)
        subject = self.tw(1)[0]
        later = rng.choice([0.1, 12.0]) * HOUR  # right after the first, or half a day later
        for kind, label, offset in (("report", "metrics", 0.0), ("digest", "reading", later)):
            ids = []
            for at in self.run_times(shape, runs, start + offset):
                title = f"Daily {label} for {subject} {self.stamp(at)[:10]}"
                ids.append(self.add(title, self.report_body(kind, subject), at, meta, dims))
            self.plant("WRITER-DEFECT", f"two-reports/{shape}/{kind}", ids)

    # -- a writer without a schedule -------------------------------------------------------

    def unscheduled_alerts(self) -> None:
        rng = self.rng
        host = rng.choice(["db-1", "web-2", "queue-3", "cache-4"])
        header = f"Alert raised on {host}: the service stopped answering health probes. "
        at = self.when()
        ids = []
        for _ in range(rng.randint(4, 10)):
            at += rng.expovariate(1 / (30 * HOUR))  # things break when they break
            ids.append(self.add(f"Outage alert {host}", self.blend(header, rng.randint(60, 160)),
                                at, {"agent": f"alertmanager-{host}"}))
        self.negative("unscheduled alerts", ids)
