"""``tamis serve --workers N`` on Linux: N uvicorn processes, each with its own listening
socket on the one port (``SO_REUSEPORT``), kept alive by this process.

uvicorn's own ``--workers`` shares one listening socket between its processes: whichever
process wakes first accepts, so a burst of new connections (a client's connection pool
opening) can land mostly on one worker while the other idles, and keep-alive connections
stay where they landed (measured: 20 connections split 19 to 1 in one run). With a socket
per worker the kernel spreads connections evenly across them, as nginx's ``reuseport``
does. Where ``SO_REUSEPORT`` is missing, or the port is 0 (each socket would get a port of
its own), ``available`` says no and the caller uses uvicorn's workers.

A worker that dies is started again; one that cannot start (its socket cannot be bound,
the app fails its start-up: exit code ``STARTUP_FAILURE``) stops them all. SIGINT and
SIGTERM stop every worker gracefully (each flushes its store), then this process exits.
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
import sys
import threading
from typing import Any

APP = "tamis.interfaces.http_app:serve_app"
STARTUP_FAILURE = 3  # uvicorn's exit code for a worker that could not start
STOP_SECONDS = 15  # a worker's graceful shut-down (5 s) and its store's flush, then a kill


def available(port: int) -> bool:
    return port != 0 and hasattr(socket, "SO_REUSEPORT") and sys.platform.startswith("linux")


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to host:port that other sockets of this user may bind too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    return sock


def worker(host: str, port: int, options: dict[str, Any]) -> None:
    """One worker process: its own socket, then uvicorn serving the app on it."""
    import uvicorn

    try:
        sock = listening_socket(host, port)
    except OSError as exc:
        print(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        sys.exit(STARTUP_FAILURE)
    config = uvicorn.Config(APP, factory=True, **options)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    if not server.started:
        sys.exit(STARTUP_FAILURE)


class Workers:
    """Start ``count`` workers and keep them running until a signal says stop."""

    def __init__(self, host: str, port: int, options: dict[str, Any]) -> None:
        self.args = (host, port, options)
        self.context = multiprocessing.get_context("spawn")
        self.processes: list[Any] = []
        self.stop = threading.Event()
        self.failed = False

    def start(self) -> Any:
        process = self.context.Process(target=worker, args=self.args, daemon=False)
        process.start()
        return process

    def run(self, count: int) -> int:
        """Serve until SIGINT/SIGTERM (exit code 0) or a worker that cannot start (3)."""
        previous = {sig: signal.signal(sig, lambda *_: self.stop.set())
                    for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.processes = [self.start() for _ in range(count)]
            while not self.stop.wait(0.5):
                self.keep_alive()
        finally:
            self.stop_all()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return STARTUP_FAILURE if self.failed else 0

    def keep_alive(self) -> None:
        for index, process in enumerate(self.processes):
            if process.is_alive() or self.stop.is_set():
                continue
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                self.failed = True
                self.stop.set()
                return
            self.processes[index] = self.start()

    def stop_all(self) -> None:
        for process in self.processes:
            if process.is_alive():
                process.terminate()  # SIGTERM: uvicorn shuts down gracefully
        for process in self.processes:
            process.join(STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()


def serve(count: int, host: str, port: int, options: dict[str, Any]) -> int:
    """Run ``count`` workers on host:port; the exit code for the command."""
    return Workers(host, port, options).run(count)
