"""The hard negatives of the generated graph: similar titles or bodies, not the same subject,
and writers that add nodes without a schedule. None of them may appear in any item."""

from __future__ import annotations

from typing import Any

from dupes_graphgen_text import DAY, EPOCH_2024, HOUR, GraphText


class HardNegatives(GraphText):
    # -- hard negatives --------------------------------------------------------------------

    def client_workflows(self) -> None:
        boiler = (
            "This workflow covers intake, scoping and weekly reporting for the client. The account "
            "lead owns the relationship and the analyst prepares the weekly summary. "
            + self.body(30, 50)
        )
        agent = {"agent": "ops-agent"} if self.rng.random() < 0.5 else {}
        ids = []
        for _ in range(self.rng.randint(3, 6)):
            client = self.tw(1)[0].capitalize()
            own = self.rng.randint(60, 220)  # bodies 0.1-0.3 similar, as in real families
            body = self.blend(boiler, own)
            ids.append(
                self.add(
                    f"Client workflow: intake, scoping and weekly reporting ({client})",
                    body,
                    self.when(),
                    agent,
                )
            )
        self.negative("client workflows", ids)

    def migrations(self) -> None:
        steps = (
            "Steps: install restic, register the host with the backup server, schedule the job "
            "and test a restore. " + self.body(30, 50)
        )
        hosts = self.rng.sample(["alpha", "bravo", "carbon", "delta", "echo", "falcon"], 2)
        ids = [
            self.add(
                f"Migration of workstation mbp-{host} to the new backup server",
                self.blend(steps, self.rng.randint(60, 180)),  # 0.1-0.3 similar
                self.when(),
            )
            for host in hosts
        ]
        self.negative("two machines' migrations", ids)

    def service_requests(self, count: int) -> None:
        rng = self.rng
        problem = rng.choice(["printer offline", "VPN drops", "password reset", "disk full"])
        template = self.body(40, 70)
        year = rng.choice([2022, 2023, 2024])
        base = rng.randint(1, 8000)
        for n in range(count):
            words = template.split()
            for _ in range(int(len(words) * rng.uniform(0.02, 0.1))):
                words[rng.randrange(len(words))] = self.words(1)[0]
            body = " ".join(words) + f" Reported by {self.tw(1)[0]} on floor {rng.randint(1, 9)}."
            node_id = self.add(f"SR-{year}-{base + n:04d} {problem}", body, self.when())
            self.negative("numbered service requests", [node_id])
            if n:
                self.note_similarity("numbered service requests", self.rows[-2]["notes"], body)

    def digit_only(self) -> None:
        rng = self.rng
        shared = self.body(60, 120)
        subject = rng.choice(
            [
                ("Rack A{} power audit", 3),
                ("Q{} budget review", 1),
                ("Floor {} fire drill", 2),
                ("Sprint {} retrospective", 40),
                ("Build agent ci-{:02d} setup", 1),
            ]
        )
        pattern, first = subject
        ids = []
        for k in range(rng.randint(2, 3)):
            words = shared.split()
            for _ in range(int(len(words) * rng.uniform(0.03, 0.12))):
                words[rng.randrange(len(words))] = self.words(1)[0]
            ids.append(self.add(pattern.format(first + k), " ".join(words), self.when()))
        self.negative("digit-only differences", ids)

    def meetings(self) -> None:
        rng = self.rng
        name = rng.choice(
            ["Team sync", "Design review", "1:1 with Sam", "Ops standup", "Board call"]
        )
        agenda = (
            "Agenda: status of open items, blockers, decisions, next steps. Attendees listed "
            "below; action items at the end. " + self.body(20, 40)  # the series' own template
        )
        who = rng.choice(["ui", "user", "notetaker", None])
        ids = []
        day = EPOCH_2024 + rng.randint(0, 200) * DAY
        for _ in range(rng.randint(3, 9)):
            day += rng.choice([1, 2, 3, 5, 7, 7, 7, 14]) * DAY
            at = day + rng.uniform(9, 18) * HOUR  # notes saved whenever the meeting ended
            stamp = self.stamp(at)
            meta: dict[str, Any] = {}
            if who == "ui":
                meta["source"] = "ui"
            elif who == "user":
                meta["created_by"] = "user"
            elif who == "notetaker":
                meta["agent"] = "notetaker"
            ids.append(
                self.add(f"{name} {stamp[:10]}", self.blend(agenda, rng.randint(60, 200)), at, meta)
            )
        self.negative(f"meeting series ({who})", ids)

    def merged_prs(self) -> None:
        rng = self.rng
        repo = rng.choice(["api", "web", "infra", "mobile"])
        number = rng.randint(100, 3000)
        at = self.when()
        ids = []
        footer = "Merged by the release bot after checks passed; see the linked pull request."
        for _ in range(rng.randint(4, 14)):
            at += rng.expovariate(1 / (5 * HOUR))  # webhook arrivals: bursty, not scheduled
            number += rng.randint(1, 6)
            ids.append(
                self.add(
                    f"Merged PR #{number} in {repo}",
                    f"{self.body(30, 80)} {footer}",
                    at,
                    {"agent": "github-sync"},
                )
            )
        self.negative("Merged PR #N series", ids)

    def import_burst(self) -> None:
        rng = self.rng
        at = self.when()
        ids = []
        for k in range(rng.randint(4, 12)):
            at += rng.uniform(5, 600)  # seconds to minutes apart
            ids.append(self.add(f"Imported note {k + 1}", self.body(), at, {"agent": "importer"}))
        self.negative("importer burst", ids)

    def journal(self) -> None:
        rng = self.rng
        day = EPOCH_2024 + rng.randint(0, 200) * DAY + 21 * HOUR
        ids = []
        meta = rng.choice([{"source": "ui"}, {"created_by": "user"}, {"writer": "human"}])
        for _ in range(rng.randint(5, 20)):
            day += DAY
            ids.append(
                self.add(
                    f"Journal {self.stamp(day)[:10]}",
                    self.body(40, 120),
                    day + rng.uniform(-600, 600),
                    meta,
                )
            )
        self.negative("daily journal typed by a person", ids)

    def stub_negatives(self) -> None:
        subject = self.tw(1)[0]
        while subject in self.used_subjects:  # each pair of stubs has titles of its own
            subject = self.tw(1)[0]
        self.used_subjects.add(subject)
        a = self.add(f"Scratch {subject}", "TODO", self.when())
        b = self.add(f"Scratch {subject} 2", "TODO", self.when())
        a1, b1, c1 = self.tw(3)  # a title shape no other node has: this stub stands alone
        c = self.add(f"Ideas about {a1} {b1} {c1}", "", self.when())
        self.negative("stubs under different titles", [a, b])
        self.negative("lone stub", [c])

    def untitled(self) -> None:
        body = self.body() if self.rng.random() < 0.7 else ""
        self.negative("Untitled", [self.add("Untitled", body, self.when())])
