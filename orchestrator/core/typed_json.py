"""Typed values to JSON and back by their annotations: what the event codec (`core.codec`)
stores of an event's fields. Pure.

`to_json` writes what a value is: a dataclass as an object of its fields, a tuple or list as
an array, a mapping as an object (int keys as their digits), an enum as its value; floats must
be finite. `from_json` reads it back as the annotation says, checking as it goes: `int` (never
a bool), `float` (an int is read as a float), `str`, `bool`, `None`, `X | None` and other
unions, `Literal[...]`, `tuple[X, ...]` and `tuple[X, Y]`, `list[X]`, `dict[K, V]` (str or
int keys), enums, and dataclasses, whose missing fields take their defaults and whose unknown
fields are refused. A value it cannot read raises `RecordError` naming where it is.

>>> from table_worker.protocol import HandPlayer
>>> to_json((HandPlayer("ann", 3, 100, 250),))
[{'player': 'ann', 'seat': 3, 'start': 100, 'end': 250}]
>>> from_json([{"player": "ann", "seat": 3, "start": 100, "end": 250}], tuple[HandPlayer, ...])
(HandPlayer(player='ann', seat=3, start=100, end=250),)
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, Union

from orchestrator.errors import RecordError

__all__ = ["from_json", "hints", "to_json"]

_MISSING = dataclasses.MISSING


def to_json(value: Any) -> Any:
    """`value` as JSON data (dicts, lists, str, int, float, bool, None)."""
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RecordError(f"{value!r} is not a finite number: JSON has no such value")
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_json(item) for item in value]
    if isinstance(value, Mapping):
        return {_key(k): to_json(v) for k, v in value.items()}
    raise RecordError(f"a {type(value).__name__} has no JSON form: {value!r:.80}")


def _key(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key)
    raise RecordError(f"a mapping's key must be a str or an int, not {key!r}")


_hints: dict[type, dict[str, Any]] = {}


def hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a dataclass's fields (string annotations evaluated)."""
    found = _hints.get(cls)
    if found is None:
        resolved = typing.get_type_hints(cls)
        found = _hints[cls] = {f.name: resolved[f.name] for f in dataclasses.fields(cls)}
    return found


def from_json(data: Any, annotation: Any, where: str = "") -> Any:
    """`data` read back as `annotation` says; `RecordError` naming `where` when it is not."""
    origin = typing.get_origin(annotation)
    if annotation is Any:
        return data
    if annotation is None or annotation is type(None):
        return _expect(data is None, data, "null", where)
    if annotation is bool:
        return _expect(isinstance(data, bool), data, "a bool", where)
    if annotation is int:
        return _expect(type(data) is int, data, "an int", where)
    if annotation is float:
        _expect(type(data) in (int, float), data, "a number", where)
        return float(data)
    if annotation is str:
        return _expect(isinstance(data, str), data, "a string", where)
    if origin is Literal:
        allowed = typing.get_args(annotation)
        return _expect(data in allowed and type(data) in map(type, allowed), data, allowed, where)
    if origin in (Union, types.UnionType):
        return _union(data, typing.get_args(annotation), where)
    if origin is tuple:
        return _tuple(data, typing.get_args(annotation), where)
    if origin is list:
        (item,) = typing.get_args(annotation)
        _expect(isinstance(data, list), data, "an array", where)
        return [from_json(v, item, f"{where}[{k}]") for k, v in enumerate(data)]
    if origin is dict:
        key, value = typing.get_args(annotation)
        return _dict(data, key, value, where)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        try:
            return annotation(data)
        except ValueError:
            raise RecordError(f"{where}: {data!r} is no {annotation.__name__}") from None
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return from_fields(data, annotation, where)
    raise RecordError(f"{where}: the codec cannot read a {annotation!r}")


def from_fields(data: Any, cls: type, where: str = "") -> Any:
    """A dataclass from an object of its fields: a missing field takes its default (a field
    added with one needs no upcaster), an unknown one is refused."""
    where = where or cls.__name__
    _expect(isinstance(data, dict), data, "an object", where)
    known = hints(cls)
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise RecordError(f"{where}: no field {', '.join(unknown)} in {cls.__name__}")
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            values[f.name] = from_json(data[f.name], known[f.name], f"{where}.{f.name}")
        elif f.default is _MISSING and f.default_factory is _MISSING:
            raise RecordError(f"{where}: field {f.name} is missing")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:  # its own checks (__post_init__) refused it
        raise RecordError(f"{where}: {exc}") from exc


def _expect(ok: bool, data: Any, wanted: object, where: str) -> Any:
    if not ok:
        raise RecordError(f"{where}: expected {wanted}, got {data!r:.80}")
    return data


def _union(data: Any, members: tuple[Any, ...], where: str) -> Any:
    if data is None and type(None) in members:
        return None
    for member in members:
        if member is type(None):
            continue
        try:
            return from_json(data, member, where)
        except RecordError:
            if len(members) <= 2:  # `X | None`: X's own complaint says more
                raise
    raise RecordError(f"{where}: {data!r:.80} is none of {members}")


def _tuple(data: Any, items: tuple[Any, ...], where: str) -> tuple[Any, ...]:
    _expect(isinstance(data, (list, tuple)), data, "an array", where)
    if len(items) == 2 and items[1] is Ellipsis:
        return tuple(from_json(v, items[0], f"{where}[{k}]") for k, v in enumerate(data))
    _expect(len(data) == len(items), data, f"{len(items)} items", where)
    return tuple(
        from_json(v, item, f"{where}[{k}]")
        for k, (v, item) in enumerate(zip(data, items, strict=True))
    )


def _dict(data: Any, key: Any, value: Any, where: str) -> dict[Any, Any]:
    _expect(isinstance(data, dict), data, "an object", where)
    out: dict[Any, Any] = {}
    for k, v in data.items():
        if key is int:
            try:
                read: Any = int(k)
            except ValueError:
                raise RecordError(f"{where}: key {k!r} is not an int") from None
        else:
            read = from_json(k, key, f"{where} key")
        out[read] = from_json(v, value, f"{where}[{k!r}]")
    return out
