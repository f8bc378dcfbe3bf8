"""Every number of every config field is bounded (schema_base.Strict), with the field's loc and
the same message as ever, after the field's own type and bounds."""

from __future__ import annotations

import types
import typing
from typing import Any

import annotated_types
import pytest
from pydantic import ValidationError

from tamis.policy.schema import Config
from tamis.policy.schema_base import Strict

LIMIT = "must be between -1000000000 and 1000000000"
# The least a list item needs to be valid.
MINIMAL: dict[str, dict[str, Any]] = {
    "LineConfig": {"name": "a"}, "Wrapper": {"host": "a", "param": ["u"]},
    "ListEntry": {"name": "a", "source": "x"}}


def _strip(kind: Any) -> Any:
    """The type under Optional."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return kind


def _capped(meta: list[Any]) -> bool:
    """An upper bound of its own (``Field(le=...)``): it refuses a huge number first."""
    return any(isinstance(bound, annotated_types.Le | annotated_types.Lt) for bound in meta)


def bounded_fields(cls: type, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """(loc, kind) of every field holding numbers, in every config type under ``cls``."""
    found: list[tuple[tuple[Any, ...], str]] = []
    for name, info in cls.model_fields.items():
        kind = _strip(info.annotation)
        origin = typing.get_origin(kind)
        if kind in (int, float) and not _capped(info.metadata):
            found.append(((*path, name), kind.__name__))
        elif origin is dict:
            value = typing.get_args(kind)[1]
            value_meta = []
            if typing.get_origin(value) is typing.Annotated:
                value, *annotations = typing.get_args(value)
                value_meta = [b for a in annotations for b in getattr(a, "metadata", [a])]
            if (isinstance(value, type) and issubclass(value, Strict)) or _capped(value_meta):
                continue  # a table of sections (page_kinds) or of bounded numbers (places)
            found.append(((*path, name), "mapping"))
        elif isinstance(kind, type) and issubclass(kind, Strict):
            found += bounded_fields(kind, (*path, name))
        elif origin is list:
            (item,) = typing.get_args(kind)
            if isinstance(item, type) and issubclass(item, Strict):
                found += bounded_fields(item, (*path, name, 0))
    return found


def data_at(loc: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """Config data with ``value`` at ``loc`` (list items made minimal)."""
    data: dict[str, Any] = {}
    node: Any = data
    cls: Any = Config
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        kind = _strip(cls.model_fields[part].annotation)
        if typing.get_origin(kind) is list:
            (cls,) = typing.get_args(kind)
            item = dict(MINIMAL.get(cls.__name__, {}))
            node[part] = [item]
            node = item
        else:
            cls = kind
            node = node.setdefault(part, {})
    node[loc[-1]] = value
    return data


def first_error(data: dict[str, Any]) -> tuple[tuple[Any, ...], str]:
    with pytest.raises(ValidationError) as caught:
        Config.model_validate(data)
    err = caught.value.errors()[0]
    return tuple(err["loc"]), err["msg"].removeprefix("Value error, ")


def test_every_number_of_every_field_is_bounded() -> None:
    found = bounded_fields(Config)
    assert len(found) >= 20 and (("backends", 0, "weight"), "float") in found
    assert (("backends", 0, "params"), "mapping") in found and (("dupes",), "mapping") in found
    for loc, kind in found:
        value: Any = {"min_body_chars": 10**12} if kind == "mapping" else 10**12
        assert first_error(data_at(loc, value)) == (loc, LIMIT), loc
        if kind == "float":  # an int field refuses inf itself
            assert first_error(data_at(loc, float("inf"))) == (loc, "must be a finite number")


def test_the_bound_comes_after_the_type_and_before_the_field_checks() -> None:
    assert first_error({"max_results": 10**12}) == (
        ("max_results",), "Input should be less than or equal to 100")
    assert first_error({"backends": [{"name": "a", "params": {"api_key": 10**12}}]}) == (
        ("backends", 0, "params"), LIMIT)  # bounded first, then the key check
