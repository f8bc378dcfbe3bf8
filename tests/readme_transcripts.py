"""The README's transcripts, run for real: every output it shows is what its command prints.

    python tests/readme_transcripts.py           # compare; exit 1 and a diff when stale
    python tests/readme_transcripts.py --write   # run them and rewrite the README's outputs

Two kinds of marked blocks (an HTML comment on the line before the fence, invisible once
rendered):

- ``<!-- transcript: SCENE -->`` before a ```` ```console ```` block: each ``$ `` line is a
  command, run with ``sh -c`` (pipes allowed; ``cd DIR`` moves the next commands), and the
  lines after it up to the next ``$`` are its output, stdout and stderr as a terminal shows
  them;
- ``<!-- file: PATH -->`` before a block that shows an input file: the block is that file.

Every command runs offline, in a scratch directory that links the checkout's ``examples``,
``src`` and ``tests`` (so ``examples/demo.yaml`` names the shipped file, and a file a
command writes lands in the scratch directory, never in the checkout), with a home, config
and cache of its own and no key or backend URL from the environment. SCENE ``repo`` is only
that; ``lists-update`` also serves the lists of ``tests/lists/data`` on 127.0.0.1 (ETags,
304s), changes one between the second and third command and stops before the fourth, as
the README says. Durations (``0.03 s``) are compared as ``N s``; the list server's port is
shown as 8765. ``tests/test_readme_transcripts.py`` runs the comparison.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LINKED = ("examples", "src", "tests")
SHOWN_PORT = "8765"
_MARK = re.compile(r"<!-- (transcript|file): (\S+) -->")
LIST_FILES = {"/so-copies.txt": "so-copies.ublacklist.txt",
              "/copycats.txt": "copycats.ublock.txt"}  # served in scene lists-update
_DURATION = re.compile(r"\b\d+(?:\.\d+)? s\b")


@dataclass
class Command:
    text: str
    output: list[str]  # as the README shows it
    line: int  # of the '$' line, 0-based


@dataclass
class Block:
    kind: str  # transcript | file
    arg: str  # the scene, or the file's path
    start: int  # the first line inside the fence, 0-based
    end: int  # the closing fence
    body: list[str]
    commands: list[Command] = field(default_factory=list)


def blocks(lines: list[str]) -> list[Block]:
    found = []
    for i, line in enumerate(lines):
        mark = _MARK.fullmatch(line.strip())
        if mark is None:
            continue
        start = i + 2
        if not lines[i + 1].startswith("```"):
            raise ValueError(f"README.md:{i + 1}: a marked block must follow its mark")
        end = next(j for j in range(start, len(lines)) if lines[j].startswith("```"))
        block = Block(mark.group(1), mark.group(2), start, end, lines[start:end])
        if block.kind == "transcript":
            for j in range(start, end):
                if lines[j].startswith("$ "):
                    block.commands.append(Command(lines[j][2:], [], j))
                elif block.commands:
                    block.commands[-1].output.append(lines[j])
        found.append(block)
    return found


def normalised(lines: list[str]) -> list[str]:
    """Lines as compared: durations as ``N s``, no trailing spaces or blank lines."""
    out = [_DURATION.sub("N s", line.rstrip()) for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TAMIS_", "SEARXNG_", "FIRECRAWL_", "PYDANTIC_"))
           and not k.endswith("_API_KEY")}
    env.update(HOME=str(home / "home"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), COLUMNS="80", NO_COLOR="1",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]))
    return env


@contextmanager
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tamis-readme-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        for name in LINKED:
            (work / name).symlink_to(ROOT / name)
        yield work


class ListServer:
    """The lists of ``tests/lists/data`` as a list host serves them (ETag, 304)."""

    ADDED = "*://*.codegrepper.com/*\n"  # the change before the third command

    def __init__(self) -> None:
        self.bodies = {path: (ROOT / "tests/lists/data" / name).read_bytes()
                       for path, name in LIST_FILES.items()}

    def __call__(self, request):  # type: ignore[no-untyped-def]
        from loopback import Reply

        body = self.bodies.get(request.path)
        if body is None:
            return Reply(status=404, body="not found", content_type="text/plain")
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if request.header("if-none-match") == etag:
            return Reply(status=304, body=b"", headers={"ETag": etag})
        return Reply(body=body, content_type="text/plain", headers={"ETag": etag})


@contextmanager
def scene(name: str, work: Path) -> Iterator[tuple[dict[int, Callable[[], None]], str | None]]:
    """Actions to take before the command of each index, and the port to show as 8765."""
    if name == "repo":
        yield {}, None
        return
    if name != "lists-update":
        raise ValueError(f"README.md: unknown transcript scene {name!r}")
    sys.path.insert(0, str(ROOT / "tests"))
    from loopback import LoopbackServer

    app = ListServer()
    server = LoopbackServer(app)
    server.__enter__()
    port = server.url.rsplit(":", 1)[1]
    (work / "examples").unlink()  # a copy of examples/, its list URLs on this port
    shutil.copytree(ROOT / "examples", work / "examples")
    for config in (work / "examples").rglob("*.yaml"):
        config.write_text(config.read_text().replace(f"127.0.0.1:{SHOWN_PORT}",
                                                     f"127.0.0.1:{port}"))

    def change() -> None:
        app.bodies["/so-copies.txt"] += ListServer.ADDED.encode()

    stopped = False

    def stop() -> None:
        nonlocal stopped
        server.__exit__(None, None, None)
        stopped = True

    try:
        yield {2: change, 3: stop}, port
    finally:
        if not stopped:
            server.__exit__(None, None, None)


def run_block(block: Block) -> list[list[str]]:
    """Each command's output, as printed."""
    outputs = []
    with scratch() as work:
        env = environment(work.parent)
        cwd = work
        with scene(block.arg, work) as (before, port):
            for index, command in enumerate(block.commands):
                if index in before:
                    before[index]()
                if command.text.startswith("cd "):
                    cwd = Path(os.path.normpath(cwd / command.text[3:].strip()))
                    outputs.append([])
                    continue
                done = subprocess.run(["sh", "-c", command.text + " 2>&1"], cwd=cwd, env=env,
                                      capture_output=True, text=True, timeout=300)
                text = done.stdout.replace(str(work), ".")
                if port:
                    text = text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{SHOWN_PORT}")
                outputs.append([line.rstrip() for line in text.rstrip("\n").splitlines()])
    return outputs


def check(write: bool) -> list[str]:
    """Differences between what the README shows and what its commands print (rewritten
    when ``write``)."""
    lines = README.read_text("utf-8").split("\n")
    problems: list[str] = []
    replaced = list(lines)
    for block in reversed(blocks(lines)):
        if block.kind == "file":
            shown = (ROOT / block.arg).read_text("utf-8").rstrip("\n").split("\n")
            if block.body != shown:
                problems.append(f"README.md:{block.start}: the block is not {block.arg}:\n"
                                + "\n".join(difflib.unified_diff(block.body, shown, lineterm="")))
                replaced[block.start:block.end] = shown
            continue
        outputs = run_block(block)
        new_body: list[str] = []
        for command, output in zip(block.commands, outputs, strict=True):
            new_body.append(f"$ {command.text}")
            new_body.extend(output)
            if normalised(command.output) != normalised(output):
                problems.append(
                    f"README.md:{command.line + 1}: $ {command.text}\n" + "\n".join(
                        difflib.unified_diff(normalised(command.output), normalised(output),
                                             "README", "real run", lineterm="")))
        replaced[block.start:block.end] = new_body
    if write and replaced != lines:
        README.write_text("\n".join(replaced), "utf-8")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="rewrite the README's outputs with what the commands print")
    args = parser.parse_args()
    problems = check(args.write)
    for problem in problems:
        print(problem, end="\n\n")
    if problems and not args.write:
        print(f"{len(problems)} stale README output(s): python tests/readme_transcripts.py"
              " --write", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
