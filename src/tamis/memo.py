"""A one-entry memo keyed by the argument's identity, for functions called again and again
with the very same object (a policy's compiled tuple, handed to every hit of an answer).

``functools.lru_cache`` hashes its argument on every call: for a tuple of many strings that
is most of the cost this memo saves. The last argument is held, so its identity cannot be
taken by another object while it is remembered. Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import TypeVar

    A = TypeVar("A")
    R = TypeVar("R")

_NOTHING = object()


def last_by_identity(compute: Callable[[A], R]) -> Callable[[A], R]:
    """``compute``, answering the last call's result again when given the same object."""
    last: list[tuple[object, object]] = [(_NOTHING, None)]

    def remembered(argument: A) -> R:
        seen, value = last[0]
        if seen is argument:
            return value  # type: ignore[return-value]
        result = compute(argument)
        last[0] = (argument, result)
        return result

    remembered.__doc__ = compute.__doc__
    remembered.__wrapped__ = compute  # type: ignore[attr-defined]
    return remembered
