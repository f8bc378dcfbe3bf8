"""Merge, filter and rank run with the cyclic collector paused, and leave it as they found it
(on stays on, off stays off), also when a stage raises or runs in two threads at once."""

from __future__ import annotations

import gc
import threading

import pytest

from tamis.models import RawHit
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.gcpause import collector_paused
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.rules import Rules
from tamis.settings import load_config


def hits(n: int) -> list[tuple[RawHit, int, float]]:
    return [(RawHit(url=f"https://site{i % 50}.example/page/{i}", title=f"page {i}",
                    snippet="some words", line="searxng", engines=["searxng:bing"],
                    positions=[i % 30 + 1]), 0, 1.0) for i in range(n)]


def test_no_collection_runs_inside_the_stages() -> None:
    policy = load_config(None).config.policy
    rules = Rules(policy)
    collections: list[int] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    many = hits(3000)  # far more objects than one generation-0 threshold
    gc.collect()
    gc.callbacks.append(callback)
    try:
        candidates, _ = merge(many, tracking_params=[], max_chars=400,
                              unwrapper=rules.unwrapper)
        before = len(collections)  # (the collector may run between the stages)
        kept, _ = filter_candidates(candidates, rules, "page words")
        between = len(collections)
        rank(kept, "page words", policy.ranking)
    finally:
        gc.callbacks.remove(callback)
    # at most the one collection at the start of each stage (of what the last left behind)
    assert before <= 1 and between - before <= 1 and len(collections) - between <= 1
    assert gc.isenabled()


def test_the_collector_is_left_as_it_was() -> None:
    @collector_paused
    def stage(fail: bool) -> bool:
        if fail:
            raise ValueError("boom")
        return gc.isenabled()

    assert gc.isenabled()
    assert stage(False) is False and gc.isenabled()
    with pytest.raises(ValueError):
        stage(True)
    assert gc.isenabled()
    gc.disable()
    try:
        stage(False)
        assert not gc.isenabled()  # a program that turned it off keeps it off
    finally:
        gc.enable()


def test_overlapping_stages_in_threads_resume_it_once_both_end() -> None:
    inside, release = threading.Event(), threading.Event()

    @collector_paused
    def slow() -> None:
        inside.set()
        release.wait(5)

    @collector_paused
    def quick() -> bool:
        return gc.isenabled()

    worker = threading.Thread(target=slow)
    worker.start()
    inside.wait(5)
    assert quick() is False
    assert not gc.isenabled()  # the slow stage still runs
    release.set()
    worker.join()
    assert gc.isenabled()
