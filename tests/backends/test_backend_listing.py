"""``tamis backends``: every line, its endpoint, its key variables (set? resting until?) and
what it supports; never a key value; config errors on stderr with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tamis.backends.keys import Key, KeyPool
from tamis.backends.listing import describe_lines
from tamis.interfaces.cli_backends import backends
from tamis.policy.schema import Config, LineConfig
from tamis.store.base import MemoryStore
from tamis.store.sqlite import SQLiteStore

SECRET_A = "sk-live-listing-AAAA1111"
SECRET_B = "sk-live-listing-BBBB2222"

CONFIG = """\
pool_strategy: round_robin
store: {{url: {store}}}
backends:
  - name: tavily
    credentials: [TAVILY_KEY_A, TAVILY_KEY_B, TAVILY_KEY_C]
    required: true
  - name: home
    type: searxng
    base_url: http://127.0.0.1:8888
  - name: mine
    base_url: https://search.example.net
    search_path: /api
    api_key_env: MINE_KEY
    pool_strategy: fill_first
    weight: 2
  - name: ddgs
"""


def write_config(tmp_path: Path) -> tuple[Path, Path]:
    store = tmp_path / "state.sqlite3"
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG.format(store=store))
    return path, store


def test_json_listing_shows_names_set_flags_and_rests(tmp_path: Path):
    path, store_path = write_config(tmp_path)
    store = SQLiteStore(store_path)
    pool = KeyPool("tavily", ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C"], None,
                   store=store, env={})
    pool.rest(Key("TAVILY_KEY_A", SECRET_A), status=429, reason="HTTP 429: rate limited")
    store.close()
    env = {"TAVILY_KEY_A": SECRET_A, "TAVILY_KEY_B": SECRET_B}
    result = CliRunner().invoke(backends, ["--config", str(path), "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert SECRET_A not in result.output and SECRET_B not in result.output
    data = json.loads(result.output)
    lines = {x["name"]: x for x in data["lines"]}
    assert list(lines) == ["tavily", "home", "mine", "ddgs"]
    tavily = lines["tavily"]
    assert tavily["endpoint"] == "https://api.tavily.com/search"
    assert tavily["pool_strategy"] == "round_robin" and tavily["required"] is True
    assert [(k["env"], k["set"]) for k in tavily["keys"]] == [
        ("TAVILY_KEY_A", True), ("TAVILY_KEY_B", True), ("TAVILY_KEY_C", False)]
    assert tavily["keys"][0]["resting_until"].endswith("Z")
    assert tavily["keys"][0]["rest_reason"] == "HTTP 429: rate limited"
    assert tavily["keys"][1]["resting_until"] is None
    assert tavily["state"] == "ready"
    assert tavily["supports"]["time_range"] is True and tavily["key"] == "required"
    assert lines["home"]["endpoint"] == "http://127.0.0.1:8888/search"
    assert lines["home"]["keys"] == [] and lines["home"]["state"] == "ready"
    mine = lines["mine"]
    assert (mine["type"], mine["endpoint"]) == ("generic", "https://search.example.net/api")
    assert mine["pool_strategy"] == "fill_first" and mine["weight"] == 2
    assert mine["state"] == "no key set"
    assert lines["ddgs"]["key"] == "none"


def test_text_listing(tmp_path: Path):
    path, _ = write_config(tmp_path)
    result = CliRunner().invoke(backends, ["--config", str(path)],
                                env={"TAVILY_KEY_A": SECRET_A})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "4 line(s) from" in out
    assert "- tavily (tavily): https://api.tavily.com/search  [ready, required]" in out
    assert "keys (round_robin): TAVILY_KEY_A set; TAVILY_KEY_B NOT SET; TAVILY_KEY_C NOT SET" \
        in out
    assert "- mine (generic): https://search.example.net/api  [no key set, weight 2]" in out
    assert SECRET_A not in out


def test_all_keys_resting_state():
    config = Config(backends=[LineConfig(name="tavily", api_key_env="T1")])
    store = MemoryStore()
    KeyPool("tavily", ["T1"], None, store=store, env={}).rest(
        Key("T1", "v"), status=401, reason="HTTP 401: key refused")
    [info] = describe_lines(config, store, {"T1": "value"})
    assert info["state"] == "all keys resting"


def test_config_error_is_one_line_on_stderr_exit_2(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text("backends:\n  - name: t\n    type: tavily\n"
                    "    api_key_env: tvly-abcdef123456\n")
    result = CliRunner().invoke(backends, ["--config", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and "backends[t].api_key_env" in result.stderr
    assert "tvly-abcdef123456" not in result.stderr
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("backends:\n  - name: t\n    type: nope\n")
    result = CliRunner().invoke(backends, ["--config", str(unknown)])
    assert result.exit_code == 2 and "unknown type 'nope'" in result.stderr


def test_unreachable_store_is_a_warning_not_an_error(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("store: {url: 'redis://127.0.0.1:1/0'}\nbackends:\n  - name: ddgs\n")
    result = CliRunner().invoke(backends, ["--config", str(path), "--json"])
    assert result.exit_code == 0
    assert "warning: store redis://127.0.0.1:1/0: cannot reach Redis" in result.stderr
    assert json.loads(result.stdout)["lines"][0]["name"] == "ddgs"
