"""Shared fixtures. Nothing here touches the internet: servers are on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

TESTS = Path(__file__).parent
# hypothesis keeps its example database and caches in .hypothesis/ under the working
# directory by default: tests never write into the checkout
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", tempfile.mkdtemp(prefix="tamis-hypothesis-"))
sys.path.insert(0, str(TESTS))  # so tests can `from loopback import LoopbackServer`

FIXTURES = TESTS / "fixtures"

from loopback import LoopbackServer, free_port  # noqa: E402  (needs the sys.path line above)

from tamis.backends.base import Adapter  # noqa: E402
from tamis.models import LineAnswer, SearchRequest  # noqa: E402
from tamis.pipeline.fanout import FanoutContext, fan_out  # noqa: E402
from tamis.store.base import MemoryStore  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's config or writes to their cache; no provider keys leak
    in from the environment."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in list(os.environ):
        if name in {"TAMIS_CONFIG", "SEARXNG_URL", "TAMIS_TOKEN"} or name.endswith("_API_KEY") \
                or name == "FIRECRAWL_URL":
            monkeypatch.delenv(name, raising=False)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (``pytest.mark.anyio``) run on asyncio, as tamis does."""
    return "asyncio"


# A real redis-server on a free port, started by the test session. Where ``redis-server`` is
# not installed the Redis tests are skipped with the reason, unless the environment variable
# ``CI`` is set: there they FAIL, because CI installs redis-server and a silent skip would hide
# a broken Redis path.
@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    program = shutil.which("redis-server")
    if program is None:
        message = ("redis-server is not installed (apt-get install redis-server); the Redis"
                   " store tests need a real server")
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and {message}", pytrace=False)
        pytest.skip(message)
    port = free_port()
    workdir: Path = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [program, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--daemonize", "no", "--dir", str(workdir)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    output = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                    pytest.fail(f"redis-server did not start on port {port}: {output[-500:]}")
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()


# A route-based loopback server and a one-call fan-out runner, for backend and fan-out tests.
@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


Runner = Callable[..., list[LineAnswer]]


@pytest.fixture
def run() -> Runner:
    """``run(adapters, query_or_request, env=..., **ctx)`` -> LineAnswers (a fresh store)."""

    def _run(adapters: list[Adapter], request: SearchRequest | str = "q",
             env: Mapping[str, str] | None = None, **ctx: Any) -> list[LineAnswer]:
        req = SearchRequest(query=request) if isinstance(request, str) else request

        async def main() -> list[LineAnswer]:
            async with httpx.AsyncClient() as client:
                context = FanoutContext(client=client, env=dict(env or {}),
                                        store=ctx.pop("store", MemoryStore()), **ctx)
                return await fan_out(req, adapters, context)

        return asyncio.run(main())

    return _run
