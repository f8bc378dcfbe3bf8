"""The backend docs are made from the adapters' declarations: the tables of README.md and
docs/configuration.md are what ``python tools/backend_docs.py`` makes, and the full example
of docs/configuration.md loads, every line in it building."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from tamis.backends.listing import describe_lines
from tamis.backends.registry import adapter_type, known_types, make_adapters
from tamis.settings import load_config

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "configuration.md"
sys.path.insert(0, str(ROOT / "tools"))  # the tool is a script of the checkout, not installed

import backend_docs  # noqa: E402  (needs the sys.path line above)


def test_the_backend_tables_are_the_generated_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code = backend_docs.main(["--check", "--root", str(ROOT)])
    assert code == 0, capsys.readouterr().err


def test_every_adapter_type_is_in_the_generated_table() -> None:
    table = DOC.read_text("utf-8").split("<!-- backends:types -->")[1].split("<!-- /")[0]
    documented = set(re.findall(r"^\| `([a-z0-9_-]+)`", table, re.M))
    assert set(known_types()) - {"replay"} == documented
    assert "(also `replay`)" in table


def test_a_stale_table_is_named_and_rewritten(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    for relative in backend_docs.FILES:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, tmp_path / relative)
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text("utf-8").replace("| `BRAVE_API_KEY` | `brave` |\n", ""))
    assert backend_docs.main(["--check", "--root", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        "error: README.md: the backend tables are stale; run python tools/backend_docs.py\n")
    assert backend_docs.main(["--root", str(tmp_path)]) == 0
    assert readme.read_text("utf-8") == (ROOT / "README.md").read_text("utf-8")
    assert backend_docs.main(["--check", "--root", str(tmp_path)]) == 0


def test_missing_markers_are_one_error_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("no table here\n")
    (tmp_path / "docs" / "configuration.md").write_text("nor here\n")
    assert backend_docs.main(["--check", "--root", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        "error: README.md: no <!-- backends:zero-config --> ... <!-- /backends:zero-config -->"
        " markers\n")


def test_the_documented_example_config_is_valid(tmp_path: Path):
    text = DOC.read_text("utf-8")
    example = re.search(r"## A full example\s+```yaml\n(.*?)```", text, re.S)
    assert example is not None
    path = tmp_path / "config.yaml"
    path.write_text(example.group(1))
    config = load_config(path).config
    adapters = make_adapters(config)
    kinds = {adapter_type(line) for line in config.backends}
    assert kinds <= set(known_types())
    assert {"searxng", "tavily", "generic", "ddgs"} <= kinds  # the kinds of line it shows
    assert len(adapters) == len(config.backends)
    listing = describe_lines(config, None, {"TAVILY_KEY_1": "x"})
    tavily = next(x for x in listing if x["name"] == "tavily")
    assert tavily["pool_strategy"] == "round_robin"
    assert [k["env"] for k in tavily["keys"]] == ["TAVILY_KEY_1", "TAVILY_KEY_2"]
