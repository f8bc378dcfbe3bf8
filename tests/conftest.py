"""Shared fixtures. Nothing here touches the internet: servers are on 127.0.0.1."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))  # so tests can `from loopback import LoopbackServer`

FIXTURES = TESTS / "fixtures"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's config or writes to their cache; no provider keys leak
    in from the environment."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in list(os.environ):
        if name in {"TAMIS_CONFIG", "SEARXNG_URL", "TAMIS_TOKEN"} or name.endswith("_API_KEY") \
                or name == "FIRECRAWL_URL":
            monkeypatch.delenv(name, raising=False)
