"""The extraction stage: the top N results' pages, fetched at once, cut to one budget.

1. Every top-N URL is asked concurrently (cache first) under ONE deadline
   (``timeout_seconds``); a page not done by then is ``failed:Timeout``.
2. Only then, in rank order: near-copies of a higher page become ``duplicate``; the budget
   is split (``budget.build_excerpts``) over the pages with text. Nothing here depends on
   the order in which pages arrived, so the same pages always give the same excerpts.
3. Results get their excerpt and status (new objects, same order); results past the top N
   are ``skipped``; with ``on_failure: drop``, failed and blocked results are removed.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from dataclasses import replace

import httpx

from tamis.extract import cache, injections
from tamis.extract.budget import (
    build_excerpts,
    cut_focused,
    query_terms,
    scored_blocks,
    slice_at_boundary,
)
from tamis.extract.dedupe import find_copies, shingles
from tamis.extract.models import (
    BLOCKED,
    DUPLICATE,
    OK,
    SKIPPED,
    TRUNCATED,
    ExtractError,
    Page,
    ReadResponse,
    failed,
)
from tamis.extract.providers import PROVIDERS
from tamis.extract.safety import AllowList, check_url
from tamis.models import ExtractionSummary, Result, TextWarning
from tamis.pipeline.fanout import scrub
from tamis.policy.schema import ExtractionConfig
from tamis.store.base import Store


def _secrets(config: ExtractionConfig, env: Mapping[str, str]) -> list[str]:
    name = config.firecrawl.api_key_env
    return [env.get(name, "")] if name and config.provider == "firecrawl" else []


async def _cached(url: str, config: ExtractionConfig, store: Store | None,
                  allow: AllowList) -> Page | None:
    """The cached page, if any, after the same safety decision as a fetch: the URL and
    where it ended must be allowed under the policy of THIS read (a page read under a
    private-address allow-list is refused from the cache without that list)."""
    cached = cache.load(store, url, config.provider)
    if cached is None:
        return None
    try:
        for where in dict.fromkeys([url, cached.final_url or url]):
            await check_url(where, allow)
    except ExtractError as exc:
        return Page(url=url, final_url=url, status=exc.status, detail=exc.detail)
    return cached


def with_flags(page: Page, config: ExtractionConfig) -> Page:
    """The page with its sentences addressed to an AI flagged (or cut, ``injections: drop``)."""
    if not page.usable:
        return page
    flags = injections.find(page.text)
    if not flags:
        return page
    text = page.text
    if config.injections == "drop":
        text, flags = injections.drop(text, flags)
    return replace(page, text=text, warnings=[flag.as_dict() for flag in flags])


async def get_page(url: str, *, config: ExtractionConfig, client: httpx.AsyncClient,
                   store: Store | None = None, cache_ttl: float = 86400,
                   env: Mapping[str, str] | None = None) -> Page:
    """One URL's full extracted text (from the cache when it is there and still allowed),
    with its warnings. Never raises."""
    env = os.environ if env is None else env
    allow = AllowList.parse(config.allow_private_hosts)
    cached = await _cached(url, config, store, allow) if cache_ttl > 0 else None
    if cached is not None:
        return with_flags(cached, config)
    provider = PROVIDERS[config.provider]
    try:
        page = await provider(url, config=config, client=client, allow=allow, env=env)
    except ExtractError as exc:
        page = Page(url=url, final_url=url, status=exc.status,
                    detail=scrub(exc.detail, _secrets(config, env)))
    except Exception as exc:  # a bug on one page must not take the others down
        detail = scrub(f"unexpected {type(exc).__name__}: {exc}", _secrets(config, env))
        page = Page(url=url, final_url=url, status=failed(type(exc).__name__), detail=detail)
    cache.save(store, page, config.provider, cache_ttl)
    return with_flags(page, config)


def _is_failure(status: str) -> bool:
    return status.startswith("failed:") or status == BLOCKED


def prepare(page: Page, terms: tuple[str, ...]) -> None:
    """Warm the caches of the after-deadline work (shingles, passage scores) for one page.

    Run in a worker thread as soon as the page is there, so this work overlaps with the
    pages still downloading; the results are the same whether or not it ran.
    """
    if page.usable:
        shingles(page.text)
        if terms:
            scored_blocks(page.text, terms)


async def _get_and_prepare(url: str, terms: tuple[str, ...], config: ExtractionConfig,
                           **kw: object) -> Page:
    page = await get_page(url, config=config, **kw)  # type: ignore[arg-type]
    await asyncio.to_thread(prepare, page, terms if config.mode != "lead" else ())
    return page


async def _fetch_all(urls: list[str], query: str, config: ExtractionConfig,
                     **kw: object) -> dict[str, Page]:
    terms = query_terms(query)
    tasks = {url: asyncio.create_task(_get_and_prepare(url, terms, config, **kw))
             for url in dict.fromkeys(urls)}
    if not tasks:
        return {}
    done, pending = await asyncio.wait(tasks.values(), timeout=config.timeout_seconds)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    pages: dict[str, Page] = {}
    for url, task in tasks.items():
        if task in done:
            pages[url] = task.result()
        else:
            pages[url] = Page(url=url, final_url=url, status=failed("Timeout"),
                              detail=f"not extracted within the {config.timeout_seconds:g} s"
                              " deadline")
    return pages


async def extract_results(
    results: list[Result], query: str, config: ExtractionConfig, *,
    client: httpx.AsyncClient, store: Store | None = None, cache_ttl: float = 86400,
    env: Mapping[str, str] | None = None,
) -> tuple[list[Result], ExtractionSummary]:
    """Fill excerpt, extraction and extraction_detail of the top ``config.top_n`` results."""
    start = time.perf_counter()
    top = results[:config.top_n]
    pages_by_url = await _fetch_all([r.url for r in top], query, config, client=client,
                                    store=store, cache_ttl=cache_ttl, env=env)
    pages = [pages_by_url[r.url] for r in top]
    copies = find_copies([p.text if p.usable else None for p in pages])
    chosen = [i for i, p in enumerate(pages) if p.usable and copies[i] is None]
    excerpts = dict(zip(chosen, build_excerpts(
        [pages[i].text for i in chosen], config.total_chars, config.per_item_chars,
        config.mode, query), strict=True))
    updates: list[dict[str, object]] = []
    for index in range(len(results)):
        if index >= len(top):
            updates.append({"excerpt": "", "extraction": SKIPPED, "extraction_detail": None})
        elif index in excerpts:
            excerpt, status = excerpts[index]
            updates.append({"excerpt": excerpt, "extraction": status,
                            "extraction_detail": pages[index].detail,
                            "warnings": [TextWarning(**w) for w in pages[index].warnings]})
        elif copies[index] is not None:
            updates.append({"excerpt": "", "extraction": DUPLICATE,
                            "extraction_detail": top[copies[index]].url})
        else:
            updates.append({"excerpt": "", "extraction": pages[index].status,
                            "extraction_detail": pages[index].detail})
    statuses = [str(u["extraction"]) for u in updates]
    summary = ExtractionSummary(
        extracted=sum(1 for s in statuses if s in (OK, TRUNCATED)),
        chars_used=sum(len(str(u["excerpt"])) for u in updates),
        budget=config.total_chars,
        failures=sum(1 for s in statuses if _is_failure(s)),
        seconds=round(time.perf_counter() - start, 3),
        provider=config.provider,
        mode=config.mode,
    )
    out = [result.model_copy(update=update)
           for result, update in zip(results, updates, strict=True)
           if not (config.on_failure == "drop" and _is_failure(str(update["extraction"])))]
    return out, summary


async def read_url(url: str, *, config: ExtractionConfig, client: httpx.AsyncClient,
                   store: Store | None = None, max_chars: int = 12000, start: int = 0,
                   query: str | None = None, cache_ttl: float = 86400,
                   env: Mapping[str, str] | None = None) -> ReadResponse:
    """One page under a budget, from offset ``start``; ``next_start`` pages on."""
    began = time.perf_counter()
    start = max(0, start)
    try:
        page = await asyncio.wait_for(
            get_page(url, config=config, client=client, store=store, cache_ttl=cache_ttl,
                     env=env), timeout=config.timeout_seconds)
    except TimeoutError:
        page = Page(url=url, final_url=url, status=failed("Timeout"),
                    detail=f"not extracted within the {config.timeout_seconds:g} s deadline")
    base = {"url": url, "final_url": page.final_url or url, "title": page.title,
            "total_chars": len(page.text), "start": start, "page_type": page.page_type,
            "warnings": [TextWarning(**w) for w in page.warnings]}
    if not page.usable:
        return ReadResponse(**base, status=page.status, detail=page.detail,
                            seconds=round(time.perf_counter() - began, 3))
    text = page.text
    details = [page.detail] if page.detail else []
    if query and start == 0 and config.mode != "lead" and len(text) > max_chars:
        content, next_start, truncated = cut_focused(text, query, max_chars), None, True
        details.append("focused on the query; read without --query to page from the top")
    else:
        content, next_start = slice_at_boundary(text, start, max_chars)
        truncated = next_start is not None
        if start >= len(text):
            details.append(f"start is past the end of the text ({len(text)} chars)")
    return ReadResponse(
        **base, status=TRUNCATED if truncated else OK, detail="; ".join(details) or None,
        content=content, chars=len(content), next_start=next_start, truncated=truncated,
        seconds=round(time.perf_counter() - began, 3))
