"""A key whose value holds a line break (or CR/LF, control characters, surrounding spaces) is
refused at start by its variable's NAME, is never sent, and no representation of it (raw,
repr, JSON-quoted, percent-encoded, base64 inside Basic auth) reaches any output, log or
store file."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from loopback import LoopbackServer, Reply
from watched_store import WatchedStore

from tamis.backends.registry import make_adapter
from tamis.core import Tamis
from tamis.policy.schema import Config, LineConfig
from tamis.redact import scrub, secret_forms

CORE = "tvly-SECRETaaaa1111bbbb"
BAD_VALUES = [CORE + "\n", CORE + "\r\n", "tvly-SECRET\naaaa1111bbbb", " " + CORE]


def encodings(value: str) -> list[str]:
    """Every way a key can appear in a message: what the test greps for."""
    core = value.strip()
    out = {core, repr(value)[1:-1], repr(value.encode())[2:-1], json.dumps(value)[1:-1],
           quote(value, safe=""), quote_plus(value), quote(value, safe="").replace("%0A", "%0a")}
    for user in ("u", "us", "use", "user"):
        out.add(base64.b64encode(f"{user}:{value}".encode()).decode())
    for piece in value.split():
        if len(piece) >= 8:
            out.add(piece)
    return sorted(out, key=len, reverse=True)


def base64_middles(value: str) -> list[str]:
    """The part of the key's base64 that does not depend on what is around it, at each
    byte offset: no redacted text may still hold one."""
    middles = []
    for offset in range(3):
        enc = base64.b64encode(b"\0" * offset + value.encode()).decode()
        middles.append(enc[4:-4])
    return middles


@pytest.mark.parametrize("value", BAD_VALUES)
def test_scrub_masks_every_encoding(value: str) -> None:
    for shown in encodings(value):
        cleaned = scrub(f"error: {shown} (quoted)", [value])
        assert shown not in cleaned, shown
        assert not [m for m in base64_middles(value) if m in cleaned], shown
    basic = "Basic " + base64.b64encode(f"agent:{value}".encode()).decode()
    assert scrub(basic, [value]).count("***") == 1
    assert secret_forms(value)  # cached forms exist for a value with a line break


def _config_at(url: str, store_url: str) -> str:
    return ("backends:\n  - name: tavily\n    base_url: " + url + "\n"
            f"cache: {{enabled: true}}\nstore: {{url: '{store_url}'}}\n")


COMMANDS = (["search", "x", "--no-extract"], ["backends"], ["check", "-q", "x"],
            ["config", "check"])
CLI_CASES = [(v, COMMANDS[:1]) for v in BAD_VALUES[1:]] + [(BAD_VALUES[0], COMMANDS)]


@pytest.mark.parametrize(("value", "commands"), CLI_CASES)
def test_cli_refuses_the_key_by_name_and_never_shows_it(tmp_path: Path, value: str,
                                                       commands: tuple[list[str], ...]) -> None:
    with LoopbackServer() as server:
        server.route("/search", Reply(json={"results": []}))
        store = tmp_path / "store.sqlite3"
        config = tmp_path / "tamis.yaml"
        config.write_text(_config_at(server.url, str(store)))
        env = {"PATH": "/usr/bin:/bin", "TAVILY_API_KEY": value, "HOME": str(tmp_path),
               "XDG_CACHE_HOME": str(tmp_path / "cache"), "TAMIS_CONFIG": str(config)}
        captured = []
        for args in commands:
            proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", *args],
                                  capture_output=True, text=True, env=env, timeout=60)
            assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: environment variable"
                                                           " TAVILY_API_KEY: "), proc.stderr
            captured += [proc.stdout, proc.stderr]
        assert not server.seen  # nothing was sent
    files = [p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*")
             if p.is_file() and p.name != "tamis.yaml"]
    blob = "\n".join(captured + files)
    for shown in encodings(value) + base64_middles(value):
        assert shown not in blob, shown


def test_python_api_never_sends_a_malformed_key(tmp_path: Path, caplog) -> None:
    """Past the config loader (a Config object), the key pool still refuses the value."""
    caplog.set_level(logging.DEBUG)
    value = CORE + "\n"
    with LoopbackServer() as server:
        server.route("/search", Reply(json={"results": []}))
        config = Config(backends=[LineConfig(name="tavily", base_url=server.url,
                                             api_key_env="TAVILY_API_KEY")])
        store = WatchedStore()

        async def main():
            async with Tamis(config, store=store, env={"TAVILY_API_KEY": value}) as layer:
                return await layer.search("x", extract=False)

        response = asyncio.run(main())
        assert not server.seen
    assert response.lines[0].status == "no_key"
    text = response.model_dump_json() + caplog.text + "".join(
        v.decode("utf-8", "replace") for ns in ("rest", "answers") for v in
        store.entries(ns).values())
    assert "TAVILY_API_KEY is not usable: its value holds a line break" in text
    for shown in encodings(value):
        assert shown not in text, shown


def test_fanout_note_from_a_quoted_header_is_masked(server, run) -> None:
    """httpx quotes a refused header as b'Bearer ...\\n': the note masks it all the same."""
    value = CORE + "\n"
    adapter = make_adapter(LineConfig(name="tavily", base_url=server.url))
    message = f"LocalProtocolError: Illegal header value {('Bearer ' + value).encode()!r}"
    assert CORE not in scrub(message, [value])
    answers = run([adapter], "q", env={"TAVILY_API_KEY": value})
    assert answers[0].status == "no_key" and CORE not in answers[0].model_dump_json()


def test_a_rest_written_with_a_key_in_its_reason_is_shown_scrubbed(tmp_path: Path) -> None:
    """A store written by an older version may hold a rest reason quoting the key."""
    import time

    from tamis.backends.keys import REST_NAMESPACE, rest_store_key
    from tamis.store.sqlite import SQLiteStore

    value = "tvly-OLDLEAKaaaa1111bbbb"
    store_path = tmp_path / "store.sqlite3"
    store = SQLiteStore(store_path)
    quoted = ("Bearer " + value + "\n").encode()
    reason = f"cannot connect: LocalProtocolError: Illegal header value {quoted!r}"
    store.set(REST_NAMESPACE, rest_store_key("tavily", "TAVILY_API_KEY"),
              json.dumps({"until": time.time() + 600, "reason": reason}).encode(), ttl=600)
    store.close()
    config = tmp_path / "tamis.yaml"
    config.write_text(f"backends:\n  - name: tavily\nstore: {{url: '{store_path}'}}\n")
    proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "backends", "--config",
                           str(config)], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "TAVILY_API_KEY": value,
                               "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert "TAVILY_API_KEY set, resting until" in proc.stdout
    assert value not in proc.stdout + proc.stderr and "OLDLEAK" not in proc.stdout


def test_every_error_line_is_scrubbed_of_environment_keys(monkeypatch, capsys) -> None:
    from tamis.interfaces.cli import fail
    from tamis.redact import environment_secrets

    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "zzSECRETzz-0123456789")
    monkeypatch.setenv("SHORT_TOKEN", "abc")
    assert environment_secrets({"SOME_PROVIDER_API_KEY": "zzSECRETzz-0123456789",
                                "SHORT_TOKEN": "abc", "HOME": "/home/user-0123456789"}) == [
        "zzSECRETzz-0123456789"]
    with pytest.raises(SystemExit):
        fail("internal error: ValueError: bad header b'Bearer zzSECRETzz-0123456789\\n'")
    err = capsys.readouterr().err
    assert "zzSECRETzz" not in err and err.startswith("error: internal error")
