"""Profile one `tamis serve` worker on uncached searches (cProfile, in this process).

    python bench/profile_serve.py [--requests 1500] [--concurrency 20] [--top 40]
                                  [--sort tottime] [--out FILE.pstats]

A 0-delay fake SearXNG (bench_serve's) runs in a child process, the load generator in
another; the service runs here, on uvicorn as ``tamis serve`` runs it, under cProfile, so
the profile holds the whole request path (uvicorn, Starlette, the Guard, the search, the
store, the JSON out). Prints the top functions and the service's CPU a request beside the
wall time. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from bench_serve import FAKE_SEARXNG, QUERY, wait_ready
from fake_searxng import recorded
from loopback import free_port

LOAD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from bench_serve import run_load
port, n, c = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
paths = [f"/v1/search?q=profiled+query+{i}+{time.time_ns()}&extract=false" for i in range(n)]
out = run_load(port, paths, c, True)
print(len(out.latencies), out.refused, out.invalid, f"{out.wall:.2f}")
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()

    import uvicorn

    from tamis.interfaces.http_app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        fake_port, port = free_port(), free_port()
        config = Path(tmp) / "tamis.yaml"
        config.write_text(
            f"backends:\n  - name: searxng\n    base_url: http://127.0.0.1:{fake_port}\n"
            f"store: {{url: '{Path(tmp) / 'store.sqlite3'}'}}\n"
            "cache: {ttl_seconds: 600}\n")
        fake = subprocess.Popen([sys.executable, "-c", FAKE_SEARXNG, str(fake_port),
                                 json.dumps(recorded(QUERY))])
        try:
            wait_ready(f"http://127.0.0.1:{fake_port}/search?q=x", fake)
            server = uvicorn.Server(uvicorn.Config(
                create_app(config_path=str(config)), host="127.0.0.1", port=port,
                log_level="warning", access_log=False))
            profile = cProfile.Profile(time.process_time)  # CPU, not wall: the machine is shared

            async def run() -> str:
                serving = asyncio.create_task(server.serve())
                while not server.started:
                    await asyncio.sleep(0.05)
                warm = await asyncio.create_subprocess_exec(
                    sys.executable, "-c", LOAD, str(Path(__file__).parent), str(port), "40",
                    "4", stdout=subprocess.PIPE)
                await warm.communicate()
                before = resource.getrusage(resource.RUSAGE_SELF)
                start = time.perf_counter()
                profile.enable()
                load = await asyncio.create_subprocess_exec(
                    sys.executable, "-c", LOAD, str(Path(__file__).parent), str(port),
                    str(args.requests), str(args.concurrency), stdout=subprocess.PIPE)
                printed, _ = await load.communicate()
                profile.disable()
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_SELF)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                server.should_exit = True
                await serving
                count, refused, invalid, _ = printed.decode().split()
                return (f"{count} requests, refused {refused}, invalid {invalid}; wall"
                        f" {wall:.2f} s, service CPU {cpu:.2f} s under cProfile"
                        f" ({cpu / int(count) * 1000:.2f} ms a request)")

            try:  # the loop `tamis serve` runs on (uvicorn's loop="auto")
                import uvloop

                with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                    summary = runner.run(run())
            except ImportError:
                summary = asyncio.run(run())
        finally:
            fake.terminate()
            fake.wait(timeout=10)
    stats = pstats.Stats(profile)
    if args.out:
        stats.dump_stats(args.out)
    stats.sort_stats(args.sort).print_stats(args.top)
    print(summary)


if __name__ == "__main__":
    main()
