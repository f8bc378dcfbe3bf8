"""Record then replay: answers frozen from live loopback backends give identical results
once the backends are stopped and the network is blocked."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from fake_searxng import FakeSearXNG, recorded
from loopback import LoopbackServer, free_port
from trust_support import (
    BEST,
    DEMO,
    PROXMOX,
    FakeAPI,
    api_line,
    invoke,
    report_of,
    searxng_line,
    write_config,
)

from tamis.backends.base import AnswerError
from tamis.backends.recorded import Recorded
from tamis.core import Tamis
from tamis.models import SearchRequest
from tamis.policy.schema import Config, LineConfig
from tamis.settings import load_config
from tamis.store.base import MemoryStore
from tamis.trust.recording import check_folder, replay_config

KEY_ENV = {"ACME_KEY": "good-key"}


async def _search(config: Config, query: str) -> Any:
    async with Tamis(config, store=MemoryStore(), env=KEY_ENV) as layer:
        return await layer.search_detailed(query, extract=False, explain=True, max_results=100)


def search(config: Config, query: str) -> Any:
    return asyncio.run(_search(config, query))


def comparable(response: Any) -> dict[str, Any]:
    data = response.model_dump(mode="json", exclude={"timing", "lines", "notes"})
    data["lines"] = [(x.line, x.status, x.results) for x in response.lines]
    return data


def block_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, any connection attempt of this process fails."""

    def refuse(self: socket.socket, *args: object) -> None:
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    block_network(monkeypatch)


def test_record_then_replay_is_identical_without_network(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sx, api = FakeSearXNG(), FakeAPI()
    rec = tmp_path / "recordings"
    closed = f"http://127.0.0.1:{free_port()}"
    with LoopbackServer(sx) as a, LoopbackServer(api) as b:
        path = write_config(tmp_path, searxng_line(a.url) + api_line(b.url)
                            + searxng_line(closed, "down"))
        recording = invoke(["check", "--config", str(path), "--guard-only", "--record",
                            str(rec), "-q", BEST, "-q", PROXMOX, "--json"], env=KEY_ENV)
        config = load_config(path).config
        live = {q: search(config, q) for q in (BEST, PROXMOX)}
    # The backends are gone, and any connection attempt now fails.
    block_network(monkeypatch)

    record_report = report_of(recording)
    assert record_report["mode"] == "record"
    assert sorted(Path(p).name for p in record_report["recorded"]) == [
        "best-practices-agent-context-management.json",
        "proxmox-thin-pool-metadata-exhaustion-recovery.json"]
    replayed = invoke(["check", "--config", str(path), "--replay", str(rec), "--json"],
                      env=KEY_ENV)
    replay_report = report_of(replayed)
    assert replay_report["mode"] == "replay"
    assert replay_report["guard"] == record_report["guard"]
    # The "down" line answered nothing to either query: not checked, so not a pass.
    assert replayed.exit_code == recording.exit_code == 3
    assert replay_report["verdict"] == record_report["verdict"] == "INCOMPLETE"
    assert replay_report["failures"] == []
    assert all(r.startswith("line down: answered nothing to the guard query")
               for r in replay_report["incomplete"])

    offline = replay_config(config, check_folder(rec))
    for query, (response, _answers) in live.items():
        again, answers = search(offline, query)
        assert comparable(again) == comparable(response)
        assert [a.status for a in answers] == ["ok", "ok", "failed"]
        down = answers[2].notes[0]
        assert down.kind == "line_failed" and down.message.startswith(
            "recorded as failed: cannot connect")
        # Engine notes come back as they were, once.
        assert [n for n in again.notes if n.kind == "unresponsive_engine"] == \
            [n for n in response.notes if n.kind == "unresponsive_engine"]


def test_a_recording_holds_answers_payloads_and_no_key(tmp_path: Path) -> None:
    sx, api = FakeSearXNG(), FakeAPI()
    rec = tmp_path / "rec"
    with LoopbackServer(sx) as a, LoopbackServer(api) as b:
        path = write_config(tmp_path, searxng_line(a.url) + api_line(b.url))
        result = invoke(["check", "--config", str(path), "--record", str(rec), "-q", BEST],
                        env=KEY_ENV)
    assert result.exit_code == 0, result.output
    assert "recorded 1 query:" in result.stdout
    text = (rec / "best-practices-agent-context-management.json").read_text()
    assert "good-key" not in text
    data = json.loads(text)
    assert data["format"] == "tamis-recording/1" and data["query"] == BEST
    lines = {x["line"]: x for x in data["lines"]}
    assert list(lines) == ["searxng", "acme"]
    assert lines["searxng"]["type"] == "searxng" and lines["searxng"]["endpoint"] == \
        a.url + "/search"
    # The raw payload the backend sent, and the answer the fan-out read from it.
    assert lines["searxng"]["payload"] == recorded(BEST)
    answer = lines["searxng"]["answer"]
    assert answer["status"] == "ok" and len(answer["hits"]) == len(recorded(BEST)["results"])
    assert answer["hits"][0]["engines"] == ["searxng:bing", "searxng:brave",
                                            "searxng:duckduckgo"]
    assert [n["kind"] for n in answer["notes"]] == ["unresponsive_engine"]
    assert lines["acme"]["payload"]["results"][0]["url"] == "https://docs.example.org/1"


def test_a_replayed_timeout_or_missing_line_fails_with_the_recorded_reason(
        tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    rec.mkdir()
    (rec / "q.json").write_text(json.dumps({
        "format": "tamis-recording/1", "query": "q",
        "lines": [{"line": "slow", "answer": {
            "line": "slow", "order": 0, "status": "timeout", "notes": [
                {"source": "slow", "kind": "line_timeout", "message": "no answer within 10 s"}]}}],
    }))
    adapter = Recorded(LineConfig(name="slow", type="recorded", path=str(rec)))
    other = Recorded(LineConfig(name="other", type="recorded", path=str(rec)))
    with pytest.raises(AnswerError, match="recorded as timeout: no answer within 10 s"):
        asyncio.run(adapter.fetch(SearchRequest(query="q")))
    with pytest.raises(AnswerError, match="no answer of line 'other'"):
        asyncio.run(other.fetch(SearchRequest(query="q")))
    with pytest.raises(AnswerError, match=r"no recording for this query \(nope.json\)"):
        asyncio.run(adapter.fetch(SearchRequest(query="nope")))


def test_searxng_answers_are_accepted_in_a_recording_and_as_bare_files(
        tmp_path: Path, no_network: None) -> None:
    rec = tmp_path / "rec"
    rec.mkdir()
    (rec / "best-practices-agent-context-management.json").write_text(json.dumps({
        "format": "tamis-recording/1", "query": BEST,
        "lines": [{"line": "mine", "searxng": recorded(BEST)}]}))
    base = load_config(None).config
    in_recording = base.model_copy(update={"backends": [
        LineConfig(name="mine", type="recorded", path=str(rec))]})
    bare = base.model_copy(update={"backends": [
        LineConfig(name="mine", type="recorded", path=str(DEMO))]})
    replay = base.model_copy(update={"backends": [
        LineConfig(name="mine", type="replay", path=str(DEMO))]})
    a, _ = search(in_recording, BEST)
    b, _ = search(bare, BEST)
    c, _ = search(replay, BEST)
    assert comparable(a) == comparable(b) == comparable(c)
    assert a.results[0].engines[0].startswith("mine:")


def test_bare_searxng_files_go_to_the_searxng_lines_only(tmp_path: Path,
                                                         no_network: None) -> None:
    path = write_config(tmp_path, api_line("http://127.0.0.1:9") +
                        searxng_line("http://127.0.0.1:9"))
    config = replay_config(load_config(path).config, check_folder(DEMO))
    response, answers = search(config, BEST)
    assert [(a.line, a.status) for a in answers] == [("acme", "failed"), ("searxng", "ok")]
    assert response.status == "ok"
    # With no SearXNG line at all, the first line answers from them (zero config: ddgs).
    zero = replay_config(load_config(None, env={}).config, check_folder(DEMO))
    response, answers = search(zero, PROXMOX)
    assert answers[0].status == "ok" and response.results[0].host == "forum.proxmox.com"


def test_compare_replays_a_recording_folder(tmp_path: Path, no_network: None) -> None:
    result = invoke(["compare", PROXMOX, "--replay", str(DEMO), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["comparison"]["tamis"][0]["host"] == "forum.proxmox.com"


def test_replay_does_not_need_what_live_lines_need(tmp_path: Path) -> None:
    """In CI a searxng line may rely on SEARXNG_URL, unset there: --replay still runs."""
    config = tmp_path / "tamis.yaml"
    config.write_text("backends:\n  - name: searxng\nstore: {url: 'memory:'}\n")
    live = invoke(["check", "--config", str(config), "--guard-only"])
    assert live.exit_code == 2 and "SEARXNG_URL is not set" in live.stderr
    replayed = invoke(["check", "--config", str(config), "--replay", str(DEMO),
                       "-q", BEST, "--json"])
    assert report_of(replayed)["mode"] == "replay", replayed.stderr


def test_a_recording_nested_too_deep_is_unreadable_not_an_internal_error(
        tmp_path: Path, no_network: None) -> None:
    (tmp_path / "x.json").write_text("[" * 100_000 + "]" * 100_000)
    checked = invoke(["check", "--replay", str(tmp_path)])
    compared = invoke(["compare", "x", "--replay", str(tmp_path)])
    assert (checked.exit_code, compared.exit_code) == (2, 2)
    assert checked.stderr == f"error: recordings folder '{tmp_path}' holds no recording\n"
    assert "recording x.json is not readable JSON" in compared.stderr
    assert "internal error" not in checked.stderr + compared.stderr


def test_a_recordings_folder_that_cannot_be_written_is_one_error_line(tmp_path: Path) -> None:
    """A file where the folder should be (or a folder under /proc): one line naming the
    folder, exit 2, and no partial recording left behind."""
    sx = FakeSearXNG()
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("not a folder")
    with LoopbackServer(sx) as server:
        path = write_config(tmp_path, searxng_line(server.url))
        done = invoke(["check", "--config", str(path), "--guard-only", "--record",
                       str(in_the_way / "recordings"), "-q", BEST])
    assert done.exit_code == 2
    assert done.stderr == (f"error: cannot write the recording in"
                           f" '{in_the_way / 'recordings'}': Not a directory\n")
    assert in_the_way.read_text() == "not a folder"
