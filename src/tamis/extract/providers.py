"""Extraction providers: each turns one URL into a ``Page`` (full text, or why there is none).

- ``builtin``: fetch with the shared client (``fetch``), recognise bot walls, then extract the
  main text in a worker thread (``html.extract_page``), so pages parse while others download;
  PDFs and pages over ``isolate_over_bytes`` or ``isolate_over_tags`` go to the bounded
  worker process (``worker``).
- ``firecrawl``: ``POST {base_url}/v1/scrape`` with ``formats: ["markdown"]`` and
  ``onlyMainContent: true``; a bearer key from ``firecrawl.api_key_env`` when that variable is
  set (a self-hosted service may need none). The target URL is vetted like any other first,
  but the redirects Firecrawl follows happen on its side.

Both raise ``ExtractError``; ``core`` turns it into a status.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Mapping

import httpx

from tamis.extract.blocked import CHALLENGE_TITLES, challenge_reason
from tamis.extract.decode import decode
from tamis.extract.fetch import HEADERS, Fetched, fetch_page, read_capped
from tamis.extract.html import extract_page, normalize
from tamis.extract.models import BLOCKED, EMPTY, OK, ExtractError, Page, failed
from tamis.extract.safety import AllowList, check_url
from tamis.extract.visibility import describe
from tamis.extract.worker import WorkerError, run_worker
from tamis.pipeline.fanout import USER_AGENT, scrub
from tamis.policy.schema import ExtractionConfig


def _precheck(fetched: Fetched) -> tuple[Page | None, str]:
    """A page that needs no extraction (bot wall, HTTP error), else None; and the text."""
    html = fetched.kind == "html"
    text = decode(fetched.body, fetched.content_type, html=html)
    base = {"url": fetched.url, "final_url": fetched.final_url}
    reason = challenge_reason(fetched.status_code, fetched.headers, text if html else "")
    if reason:
        return Page(**base, status=BLOCKED, detail=reason), text
    if fetched.status_code >= 300:
        return Page(**base, status=failed(f"HTTP{fetched.status_code}"),
                    detail=f"the server answered HTTP {fetched.status_code}"), text
    return None, text


def _page(fetched: Fetched, title: str, body: str, page_type: str,
          notes: list[str | None]) -> Page:
    if fetched.cut:
        notes.append(f"body cut at {len(fetched.body)} bytes (extraction.max_bytes)")
    detail = "; ".join(n for n in notes if n) or None
    return Page(url=fetched.url, final_url=fetched.final_url, status=OK if body else EMPTY,
                text=body, title=title, detail=detail, page_type=page_type)


def page_from_fetched(fetched: Fetched) -> Page:
    """Decode, check for a bot wall, extract. Synchronous and CPU-bound (run in a thread)."""
    early, text = _precheck(fetched)
    if early is not None:
        return early
    if fetched.kind != "html":
        return _page(fetched, "", normalize(text), "text", [])
    found = extract_page(text, fetched.final_url)
    return _page(fetched, found.title, found.markdown, found.page_type,
                 [describe(found.hidden)])


def _heavy(fetched: Fetched, config: ExtractionConfig) -> bool:
    """An HTML page whose parse may not be trusted to finish soon: a thread cannot be
    stopped at the deadline, nor its memory capped. Its size bounds the memory; its count of
    '<' (about two an element, a C-speed scan) bounds the work, which grows with the
    elements, and faster than linearly for some shapes (thousands of links in one
    paragraph). bench/bench_deadlines.py measures the line on real pages."""
    return fetched.kind == "html" and (len(fetched.body) > config.isolate_over_bytes
                                       or fetched.body.count(b"<") > config.isolate_over_tags)


async def isolated_page(fetched: Fetched, config: ExtractionConfig) -> Page:
    """A PDF or a very large page, parsed in the bounded worker process."""
    base = {"url": fetched.url, "final_url": fetched.final_url}
    if fetched.kind == "pdf":
        if fetched.status_code >= 300:
            return Page(**base, status=failed(f"HTTP{fetched.status_code}"),
                        detail=f"the server answered HTTP {fetched.status_code}")
        if fetched.cut:
            return Page(**base, status=failed("PdfTooLarge"),
                        detail=f"PDF over {config.max_bytes} bytes (extraction.max_bytes)")
        body = fetched.body
    else:
        early, text = _precheck(fetched)
        if early is not None:
            return early
        body = text.encode("utf-8")
    try:
        answer = await run_worker(fetched.kind, body, url=fetched.final_url,
                                  seconds=config.timeout_seconds,
                                  memory_mb=config.worker_memory_mb,
                                  max_pages=config.pdf_max_pages)
    except WorkerError as exc:
        return Page(**base, status=failed(exc.kind), detail=exc.detail)
    if fetched.kind == "pdf":
        note = f"PDF: {answer.pages_read} of {answer.pages_total} pages read"
        if answer.pages_read < answer.pages_total:
            note += " (extraction.pdf_max_pages)"
        return _page(fetched, answer.title, normalize(answer.text), "pdf", [note])
    return _page(fetched, answer.title, answer.text, answer.page_type,
                 [describe(Counter(answer.hidden)), "parsed in the bounded worker (large page)"])


async def builtin_page(url: str, *, config: ExtractionConfig, client: httpx.AsyncClient,
                       allow: AllowList, env: Mapping[str, str]) -> Page:
    fetched = await fetch_page(url, client=client, allow=allow, max_bytes=config.max_bytes)
    if fetched.kind == "pdf" or _heavy(fetched, config):
        return await isolated_page(fetched, config)
    return await asyncio.to_thread(page_from_fetched, fetched)


def _firecrawl_error(status_code: int, body: bytes) -> str:
    try:
        payload = json.loads(body.decode("utf-8", "replace"))
        message = payload.get("error") if isinstance(payload, dict) else None
    except ValueError:
        message = None
    return f"Firecrawl answered HTTP {status_code}" + (f": {message}" if message else "")


async def firecrawl_page(url: str, *, config: ExtractionConfig, client: httpx.AsyncClient,
                         allow: AllowList, env: Mapping[str, str]) -> Page:
    await check_url(url, allow)
    settings = config.firecrawl
    key = env.get(settings.api_key_env, "") if settings.api_key_env else ""
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json",
               "Accept-Encoding": HEADERS["Accept-Encoding"]}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    payload = {"url": url, "formats": ["markdown"], "onlyMainContent": True,
               "timeout": int(config.timeout_seconds * 1000)}
    endpoint = settings.base_url.rstrip("/") + "/v1/scrape"
    try:
        async with client.stream("POST", endpoint, json=payload, headers=headers) as response:
            body, cut = await read_capped(response, config.max_bytes)
            status_code = response.status_code
    except httpx.TimeoutException:
        raise ExtractError(failed("Timeout"), "Firecrawl did not answer in time") from None
    except httpx.HTTPError as exc:
        kind = type(exc).__name__
        raise ExtractError(failed(kind), scrub(f"Firecrawl: {exc or kind}", [key])) from None
    if status_code != 200:
        raise ExtractError(failed(f"FirecrawlHTTP{status_code}"),
                           scrub(_firecrawl_error(status_code, body), [key]))
    if cut:
        raise ExtractError(failed("TooLarge"),
                           f"Firecrawl's answer is over {config.max_bytes} bytes")
    return _firecrawl_answer(url, body, key)


def _firecrawl_answer(url: str, body: bytes, key: str) -> Page:
    try:
        answer = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        raise ExtractError(failed("FirecrawlAnswer"),
                           "Firecrawl answered something not JSON") from None
    if not isinstance(answer, dict) or not answer.get("success"):
        error = answer.get("error") if isinstance(answer, dict) else None
        raise ExtractError(failed("Firecrawl"), scrub(f"Firecrawl: {error or 'no success'}", [key]))
    data = answer.get("data") if isinstance(answer.get("data"), dict) else {}
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    title = metadata.get("title") or ""
    title = " ".join((title[0] if isinstance(title, list) and title else str(title)).split())
    final_url = str(metadata.get("sourceURL") or metadata.get("url") or url)
    markdown = normalize(str(data.get("markdown") or ""))
    base = {"url": url, "final_url": final_url, "title": title}
    status_code = metadata.get("statusCode")
    if title.lower() in CHALLENGE_TITLES:
        return Page(**base, status=BLOCKED, detail=f"bot wall: challenge page ({title!r})")
    if isinstance(status_code, int) and status_code >= 400:
        if status_code in (403, 429, 503) and challenge_reason(status_code, {}, markdown):
            return Page(**base, status=BLOCKED, detail=f"bot wall: HTTP {status_code}")
        return Page(**base, status=failed(f"HTTP{status_code}"),
                    detail=f"the page answered HTTP {status_code} (via Firecrawl)")
    return Page(**base, status=OK if markdown else EMPTY, text=markdown)


PROVIDERS = {"builtin": builtin_page, "firecrawl": firecrawl_page}
