"""``tamis serve --workers 2`` on Linux: a listening socket per worker on the one port, so
the kernel spreads new connections across the workers; a worker that dies is replaced; a
port that cannot be bound is one error line."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback import free_port

from tamis.interfaces import serve_workers

pytestmark = pytest.mark.skipif(not serve_workers.available(1),
                                reason="SO_REUSEPORT workers are Linux-only")


def listeners(port: int) -> int:
    """How many sockets listen on 127.0.0.1:port (/proc/net/tcp, state 0A)."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for row in rows if row.split()[1] == f"0100007F:{port:04X}"
               and row.split()[3] == "0A")


def healthz_pid(conn: http.client.HTTPConnection) -> int:
    conn.request("GET", "/healthz")
    return int(json.loads(conn.getresponse().read())["pid"])


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    config = tmp_path / "tamis.yaml"
    config.write_text("backends:\n  - {name: searxng, base_url: 'http://127.0.0.1:9'}\n"
                      f"store: {{url: '{tmp_path / 'store.sqlite3'}'}}\n")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve", "--port",
                             str(port), "--config", str(config), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while listeners(port) < 2:
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "tamis serve did not start 2 workers"
            time.sleep(0.1)
        yield proc, port
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=40)


def test_each_worker_listens_on_its_own_socket_and_takes_its_share(service) -> None:
    proc, port = service
    assert listeners(port) == 2  # uvicorn's workers share one socket: 1 here
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=20) for _ in range(40)]
    try:
        pids = Counter(healthz_pid(conn) for conn in conns)
        assert len(pids) == 2, pids
        # The kernel hashes each connection to a socket: 40 split evenly but for chance
        # (fewer than 8 on one side: about 1 in 100,000).
        assert min(pids.values()) >= 8, pids
        # A keep-alive connection stays with its worker.
        assert all(healthz_pid(conn) == healthz_pid(conn) for conn in conns[:5])
    finally:
        for conn in conns:
            conn.close()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=40) == 0
    assert listeners(port) == 0


def test_a_worker_that_dies_is_replaced(service) -> None:
    _proc, port = service
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=20) for _ in range(16)]
    first = {healthz_pid(conn) for conn in conns}
    for conn in conns:
        conn.close()
    victim = sorted(first)[0]
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 60
    seen: set[int] = set()
    while not (len(seen) == 2 and victim not in seen):
        assert time.monotonic() < deadline, f"no new worker after {victim} died: {seen}"
        time.sleep(0.2)
        conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=20) for _ in range(16)]
        try:
            seen = {healthz_pid(conn) for conn in conns}
        except OSError:
            seen = set()  # the dead worker's socket was still being torn down
        finally:
            for conn in conns:
                conn.close()
    assert listeners(port) == 2


def test_a_port_another_program_holds_is_one_error_line(tmp_path: Path) -> None:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "serve", "--port",
                               str(port), "--workers", "2"], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})
    finally:
        holder.close()
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines == [f"error: cannot listen on 127.0.0.1:{port}: Address already in use"], lines
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_port_0_serves_on_the_port_it_prints(tmp_path: Path, workers: str) -> None:
    """--port 0: the system picks a free port, and the start-up line names that one."""
    config = tmp_path / "tamis.yaml"
    config.write_text("backends:\n  - {name: searxng, base_url: 'http://127.0.0.1:9'}\n"
                      f"store: {{url: '{tmp_path / 'store.sqlite3'}'}}\n")
    proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve", "--port",
                             "0", "--config", str(config), "--workers", workers],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("tamis serving on http://127.0.0.1:"), line
        port = int(line.split("http://127.0.0.1:", 1)[1].split()[0])
        assert port != 0
        deadline = time.monotonic() + 60
        while listeners(port) < int(workers):
            assert proc.poll() is None and time.monotonic() < deadline, "did not start"
            time.sleep(0.1)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        assert healthz_pid(conn) > 0
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=40)
