"""A bounded worker process for the parses that may not be trusted to finish: PDFs and
very large HTML pages.

``run_worker`` starts ``python -m tamis.extract.worker`` with the body on stdin. The child
limits itself before any parsing (``RLIMIT_AS``: address space; ``RLIMIT_CPU``: CPU
seconds) and answers one JSON object on stdout. The parent waits asynchronously (no thread
is held, so slow pages cannot starve the others), at most ``seconds`` of wall time, then
kills the child: a cancelled read really stops the work. At most ``MAX_WORKERS`` children
run at once per event loop; the others wait their turn within their own deadline.

Measured (bench/bench_deadlines.py): starting a worker costs ~0.25 s of CPU (interpreter +
imports), so ordinary pages are parsed in a thread and only PDFs and pages over
``extraction.isolate_over_bytes`` or ``isolate_over_tags`` come here.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import weakref
from dataclasses import dataclass, field

from tamis.errors import WorkerError

MAX_WORKERS = 2
_SEMAPHORES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary())


@dataclass
class WorkerAnswer:
    title: str = ""
    text: str = ""
    method: str = ""
    page_type: str = ""
    hidden: dict[str, int] = field(default_factory=dict)
    pages_read: int = 0
    pages_total: int = 0


def _semaphore() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    found = _SEMAPHORES.get(loop)
    if found is None:
        found = _SEMAPHORES[loop] = asyncio.Semaphore(MAX_WORKERS)
    return found


async def run_worker(kind: str, body: bytes, *, url: str = "", seconds: float = 20,
                     memory_mb: int = 1024, max_pages: int = 50) -> WorkerAnswer:
    """Parse ``body`` (``kind``: pdf | html) in a bounded child. Raises ``WorkerError``."""
    cpu = max(1, int(seconds + 0.999))
    args = [sys.executable, "-m", "tamis.extract.worker", kind, url, str(memory_mb), str(cpu),
            str(max_pages)]
    async with _semaphore():
        proc = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env={**os.environ, "PYTHONHASHSEED": "0"})
        try:
            out, _ = await asyncio.wait_for(proc.communicate(body), timeout=seconds)
        except TimeoutError:
            raise WorkerError("Timeout", f"parsing took over {seconds:g} s; stopped") from None
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    if proc.returncode != 0 or not out:
        if proc.returncode in (-24, 152):  # SIGXCPU
            raise WorkerError("Timeout", f"parsing used over {cpu} s of CPU; stopped")
        raise WorkerError("TooLarge" if kind == "html" else "PdfTooLarge",
                          f"the parser stopped (exit {proc.returncode}): over the"
                          f" {memory_mb} MB memory limit?")
    answer = json.loads(out.decode("utf-8"))
    if "error" in answer:
        raise WorkerError(answer["error"], answer.get("detail", ""))
    return WorkerAnswer(**answer)


def _limit(memory_mb: int, cpu_seconds: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX: the wall-time limit remains
        return
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))


def _work(kind: str, url: str, max_pages: int, body: bytes) -> dict[str, object]:
    if kind == "pdf":
        from tamis.extract.pdf import PdfError, read_pdf
        try:
            found = read_pdf(body, max_pages=max_pages)
        except PdfError as exc:
            return {"error": exc.kind, "detail": exc.detail}
        return {"title": found.title, "text": found.text, "method": "pypdf",
                "page_type": "pdf", "pages_read": found.pages_read,
                "pages_total": found.pages_total}
    from tamis.extract.html import extract_page
    page = extract_page(body.decode("utf-8", "replace"), url or None)
    return {"title": page.title, "text": page.markdown, "method": page.method,
            "page_type": page.page_type, "hidden": dict(page.hidden)}


def main(argv: list[str]) -> int:
    kind, url, memory_mb, cpu, max_pages = argv[:5]
    _limit(int(memory_mb), int(cpu))
    body = sys.stdin.buffer.read()
    try:
        answer = _work(kind, url, int(max_pages), body)
    except MemoryError:
        answer = {"error": "TooLarge" if kind == "html" else "PdfTooLarge",
                  "detail": f"over the {memory_mb} MB memory limit"}
    sys.stdout.write(json.dumps(answer, ensure_ascii=False))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
