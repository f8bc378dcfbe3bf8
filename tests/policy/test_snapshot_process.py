"""A config read from its snapshot is not validated again (validating builds the pydantic
schema of every config model). Each check runs in a fresh interpreter, the snapshot kept in a
SQLite store by an earlier process, as the CLI does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tamis.policy.loader import read_config
from tamis.store.sqlite import SQLiteStore

CONFIG = """
backends:
  - name: searxng
    base_url: http://127.0.0.1:8888
    params: {engines: "bing,brave", safesearch: 1}
policy:
  demote_domains: {add: [contentfarm.example]}
  lists: [{name: mine, source: mine.txt, action: drop}]
extraction: {top_n: 2}
dupes: {shingle_size: 4}
"""

# Counts the validations (``tamis.policy.loader._validate``), then reads the config the way the
# test names.
CHILD = """
import json, sys
from pathlib import Path

import tamis.policy.loader as loader
from tamis.store.sqlite import SQLiteStore

validated = []
check = loader._validate
loader._validate = lambda *args: validated.append(1) or check(*args)
store = SQLiteStore(Path(sys.argv[2]))
if sys.argv[1] == "policy":
    config = loader.read_config(sys.argv[3], snapshots=store).config
else:
    import tamis.settings
    config = tamis.settings.load_config(sys.argv[3], snapshots=store).config
print(json.dumps({"validated": len(validated), "weight": config.backends[0].weight,
                  "top_n": config.extraction.top_n}))
"""


def read_in_child(how: str, store: Path, config: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, how, str(store), str(config)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


@pytest.fixture()
def snapshotted(tmp_path: Path) -> tuple[Path, Path]:
    config = tmp_path / "tamis.yaml"
    config.write_text(CONFIG)
    (tmp_path / "mine.txt").write_text("spam.example\n")
    store = tmp_path / "store.sqlite3"
    kept = SQLiteStore(store)
    read_config(config, snapshots=kept)  # validated once, and kept
    kept.close()
    return store, config


@pytest.mark.parametrize("how", ["policy", "settings"])
def test_a_new_process_reads_the_kept_config_without_validating_it(
        snapshotted: tuple[Path, Path], tmp_path: Path, how: str) -> None:
    store, config = snapshotted
    assert read_in_child(how, store, config) == {"validated": 0, "weight": 1.0, "top_n": 2}
    # Without the snapshot the same read validates: the check can fail.
    empty = tmp_path / "empty.sqlite3"
    assert read_in_child(how, empty, config)["validated"] == 1
