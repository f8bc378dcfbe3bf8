"""tamis.typed: dataclasses validated and described by pydantic, dumped without it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

import pytest

from tamis import records, typed

if TYPE_CHECKING:
    from pydantic import AfterValidator, Field


def _upper(value: str | None) -> str | None:
    if value is not None and not value.isupper():
        raise ValueError("must be upper case")
    return value


@dataclass(slots=True, kw_only=True)
class Inner:
    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}

    name: Annotated[str, Field(min_length=1)]
    weight: Annotated[float, Field(gt=0, description="How much it counts")] = 1.0
    env: Annotated[str | None, AfterValidator(_upper)] = None
    hidden: str = field(default="", metadata={"exclude": True})

    def __post_init__(self) -> None:
        if self.name == "both":
            raise ValueError("not both")


@dataclass(slots=True, kw_only=True)
class Outer:
    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}

    items: list[Inner] = field(default_factory=list)
    label: str | None = None


def errors(data: object) -> list[tuple[tuple[object, ...], str]]:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as caught:
        typed.validate(Outer, data)
    return [(e["loc"], e["msg"]) for e in caught.value.errors()]


def test_validates_constraints_validators_and_post_init() -> None:
    built = typed.validate(Outer, {"items": [{"name": "a", "weight": 2, "env": "KEY"}]})
    assert built == Outer(items=[Inner(name="a", weight=2.0, env="KEY")])
    assert errors({"items": [{"name": ""}]}) == [
        (("items", 0, "name"), "String should have at least 1 character")]
    assert errors({"items": [{"name": "a", "weight": 0}]}) == [
        (("items", 0, "weight"), "Input should be greater than 0")]
    assert errors({"items": [{"name": "a", "env": "low"}]}) == [
        (("items", 0, "env"), "Value error, must be upper case")]
    assert errors({"items": [{"name": "both"}]}) == [(("items", 0), "Value error, not both")]
    assert errors({"items": [{"name": "a", "typo": 1}]})[0][0] == ("items", 0, "typo")


def test_json_schema_has_descriptions_and_forbids_extra() -> None:
    schema = typed.json_schema(Outer)
    inner = schema["$defs"]["Inner"]
    assert inner["properties"]["weight"]["description"] == "How much it counts"
    assert inner["additionalProperties"] is False


def test_to_data_is_model_dump_json() -> None:
    value = Outer(items=[Inner(name="a", hidden="secret")], label=None)
    assert typed.to_data(value) == {"items": [{"name": "a", "weight": 1.0, "env": None}],
                                    "label": None}
    assert typed.to_data(value, exclude_none=True) == {"items": [{"name": "a", "weight": 1.0}]}
    assert typed.to_data(value, exclude_defaults=True) == {"items": [{"name": "a"}]}
    with pytest.raises(TypeError, match="set"):
        typed.to_data({1, 2})


def test_import_needs_no_pydantic() -> None:
    code = "import sys, tamis.typed; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


@dataclass(slots=True, kw_only=True)
class Loose:
    kind: Literal["a", "b"]
    score: float
    counts: dict[str, int] = field(default_factory=dict)
    tree: Loose | None = None


def test_from_data_checks_each_value_and_inverts_to_data() -> None:
    value = Outer(items=[Inner(name="a", weight=2.5, env="K")], label="x")
    assert typed.from_data(Outer, typed.to_data(value)) == value
    built = typed.from_data(Loose, {"kind": "a", "score": 1, "tree": {"kind": "b", "score": 0.5,
                                                                      "counts": {"x": 1}}})
    assert built == Loose(kind="a", score=1.0, tree=Loose(kind="b", score=0.5, counts={"x": 1}))
    assert type(built.score) is float  # an int stands for a float, as in pydantic's dump
    assert typed.from_data(Loose, {"kind": "a", "score": 1, "new": 1}).kind == "a"  # ignored
    for bad, why in [({"kind": "c", "score": 1}, "one of"), ({"kind": "a", "score": "1"}, "float"),
                     ({"kind": "a", "score": True}, "float"), ({"kind": "a"}, "missing"),
                     ({"kind": "a", "score": 1, "counts": {"x": 1.0}}, "int"),
                     ({"kind": "a", "score": 1, "tree": []}, "Loose")]:
        with pytest.raises(typed.DataError, match=why):
            typed.from_data(Loose, bad)
    with pytest.raises(typed.DataError, match="unknown key 'typo'"):  # extra: forbid
        typed.from_data(Outer, {"items": [], "typo": 1})
    with pytest.raises(typed.DataError, match="not list"):
        typed.from_data(list[Loose], {"kind": "a"})


def test_to_data_dumps_an_int_in_a_float_field_as_pydantic_does() -> None:
    value = Loose(kind="a", score=2, counts={"x": 1}, tree=Loose(kind="b", score=0))
    data = typed.to_data(value)
    assert data == {"kind": "a", "score": 2.0, "counts": {"x": 1},
                    "tree": {"kind": "b", "score": 0.0, "counts": {}, "tree": None}}
    assert type(data["score"]) is float and type(data["counts"]["x"]) is int
    trimmed = typed.to_data(value, exclude_none=True)  # the path with exclusions: the same
    assert type(trimmed["score"]) is float and type(trimmed["tree"]["score"]) is float
    assert data == typed.adapter(Loose).dump_python(value, mode="json")


def _records() -> list[type]:
    """The dataclasses a CLI search creates at import, in tamis's own modules outside the
    pipeline (``records.Record``: == and repr shared)."""
    import dataclasses

    from tamis import models
    from tamis.backends import base, keys
    from tamis.policy.loader import LoadedConfig, ReadConfig

    found = [v for v in vars(models).values() if isinstance(v, type)
             and dataclasses.is_dataclass(v) and v.__module__ == models.__name__]
    return [*found, base.Supports, base.ZeroConfig, base.HttpRequest, base.Parsed, keys.Key,
            keys.Rest, LoadedConfig, ReadConfig]


def _twin(cls: type) -> type:
    """``cls`` as dataclasses makes it with its own ==, repr and hash."""
    import dataclasses

    space: dict[str, object] = {"__annotations__": {}, "__qualname__": cls.__qualname__,
                                "__module__": cls.__module__}
    for f in dataclasses.fields(cls):
        space["__annotations__"][f.name] = f.type  # type: ignore[index]
        space[f.name] = dataclasses.field(default=f.default, default_factory=f.default_factory,
                                          repr=f.repr, compare=f.compare, kw_only=f.kw_only,
                                          metadata=f.metadata)
    if "__repr__" in vars(cls):  # its own (keys.Key: never the value)
        space["__repr__"] = vars(cls)["__repr__"]
    return dataclasses.dataclass(frozen=cls.__dataclass_params__.frozen)(  # type: ignore[attr-defined]
        type(cls.__name__, (), space))


def test_the_search_paths_dataclasses_share_eq_and_repr_and_behave_as_compiled() -> None:
    import dataclasses

    classes = _records()
    assert len(classes) >= 23
    for cls in classes:
        assert issubclass(cls, records.Record), cls
        assert "__eq__" not in vars(cls), cls  # not compiled for the class at import
        assert "__repr__" not in vars(cls) or cls.__name__ == "Key", cls
        twin = _twin(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        values = {name: f"{name}-value" for name in names}
        ours, theirs = cls(**values), twin(**values)
        assert repr(ours) == repr(theirs)
        assert (ours == cls(**values)) is (theirs == twin(**values)) is True
        assert ours.__eq__(object()) is NotImplemented
        for name in names:
            changed = {**values, name: "another"}
            assert (ours == cls(**changed)) is (theirs == twin(**changed)), (cls, name)
        if cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            assert hash(ours) == hash(theirs) == hash(cls(**values))
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(ours, names[0], 1)
        else:
            with pytest.raises(TypeError):
                hash(ours)


def test_a_records_repr_stops_where_it_recurses() -> None:
    from tamis.backends.base import Parsed

    parsed = Parsed()
    parsed.notes.append(parsed)  # type: ignore[arg-type]
    assert repr(parsed) == "Parsed(hits=[], notes=[...])"


def test_float_fields_read_from_the_annotations_text_are_the_evaluated_ones() -> None:
    """Every dataclass of tamis: the float fields the dump finds without evaluating every
    annotation are the ones ``typing.get_type_hints`` gives; the models need no fallback."""
    import dataclasses
    import importlib
    import pkgutil

    import tamis
    from tamis import models

    classes = [value for info in pkgutil.walk_packages(tamis.__path__, "tamis.")
               for value in vars(importlib.import_module(info.name)).values()
               if isinstance(value, type) and dataclasses.is_dataclass(value)]
    assert len(classes) > 50
    for cls in classes:
        evaluated = frozenset(name for name, tp in typed._hints(cls).items()
                              if tp in (float, float | None))
        read = typed._float_fields_read(cls)
        assert read is None or read == evaluated, cls
        if cls.__module__ == models.__name__:
            assert read is not None, cls
    assert typed._float_fields_read(models.ScoreParts) == {
        "fusion", "relevance", "prefer", "multi_engine", "named", "off_topic", "same_site",
        "demote", "total"}


@dataclass(kw_only=True)
class Aliased:
    seconds: Seconds
    maybe: Maybe = None
    label: Annotated[str, Field(description="float = not this one")] = "x"
    weights: dict[str, float] = field(default_factory=dict)


Seconds = float
Maybe = float | None


def test_float_fields_through_an_alias_are_found() -> None:
    assert typed._float_fields(Aliased) == {"seconds", "maybe"}
    assert typed.to_data(Aliased(seconds=1, maybe=2)) == {
        "seconds": 1.0, "maybe": 2.0, "label": "x", "weights": {}}
