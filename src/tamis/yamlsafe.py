"""The one way tamis reads a YAML config file: PyYAML's C loader when libyaml is there (about
ten times faster than the pure-Python one), safe types only, and no aliases.

An alias (``*name``) makes a node shared; a few hundred bytes of nested aliases (an "alias
bomb") expand into billions of values as soon as anything walks the document. A config file
never needs one, so any alias is refused, with the line it is on, before anything walks it.
"""

from __future__ import annotations

from typing import Any

import yaml

from tamis.errors import AliasRefused

try:
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as Loader  # type: ignore[assignment]


def compose(text: str) -> yaml.Node | None:
    """The document's node tree (with line marks), or None for an empty document.

    Raises ``AliasRefused`` for an alias and ``yaml.YAMLError`` for text that is not YAML."""
    for event in yaml.parse(text, Loader=Loader):
        if isinstance(event, yaml.AliasEvent):
            raise AliasRefused(str(event.anchor), event.start_mark.line + 1)
    return yaml.compose(text, Loader=Loader)


def construct(node: yaml.Node | None) -> Any:
    """The Python value of a node tree from ``compose`` (safe types only)."""
    if node is None:
        return None
    return Loader("").construct_document(node)


def load(text: str) -> Any:
    """``yaml.safe_load`` for config files: C loader when present, aliases refused."""
    return construct(compose(text))


def problem_of(exc: yaml.YAMLError) -> tuple[int | None, str | None]:
    """Where (1-based line, or None) and what (PyYAML's ``problem``, or None) a YAML error
    says, for a reader's one-line error."""
    mark = getattr(exc, "problem_mark", None)
    return (mark.line + 1 if mark is not None else None), getattr(exc, "problem", None)
