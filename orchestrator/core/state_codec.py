"""The core's state as versioned JSON: what a snapshot holds (STYLE.md "Snapshots are data,
not pickles"). Pure.

The state is the tournament's object graph: dataclasses and small classes of the core (and the
protocol's records), their containers and plain values. It is written generically, so a field
added to a class is written with no change here, and read back as it was, shared objects
shared again. Every JSON object of the document is tagged by its first key when it is not a
plain `str`-keyed dict::

    {"$obj": "tables.TableState", "drawn_button": 3, ...}   an object and its fields
    {"$obj": "clock.LevelClock", "$id": 4, ...}             ... referred to again later as
    {"$ref": 4}
    {"$tuple": [...]}  {"$set": [...]}  {"$frozenset": [...]}
    {"$dict": [[key, value], ...]}                          keys that are not strings
    {"$enum": "ledger_records.Reason.BUY_IN"}  {"$float": "inf"}  {"$bytes": "00ff"}

A class is named by its module (less `orchestrator.core.`; the protocol's as `protocol`) and
its name; only the core's classes and the protocol's are read back. An object's fields are its
dataclass fields, else its `__slots__` and instance attributes; it is rebuilt without its
constructor, as it was. Reading checks the fields against the class: a dataclass field
missing from the snapshot takes its default (a field added with one needs no upcaster), any
other missing field or one the class no longer has is refused with `RecordError`.

Versions: the document is `{"format": "mtt-snapshot", "v": SNAPSHOT_VERSION, "state": ...}`.
A change that old snapshots cannot be read through (a field renamed, a class moved) raises
`SNAPSHOT_VERSION` and adds `SNAPSHOT_UPCASTERS[old]`, which turns a document of that version
into the next (`objects_of` finds a class's objects in it): a renamed field is an upcast, not
a lost tournament.

>>> from orchestrator.core.clock import LevelClock
>>> doc = dump_state({"clock": LevelClock(level=3), "tables": {1: (2, 3)}})
>>> doc["clock"]["$obj"], doc["clock"]["level"], doc["tables"]
('clock.LevelClock', 3, {'$dict': [[1, {'$tuple': [2, 3]}]]})
>>> load_state(doc)["clock"] == LevelClock(level=3)
True
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import math
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from orchestrator.errors import RecordError

__all__ = [
    "SNAPSHOT_FORMAT",
    "SNAPSHOT_UPCASTERS",
    "SNAPSHOT_VERSION",
    "class_name",
    "decode_snapshot",
    "dump_state",
    "encode_snapshot",
    "load_state",
    "objects_of",
]

SNAPSHOT_FORMAT = "mtt-snapshot"
SNAPSHOT_VERSION = 2


def _to_version_2(document: dict[str, Any]) -> dict[str, Any]:
    """Version 2: a late tournament keeps its wallet payments by key (`LateEntry._funding`),
    and TDA-2 may break several tables at once (`Tda._breaks`, the config's `tda_breaks`). A
    version 1 tournament had taken no payment by key, and broke one table at a time."""
    for late in objects_of(document, "late.LateEntry"):
        late.setdefault("_funding", {})
    for tda in objects_of(document, "tda.Tda"):
        tda.setdefault("_breaks", "one")
    for config in objects_of(document, "config.TournamentConfig"):
        config.setdefault("tda_breaks", "one")
    return {**document, "v": 2}


# version -> the document of that version as the next version has it.
SNAPSHOT_UPCASTERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _to_version_2,
}

_CORE = "orchestrator.core."
_PROTOCOL = "table_worker.protocol"
_NOT_FIELDS = frozenset({"__dict__", "__weakref__"})


def encode_snapshot(state: object) -> dict[str, Any]:
    return {"format": SNAPSHOT_FORMAT, "v": SNAPSHOT_VERSION, "state": dump_state(state)}


def decode_snapshot(document: Any) -> Any:
    """The state a snapshot document holds, upcast to this version first."""
    if not isinstance(document, dict) or document.get("format") != SNAPSHOT_FORMAT:
        raise RecordError("not a snapshot of the core")
    version = document.get("v")
    if type(version) is not int or version < 1:
        raise RecordError(f"snapshot version {version!r} is not a version")
    if version > SNAPSHOT_VERSION:
        raise RecordError(f"snapshot version {version} was written by a newer release")
    while version < SNAPSHOT_VERSION:
        upcast = SNAPSHOT_UPCASTERS.get(version)
        if upcast is None:
            raise RecordError(f"no upcaster from snapshot version {version}")
        document = upcast(document)
        version += 1
    return load_state(document["state"])


def dump_state(value: object) -> Any:
    return _Writer().write(value)


def load_state(node: Any) -> Any:
    return _Reader().read(node)


def objects_of(node: Any, name: str) -> Iterator[dict[str, Any]]:
    """Every object of class `name` (`module.Class`) in a document: for upcasters."""
    if isinstance(node, list):
        for item in node:
            yield from objects_of(item, name)
    elif isinstance(node, dict):
        if node.get("$obj") == name:
            yield node
        for item in node.values():
            yield from objects_of(item, name)


_names: dict[type, str] = {}


def class_name(cls: type) -> str:
    """A class of the core as a snapshot names it; `RecordError` for any other."""
    name = _names.get(cls)
    if name is None:
        name = _names[cls] = _name_of(cls)
    return name


def _name_of(cls: type) -> str:
    module = cls.__module__
    if module.startswith(_CORE):
        short = module.removeprefix(_CORE)
    elif module == _PROTOCOL:
        short = "protocol"
    else:
        raise RecordError(f"a {module}.{cls.__qualname__} is not state of the core")
    name = f"{short}.{cls.__qualname__}"
    if _class(name) is not cls:
        raise RecordError(f"{name} cannot be found again by its name")
    return name


@cache
def _class(name: str) -> type:
    short, _, qualname = name.partition(".")
    module = _PROTOCOL if short == "protocol" else _CORE + short
    if not short.isidentifier() or not all(p.isidentifier() for p in qualname.split(".")):
        raise RecordError(f"{name!r} names no class of the core")
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise RecordError(f"no class {name} in the core") from None
    if not isinstance(found, type):
        raise RecordError(f"{name} is not a class")
    return found


_field_names: dict[type, tuple[tuple[str, ...], bool]] = {}


def _fields(cls: type) -> tuple[tuple[str, ...], bool]:
    """The fields a class's objects keep, and whether they may hold others (a `__dict__`)."""
    found = _field_names.get(cls)
    if found is None:
        found = _field_names[cls] = _find_fields(cls)
    return found


def _find_fields(cls: type) -> tuple[tuple[str, ...], bool]:
    slots: list[str] = []
    open_ended = False
    for klass in reversed(cls.__mro__[:-1]):  # object has no fields
        declared = vars(klass).get("__slots__")
        if declared is None:
            open_ended = True
            continue
        for slot in (declared,) if isinstance(declared, str) else declared:
            if slot == "__dict__":
                open_ended = True
            elif slot not in _NOT_FIELDS and slot not in slots:
                slots.append(slot)
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls)), open_ended
    return tuple(slots), open_ended


class _Writer:
    def __init__(self) -> None:
        self._seen: dict[int, dict[str, Any]] = {}  # id(object) -> its node
        self._kept: list[object] = []  # the objects seen, alive while their ids are keys
        self._ids = 0

    def write(self, value: Any) -> Any:
        kind = type(value)  # by the exact type: a subclass of a container is an object
        if kind is str or kind is int or kind is bool or value is None:
            return value
        if kind is float:
            return value if math.isfinite(value) else {"$float": repr(value)}
        if kind is list:
            return [self.write(v) for v in value]
        if kind is dict:
            if all(type(k) is str and not k.startswith("$") for k in value):
                return {k: self.write(v) for k, v in value.items()}
            return {"$dict": [[self.write(k), self.write(v)] for k, v in value.items()]}
        if kind is tuple:
            return {"$tuple": [self.write(v) for v in value]}
        if kind is set or kind is frozenset:
            tag = "$set" if kind is set else "$frozenset"
            return {tag: [self.write(v) for v in value]}
        if kind is bytes:
            return {"$bytes": value.hex()}
        if isinstance(value, enum.Enum):
            return {"$enum": f"{class_name(kind)}.{value.name}"}
        return self._object(value)

    def _object(self, value: object) -> dict[str, Any]:
        node = self._seen.get(id(value))
        if node is not None:  # shared: the first node gets an id, this one refers to it
            if "$id" not in node:
                self._ids += 1
                node["$id"] = self._ids
            return {"$ref": node["$id"]}
        cls = type(value)
        node = {"$obj": class_name(cls)}
        self._seen[id(value)] = node
        self._kept.append(value)
        names, open_ended = _fields(cls)
        for name in names:
            try:
                node[name] = self.write(getattr(value, name))
            except AttributeError:
                continue  # a slot never set
        if open_ended:
            for name, item in vars(value).items():
                if name not in node:
                    node[name] = self.write(item)
        return node


class _Reader:
    def __init__(self) -> None:
        self._objects: dict[int, object] = {}

    def read(self, node: Any) -> Any:
        kind = type(node)
        if kind is str or kind is int or kind is float or kind is bool or node is None:
            return node
        if kind is list:
            return [self.read(v) for v in node]
        if kind is not dict:
            raise RecordError(f"a snapshot cannot hold {node!r:.80}")
        tag = next(iter(node), "")
        if not tag.startswith("$"):
            return {k: self.read(v) for k, v in node.items()}
        body = node[tag]
        if tag == "$obj":
            return self._object(node)
        if tag == "$ref":
            try:
                return self._objects[body]
            except (KeyError, TypeError):
                raise RecordError(f"a reference to object {body!r}, never written") from None
        if tag == "$tuple":
            return tuple(self.read(v) for v in body)
        if tag == "$dict":
            return {self.read(k): self.read(v) for k, v in body}
        if tag == "$set":
            return {self.read(v) for v in body}
        if tag == "$frozenset":
            return frozenset(self.read(v) for v in body)
        if tag == "$enum":
            cls_name, _, member = body.rpartition(".")
            enum_cls: Any = _class(cls_name)
            try:
                return enum_cls[member]
            except KeyError:
                raise RecordError(f"no {member} in {cls_name}") from None
        if tag == "$float":
            return float(body)
        if tag == "$bytes":
            return bytes.fromhex(body)
        raise RecordError(f"a snapshot's {tag!r} is no kind of value")

    def _object(self, node: dict[str, Any]) -> object:
        name = node["$obj"]
        cls: Any = _class(name)
        obj = cls.__new__(cls)
        if "$id" in node:
            self._objects[node["$id"]] = obj
        names, open_ended = _fields(cls)
        known = _known(cls)
        found = 0
        for field_name, value in node.items():
            if field_name[0] == "$":
                continue
            if field_name in known:
                found += 1
            elif not open_ended:
                raise RecordError(f"{name} has no field {field_name} any more")
            object.__setattr__(obj, field_name, self.read(value))
        if found < len(names):
            for field_name in names:
                if field_name not in node:
                    object.__setattr__(obj, field_name, _default(cls, name, field_name))
        return obj


_known_names: dict[type, frozenset[str]] = {}


def _known(cls: type) -> frozenset[str]:
    known = _known_names.get(cls)
    if known is None:
        known = _known_names[cls] = frozenset(_fields(cls)[0])
    return known


def _default(cls: type, name: str, field_name: str) -> Any:
    """The default of a dataclass field a snapshot lacks (it was added since)."""
    for field in dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ():
        if field.name != field_name:
            continue
        if field.default is not dataclasses.MISSING:
            return field.default
        if field.default_factory is not dataclasses.MISSING:
            return field.default_factory()
    raise RecordError(f"{name}: the snapshot lacks its field {field_name}")
