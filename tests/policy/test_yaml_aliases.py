"""Config files never expand YAML aliases (issue 16 item 11): a 641-byte alias bomb took 99 s
and 4.8 GB before it was refused. Every config loader refuses any alias with one line naming
the file and the line of the alias."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tamis import yamlsafe
from tamis.dupes.config import load_config as load_dupes_config
from tamis.errors import ConfigError, DupesError
from tamis.settings import load_config


def alias_bomb(depth: int = 9) -> str:
    """The classic "billion laughs": each level lists the previous one nine times."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, depth):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\npolicy:\n  demote_domains: *a8\n"


SMALL = "policy:\n  demote_domains: &farms [farm.example]\n  prefer_domains: *farms\n"


def test_the_bomb_is_refused_at_its_first_alias(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb())
    assert path.stat().st_size < 1000  # 9 ** 9 values once expanded
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == (f"{path}, line 2: YAML aliases are not allowed in config files"
                              " (*a0): write the value out instead")


def test_a_single_alias_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "tamis.yaml"
    path.write_text(SMALL)
    with pytest.raises(ConfigError, match=r"tamis\.yaml, line 3: YAML aliases are not allowed"):
        load_config(path)


def test_an_anchor_without_alias_is_harmless_and_accepted(tmp_path: Path) -> None:
    path = tmp_path / "tamis.yaml"
    path.write_text("policy:\n  demote_domains: &farms [farm.example]\n")
    assert load_config(path).config.policy.demote_domains == ["farm.example"]


def test_the_dupes_config_refuses_aliases(tmp_path: Path) -> None:
    path = tmp_path / "dupes.yaml"
    path.write_text("dupes:\n  body_columns: &cols [notes]\n  writer_keys: *cols\n")
    with pytest.raises(DupesError) as err:
        load_dupes_config(path)
    assert str(err.value) == (f"{path}:3: YAML aliases are not allowed in config files"
                              " (*cols): write the value out instead")


def test_merge_keys_are_aliases_and_refused() -> None:
    with pytest.raises(yamlsafe.AliasRefused) as err:
        yamlsafe.load("base: &b {x: 1}\nother:\n  <<: *b\n")
    assert err.value.line == 3


def test_the_loader_reads_what_safe_load_reads() -> None:
    import yaml

    text = Path(yamlsafe.__file__).with_name("policy").joinpath("default.yaml").read_text()
    assert yamlsafe.load(text) == yaml.safe_load(text)
    assert yamlsafe.load("") is None


@pytest.mark.parametrize("command", [["config", "check"], ["search", "x", "--config"],
                                     ["dupes", "--jsonl", "-", "--config"]])
def test_the_cli_says_one_error_line_and_exits_2(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb())
    proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", *command, str(path)],
                          capture_output=True, text=True, input="", timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("error: ") and str(path) in line and "aliases" in line
