"""The base of every config type: unknown keys are errors, every number is bounded.

The config types are plain dataclasses (``tamis.typed``): building one, or rebuilding a
validated config from its snapshot, imports no pydantic. ``typed.validate(Config, data)``
checks a config file with pydantic, which reads ``__pydantic_config__`` (unknown keys are
errors) and ``__get_pydantic_core_schema__`` below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from tamis.policy.checks import bounded_number

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema


class Strict:
    """Mixed into every config dataclass (``@dataclass(kw_only=True, slots=True)``)."""

    __slots__ = ()
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

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
