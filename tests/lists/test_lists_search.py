"""Lists in a search: a recorded answer where Stack Overflow copies outrank the question."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tamis.core import Tamis
from tamis.interfaces.cli import cli
from tamis.models import SearchResponse
from tamis.policy.lists.load import forget
from tamis.settings import load_config

HERE = Path(__file__).parent
QUERY = "merge two dictionaries in a single expression python"
ORIGINAL = ("https://stackoverflow.com/questions/38987/"
            "how-do-i-merge-two-dictionaries-in-a-single-expression-in-python")
COPY_HOSTS = {"newbedev.com", "stackoom.com", "itectec.com", "exchangetuts.com"}


def write_config(tmp_path: Path, lists: str = "") -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(
        "backends:\n"
        f"  - {{name: searxng, type: replay, path: '{HERE / 'recordings'}'}}\n"
        + (f"policy:\n  lists:\n{lists}" if lists else ""))
    forget()
    return path


def search(config: Path, **kw: object) -> SearchResponse:
    async def go() -> SearchResponse:
        async with Tamis(config) as layer:
            return await layer.search(QUERY, extract=False, explain=True, max_results=20,
                                      **kw)  # type: ignore[arg-type]
    return asyncio.run(go())


def test_without_lists_the_copies_outrank_the_original(tmp_path: Path) -> None:
    response = search(write_config(tmp_path))
    hosts = [r.host for r in response.results]
    original = hosts.index("stackoverflow.com")
    assert hosts[0] in COPY_HOSTS and original >= 2  # the recorded problem


def test_subscribed_the_original_is_first_and_every_copy_below(tmp_path: Path) -> None:
    lists = (f"    - {{name: so-copies, source: '{HERE / 'data' / 'so-copies.ublacklist.txt'}',"
             " action: demote, copies: [stackoverflow.com]}\n")
    response = search(write_config(tmp_path, lists))
    assert response.results[0].url == ORIGINAL
    copies = [r for r in response.results if r.host in COPY_HOSTS]
    assert len(copies) == 4 and all(r.rank > 1 for r in copies)
    newbedev = next(r for r in copies if r.host == "newbedev.com")
    assert newbedev.explain is not None
    assert newbedev.explain.demote_reason == "list:so-copies:6"
    assert newbedev.explain.lists == [
        "list:so-copies:6 demote: *://*.newbedev.com/*",
        f"list:so-copies:6 copy of {ORIGINAL}: ranks below it"]
    regex_hit = next(r for r in copies if r.host == "exchangetuts.com")
    assert regex_hit.explain and regex_hit.explain.demote_reason == "list:so-copies:9"
    assert response.notes == []


def test_a_rewritten_copy_still_sorts_below_its_original(tmp_path: Path) -> None:
    """A rewrite list puts stackoverflow.com on the copies: preferred host, higher score. The
    copies still sort below the question they copy."""
    lists = (f"    - {{name: so-mirror, source: '{HERE / 'data' / 'so-copies.ublacklist.txt'}',"
             " action: rewrite, rewrite_to: stackoverflow.com}\n")
    response = search(write_config(tmp_path, lists))
    assert response.results[0].url == ORIGINAL
    rewritten = [r for r in response.results if r.explain and r.explain.lists]
    assert len(rewritten) == 4
    top = rewritten[0]
    assert top.host == "stackoverflow.com" and top.score > response.results[0].score
    assert top.explain is not None and top.explain.lists[0].startswith(
        "list:so-mirror:6 rewrite: https://newbedev.com/")
    assert top.explain.lists[1] == f"list:so-mirror:6 copy of {ORIGINAL}: sorted below it"


def test_a_mirror_with_the_same_path_merges_into_the_original(tmp_path: Path) -> None:
    listfile = tmp_path / "mirror.txt"
    listfile.write_text("# a mirror of Stack Overflow with the same paths\n"
                        "*://*.newbedev.com/*\n")
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    data = json.loads((HERE / "recordings" / f"{QUERY.replace(' ', '-')}.json").read_text())
    copy = ORIGINAL.replace("stackoverflow.com", "newbedev.com")
    data["results"][0]["url"] = f"https://www.google.com/url?q={copy}"  # a wrapped link
    (recordings / f"{QUERY.replace(' ', '-')}.json").write_text(json.dumps(data))
    config = tmp_path / "config.yaml"
    config.write_text(
        f"backends:\n  - {{name: searxng, type: replay, path: '{recordings}'}}\n"
        "policy:\n  lists:\n"
        "    - {name: mirror, source: mirror.txt, action: rewrite,"
        " rewrite_to: stackoverflow.com}\n")  # a path relative to the config file
    forget()
    response = search(config)
    first = response.results[0]
    assert first.url == ORIGINAL
    assert "searxng:google" in first.engines and len(first.engines) == 4  # the copy's
    assert first.explain is not None and first.explain.lists == [
        f"list:mirror:2 rewrite: {ORIGINAL.replace('stackoverflow.com', 'newbedev.com')}"
        f" -> {ORIGINAL} (merged into the original)"]
    assert not any(r.host == "newbedev.com" for r in response.results)


def test_drop_has_its_own_reason_and_prefer_lifts(tmp_path: Path) -> None:
    farms = tmp_path / "farms.txt"
    farms.write_text("0.0.0.0 newbedev.com\n0.0.0.0 stackoom.com\n")
    good = tmp_path / "good.txt"
    good.write_text("realpython.com\n")
    lists = (f"    - {{name: farms, source: '{farms}', action: drop}}\n"
             f"    - {{name: good, source: '{good}', format: domains, action: prefer}}\n")
    response = search(write_config(tmp_path, lists))
    assert response.dropped is not None
    reasons = {d.url.split("/")[2]: d.reason for d in response.dropped}
    assert reasons == {"newbedev.com": "list:farms:1", "stackoom.com": "list:farms:2"}
    real = next(r for r in response.results if r.host == "realpython.com")
    assert real.explain is not None and real.explain.places["prefer"] < 0  # moved up
    assert real.explain.lists == ["list:good:1 prefer: realpython.com"]


def test_a_list_never_fetched_is_a_note_and_the_search_runs(tmp_path: Path) -> None:
    lists = "    - {name: remote, source: 'http://127.0.0.1:9/list.txt', action: demote}\n"
    response = search(write_config(tmp_path, lists))
    assert response.status == "ok"
    [note] = response.notes
    assert note.source == "list:remote" and "never fetched" in note.message


def test_a_missing_local_list_is_a_note(tmp_path: Path) -> None:
    lists = f"    - {{name: gone, source: '{tmp_path / 'nope.txt'}'}}\n"
    response = search(write_config(tmp_path, lists))
    assert response.status == "ok"
    assert [n.message for n in response.notes] == [
        f"{tmp_path / 'nope.txt'}: list file not found"]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_as_a_local_list_is_a_note_never_read(tmp_path: Path) -> None:
    response = search(write_config(tmp_path, "    - {name: zero, source: /dev/zero}\n"))
    assert response.status == "ok"
    assert [n.message for n in response.notes] == ["/dev/zero: not a regular file"]


def test_explain_url_names_the_list_and_line(tmp_path: Path) -> None:
    lists = (f"    - {{name: so-copies, source: '{HERE / 'data' / 'so-copies.ublacklist.txt'}',"
             " action: demote}\n")
    config = write_config(tmp_path, lists)
    result = CliRunner().invoke(cli, ["explain-url", "https://www.itectec.com/p/x",
                                      "--config", str(config)])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "DEMOTE (list:so-copies:8)  source_type=content-farm  https://www.itectec.com/p/x",
        "  list:so-copies:8 demote: *://*.itectec.com/*"]


@pytest.mark.parametrize("entry, message", [
    ("{name: x, source: a.txt, action: rewrite}", "action rewrite needs rewrite_to"),
    ("{name: x, source: a.txt, rewrite_to: b.com}", "rewrite_to needs action: rewrite"),
    ("{name: 'a b', source: a.txt}", "list name 'a b'"),
    ("{name: x, source: a.txt, action: block}", "Input should be 'drop'"),
])
def test_bad_list_entries_are_config_errors(tmp_path: Path, entry: str, message: str) -> None:
    from tamis.errors import ConfigError

    path = tmp_path / "c.yaml"
    path.write_text(f"policy:\n  lists:\n    - {entry}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value) and f"{path}, line 3" in str(info.value)


def test_a_copy_of_a_demoted_original_still_sorts_below_it(tmp_path: Path) -> None:
    """medium.com is demoted by the built-in policy; a scraper that copies a Medium post
    and is on a demote list lands in the same tier, and scores higher: it still goes below
    the post it copies (found by its title), and not below a look-alike elsewhere."""
    title = "Understanding Python asyncio event loops in depth"

    def hit(url: str, title: str, engines: list[str]) -> dict[str, object]:
        return {"url": url, "title": title, "content": "asyncio event loop explained",
                "engine": engines[0], "engines": engines, "positions": [1] * len(engines)}

    recordings = tmp_path / "rec"
    recordings.mkdir()
    (recordings / "asyncio-event-loop.json").write_text(json.dumps({"results": [
        hit("https://scraped-posts.example/understanding-asyncio", f"{title} | ScrapedPosts",
            ["bing", "brave", "duckduckgo"]),
        hit("https://medium.com/@author/understanding-python-asyncio-1a2b3c", f"{title} - Medium",
            ["bing"]),
        hit("https://docs.python.org/3/library/asyncio-eventloop.html", "Event Loop — Python",
            ["brave"]),
    ]}))
    listfile = tmp_path / "scrapers.txt"
    listfile.write_text("||scraped-posts.example^\n")
    config = tmp_path / "config.yaml"
    config.write_text(
        f"backends:\n  - {{name: searxng, type: replay, path: '{recordings}'}}\n"
        f"policy:\n  lists:\n    - {{name: scrapers, source: '{listfile}', action: demote}}\n")
    forget()

    async def go() -> SearchResponse:
        async with Tamis(config) as layer:
            return await layer.search("asyncio event loop", extract=False, explain=True)

    response = asyncio.run(go())
    hosts = [r.host for r in response.results]
    assert hosts == ["docs.python.org", "medium.com", "scraped-posts.example"]
    copy = response.results[2]
    assert copy.score > response.results[1].score  # it outscored the original...
    assert copy.explain is not None and copy.explain.lists[-1] == (
        "list:scrapers:1 copy of https://medium.com/@author/understanding-python-asyncio-1a2b3c:"
        " sorted below it")  # ...and still sorts below it


def test_a_relative_list_path_is_read_beside_the_config_from_any_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tamis search -c DIR/config.yaml`` run elsewhere reads ``source: farms.txt`` from DIR
    (the README's "relative to the config file"), not from the working directory."""
    (tmp_path / "farms.txt").write_text("0.0.0.0 newbedev.com\n")
    config = write_config(tmp_path, "    - {name: farms, source: farms.txt, action: drop}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    result = CliRunner().invoke(cli, ["search", "--config", str(config), "--no-extract",
                                      "--format", "json", "--explain", QUERY])
    answer = json.loads(result.output)
    assert answer["notes"] == []  # not "farms.txt: list file not found"
    assert {d["reason"] for d in answer["dropped"]} >= {"list:farms:1"}
    assert not any(r["host"] == "newbedev.com" for r in answer["results"])
