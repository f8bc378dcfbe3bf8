"""Extracted page text in the store (namespace ``extract``), keyed by URL and provider.

The full text is cached, not the excerpt, so a change of budget or query never needs a new
fetch. Only pages with text are cached: a failure, a bot wall or an empty page is asked
again next time. A store that fails (Redis down, disk full) is ignored: caching is a bonus.
"""

from __future__ import annotations

import hashlib

from tamis.extract.models import Page
from tamis.store.base import Store

NAMESPACE = "extract"


def cache_key(url: str, provider: str) -> str:
    return hashlib.sha256(f"{provider}\n{url}".encode()).hexdigest()


def load(store: Store | None, url: str, provider: str) -> Page | None:
    if store is None:
        return None
    try:
        raw = store.get(NAMESPACE, cache_key(url, provider))
        return Page.from_json(raw) if raw else None
    except Exception:  # a broken entry or store is a cache miss
        return None


def save(store: Store | None, page: Page, provider: str, ttl: float) -> None:
    if store is None or not page.usable or ttl <= 0:
        return
    try:
        store.set(NAMESPACE, cache_key(page.url, provider), page.to_json(), ttl=ttl)
    except Exception:  # never fail an extraction because the cache could not be written
        return
