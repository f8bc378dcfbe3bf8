"""Benchmark the cap on backend answers: a huge answer and a gzip bomb, capped and uncapped.

    python bench/bench_answer_cap.py

Each case runs in a fresh process (so peak memory is its own) against a loopback server:
one line asked under ``timeout`` 5 s, with the fan-out's cap (8 MB after decompression) and,
as the comparator from the same run, with the cap lifted (what tamis did before). Prints
wall time, CPU seconds (user+sys) and peak RSS of each. Asserts nothing. The loopback server
may print a reset connection when a capped client hangs up early: that is expected.
"""

from __future__ import annotations

import gzip
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

from loopback import LoopbackServer, Reply

CHILD = r"""
import asyncio, json, sys, resource, time
import httpx
from tamis.backends.registry import make_adapter
from tamis.models import SearchRequest
from tamis.pipeline.fanout import FanoutContext, fan_out
from tamis.policy.schema import LineConfig

url, cap = sys.argv[1], int(sys.argv[2])

async def main():
    adapter = make_adapter(LineConfig(name="big", type="searxng", base_url=url))
    async with httpx.AsyncClient() as client:
        ctx = FanoutContext(client=client, timeout=5.0, max_answer_bytes=cap)
        return await fan_out(SearchRequest(query="q"), [adapter], ctx)

start = time.perf_counter()
[answer] = asyncio.run(main())
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
# VmHWM: this program's own peak (ru_maxrss would include the parent's before exec).
hwm = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM"))
note = answer.notes[-1].message[:60] if answer.notes else ""
print(json.dumps({"status": answer.status, "hits": len(answer.hits), "wall": wall,
                  "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": hwm / 1024,
                  "note": note}))
"""


def answer(size: int) -> bytes:
    filler = "x" * 1000
    items = [{"title": "t", "url": f"https://big.example/{i}", "content": filler}
             for i in range(size // 1060 + 1)]
    return json.dumps({"results": items}).encode()


def run(url: str, cap: int) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, url, str(cap)], capture_output=True,
                          text=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        return {"status": f"crashed ({proc.stderr.strip().splitlines()[-1][:80]})",
                "wall": wall, "cpu": (after.ru_utime - before.ru_utime)
                + (after.ru_stime - before.ru_stime), "rss_mib": after.ru_maxrss / 1024,
                "note": "", "hits": 0}
    return json.loads(proc.stdout)


def main() -> None:
    from tamis.pipeline.fanout import MAX_ANSWER_BYTES

    plain = answer(150_000_000)
    bomb = gzip.compress(b'{"results": [' + b" " * 1_000_000_000 + b"]}", compresslevel=9)
    cases = [("150 MB JSON answer", Reply(body=plain)),
             (f"gzip bomb: {len(bomb) / 1e6:.1f} MB inflating to 1 GB",
              Reply(body=bomb, headers={"Content-Encoding": "gzip"}))]
    print(f"{'case':44} {'cap':>10} {'status':>8} {'wall s':>7} {'cpu s':>6} {'peak MiB':>9}")
    for label, reply in cases:
        with LoopbackServer() as server:
            server.route("/search", reply)
            for cap_label, cap in (("8 MB", MAX_ANSWER_BYTES), ("none", 2**62)):
                r = run(server.url, cap)
                print(f"{label:44} {cap_label:>10} {r['status']:>8} {r['wall']:7.2f}"
                      f" {r['cpu']:6.2f} {r['rss_mib']:9.0f}  {r['note']}")


if __name__ == "__main__":
    main()
