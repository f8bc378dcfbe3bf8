"""Each line's outcome is data the fan-out fills as it asks (kind, HTTP status, elapsed, key
rested, retry), not something read back from a note; it never reaches the JSON output."""

from __future__ import annotations

from typing import Any

from loopback import Reply

from tamis.backends.base import Adapter, AnswerError, Parsed
from tamis.backends.registry import make_adapter
from tamis.models import LineAnswer, SearchRequest
from tamis.policy.schema import LineConfig
from tamis.trust.health import classify

OK = {"results": [{"title": "T", "url": "https://t.example/", "content": "c"}]}
KEYS = {"TAVILY_KEY_A": "key-a-111111", "TAVILY_KEY_B": "key-b-222222"}


def line(server: Any, path: str = "/search", **kw: Any) -> Adapter:
    return make_adapter(LineConfig(name="s", base_url=server.url, search_path=path, **kw))


def test_an_answer_is_answered_with_its_seconds(server, run) -> None:
    server.route("/search", Reply(json=OK))
    [answer] = run([line(server)])
    outcome = answer.outcome
    assert outcome is not None and (outcome.status, outcome.kind) == ("ok", "answered")
    assert outcome.seconds == answer.seconds and outcome.message == ""
    assert not outcome.key_rested and outcome.http_status is None
    assert "outcome" not in answer.model_dump(mode="json")  # internal: never output


def test_each_failure_has_its_kind(server, run) -> None:
    server.route("/html", Reply(content_type="text/html", body="<html></html>"))
    server.route("/shape", Reply(json=["a", "list"]))
    server.route("/gone", Reply(status=404, json={"error": "no"}))
    answers = run([line(server, "/html"), line(server, "/shape", type="searxng"),
                   line(server, "/gone"),
                   make_adapter(LineConfig(name="closed", base_url="http://127.0.0.1:9"))])
    got = [(a.outcome.kind, a.outcome.http_status) for a in answers if a.outcome]
    assert got == [("bad_answer", None), ("bad_answer", None), ("http_error", 404),
                   ("unreachable", None)]
    assert [a.outcome.message for a in answers if a.outcome] == [
        n.message for a in answers for n in a.notes if n.kind == "line_failed"]


def test_a_rested_key_and_a_retry_are_said(server, run) -> None:
    server.route("/search", lambda seen: Reply(
        status=429 if "key-a" in (seen.header("authorization") or "") else 200, json=OK))
    tavily = make_adapter(LineConfig(name="tavily", base_url=server.url,
                                     credentials=list(KEYS)))
    [answer] = run([tavily], env=KEYS)
    assert answer.status == "ok" and answer.outcome and answer.outcome.key_rested
    replies = iter([Reply(status=502), Reply(json=OK)])
    server.route("/again", lambda seen: next(replies))
    [again] = run([line(server, "/again")])
    assert again.outcome and again.outcome.retried_after == "HTTP 502: server error"


def test_a_missed_deadline_is_its_own_kind(server, run) -> None:
    server.route("/hang", Reply(hang=True))
    [late] = run([line(server, "/hang")], timeout=0.3)
    assert late.status == "timeout" and late.outcome and late.outcome.kind == "deadline"


class Worded(Adapter):
    """Says 'answer is not JSON' from fetch (not a shape problem), and a shape problem in
    words no regex knew."""

    type = "worded"
    speaks_http = False

    async def fetch(self, request: SearchRequest) -> Parsed:
        raise AnswerError("the answer is not JSON-free today: the upstream is down")


def test_health_reads_the_outcome_not_the_words(server, run) -> None:
    worded = Worded(LineConfig(name="worded", type="generic", base_url="http://127.0.0.1:9"))
    [answer] = run([worded])
    health = classify(worded, answer, _seen(), [], slow=5.0)
    assert health.shape == "not checked"  # its words look like a shape problem: it is not
    server.route("/odd", Reply(json=["a", "list"]))
    odd = make_adapter(LineConfig(name="odd", type="generic", base_url=server.url,
                                  search_path="/odd", params={"results": "items"}))
    [answer] = run([odd])
    health = classify(odd, answer, _seen(), [], slow=5.0)
    assert health.shape == "not recognised" and health.verdict == "fail"


def _seen() -> Any:
    from tamis.trust.health import _Seen

    return _Seen()


def test_a_line_answer_without_an_outcome_still_validates() -> None:
    assert LineAnswer(line="x", order=0, status="ok").outcome is None
