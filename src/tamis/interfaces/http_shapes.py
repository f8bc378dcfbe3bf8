"""tamis's answers in other services' shapes: SearXNG's ``format=json`` and ``/config``
(as searx 1.1 writes them), and Tavily's search and extract answers."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

from tamis.extract.models import ReadResponse
from tamis.models import SearchResponse
from tamis.version import __version__

PRETTY_URL_LENGTH = 74  # searx's webutils.prettify_url


def pretty_url(url: str, max_length: int = PRETTY_URL_LENGTH) -> str:
    if len(url) <= max_length:
        return url
    chunk = int(max_length / 2 + 1)
    return f"{url[:chunk]}[...]{url[-chunk:]}"


def searx_score(positions: list[int], weights: list[float]) -> float:
    """searx's own score of a merged result (``calculate_score`` in searx/results.py): the
    product of its engines' weights, times how many engines returned it, over each
    position, summed. Two engines at 1 and 2: 2/1 + 2/2 = 3.0."""
    weight = math.prod(weights)
    return sum(weight * len(positions) / position for position in positions)


def searxng_shape(response: SearchResponse,
                  line_weights: Mapping[str, float] | None = None) -> dict[str, Any]:
    """tamis's answer in SearXNG's ``format=json`` shape: every key searx 1.1 gives a
    result (``parsed_url`` is urllib's 6-tuple, as searx serialises it), plus tamis's
    ``source_type`` and ``tamis_score``. The order is tamis's rank.

    ``score`` is on searx's own scale, so clients that print it as a relevance score or
    filter on it (mcp-searxng's ``min_score``) read what searx would give: ``searx_score``
    of the engines' positions (an engine's weight is its line's, ``line_weights``), at most
    the score of the result above it, so that scores never rise down the list, as in
    searx's own answers: a content farm the engines put first and tamis demoted is not
    printed as the most relevant result, and a client that sorts by score keeps tamis's
    order. Where tamis keeps searx's order the scores are searx's."""
    weights = line_weights or {}
    results = []
    for r in response.results:
        engines = [e.split(":", 1)[-1] for e in r.engines]
        result: dict[str, Any] = {
            "url": r.url,
            "title": r.title,
            "content": r.excerpt or r.snippet,
            "engine": engines[0] if engines else "tamis",
            "parsed_url": list(urlparse(r.url)),
            "template": "default.html",
            "engines": engines,
            "positions": [r.positions[e] for e in r.engines],
            "score": searx_score([r.positions[e] for e in r.engines],
                                 [weights.get(e.split(":", 1)[0], 1.0) for e in r.engines]),
            "tamis_score": r.score,
            "category": "general",
            "pretty_url": pretty_url(r.url),
            "source_type": r.source_type,
        }
        if r.published:
            result["publishedDate"] = r.published
            result["pubdate"] = r.published
        results.append(result)
    ceiling = float("inf")
    for result in results:  # never rising down the list
        ceiling = result["score"] = round(min(result["score"], ceiling), 4)
    unresponsive = [[n.source.split(":", 1)[-1], n.message] for n in response.notes
                    if n.kind in ("unresponsive_engine", "line_failed", "line_timeout")]
    return {
        "query": response.query,
        "number_of_results": len(results),
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": unresponsive,
    }


def searxng_config(lines: list[Any], timeout: float) -> dict[str, Any]:
    """A minimal SearXNG ``/config``: tamis's lines as engines of category general."""
    engines = [{
        "name": line.name, "categories": ["general"], "shortcut": line.name,
        "enabled": True, "paging": True, "language_support": True,
        "supported_languages": [], "safesearch": True, "time_range_support": True,
        "timeout": timeout,
    } for line in lines]
    return {
        "categories": ["general"],
        "engines": engines,
        "plugins": [],
        "instance_name": "tamis",
        "locales": {},
        "default_locale": "",
        "autocomplete": "",
        "safe_search": 0,
        "default_theme": "simple",
        "version": f"tamis {__version__}",
        "brand": {"CONTACT_URL": "", "GIT_URL": "", "GIT_BRANCH": "", "DOCS_URL": ""},
        "doi_resolvers": [],
        "default_doi_resolver": "",
    }


def tavily_shape(response: SearchResponse, raw: bool, request_id: str) -> dict[str, Any]:
    """tamis's answer in Tavily's shape. ``score`` is rank-based in (0, 1]."""
    n = max(len(response.results), 1)
    return {
        "query": response.query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [{
            "title": r.title,
            "url": r.url,
            "content": r.snippet,
            "score": round(1.0 - (r.rank - 1) / n, 4),
            "raw_content": (r.excerpt or None) if raw else None,
            **({"published_date": r.published} if r.published else {}),
        } for r in response.results],
        "response_time": response.timing.total_seconds,
        "request_id": request_id,
    }


def tavily_extract_shape(pages: list[ReadResponse], seconds: float, request_id: str
                         ) -> dict[str, Any]:
    """Tavily's ``/extract`` answer: pages with text in ``results``, the rest in
    ``failed_results`` with tamis's status and reason as the error."""
    results, failed = [], []
    for page in pages:
        if page.content:
            results.append({"url": page.url, "raw_content": page.content, "images": []})
        else:
            failed.append({"url": page.url, "error": page.status
                           + (f": {page.detail}" if page.detail else "")})
    return {"results": results, "failed_results": failed, "response_time": round(seconds, 3),
            "request_id": request_id}
