"""Fixtures for store tests. ``redis_url`` (a real redis-server on a free port, skipped where
it is not installed, failing under CI) lives in tests/conftest.py for every folder to use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def redis_store_url(redis_url: str) -> Iterator[str]:
    """The Redis URL with an empty database for this test."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    yield redis_url
