"""No block of 6 or more lines stands twice in ``src/``: what repeats belongs in one shared
helper. (The ``duplicates`` tool finds pairs by shape too; CI has no such tool, so this test
checks the identical ones itself.)

Lines are compared stripped of indentation and comments, with every string literal read as
``S`` and every number as ``0`` (the same code with other messages or values is still the
same code: a helper with a parameter holds it). Blank lines, imports and docstrings do not
count (every module has them), nor do windows made mostly of closing brackets and bare
keywords, nor tables of literals. A window of ``WINDOW`` such lines found at two places (in
two files, or twice in one file without overlapping) fails the test, unless ``ALLOWED``
names a line of it, the folder it stands in, and why it is not a helper's job.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "tamis"
WINDOW = 6
THIN = re.compile(r"^[\)\]\}:,\s]*$|^(else|try|finally|pass|return|continue|break)\s*:?$|^@")
COMMENT = re.compile(r"\s+#.*$")
STRING = re.compile(r"""[rbfu]*("([^"\\]|\\.)*"|'([^'\\]|\\.)*')""", re.IGNORECASE)
NUMBER = re.compile(r"\b\d[\d_]*(\.\d+)?\b")
LITERALS = re.compile(r"^[S0\s,:()\[\]{}]*$")  # a row of a table of strings and numbers

DECLARATION = ("an adapter's declaration: each backend file says what it is in its own class"
               " attributes (issue 14: a backend is one file), the values are its own")
# a line of an allowed run -> (the folder all its places stand in, why it stays)
ALLOWED: dict[str, tuple[str, str]] = {
    "type = S": ("backends/", DECLARATION),
    "supports = Supports(time_range=True, domains=True, key=S)": ("backends/", DECLARATION),
    "default_base_url = S": ("backends/", DECLARATION),
    "default_search_path = S": ("backends/", DECLARATION),
    "default_key_env = S": ("backends/", DECLARATION),
    "auth_style = S": ("backends/", DECLARATION),
    "return Item(": ("dupes/", "two verdicts' reports, each an Item built field by field with its"
                          " own wording: the shared part is the constructor call itself"),
}


def allowed(words: tuple[str, ...], places: list[tuple[str, int, int]]) -> bool:
    """A window holding an allowed line, every place of it in that line's folder (the
    windows of one run overlap: the run's allowed line is in each of them)."""
    return any(all(name.startswith(ALLOWED[line][0]) for name, _, _ in places)
               for line in words if line in ALLOWED)


def skipped_lines(tree: ast.Module) -> set[int]:
    """Lines of imports and of docstrings (a string standing alone as a statement)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def counted_lines(text: str) -> list[tuple[int, str]]:
    skip = skipped_lines(ast.parse(text))
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = COMMENT.sub("", line.strip())
        if number in skip or not stripped or stripped.startswith("#"):
            continue
        out.append((number, NUMBER.sub("0", STRING.sub("S", stripped))))
    return out


def repeated_blocks(files: dict[str, str], window: int = WINDOW) -> list[str]:
    """Every window of ``window`` counted lines found at two places or more."""
    places: dict[tuple[str, ...], list[tuple[str, int, int]]] = defaultdict(list)
    for name, text in files.items():
        lines = counted_lines(text)
        for start in range(len(lines) - window + 1):
            block = lines[start:start + window]
            words = tuple(line for _, line in block)
            if sum(1 for line in words if not THIN.match(line)) < window - 1 \
                    or all(LITERALS.match(line) for line in words):
                continue
            places[words].append((name, block[0][0], block[-1][0]))
    found = []
    for words, where in places.items():
        apart = [where[0]]
        for place in where[1:]:  # overlapping windows in one file are one run, not two
            if all(place[0] != p[0] or place[1] > p[2] for p in apart):
                apart.append(place)
        if len(apart) > 1 and not allowed(words, apart):
            found.append(" ~ ".join(f"{n}:{a}-{b}" for n, a, b in apart) + f"  {words[0]!r}")
    return found


def test_no_block_of_six_lines_stands_twice_in_src() -> None:
    files = {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8")
             for p in sorted(PACKAGE.rglob("*.py"))}
    assert repeated_blocks(files) == []


def test_the_check_finds_a_copied_block_and_passes_over_imports_and_docstrings() -> None:
    body = "".join(f"    total += weight_{i} * score(item, {i})\n" for i in range(6))
    other = body.replace("score(item, ", "score(item, 1")  # other numbers: the same code
    copied = f"def a(item):\n    total = 0\n{body}    return total\n"
    again = f'"""Doc."""\nimport os\nfrom x import (\n    y,\n)\n\n\ndef b(item):\n{other}'
    assert len(repeated_blocks({"one.py": copied, "two.py": again})) == 1
    assert repeated_blocks({"one.py": copied}) == []
    imports = "".join(f"from m{i} import n{i}\n" for i in range(8))
    assert repeated_blocks({"a.py": imports, "b.py": imports}) == []
    table = "".join(f'    ("k{i}", "v{i}", {i}),\n' for i in range(7))
    assert repeated_blocks({"a.py": f"A = [\n{table}]\n", "b.py": f"B = [\n{table}]\n"}) == []
