"""Benchmark the CLI as agents use it: one process per call, CPU seconds beside wall time.

    python bench/bench_cli.py [--runs 7] [--tamis "python /path/to/other/tamis-script"]

Every figure is the median of several runs of a fresh process, CPU = user + sys of that
process (from ``wait4``), measured in the same run as its comparators:

- ``python -c pass``: bare interpreter start-up;
- the seed script (``../shared/tools/seed_layer/``, the script tamis replaced) with
  ``--no-extract`` against the same loopback SearXNG;
- ``tamis --help``;
- ``tamis search --no-extract`` against a 0-delay loopback SearXNG (a query not in the store;
  the store itself exists, made by an untimed call for another query);
- the cached repeat of that search (same cache, within the TTL);
- the warm path: the same search with ``TAMIS_URL`` naming a running ``tamis serve`` (one
  worker, started untimed; a new query each run, so the service searches it): the CPU of
  the CLI process only, the service's own is not counted.

Bytecode: every process runs with a bytecode cache (``PYTHONPYCACHEPREFIX`` in the temporary
folder, filled by untimed calls first), as an installed tamis has its ``.pyc`` files; an
environment with ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every module of
tamis from source on every call. ``--no-bytecode-cache`` measures that case instead.

Last line: how many modules an uncached search imports, and which of the heavy packages
(pydantic, httpx...) are among them (one untimed ``-X importtime`` run).

The loopback SearXNG answers the recorded Proxmox answer (tests/fixtures/searxng) to every
query. Floors (issue 34): search <= 0.35 s CPU, cached repeat <= 0.10 s CPU, --help <= 0.10 s
CPU. Prints figures; asserts nothing (the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from loopback import LoopbackServer, Reply, free_port  # noqa: E402

FIXTURE = (ROOT / "tests" / "fixtures" / "searxng"
           / "proxmox-thin-pool-metadata-exhaustion-recovery.json")
SEED = ROOT.parent / "shared" / "tools" / "seed_layer" / "scripts" / "search-agent-consume.py"
QUERY = "proxmox thin pool metadata exhaustion recovery"


def run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(cpu seconds, wall seconds, exit code) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, wall, proc.returncode


def tamis_command() -> list[str]:
    """The installed console script beside this interpreter (a plain entry point)."""
    script = Path(sys.executable).parent / "tamis"
    if script.exists():
        return [str(script)]
    found = shutil.which("tamis")
    return [found] if found else [sys.executable, "-m", "tamis.interfaces.cli"]


# Packages whose import is a large part of a CLI call (issue 13): shown as loaded or not.
HEAVY = ("pydantic", "httpx", "httpcore", "anyio", "asyncio", "yaml", "lxml", "trafilatura")


def imported_packages(tamis: list[str], env: dict[str, str]) -> set[str]:
    """The modules an uncached ``tamis search --no-extract`` imports (``-X importtime``)."""
    cmd = ([sys.executable, "-X", "importtime", *tamis] if tamis[0].endswith("tamis")
           and Path(tamis[0]).exists() else [tamis[0], "-X", "importtime", *tamis[1:]])
    proc = subprocess.run([*cmd, "search", "--no-extract", "which modules load"], env=env,
                          capture_output=True, text=True, check=False)
    return {row.rsplit("|", 1)[1].strip() for row in proc.stderr.splitlines()
            if row.startswith("import time:") and row.count("|") == 2} - {"imported package"}


def line(label: str, samples: list[tuple[float, float, int]], note: str = "") -> float:
    cpu = statistics.median(s[0] for s in samples)
    wall = statistics.median(s[1] for s in samples)
    codes = sorted({s[2] for s in samples})
    print(f"{label:<44} cpu {cpu:6.3f} s   wall {wall:6.3f} s   exit {codes}{note}")
    return cpu


def start_service(tamis: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """``tamis serve`` on a free loopback port, answering /healthz."""
    port = free_port()
    proc = subprocess.Popen([*tamis, "serve", "--port", str(port), "--workers", "1"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as reply:
                if json.loads(reply.read()).get("status") == "ok":
                    return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("tamis serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tamis", help="the tamis command to measure, split on spaces"
                        " (default: the console script beside this Python)")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE as set (every module compiled on"
                        " every call when it is)")
    args = parser.parse_args()
    answer = json.loads(FIXTURE.read_text())
    tamis = args.tamis.split() if args.tamis else tamis_command()
    with LoopbackServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.route("/search", Reply(json=answer))
        base_env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("TAMIS_", "SEARXNG_", "FIRECRAWL_"))}
        # SearXNG only: with FIRECRAWL_URL set, zero config would add a Firecrawl search line.
        base_env.update(SEARXNG_URL=server.url, XDG_CONFIG_HOME=str(Path(tmp) / "config"))
        if not args.no_bytecode_cache:
            base_env.pop("PYTHONDONTWRITEBYTECODE", None)
            base_env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
            warm = dict(base_env, XDG_CACHE_HOME=str(Path(tmp) / "cache-bytecode"))
            for cmd in ([sys.executable, "-c", "pass"], [*tamis, "--help"],
                        [*tamis, "search", "--no-extract", "fill the bytecode cache"],
                        *([[sys.executable, str(SEED), "--no-extract", QUERY]]
                          if SEED.exists() else [])):
                run_once(cmd, warm)  # untimed: writes the .pyc files
        service, service_url = start_service(tamis, dict(
            base_env, XDG_CACHE_HOME=str(Path(tmp) / "cache-service")))
        run_once([*tamis, "search", "--no-extract", "warm up the service"],
                 dict(base_env, TAMIS_URL=service_url))
        results: dict[str, list[tuple[float, float, int]]] = {
            k: [] for k in ("pass", "seed", "help", "search", "cached", "remote")}
        for i in range(args.runs):
            env = dict(base_env, XDG_CACHE_HOME=str(Path(tmp) / f"cache{i}"))
            results["pass"].append(run_once([sys.executable, "-c", "pass"], env))
            if SEED.exists():
                results["seed"].append(run_once(
                    [sys.executable, str(SEED), "--no-extract", QUERY], env))
            results["help"].append(run_once([*tamis, "--help"], env))
            # An agent's store exists already: made by an untimed call for another query.
            run_once([*tamis, "search", "--no-extract", "warm up the store"], env)
            results["search"].append(run_once([*tamis, "search", "--no-extract", QUERY], env))
            results["cached"].append(run_once([*tamis, "search", "--no-extract", QUERY], env))
            results["remote"].append(run_once(
                [*tamis, "search", "--no-extract", f"{QUERY} {i}"],
                dict(env, TAMIS_URL=service_url)))
        service.terminate()
        service.wait(timeout=30)
        loaded = imported_packages(
            tamis, dict(base_env, XDG_CACHE_HOME=str(Path(tmp) / "cache0")))
        print(f"{args.runs} runs each, medians; CPU = user + sys of the process; "
              f"loopback SearXNG {server.url}, 0 delay; bytecode cache "
              + ("as the environment sets it (PYTHONDONTWRITEBYTECODE="
                 f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r})"
                 if args.no_bytecode_cache else "on (PYTHONPYCACHEPREFIX, filled untimed)"))
        bare = line("python -c pass", results["pass"])
        seed = line("seed script --no-extract", results["seed"]) if results["seed"] else None
        help_cpu = line("tamis --help", results["help"], "   (floor <= 0.100)")
        first = line("tamis search --no-extract (uncached)", results["search"],
                     "   (floor <= 0.350)")
        cached = line("tamis search --no-extract (cached repeat)", results["cached"],
                      "   (floor <= 0.100)")
        line("tamis search via TAMIS_URL (warm serve)", results["remote"],
             "   (CLI process only)")
        print(f"cached / uncached CPU: {cached / first:.2f}x;"
              f" --help over bare python: +{help_cpu - bare:.3f} s"
              + (f"; search / seed script: {first / seed:.2f}x" if seed else
                 "; seed script not found, comparator skipped"))
        print(f"an uncached search imports {len(loaded)} modules; of the heavy ones: "
              + ", ".join(f"{name} {'yes' if name in loaded else 'no'}" for name in HEAVY))


if __name__ == "__main__":
    main()
