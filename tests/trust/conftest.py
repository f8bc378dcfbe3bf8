"""Fixtures for the trust tests: loopback backends (helpers in trust_support.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer
from trust_support import FakeAPI


@pytest.fixture
def searxng() -> Iterator[tuple[LoopbackServer, FakeSearXNG]]:
    fake = FakeSearXNG()
    with LoopbackServer(fake) as server:
        yield server, fake


@pytest.fixture
def api() -> Iterator[tuple[LoopbackServer, FakeAPI]]:
    fake = FakeAPI()
    with LoopbackServer(fake) as server:
        yield server, fake
