"""The ``searx`` fixture: one real searx for the test session (see real_searx.py)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest
from loopback import LoopbackServer
from real_searx import Answer, RealSearx, engine_reply, require_searx, running_searx


@pytest.fixture(scope="session")
def searx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealSearx]:
    """One real searx for the session, its three engines on one loopback server."""
    require_searx()
    workdir = tmp_path_factory.mktemp("searx")
    answers: dict[tuple[str, str], Answer] = {}
    with LoopbackServer(partial(engine_reply, answers)) as engines, \
            running_searx(workdir, engines) as url:
        yield RealSearx(url=url, engines=engines, log_path=workdir / "searx.log",
                        answers=answers)
