"""A validated config kept as plain data (tamis.policy.snapshot): rebuilt equal, types of
values included; never stored when it could not be; a changed or broken file is validated again."""

from __future__ import annotations

from pathlib import Path

import pytest
from watched_store import WatchedStore

from tamis.errors import ConfigError
from tamis.policy import snapshot
from tamis.policy.loader import read_config
from tamis.settings import load_config

RICH = """
timeout: 7.5
max_results: 5
backends:
  - name: searxng
    base_url: http://127.0.0.1:8888
    params: {engines: "bing,brave", safesearch: 1, fast: true, ratio: 0.5}
    weight: 2
  - name: mine
    type: generic
    base_url: http://127.0.0.1:9999
    search_path: /find
    query_param: q
    credentials: [MINE_KEY_A, MINE_KEY_B]
    required: true
policy:
  demote_domains: {add: [contentfarm.example], remove: [dev.to]}
  ranking: {demote_places: 3}
extraction: {top_n: 2, allow_private_hosts: [127.0.0.1]}
dupes: {body_columns: [notes, body], shingle_size: 4, body_threshold: 0.5}
"""


def kept(store: WatchedStore) -> dict[str, bytes]:
    return store.entries(snapshot.NAMESPACE)


@pytest.mark.parametrize("text", [None, RICH, "", "max_results: 3\n"])
def test_a_snapshot_rebuilds_the_validated_config(tmp_path: Path, text: str | None) -> None:
    path = None
    if text is not None:
        path = tmp_path / "tamis.yaml"
        path.write_text(text)
    validated = read_config(path).config
    raw = snapshot.dump(validated)
    assert raw is not None
    rebuilt = snapshot.load(raw)
    assert rebuilt is not None and snapshot.same(rebuilt, validated)
    assert rebuilt == validated
    assert rebuilt.model_dump(mode="json") == validated.model_dump(mode="json")
    assert rebuilt.backends[0].key_envs() == validated.backends[0].key_envs() if \
        validated.backends else True


def test_the_second_read_of_the_same_files_is_the_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "tamis.yaml"
    path.write_text(RICH)
    store = WatchedStore()
    first = read_config(path, snapshots=store).config
    assert len(kept(store)) == 1
    again = read_config(path, snapshots=store)
    assert snapshot.same(again.config, first)
    assert again.config is not first and again.user_has_backends
    assert again.lines and again.data["max_results"] == 5  # errors still name lines
    assert load_config(path, snapshots=store).config.backends[0].weight == 2


def test_a_changed_or_broken_file_is_validated_again(tmp_path: Path) -> None:
    path = tmp_path / "tamis.yaml"
    store = WatchedStore()
    path.write_text("max_results: 4\n")
    assert read_config(path, snapshots=store).config.max_results == 4
    path.write_text("max_results: 2\n")
    assert read_config(path, snapshots=store).config.max_results == 2
    assert len(kept(store)) == 2
    path.write_text("max_results: 500\n")
    with pytest.raises(ConfigError, match=r"line 1: key 'max_results'"):
        read_config(path, snapshots=store)
    assert len(kept(store)) == 2  # an invalid config is never kept


def test_overrides_are_never_snapshotted(tmp_path: Path) -> None:
    store = WatchedStore()
    assert read_config(None, overrides={"max_results": 3}, snapshots=store
                       ).config.max_results == 3
    assert kept(store) == {}
    assert read_config(None, snapshots=store).config.max_results == 8


def test_a_damaged_snapshot_is_ignored(tmp_path: Path) -> None:
    store = WatchedStore()
    read_config(None, snapshots=store)
    (key,) = kept(store)
    for junk in (b"not json", b'{"format": 3, "config": {"model": "Nope",'
                 b' "fields": {}}}', b'{"format": 99}', b'{"format": 3, "config": [1]}',
                 b'{"format": 3, "config": {"model": "Config", "fields": {"nope": 1}}}'):
        store.set(snapshot.NAMESPACE, key, junk)
        assert snapshot.load(junk) is None
        assert read_config(None, snapshots=store).config.max_results == 8


def test_what_json_cannot_carry_exactly_is_not_snapshotted() -> None:
    config = read_config(None).config
    for odd in ({"when": (1, 2)}, {"when": {1: "a"}}, {"when": float("nan")},
                {"when": {"a", "b"}}):
        assert snapshot.dump(config.model_copy(update={"dupes": odd})) is None
    assert snapshot.dump(config.model_copy(update={"dupes": {"when": [1, "a"]}})) is not None


@pytest.mark.parametrize(("url", "kept_there"), [
    (None, True), ("/tmp/tamis-store.sqlite3", True), ("memory:", True),
    ("redis://127.0.0.1:6379/0", False), ("unix:///run/redis.sock", False)])
def test_only_a_local_store_keeps_the_config(url: str | None, kept_there: bool) -> None:
    from tamis.interfaces.cli_cache import Lookup, snapshot_store

    store = WatchedStore()
    found = Lookup("fingerprint", None, store, url)
    assert (snapshot_store(found) is store) is kept_there
    assert snapshot_store(Lookup(None)) is None
