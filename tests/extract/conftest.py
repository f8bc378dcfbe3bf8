"""Fixtures of the extraction tests: one loopback page server for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from extract_support import PageServer

from tamis.policy.schema import ExtractionConfig


@pytest.fixture(scope="session")
def server() -> Iterator[PageServer]:
    pages = PageServer()
    yield pages
    pages.close()


@pytest.fixture
def config() -> ExtractionConfig:
    """Loopback allowed (the page server lives there), everything else as shipped."""
    return ExtractionConfig(allow_private_hosts=["127.0.0.1"], timeout_seconds=10)
