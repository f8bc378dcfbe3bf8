"""Every line asked at once, one deadline for all, partial answers kept with notes."""

from __future__ import annotations

import time

from loopback import Reply
from watched_store import WatchedStore

from tamis.backends.registry import make_adapter
from tamis.policy.schema import LineConfig


def results(n: int, host: str) -> dict:
    return {"results": [{"title": f"{host} {i}", "url": f"https://{host}/{i}", "content": "c"}
                        for i in range(1, n + 1)]}


def test_four_lines_of_300_ms_are_in_flight_together(server, run):
    for i in range(4):
        server.route(f"/line{i}", Reply(json=results(2, f"l{i}.example"), delay=0.3))
    adapters = [make_adapter(LineConfig(name=f"line{i}", base_url=server.url,
                                        search_path=f"/line{i}")) for i in range(4)]
    answers = run(adapters)
    assert [(a.line, a.order, a.status, len(a.hits)) for a in answers] == [
        (f"line{i}", i, "ok", 2) for i in range(4)]
    seen = server.seen
    assert len(seen) == 4 and all(s.end > s.start for s in seen)
    # Structural proof: every request had started before any of them had finished, so all
    # four were being served at the same moment (sequential asking could never do this).
    assert max(s.start for s in seen) < min(s.end for s in seen)


def test_answers_come_back_in_config_order_whatever_order_they_finish(server, run):
    # 150 ms between finishes: a loaded machine can start the four requests tens of ms
    # apart (50 ms gaps once let /l3 finish after /l2 under a full suite on 2 cores).
    delays = [0.45, 0.0, 0.3, 0.15]
    for i, delay in enumerate(delays):
        server.route(f"/l{i}", Reply(json=results(1, f"l{i}.example"), delay=delay))
    adapters = [make_adapter(LineConfig(name=f"l{i}", base_url=server.url,
                                        search_path=f"/l{i}")) for i in range(4)]
    answers = run(adapters)
    assert [a.line for a in answers] == ["l0", "l1", "l2", "l3"]
    finished = sorted(server.seen, key=lambda s: s.end)
    assert [s.path for s in finished] == ["/l1", "/l3", "/l2", "/l0"]


def test_the_deadline_holds_with_one_line_hanging(server, run):
    for i in range(3):
        server.route(f"/ok{i}", Reply(json=results(3, f"ok{i}.example"), delay=0.1))
    server.route("/hang", Reply(hang=True))
    adapters = [make_adapter(LineConfig(name=f"ok{i}", base_url=server.url,
                                        search_path=f"/ok{i}")) for i in range(2)]
    adapters.insert(1, make_adapter(LineConfig(name="hanging", base_url=server.url,
                                               search_path="/hang", required=True,
                                               weight=3)))
    adapters.append(make_adapter(LineConfig(name="ok2", base_url=server.url,
                                            search_path="/ok2")))
    start = time.perf_counter()
    answers = run(adapters, timeout=0.8)
    elapsed = time.perf_counter() - start
    assert [(a.line, a.status) for a in answers] == [
        ("ok0", "ok"), ("hanging", "timeout"), ("ok1", "ok"), ("ok2", "ok")]
    hanging = answers[1]
    assert hanging.hits == [] and hanging.required and hanging.weight == 3
    assert [n.kind for n in hanging.notes] == ["line_timeout"]
    assert "0.8 s deadline" in hanging.notes[0].message
    assert all(len(a.hits) == 3 for a in answers if a.status == "ok")
    # The hanging request was still open when the fan-out returned (never answered).
    [hang] = server.requests_to("/hang")
    assert hang.end == 0.0
    assert 0.75 <= hanging.seconds < 1.5 and elapsed < 3


def test_partial_answers_keep_every_line_with_its_note(server, run):
    server.route("/good", Reply(json=results(2, "good.example")))
    server.route("/broken", Reply(status=502, json={"error": "bad gateway"}))
    server.route("/odd", Reply(json={"hits": []}))
    server.route("/none", Reply(json={"results": []}))
    lines = [LineConfig(name=n, base_url=server.url, search_path=f"/{n}")
             for n in ("good", "broken", "odd", "none")]
    lines.append(LineConfig(name="down", base_url="http://127.0.0.1:9", search_path="/x"))
    lines.append(LineConfig(name="nokey", base_url=server.url, search_path="/good",
                            api_key_env="UNSET_KEY"))
    answers = run([make_adapter(x) for x in lines])
    summary = {a.line: (a.status, [n.kind for n in a.notes]) for a in answers}
    assert summary == {
        "good": ("ok", []),
        "broken": ("failed", ["line_failed"]),
        "odd": ("empty", ["unknown_shape", "line_empty"]),
        "none": ("empty", ["line_empty"]),
        "down": ("failed", ["line_failed"]),
        "nokey": ("no_key", ["no_usable_key"]),
    }
    notes = {a.line: a.notes[0].message for a in answers if a.notes}
    assert notes["broken"] == "HTTP 502: server error (after one retry)"
    assert notes["down"].startswith("cannot connect: ConnectError")
    assert notes["nokey"] == "no usable key: UNSET_KEY is not set"
    assert len(answers[0].hits) == 2


def test_no_lines_is_no_answers(run):
    assert run([]) == []


def test_a_bad_endpoint_fails_the_line_without_resting_its_key(run):
    """The schema refuses such a URL at load; a line built without validation still fails
    cleanly at search time."""
    store = WatchedStore()
    line = LineConfig.model_validate({"name": "tavily"}).model_copy(
        update={"base_url": "ftp://127.0.0.1:21"})
    adapter = make_adapter(line)
    [answer] = run([adapter], env={"TAVILY_API_KEY": "k-123"}, store=store)
    assert answer.status == "failed"
    assert answer.notes[0].message.startswith("bad endpoint: UnsupportedProtocol")
    assert store.entries("rest") == {}
