"""Typed data as plain dataclasses; pydantic only where data is validated or described.

tamis's data types (``tamis.models``, the config in ``tamis.policy.schema``) are standard
library dataclasses, so a CLI call that only builds and prints them never imports pydantic
(importing it and building the schemas of every model was the largest part of a CLI search's
CPU, issue 13). Where data from outside is checked (a config file, an HTTP request, a
recording) or a JSON Schema is printed, ``adapter(cls)`` builds pydantic's validator for the
dataclass, once per process.

How a dataclass says what pydantic should check: its module imports pydantic's names
(``Field``, ``AfterValidator``...) under ``TYPE_CHECKING`` only and writes them in string
annotations (``from __future__ import annotations``), e.g.
``weight: Annotated[float, Field(gt=0)] = 1.0``; a class attribute
``__pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}`` forbids unknown
keys; ``__post_init__`` checks across fields. pydantic reads annotations in the module's
namespace, so ``adapter`` binds those names there (``PYDANTIC_NAMES``) before the
first validator is built. ``to_data`` is ``model_dump(mode="json")`` for these dataclasses:
fields in declaration order, a field whose ``metadata`` has ``exclude`` left out, an int in a
``float`` field written as a float (pydantic coerced it when the model was built; a dataclass
checks nothing when built: code building one from outside data calls ``validate``).
``from_data`` is its inverse for data tamis wrote itself (a stored answer, a cache entry):
every value's type checked in plain Python, without pydantic's constraints or coercions.

Standard library only at import.
"""

from __future__ import annotations

import gc
import inspect
import re
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from functools import cache
from typing import Any, Literal, Union

from tamis.errors import DataError

# The pydantic names a dataclass's annotations may use.
PYDANTIC_NAMES = ("Field", "AfterValidator", "BeforeValidator", "PlainValidator",
                  "WrapValidator", "StringConstraints")
_SCALARS = (str, int, float, bool, type(None))
_SCALAR_SET = frozenset(_SCALARS)


def _bind_pydantic_names(home: str) -> None:
    """Bind ``PYDANTIC_NAMES`` in ``home`` (the validated type's module) and in every loaded
    tamis module that declares dataclasses (the types it holds may come from there)."""
    import pydantic

    for name, module in list(sys.modules.items()):
        if not (name.startswith("tamis") or name == home) or module is None:
            continue
        space = vars(module)
        if any(is_dataclass(v) and isinstance(v, type) for v in list(space.values())):
            for pname in PYDANTIC_NAMES:
                space.setdefault(pname, getattr(pydantic, pname))


@cache
def adapter(cls: type) -> Any:
    """pydantic's ``TypeAdapter`` for a dataclass (or any type built of them), once.

    The garbage collector is paused meanwhile: importing pydantic and building a schema make
    tens of thousands of objects and no cycle to collect (a CLI call that validates its
    config ran about 50 collections here, for nothing), as the console script loads its
    own modules with it off."""
    paused = gc.isenabled()
    gc.disable()
    try:
        import pydantic

        _bind_pydantic_names(getattr(cls, "__module__", ""))
        return pydantic.TypeAdapter(cls)
    finally:
        if paused:
            gc.enable()


def validate(cls: type, data: Any) -> Any:
    """``data`` (JSON-like) checked and built into ``cls``; raises pydantic's ValidationError."""
    return adapter(cls).validate_python(data)


def json_schema(cls: type, mode: str = "validation") -> dict[str, Any]:
    return adapter(cls).json_schema(mode=mode)


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if not f.metadata.get("exclude"))


@cache
def _defaults(cls: type) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for f in fields(cls):
        if f.default is not MISSING:
            found[f.name] = f.default
        elif f.default_factory is not MISSING:
            found[f.name] = f.default_factory()
    return found


def to_data(value: Any, *, exclude_none: bool = False,
            exclude_defaults: bool = False) -> Any:
    """JSON-ready data of a dataclass (nested dataclasses, lists, tuples, dicts), as pydantic's
    ``model_dump(mode="json")`` gives it. ``exclude_none``/``exclude_defaults`` apply at every
    level, as pydantic's do."""
    if not (exclude_none or exclude_defaults):
        return _plain(value)
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list or kind is tuple:
        return [to_data(v, exclude_none=exclude_none, exclude_defaults=exclude_defaults)
                for v in value]
    if kind is dict:
        return {k: to_data(v, exclude_none=exclude_none, exclude_defaults=exclude_defaults)
                for k, v in value.items()}
    if is_dataclass(value):
        out: dict[str, Any] = {}
        defaults = _defaults(kind) if exclude_defaults else None
        floats = _float_fields(kind)
        for name in _field_names(kind):
            item = getattr(value, name)
            if exclude_none and item is None:
                continue
            if item.__class__ is int and name in floats:
                item = float(item)  # as _dumper writes it
            if defaults is not None and name in defaults and item == defaults[name]:
                continue
            out[name] = to_data(item, exclude_none=exclude_none,
                                exclude_defaults=exclude_defaults)
        return out
    raise TypeError(f"to_data: cannot turn a {kind.__name__} into JSON data")


def _plain(value: Any) -> Any:
    """``to_data`` without exclusions: the answer's dump, once per search or request."""
    kind = value.__class__
    if kind in _SCALAR_SET:
        return value
    if kind is list or kind is tuple:
        return [v if v.__class__ in _SCALAR_SET else _plain(v) for v in value]
    if kind is dict:
        return {k: v if v.__class__ in _SCALAR_SET else _plain(v) for k, v in value.items()}
    dump = _DUMPERS.get(kind)
    if dump is None:
        if not is_dataclass(value):
            raise TypeError(f"to_data: cannot turn a {kind.__name__} into JSON data")
        dump = _DUMPERS[kind] = _dumper(kind)
    return dump(value)


_DUMPERS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _dumper(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The dump of one dataclass as one dict display (made once per class, as dataclasses
    makes ``__init__``): a scalar as is, else ``_plain`` of it; an int in a ``float`` field
    as a float, as pydantic stores it (``"score": 1.0``, never ``1``)."""
    floats = _float_fields(cls)
    items = []
    for name in _field_names(cls):
        items.append(f"{name!r}: v if (v := obj.{name}).__class__ is float else floated(v)"
                     if name in floats else
                     f"{name!r}: v if (v := obj.{name}).__class__ in scalars else plain(v)")
    space: dict[str, Any] = {"scalars": _SCALAR_SET, "plain": _plain, "floated": _floated}
    exec(f"def dump(obj):\n    return {{{', '.join(items)}}}", space)
    return space["dump"]  # type: ignore[no-any-return]


def _floated(value: Any) -> Any:
    if value.__class__ is int:
        return float(value)
    return value if value.__class__ in _SCALAR_SET else _plain(value)


@cache
def _float_fields(cls: type) -> frozenset[str]:
    """The fields typed ``float`` (or ``float | None``): an int held there is dumped as a float."""
    read = _float_fields_read(cls)
    if read is not None:
        return read
    hints = _hints(cls)
    return frozenset(name for name, tp in hints.items() if tp in (float, float | None))


# Read in an annotation's text without evaluating it: its string literals and keyword names
# (``Field(description="...", ge=0)``) are not names of types.
@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(literals and keyword names, names): compiled at the first dump, not at import (a
    cached answer is printed without one)."""
    return (re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\b[A-Za-z_]\w*\s*=(?!=)"),
            re.compile(r"(?<![\w.])[A-Za-z_]\w*"))


_UNBOUND = object()
_NEUTRAL = (typing.Annotated, Literal, typing.Optional, Union, Any, typing.ClassVar, None,
            True, False)


def _float_fields_read(cls: type) -> frozenset[str] | None:
    """``_float_fields`` as the annotations' text says it, evaluating (as
    ``typing.get_type_hints`` does) only the annotations that may name ``float``: most are
    ``str``, ``int``, a list of a dataclass, a ``Literal``, and evaluating each of them
    compiles it (the larger part of the first dump of an answer). None when an annotation
    is not plain text of names (the caller then evaluates them all)."""
    owners: dict[str, tuple[Any, type]] = {}
    for base in reversed(cls.__mro__):
        for name, text in inspect.get_annotations(base).items():
            owners[name] = (text, base)
    floats: set[str] = set()
    unsure: dict[type, dict[str, str]] = {}
    for f in fields(cls):
        text, owner = owners.get(f.name, (None, cls))
        space = getattr(sys.modules.get(owner.__module__), "__dict__", None)
        if not isinstance(text, str) or space is None or "float" in space:
            return None
        if text in ("float", "float | None") or text.startswith("Annotated[float, "):
            floats.add(f.name)
        elif not _names_no_float(text, space):
            unsure.setdefault(owner, {})[f.name] = text
    inert = dict.fromkeys(PYDANTIC_NAMES, lambda *args, **kwargs: None)
    for owner, texts in unsure.items():  # evaluated in the owner's module, as get_type_hints
        probe = type("probe", (), {"__annotations__": texts, "__module__": owner.__module__})
        try:
            hints = typing.get_type_hints(probe, localns=inert)
        except (NameError, TypeError):
            return None
        floats.update(name for name, tp in hints.items() if tp in (float, float | None))
    return frozenset(floats)


def _names_no_float(text: str, space: dict[str, Any]) -> bool:
    """True when every name in the annotation ``text`` is, in the module ``space``, a class
    other than ``float``, a function, a ``Literal`` alias, a special form of ``typing``
    (``Annotated``, ``Literal``...) or one of pydantic's names: its type cannot be float."""
    literals, names = _patterns()
    bare = literals.sub("", text).replace("...", "")
    if "." in bare:
        return False
    builtins = space.get("__builtins__")
    builtins = builtins if isinstance(builtins, dict) else vars(builtins) if builtins else {}
    for name in names.findall(bare):
        value = space.get(name, builtins.get(name, _UNBOUND))
        if value is _UNBOUND:
            if name in PYDANTIC_NAMES:
                continue
            return False
        if value is float:
            return False
        if isinstance(value, type | types.FunctionType) or any(value is form for form in _NEUTRAL) \
                or typing.get_origin(value) is Literal:
            continue
        return False
    return True


def _hints(cls: type) -> dict[str, Any]:
    """The field types of a dataclass, ``Annotated`` extras dropped; {} when they cannot be
    resolved (the dump then keeps every value as it is)."""
    # Annotations name pydantic's Field & co. (bound only under TYPE_CHECKING): an inert
    # callable stands in for them.
    inert = dict.fromkeys(PYDANTIC_NAMES, lambda *args, **kwargs: None)
    try:
        return typing.get_type_hints(cls, localns=inert)
    except (NameError, TypeError):
        return {}


def from_data(cls: Any, data: Any) -> Any:
    """``cls`` (a dataclass, or ``list[...]``, ``X | None``... of them) built from JSON data
    that tamis wrote (``to_data``'s output): every value's type checked (an int stands for
    a float), missing keys refused, unknown keys ignored (refused where the class forbids
    them, as pydantic does); raises ``DataError``. No constraint (``Field(ge=...)``,
    validators) is checked: data from outside goes through ``validate``."""
    return _reader(cls)(data)


_Reader = Callable[[Any], Any]


def _fail(kind: object, value: Any) -> DataError:
    return DataError(f"{value!r:.60} is not {getattr(kind, '__name__', kind)}")


def _scalar(kind: type) -> _Reader:
    def read(value: Any) -> Any:
        if value.__class__ is kind:
            return value
        if kind is float and value.__class__ is int:
            return float(value)
        raise _fail(kind, value)
    return read


@cache
def _reader(tp: Any) -> _Reader:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return lambda value: value
    if tp in _SCALARS:
        return _scalar(type(None) if tp is None else tp)
    if origin is Literal:
        allowed = frozenset(args)

        def literal(value: Any) -> Any:
            if value.__class__ in (str, int, bool) and value in allowed:
                return value
            raise _fail(f"one of {sorted(map(str, allowed))}", value)
        return literal
    if origin is Union or origin is types.UnionType:
        readers = [_reader(a) for a in args]

        def union(value: Any) -> Any:
            for read in readers:
                try:
                    return read(value)
                except DataError:
                    continue
            raise _fail(tp, value)
        return union
    if origin is list:
        item = _reader(args[0])

        def sequence(value: Any) -> Any:
            if value.__class__ is not list:
                raise _fail(list, value)
            return [item(v) for v in value]
        return sequence
    if origin is dict:
        key, val = _reader(args[0]), _reader(args[1])

        def mapping(value: Any) -> Any:
            if value.__class__ is not dict:
                raise _fail(dict, value)
            return {key(k): val(v) for k, v in value.items()}
        return mapping
    if isinstance(tp, type) and is_dataclass(tp):
        return _dataclass_reader(tp)
    raise TypeError(f"from_data: cannot read a {tp!r}")


def _dataclass_reader(cls: type) -> _Reader:
    readers: dict[str, _Reader] = {}
    required: set[str] = set()
    forbid = getattr(cls, "__pydantic_config__", {}).get("extra") == "forbid"

    def resolve() -> None:  # at the first build: a dataclass may hold itself
        inert = dict.fromkeys(PYDANTIC_NAMES, lambda *args, **kwargs: None)
        hints = typing.get_type_hints(cls, localns=inert)  # see _hints
        for f in fields(cls):
            readers[f.name] = _reader(hints[f.name])
            if f.default is MISSING and f.default_factory is MISSING:
                required.add(f.name)

    def build(value: Any) -> Any:
        if not readers:
            resolve()
        if value.__class__ is not dict:
            raise _fail(cls, value)
        if not required.issubset(value):
            raise DataError(f"{cls.__name__}: missing {sorted(required - set(value))}")
        unknown = [k for k in value if k not in readers]
        if unknown and forbid:
            raise DataError(f"{cls.__name__}: unknown key {unknown[0]!r}")
        return cls(**{k: readers[k](v) for k, v in value.items() if k in readers})
    return build
