"""Adding a backend is one file: the walk-through of CONTRIBUTING.md, executed.

The adapter file shown there is dropped into a copy of the ``tamis`` package (beside copies of
README.md and docs/configuration.md), nothing else is edited, and real processes run on that
copy: the file is discovered by the registry's scan of the package, its line is made from its
environment variable with no config file, ``tamis backends`` lists it, a config line of that
type searches a loopback server speaking the API, and the regenerated docs name it."""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from loopback import LoopbackServer, Reply

import tamis

ROOT = Path(__file__).parents[2]
PACKAGE = Path(tamis.__file__).parent
GUIDE = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
KEY = "acme-test-key-value"
ENTRY = "import sys; from tamis.interfaces.cli import cli; sys.argv[0] = 'tamis'; cli()"


def adapter_file() -> tuple[str, str]:
    """The file name and the code of step 1 of the walk-through."""
    step = GUIDE.split("### 1. The adapter file", 1)[1].split("### 2.", 1)[0]
    name = re.search(r"`src/tamis/backends/([a-z0-9_]+\.py)`", step)
    code = re.search(r"```python\n(.*?)```", step, re.S)
    assert name and code, "CONTRIBUTING.md step 1 names the file and shows its code"
    return name.group(1), code.group(1)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A checkout-shaped copy: src/tamis with the new adapter, README.md, docs/, tools/."""
    shutil.copytree(PACKAGE, tmp_path / "src" / "tamis",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "backend_docs.py", tmp_path / "tools" / "backend_docs.py")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copy(ROOT / "docs" / "configuration.md", tmp_path / "docs" / "configuration.md")
    name, code = adapter_file()
    (tmp_path / "src" / "tamis" / "backends" / name).write_text(code, "utf-8")
    return tmp_path


def run(copy: Path, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, **(env or {}), "PYTHONPATH": str(copy / "src")}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=environ, cwd=copy, timeout=120)


def test_only_the_new_file_differs_from_the_package(copy: Path) -> None:
    compared = filecmp.dircmp(PACKAGE / "backends", copy / "src" / "tamis" / "backends",
                              ignore=["__pycache__"])
    assert compared.right_only == [adapter_file()[0]]
    assert compared.left_only == [] and compared.diff_files == []
    found = run(copy, "-c", "import tamis; print(tamis.__file__)")
    assert found.stdout.strip() == str(copy / "src" / "tamis" / "__init__.py")


def test_zero_config_and_listed_by_tamis_backends(copy: Path) -> None:
    listed = run(copy, "-c", ENTRY, "backends", "--json", env={"ACME_API_KEY": KEY})
    assert listed.returncode == 0, listed.stderr
    [line] = json.loads(listed.stdout)["lines"]
    assert (line["name"], line["type"], line["state"]) == ("acme", "acme", "ready")
    assert line["endpoint"] == "https://api.acme.example/api/search"
    assert line["keys"] == [{"env": "ACME_API_KEY", "set": True, "resting_until": None,
                             "rest_reason": None}]
    assert KEY not in listed.stdout
    text = run(copy, "-c", ENTRY, "backends", env={"ACME_API_KEY": KEY})
    assert "- acme (acme): https://api.acme.example/api/search  [ready]" in text.stdout
    kinds = run(copy, "-c", ENTRY, "backends", "--types")
    assert ("- acme: Acme: a JSON web search API (key needed)\n"
            "    key: required, ACME_API_KEY; endpoint: https://api.acme.example/api/search\n"
            "    supports: query only\n"
            "    zero config: a line when ACME_API_KEY is set\n") in kinds.stdout
    without = run(copy, "-c", ENTRY, "backends", "--json")  # the variable unset: no acme line
    assert [x["name"] for x in json.loads(without.stdout)["lines"]] == ["ddgs"]


def test_configurable_and_it_searches(copy: Path, server: LoopbackServer) -> None:
    server.route("/api/search", Reply(json={"items": [
        {"link": "https://example.org/a", "title": "A page", "summary": "about a"},
        {"title": "no link"}]}))
    config = copy / "config.yaml"
    config.write_text(f"backends:\n  - name: mine\n    type: acme\n    base_url: {server.url}\n"
                      "    params: {region: eu, q: not-the-query}\n")
    found = run(copy, "-c", ENTRY, "search", "thin pool", "--no-extract", "--config",
                str(config), env={"ACME_API_KEY": KEY})
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert [r["url"] for r in answer["results"]] == ["https://example.org/a"]
    assert answer["results"][0]["engines"] == ["mine"]
    [asked] = server.seen
    assert asked.query == {"q": "thin pool", "limit": "8", "region": "eu"}
    assert asked.headers["authorization"] == f"Bearer {KEY}"
    bad = copy / "bad.yaml"
    bad.write_text("backends:\n  - name: mine\n    type: acmee\n")
    refused = run(copy, "-c", ENTRY, "backends", "--config", str(bad))
    assert refused.returncode == 2 and "known: acme, brave," in refused.stderr


def test_in_the_generated_docs(copy: Path) -> None:
    stale = run(copy, "tools/backend_docs.py", "--check")
    assert stale.returncode == 1 and "README.md: the backend tables are stale" in stale.stderr
    rewritten = run(copy, "tools/backend_docs.py")
    assert rewritten.returncode == 0, rewritten.stderr
    readme = (copy / "README.md").read_text("utf-8")
    assert "| `ACME_API_KEY` | `acme` |\n| none of them |" in readme
    manual = (copy / "docs" / "configuration.md").read_text("utf-8")
    assert ("| `acme` | Acme: a JSON web search API (key needed) |"
            " `https://api.acme.example/api/search` | `ACME_API_KEY` |"
            " `Authorization: Bearer <key>` |") in manual
    assert run(copy, "tools/backend_docs.py", "--check").returncode == 0


def test_a_broken_adapter_file_is_one_error_line(copy: Path) -> None:
    (copy / "src" / "tamis" / "backends" / "broken.py").write_text(
        '"""Broken."""\nimport no_such_module_anywhere\n', "utf-8")
    listed = run(copy, "-c", ENTRY, "backends", env={"ACME_API_KEY": KEY})
    assert listed.returncode == 2 and listed.stdout == ""
    assert listed.stderr == (
        "error: backend module tamis.backends.broken cannot be imported: ModuleNotFoundError:"
        " No module named 'no_such_module_anywhere'\n")
