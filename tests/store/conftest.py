"""Fixtures for store tests: a real redis-server on a free port, started by the test.

Where ``redis-server`` is not installed the Redis tests are skipped with the reason, unless
the environment variable ``CI`` is set: there they FAIL, because CI installs redis-server and
a silent skip would hide a broken Redis path.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


@pytest.fixture
def redis_store_url(redis_url: str) -> Iterator[str]:
    """The Redis URL with an empty database for this test."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    yield redis_url
