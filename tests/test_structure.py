"""The shape of the house, checked on every run: no import cycle, no import that runs up a layer,
no source file over 400 lines.

Imports are read from the source with ``ast`` (nothing is imported), at any depth of a module
(a function-level import is still a dependency), except under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "tamis"
MAX_LINES = 400

# Lower layers never import these higher ones.
LAYERS: dict[str, tuple[str, ...]] = {
    "tamis.pipeline": ("tamis.interfaces", "tamis.trust"),
    "tamis.backends": ("tamis.interfaces", "tamis.trust", "tamis.pipeline"),
    "tamis.policy": ("tamis.interfaces", "tamis.trust", "tamis.backends", "tamis.pipeline"),
    "tamis.store": ("tamis.interfaces", "tamis.trust", "tamis.pipeline", "tamis.backends"),
    "tamis.extract": ("tamis.interfaces", "tamis.trust"),
    "tamis.dupes": ("tamis.interfaces", "tamis.trust", "tamis.pipeline", "tamis.backends"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolve(name: str) -> str | None:
    """The project module an imported name lives in (``tamis.a.b.func`` -> ``tamis.a.b``)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str) -> set[str]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(alias.name)
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = _resolve(f"{base}.{alias.name}") or _resolve(base)
                if target:
                    found.add(target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(module)
    return found


GRAPH: dict[str, set[str]] = {m: imports_of(m) for m in MODULES}


def _cycles() -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            # A package's __init__ re-exporting its own submodules is not a cycle of design.
            if v and w.startswith(v + "."):
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group: list[str] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(GRAPH):
        if v not in index:
            strong(v)
    return groups


def test_the_graph_is_read() -> None:
    assert "tamis.core" in GRAPH and "tamis.pipeline.rank" in GRAPH["tamis.core"]


def test_no_import_cycle() -> None:
    assert _cycles() == []


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_no_import_runs_up_a_layer(layer: str) -> None:
    forbidden = LAYERS[layer]
    upward = sorted(
        f"{m} -> {t}"
        for m, targets in GRAPH.items() if m == layer or m.startswith(layer + ".")
        for t in targets if any(t == f or t.startswith(f + ".") for f in forbidden))
    assert upward == []


def test_no_source_file_over_400_lines() -> None:
    long = sorted(
        f"{p.relative_to(SRC)}: {n}" for p in MODULES.values()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES)
    assert long == []


HTTP_FACTORY = "tamis.http_client"


def test_every_http_client_comes_from_the_one_factory() -> None:
    """``httpx.AsyncClient(...)`` / ``httpx.Client(...)`` are made in ``tamis.http_client``
    only, so every client refuses cookies and sends tamis's user agent."""
    makers = []
    for module, path in MODULES.items():
        if module == HTTP_FACTORY:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("AsyncClient", "Client") \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "httpx":
                makers.append(f"{module}:{node.lineno}")
    assert makers == []


ERRORS = "tamis.errors"
ERRORS_ELSEWHERE: set[str] = set()  # every error class lives in tamis.errors
EXCEPTION_BASES = {"Exception", "ValueError", "TypeError", "RuntimeError", "KeyError",
                   "OSError", "LookupError", "ArithmeticError"}


def test_every_error_class_is_in_the_one_error_module() -> None:
    """One error tree (``tamis.errors``, its docstring draws it): no module defines its own
    exception class (a base ending in Error/Exception, or a builtin exception)."""
    elsewhere = set()
    for module, path in MODULES.items():
        if module == ERRORS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(
                b, ast.Attribute) else "" for b in node.bases}
            if bases & EXCEPTION_BASES or any(b.endswith(("Error", "Exception"))
                                              for b in bases):
                elsewhere.add(f"{module}.{node.name}")
    assert elsewhere == ERRORS_ELSEWHERE


def test_the_error_tree_has_two_roots_and_its_docstring_names_every_class() -> None:
    import tamis.errors as errors

    classes = [v for v in vars(errors).values()
               if isinstance(v, type) and issubclass(v, BaseException)
               and v.__module__ == ERRORS]
    assert all(issubclass(c, (errors.TamisError, errors.StageError)) for c in classes)
    drawn = errors.__doc__ or ""
    assert [c.__name__ for c in classes if f"+-- {c.__name__} " not in drawn] == []
