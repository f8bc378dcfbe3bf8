"""A real searx (Debian's ``searx`` package) on a free loopback port, for integration tests:
the helpers, for tests to import; the ``searx`` fixture is in conftest.py.

The instance is started once per test session from a settings file built from
``/usr/share/doc/searx/examples/settings.yml``, with every stock engine replaced by three
``json_engine`` engines that call a loopback JSON server (tests/loopback.py) owned by the
fixture; a test chooses, per query, what each engine answers::

    def test_x(searx):
        searx.answer("my query", alpha=[hit("https://a.example/1")], beta=Reply(status=500))

So a test gets searx's own merge (``engines``, ``positions``, ``score``), its own
``unresponsive_engines``, timeouts and parameter handling, with nothing leaving 127.0.0.1.

Engines: ``alpha`` (general; paging, ``pageno`` in its URL; time_range supported), ``beta``
(general), ``gamma`` (general and news). Debian's searx runs under the system python3, not
the venv. Where it is not installed the tests are skipped with the reason, unless ``CI`` is
set: there they fail, because CI installs it (.ci/run).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from loopback import LoopbackServer, Reply, Request, free_port

SEARX_PACKAGE = Path("/usr/lib/python3/dist-packages/searx")
SEARX_EXAMPLE_SETTINGS = Path("/usr/share/doc/searx/examples/settings.yml")
SYSTEM_PYTHON = Path("/usr/bin/python3")
START_TIMEOUT = 60.0  # seconds: a loaded 2-core machine imports searx in 1-15 s
ENGINE_TIMEOUT = 1.5  # searx's outgoing.request_timeout: what a "timeout" test waits

Answer = Reply | list[dict[str, Any]] | Callable[[Request], Reply]

ENGINES: dict[str, dict[str, Any]] = {
    "alpha": {"categories": "general", "paging": True, "time_range_support": True,
              "shortcut": "al", "path": "/alpha?q={query}&p={pageno}"},
    "beta": {"categories": "general", "shortcut": "be", "path": "/beta?q={query}"},
    "gamma": {"categories": "general,news", "shortcut": "ga", "path": "/gamma?q={query}"},
}


def hit(url: str, title: str | None = None, content: str = "") -> dict[str, str]:
    """One result as an engine answers it (the json_engine reads url, title, content)."""
    return {"url": url, "title": title or f"page {url.rsplit('/', 1)[-1]}",
            "content": content or f"text about {url}"}


@dataclass
class RealSearx:
    """A running searx: ``url``; ``answer()`` sets what its engines say to one query."""

    url: str
    engines: LoopbackServer
    log_path: Path
    answers: dict[tuple[str, str], Answer] = field(default_factory=dict)

    def answer(self, query: str, **per_engine: Answer) -> None:
        """What each engine answers to ``query`` (an engine not named answers no results)."""
        for engine, reply in per_engine.items():
            assert engine in ENGINES, f"no engine {engine!r}: {sorted(ENGINES)}"
            self.answers[(engine, query)] = reply

    def asked(self, query: str) -> list[Request]:
        """The requests searx's engines sent for ``query``."""
        return [r for r in self.engines.seen if r.arg("q") == query]

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def engine_reply(answers: dict[tuple[str, str], Answer], request: Request) -> Reply:
    """What an engine (the path of the request) answers to the query ``q``."""
    found = answers.get((request.path.strip("/"), request.arg("q")))
    if found is None:
        return Reply(json={"results": []})
    if isinstance(found, Reply):
        return found
    if isinstance(found, list):
        return Reply(json={"results": found})
    return found(request)


def searx_settings(port: int, engines_url: str, **search: Any) -> dict[str, Any]:
    """The settings a new user writes: Debian's example, our engines instead of the stock ones.
    ``search``: more keys of its ``search`` section."""
    settings = yaml.safe_load(SEARX_EXAMPLE_SETTINGS.read_text())
    settings["general"]["debug"] = False
    settings["server"].update(port=port, bind_address="127.0.0.1",
                              secret_key=secrets.token_hex(16), base_url=False,
                              image_proxy=False)
    # formats: what SearXNG needs for format=json (searx 1.1 answers JSON without it).
    # No ban after a failure: one test's HTTP 500 must not silence the engine in the next.
    settings["search"].update(formats=["html", "json"], autocomplete="",
                              ban_time_on_fail=0, max_ban_time_on_fail=0)
    settings["search"].update(search)
    settings["outgoing"].update(request_timeout=ENGINE_TIMEOUT)
    settings["engines"] = [
        {"name": name, "engine": "json_engine", "shortcut": spec["shortcut"],
         "categories": spec["categories"], "paging": spec.get("paging", False),
         "time_range_support": spec.get("time_range_support", False),
         "search_url": engines_url + spec["path"], "results_query": "results",
         "url_query": "url", "title_query": "title", "content_query": "content",
         "enable_http": True}  # searx refuses plain-http engines without it
        for name, spec in ENGINES.items()]
    return settings


def _missing() -> str | None:
    if not SYSTEM_PYTHON.exists():
        return f"{SYSTEM_PYTHON} is missing"
    if not (SEARX_PACKAGE / "webapp.py").exists() or not SEARX_EXAMPLE_SETTINGS.exists():
        return "searx is not installed (apt-get install searx)"
    return None


def _child_env(settings_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k.upper() not in {"PYTHONPATH", "PYTHONHOME", "HTTP_PROXY", "HTTPS_PROXY",
                                "ALL_PROXY"}}
    env.update(SEARX_SETTINGS_PATH=str(settings_path), NO_PROXY="127.0.0.1,localhost",
               no_proxy="127.0.0.1,localhost", SEARX_DEBUG="0", PYTHONDONTWRITEBYTECODE="1",
               # one hash seed: searx's sets (a result's engines, unresponsive_engines)
               # come out in the same order on every run, so a failure reproduces
               PYTHONHASHSEED="0")
    return env


def _wait_until_up(proc: subprocess.Popen[bytes], url: str, log_path: Path) -> str | None:
    """None once searx answers /healthz; else why not (it exited, or is too slow)."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            if httpx.get(url + "/healthz", timeout=1.0).text == "OK":
                return None
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            return f"exited with {proc.returncode}"
        if time.monotonic() > deadline:
            return f"did not answer in {START_TIMEOUT:g} s"
        time.sleep(0.05)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def require_searx() -> None:
    missing = _missing()
    if missing is not None:
        message = f"{missing}; the real-searx integration tests need Debian's searx"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and {message}", pytrace=False)
        pytest.skip(message)


@contextmanager
def running_searx(workdir: Path, engines: LoopbackServer, **search: Any) -> Iterator[str]:
    """Start searx with our engines (``search``: settings of its search section), wait for
    its port, yield its URL; stop it. A searx that does not start fails with its log."""
    settings_path = workdir / "settings.yml"
    log_path = workdir / "searx.log"
    for attempt in range(3):  # another program may take the free port before searx does
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        settings_path.write_text(yaml.safe_dump(searx_settings(port, engines.url, **search)))
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [str(SYSTEM_PYTHON), str(SEARX_PACKAGE / "webapp.py")], cwd=workdir,
                env=_child_env(settings_path), stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT)
        why = _wait_until_up(proc, url, log_path)
        if why is None:
            break
        _stop(proc)
        output = log_path.read_text(errors="replace")
        if "Address already in use" not in output or attempt == 2:
            pytest.fail(f"searx {why} on {url}; its log:\n{output[-3000:]}", pytrace=False)
    try:
        yield url
    finally:
        _stop(proc)
