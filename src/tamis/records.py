"""``==`` and ``repr`` for tamis's dataclasses, shared rather than compiled for each class.

dataclasses compiles ``__init__``, ``__repr__`` and ``__eq__`` (and, frozen, ``__hash__``,
``__setattr__``, ``__delattr__``) for every class it makes, at import: a CLI call pays it for
every class it loads. A class declared with ``eq=False, repr=False`` that inherits
``Record`` (or ``FrozenRecord``) gets the same behaviour from these, made once.
Standard library only.
"""

from __future__ import annotations

import operator
import reprlib
from collections.abc import Callable
from dataclasses import fields
from functools import cache
from typing import Any


class Record:
    """Mixed into a dataclass declared with ``eq=False, repr=False``: the ``==`` and ``repr``
    dataclasses would compile for that class at import (two functions of three: about half
    the CPU of creating a class), shared, with the same results: ``==`` compares the
    ``compare`` fields, as a tuple, of two instances of the same class (else
    ``NotImplemented``); ``repr`` shows the ``repr`` fields, ``...`` where it recurses.
    Unhashable, as a mutable dataclass with ``eq`` is (``FrozenRecord``: hashable)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = _compared(self.__class__)
        return compared(self) == compared(other)  # type: ignore[no-any-return]

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _shown(self.__class__))
        return f"{self.__class__.__qualname__}({shown})"


class FrozenRecord(Record):
    """``Record`` for a dataclass declared ``frozen=True, eq=False, repr=False``: hashed on its
    ``compare`` fields, as a frozen dataclass with ``eq`` is."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(_compared(self.__class__)(self))


@cache
def _compared(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    names = [f.name for f in fields(cls) if f.compare]
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda value: (one(value),)
    return operator.attrgetter(*names) if names else lambda value: ()


@cache
def _shown(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.repr)
