"""The base of every config type: unknown keys are errors, every number is bounded.

The config types are plain dataclasses (``tamis.typed``): building one, or rebuilding a
validated config from its snapshot, imports no pydantic. ``typed.validate(Config, data)``
checks a config file with pydantic, which reads ``__pydantic_config__`` (unknown keys are
errors) and ``__get_pydantic_core_schema__`` below.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from tamis.policy.checks import bounded_number

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema


class Strict:
    """Mixed into every config dataclass, declared
    ``@dataclass(kw_only=True, slots=True, eq=False, repr=False)``: ``==`` and ``repr`` are
    these two, shared, rather than compiled for each class at import (with a docstring on
    every class, that halves the CPU of creating the config classes)."""

    __slots__ = ()
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}
    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq is

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _names(type(self)))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _names(type(self)))
        return f"{type(self).__qualname__}({shown})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        """pydantic's schema of the dataclass, every field's value then checked by
        ``bounded_number`` (numbers inside lists and mappings too): after the field's type
        and bounds (``Field(ge=...)``), before its own ``AfterValidator`` checks, as a
        ``field_validator("*")`` of the base model did."""
        schema: Any = handler(source)
        if schema.get("type") == "dataclass":
            for field in schema["schema"]["fields"]:
                _bounded_within(field)
        return schema  # type: ignore[no-any-return]


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _bounded_within(node: dict[str, Any]) -> None:
    """Wrap ``bounded_number`` around the field's type schema, inside its default and its
    own (tamis) after-validators."""
    from pydantic_core import core_schema

    while True:
        inner = node["schema"]
        kind = inner.get("type")
        if kind == "default" or (kind == "function-after" and getattr(
                inner["function"].get("function"), "__module__", "").startswith("tamis.")):
            node = inner
            continue
        node["schema"] = core_schema.no_info_after_validator_function(bounded_number, inner)
        return
