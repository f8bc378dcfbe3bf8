"""`tamis compare QUERY`: raw order beside tamis order, what moved, what was dropped and why
(mission.md section 5's before/after table as a command), on a loopback SearXNG."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fake_searxng import FakeSearXNG
from loopback import LoopbackServer, free_port
from trust_support import BEST, DEMO, PROXMOX, invoke, searxng_line, write_config


def test_compare_json_has_both_orders_and_every_fate(tmp_path: Path, searxng) -> None:
    server, _ = searxng
    config = write_config(tmp_path, searxng_line(server.url))
    result = invoke(["compare", BEST, "--config", str(config), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["query"] == BEST and data["returned"] == 8 and data["config"] == str(config)
    raw, tamis = data["comparison"]["raw"], data["comparison"]["tamis"]
    assert len(raw) == 29 and raw[0]["host"] == "www.anthropic.com"
    fates = {row["host"]: row["fate"] for row in raw}
    assert fates["www.bestbuy.com"] == "dropped: page_kind:shop"
    assert fates["www.merriam-webster.com"] == "dropped: page_kind:dictionary"
    assert fates["www.google.com"] == "dropped: path_pattern:/search?"
    assert tamis[0]["host"] == "anthropic.com" and tamis[0]["raw_position"] == 1
    # The response beside it carries the drop reasons and every score's components.
    reasons = {d["reason"] for d in data["response"]["dropped"]}
    assert "page_kind:login" in reasons
    assert set(data["response"]["results"][0]["explain"]) >= {
        "fusion", "places", "shift", "total"}


def test_compare_for_a_person_shows_moves_demotions_and_drops(tmp_path: Path, searxng) -> None:
    server, _ = searxng
    config = write_config(tmp_path, searxng_line(server.url))
    result = invoke(["compare", PROXMOX, "--config", str(config)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "demoted to rank" in out and "demoted to rank 14 (demote_domains)" in out
    assert "dropped: page_kind:shop" in out  # amazon.com
    assert "rank 1 ↑4" in out  # forum.proxmox.com, raw position 5
    assert "raw results ->" in out and "an agent gets the top 8" in out


def test_compare_exit_codes(tmp_path: Path) -> None:
    down = write_config(tmp_path, searxng_line(f"http://127.0.0.1:{free_port()}"))
    result = invoke(["compare", BEST, "--config", str(down)])
    assert result.exit_code == 2 and result.stderr.startswith("error: the search could not run")
    with LoopbackServer(FakeSearXNG(mode="empty")) as server:
        config = write_config(tmp_path, searxng_line(server.url), name="empty.yaml")
        assert invoke(["compare", BEST, "--config", str(config)]).exit_code == 1
    result = invoke(["compare", BEST, "--replay", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and result.stderr.startswith("error: recordings folder")


def test_demo_still_works() -> None:
    result = invoke(["demo", "--json"])
    assert result.exit_code == 0
    assert [c["query"] for c in json.loads(result.stdout)] == [BEST, PROXMOX]
    assert DEMO.is_dir()


def test_demo_shows_every_rank_it_cites(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "220")  # no cell cut short
    result = invoke(["demo"])
    assert result.exit_code == 0, result.output
    for table in result.stdout.split("┏")[1:]:
        rows = [line.split("│")[1:-1] for line in table.splitlines() if line.startswith("│")]
        cited = [int(n) for row in rows for n in re.findall(r"rank (\d+)", row[2])]
        shown = [row[3].strip() for row in rows if row[3].strip()]
        assert cited and max(cited) <= len(shown), (max(cited), len(shown))
    assert "an agent gets the top 8" in result.stdout
