"""Load-test `tamis serve` on loopback beside a bare Starlette endpoint: bounded in count and time.

    python bench/bench_serve.py [--requests 4000] [--concurrency 20] [--workers 2]
                                [--tamis-src DIR]   # measure another checkout's src/
                                [--scenarios healthz,cached,uncached]
                                [--against DIR --rounds 3]  # paired: DIR's src/, then
                                                            # this one, round after round

Processes, all on 127.0.0.1: a 0-delay fake SearXNG (uvicorn, one process, the recorded
answer of the measured query with the query put in), a bare Starlette endpoint answering a
small JSON (uvicorn, as many workers as tamis), and `tamis serve` (`--workers N`; a
checkout without `--workers` is started as one process). The load comes from this process:
N keep-alive HTTP/1.1 connections, each sending its next request when the last answer is
in. Scenarios:

- bare Starlette: the comparator;
- tamis `/healthz`: the service's floor;
- cached: the same search again and again (answer cache on, SQLite store);
- uncached: a new query each request, on the 0-delay backend.

Each prints requests per second, p50/p99, requests refused (503) or otherwise not a valid
answer (goal: 0), the servers' CPU seconds (user+sys of every process of the server, read
from /proc) and the load generator's, beside the wall time, and the CPU-bound ceiling: the
cores divided by the CPU every process spent a request (what an idle machine would reach;
the machine is shared, so the measured rate can be far below it). Nothing is asserted.

``--against DIR`` (another checkout's src/, e.g. a worktree of main) runs the whole
measure for DIR and for this checkout alternately, ``--rounds`` times, and ends with each
scenario's figures side by side: the median of the rounds, and each round's pair (the
machine's load changes from minute to minute; a pair shares it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from fake_searxng import recorded
from loopback import free_port

QUERY = "proxmox thin pool metadata exhaustion recovery"
TICKS = os.sysconf("SC_CLK_TCK")
DEADLINE = 120.0  # seconds per scenario at most

FAKE_SEARXNG = """
import json, sys
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
import uvicorn
answer = json.loads(sys.argv[2])
async def search(request):
    body = dict(answer, query=request.query_params.get("q", ""))
    return Response(json.dumps(body), media_type="application/json")
app = Starlette(routes=[Route("/search", search)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
            access_log=False)
"""

BARE_STARLETTE = """
import sys
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
async def hello(request):
    return JSONResponse({"status": "ok", "query": request.query_params.get("q", "")})
app = Starlette(routes=[Route("/", hello)])
if __name__ == "__main__":
    import uvicorn
    sys.path.insert(0, sys.argv[3])
    uvicorn.run("bare_starlette:app", host="127.0.0.1", port=int(sys.argv[1]),
                workers=int(sys.argv[2]), log_level="warning", access_log=False)
"""


# -------------------------------------------------------------------------- processes
def tree_cpu(pid: int) -> float:
    """User+sys CPU seconds of a process and its live descendants."""
    total = 0.0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICKS
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                stack.extend(int(c) for c in children)
        except (OSError, IndexError, ValueError):
            continue
    return total


def wait_ready(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"a server exited before it was ready ({url})")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not come up")


# -------------------------------------------------------------------------- load
@dataclass
class Outcome:
    latencies: list[float]
    refused: int
    invalid: int
    wall: float
    load_cpu: float


async def one_connection(port: int, paths: list[str], out: list[float],
                         counts: dict[str, int], check: bool) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for path in paths:
            start = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            body = await reader.readexactly(length)
            out.append(time.perf_counter() - start)
            if status == 503:
                counts["refused"] += 1
            elif status != 200 or (check and b'"returned_count":0' in body.replace(b" ", b"")):
                counts["invalid"] += 1
    finally:
        writer.close()


def run_load(port: int, paths: list[str], concurrency: int, check: bool) -> Outcome:
    out: list[float] = []
    counts = {"refused": 0, "invalid": 0}
    shares = [paths[i::concurrency] for i in range(concurrency)]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    begin = time.perf_counter()

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(
            *(one_connection(port, share, out, counts, check) for share in shares)), DEADLINE)

    asyncio.run(main())
    wall = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_SELF)
    load_cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    return Outcome(out, counts["refused"], counts["invalid"], wall, load_cpu)


def report(name: str, outcome: Outcome, server_cpu: float, comparator: float | None,
           backend_cpu: float | None = None) -> dict[str, float]:
    lat = sorted(outcome.latencies)
    rate = len(lat) / outcome.wall
    p50 = statistics.median(lat) * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    versus = f"  = {rate / comparator:.2f}x bare Starlette" if comparator else ""
    print(f"{name:<22} {rate:7.0f} req/s{versus}")
    print(f"{'':<22} p50 {p50:.1f} ms, p99 {p99:.1f} ms; refused {outcome.refused},"
          f" other invalid {outcome.invalid}; wall {outcome.wall:.2f} s, server CPU"
          f" {server_cpu:.2f} s ({server_cpu / len(lat) * 1000:.2f} ms a request), load"
          f" generator CPU {outcome.load_cpu:.2f} s")
    if backend_cpu is not None:
        print(f"{'':<22} the fake SearXNG's CPU {backend_cpu:.2f} s"
              f" ({backend_cpu / len(lat) * 1000:.2f} ms a request)")
    every = server_cpu + outcome.load_cpu + (backend_cpu or 0.0)
    cores = len(os.sched_getaffinity(0))
    print(f"{'':<22} CPU-bound ceiling: {cores} idle cores / {every / len(lat) * 1000:.2f} ms"
          f" of CPU a request (server{' + backend' if backend_cpu is not None else ''}"
          f" + load generator) = {cores * len(lat) / every:.0f} req/s")
    return {"rate": rate, "cpu_ms": server_cpu / len(lat) * 1000,
            "ceiling": cores * len(lat) / every, "refused": outcome.refused,
            "invalid": outcome.invalid}


def measure(name: str, pid: int, port: int, paths: list[str], concurrency: int,
            comparator: float | None, check: bool = False, backend: int | None = None
            ) -> dict[str, float]:
    """One scenario; ``backend``: the pid of the backend it asks, whose CPU is printed too."""
    cpu = tree_cpu(pid)
    backend_cpu = tree_cpu(backend) if backend is not None else 0.0
    outcome = run_load(port, paths, concurrency, check)
    return report(name, outcome, tree_cpu(pid) - cpu, comparator,
                  tree_cpu(backend) - backend_cpu if backend is not None else None)


# -------------------------------------------------------------------------- main
def run_once(args: argparse.Namespace, tamis_src: str | None) -> dict[str, dict[str, float]]:
    """Every chosen scenario once, for the checkout at ``tamis_src`` (None: this one)."""
    n, c = args.requests, args.concurrency
    figures: dict[str, dict[str, float]] = {}
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory() as tmp:
        answer = recorded(QUERY)
        fake_port, bare_port, tamis_port = free_port(), free_port(), free_port()
        (Path(tmp) / "bare_starlette.py").write_text(BARE_STARLETTE)
        env = dict(os.environ)
        if tamis_src:
            env["PYTHONPATH"] = str(Path(tamis_src).resolve())
        config = Path(tmp) / "tamis.yaml"
        config.write_text(
            f"backends:\n  - name: searxng\n    base_url: http://127.0.0.1:{fake_port}\n"
            f"store: {{url: '{Path(tmp) / 'store.sqlite3'}'}}\n"
            "cache: {ttl_seconds: 600}\n")
        command = [sys.executable, "-m", "tamis.interfaces.cli", "serve", "--port",
                   str(tamis_port), "--config", str(config)]
        help_text = subprocess.run([*command[:4], "--help"], env=env, capture_output=True,
                                   text=True).stdout
        workers = args.workers if "--workers" in help_text else 1
        if "--workers" in help_text:
            command += ["--workers", str(workers)]
        try:
            procs.append(subprocess.Popen([sys.executable, "-c", FAKE_SEARXNG, str(fake_port),
                                           json.dumps(answer)]))
            procs.append(subprocess.Popen([sys.executable, str(Path(tmp) / "bare_starlette.py"),
                                           str(bare_port), str(workers), tmp]))
            procs.append(subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL))
            fake, bare, tamis = procs
            wait_ready(f"http://127.0.0.1:{fake_port}/search?q=x", fake)
            wait_ready(f"http://127.0.0.1:{bare_port}/", bare)
            wait_ready(f"http://127.0.0.1:{tamis_port}/healthz", tamis)
            search = f"/v1/search?q={QUERY.replace(' ', '+')}&extract=false"
            for _ in range(3 * workers):  # every worker has the answer cached and warm
                httpx.get(f"http://127.0.0.1:{tamis_port}{search}", timeout=30)
            print(f"{n} requests a scenario, {c} concurrent keep-alive clients, tamis"
                  f" {workers} worker(s), bare Starlette {workers} worker(s),"
                  f" {len(os.sched_getaffinity(0))} cores")
            chosen = set(args.scenarios.split(","))
            figures["bare Starlette"] = measure("bare Starlette", bare.pid, bare_port,
                                                ["/?q=x"] * n, c, None)
            base = figures["bare Starlette"]["rate"]
            if "healthz" in chosen:
                figures["healthz"] = measure("tamis /healthz", tamis.pid, tamis_port,
                                             ["/healthz"] * n, c, base)
            if "cached" in chosen:
                figures["cached"] = measure("tamis cached search", tamis.pid, tamis_port,
                                            [search] * n, c, base, check=True)
            fresh = [f"/v1/search?q=fresh+query+{i}+{time.time_ns()}&extract=false"
                     for i in range(n)]
            if "uncached" in chosen:
                figures["uncached"] = measure("tamis uncached", tamis.pid, tamis_port, fresh,
                                              c, base, check=True, backend=fake.pid)
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    return figures


def paired(args: argparse.Namespace) -> None:
    """``--against``: the other checkout and this one alternately, then side by side."""
    rounds: list[tuple[dict, dict]] = []
    for round_ in range(1, args.rounds + 1):
        # the order alternates: the second run of a pair can find the machine busier
        # (the first's files being written back), whichever checkout it is
        order = [("base", args.against), ("this checkout", None)]
        figures: dict[str, dict] = {}
        for label, src in order if round_ % 2 else order[::-1]:
            print(f"== round {round_}: {label}")
            figures[label] = run_once(args, src)
        rounds.append((figures["base"], figures["this checkout"]))
    print(f"\n== paired, {args.rounds} round(s): base -> this checkout"
          " (median of the rounds; then each round)")
    for scenario in rounds[0][0]:
        def cell(which: int, key: str, scenario: str = scenario) -> float:
            return statistics.median(r[which][scenario][key] for r in rounds)
        print(f"{scenario:<16} rate {cell(0, 'rate'):6.0f} -> {cell(1, 'rate'):6.0f} req/s;"
              f" CPU {cell(0, 'cpu_ms'):5.2f} -> {cell(1, 'cpu_ms'):5.2f} ms a request;"
              f" ceiling {cell(0, 'ceiling'):6.0f} -> {cell(1, 'ceiling'):6.0f} req/s;"
              f" refused {sum(r[0][scenario]['refused'] for r in rounds):.0f} ->"
              f" {sum(r[1][scenario]['refused'] for r in rounds):.0f}")
        for i, (b, t) in enumerate(rounds, 1):
            print(f"{'':<16}   round {i}: {b[scenario]['rate']:.0f} -> {t[scenario]['rate']:.0f}"
                  f" req/s, {b[scenario]['cpu_ms']:.2f} -> {t[scenario]['cpu_ms']:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tamis-src", default=None,
                        help="src/ of another checkout to measure (its own `tamis serve`)")
    parser.add_argument("--scenarios", default="healthz,cached,uncached",
                        help="which tamis scenarios to run (bare Starlette always runs)")
    parser.add_argument("--against", default=None,
                        help="src/ of a base checkout: measure it and this one alternately")
    parser.add_argument("--rounds", type=int, default=3, help="with --against")
    args = parser.parse_args()
    if args.against:
        paired(args)
    else:
        run_once(args, args.tamis_src)


if __name__ == "__main__":
    main()
