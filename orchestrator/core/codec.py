"""One codec for every event type: a typed event to its stored record and back (DESIGN.md
"Stores", "Read what you write, typed" in STYLE.md). Pure.

A stored record is the envelope and the event's fields::

    {"seq": 7, "ts": 1700000000.5, "type": "player_moved", "v": 1, "cause": 5, "player": ...}

`type` is the event's `EVENT_TYPE`, `v` its `VERSION`, `cause` the seq of the hand_finished
that led to it (only then). The fields are written from the event's values
(`core.typed_json.to_json`: a tuple as an array, a nested record as an object) and read back
by its annotations, checked, so a reader gets the event that was written:
``decode(encode(event)) == event``.

The codec knows every event type without a list of its own: its registry is the subclasses of
`core.events.Event` that name an `EVENT_TYPE` (`event_types()`), so a new event class is
written and read from the moment it is defined.

Versions and upcasting
    Release 1 wrote no `v`: a record without one is version 1. When an event's fields change,
    its `VERSION` goes up by one and `UPCASTERS[(type, old version)]` gets the function that
    turns the fields of a record of the old version into those of the next; reading applies
    them in turn, so a log written by any earlier release still reads (and replays). A field
    added with a default needs none: a record without it reads with the default. A record of
    a version newer than the code, of an unknown type, or with a field missing, unknown or
    mistyped is refused with `RecordError` naming the type and field.

>>> from orchestrator.core.events import PlayerMoved
>>> moved = PlayerMoved(player="ann", from_table=2, from_seat=5, to_table=1, to_seat=3,
...                     stack=1500, reason="balance")
>>> stored = record(moved, seq=7, ts=1700000000.5, cause=5)
>>> stored["type"], stored["v"], stored["cause"], stored["to_table"]
('player_moved', 1, 5, 1)
>>> decode(stored) == moved
True
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.core.events import Event, EventRecord
from orchestrator.core.typed_json import from_fields, hints, to_json
from orchestrator.errors import RecordError

__all__ = [
    "ENVELOPE",
    "UPCASTERS",
    "Recorded",
    "Upcaster",
    "decode",
    "decode_record",
    "encode",
    "event_types",
    "record",
]

# The record's own keys; no event has a field of these names.
ENVELOPE = ("seq", "ts", "type", "v", "cause")

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

# (type, version) -> the fields of a record of that version as the next version has them.
UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("hand_finished", 1): lambda fields: fields,  # v2 added `pots`: none in a v1 record
    ("tournament_opened", 1): lambda fields: _tda_breaks_one(fields),
}


def _tda_breaks_one(fields: dict[str, Any]) -> dict[str, Any]:
    """`tournament_opened` v2 added the config's `tda_breaks` (TDA-2): a v1 log broke one
    table at a time, and replays so."""
    return {**fields, "config": {"tda_breaks": "one", **fields["config"]}}


_registry: dict[str, type[Event]] = {}


@dataclass(frozen=True, slots=True)
class Recorded:
    """One record as read: its envelope and its event."""

    seq: int
    ts: float
    event: Event
    cause: int | None = None


def event_types() -> Mapping[str, type[Event]]:
    """Every event type the codec reads and writes: type -> class."""
    _refresh()
    return dict(_registry)


def encode(event: Event) -> EventRecord:
    """The event's `type`, `v` and fields, as JSON data (no envelope)."""
    cls = type(event)
    if _registry.get(cls.EVENT_TYPE) is not cls:
        _refresh()
        if _registry.get(cls.EVENT_TYPE) is not cls:
            raise RecordError(f"{cls.__name__} is not an event type of the codec")
    body: EventRecord = {"type": cls.EVENT_TYPE, "v": cls.VERSION}
    for f in dataclasses.fields(event):
        body[f.name] = to_json(getattr(event, f.name))
    return body


def record(event: Event, *, seq: int, ts: float, cause: int | None = None) -> EventRecord:
    """The stored record: `{seq, ts, type, v, cause?, ...fields}`."""
    body = encode(event)
    stored: EventRecord = {"seq": seq, "ts": ts, "type": body.pop("type"), "v": body.pop("v")}
    if cause is not None:
        stored["cause"] = cause
    stored.update(body)
    return stored


def decode(stored: Mapping[str, Any]) -> Event:
    """The event a record (or `encode`'s output) holds, upcast to its type's version."""
    kind = stored.get("type")
    cls = _class_of(kind)
    version = stored.get("v", 1)
    if type(version) is not int or version < 1:
        raise RecordError(f"{kind}: version {version!r} is not a version")
    if version > cls.VERSION:
        raise RecordError(
            f"{kind}: version {version} was written by a newer release (this one reads up to "
            f"{cls.VERSION})"
        )
    fields = {k: v for k, v in stored.items() if k not in ENVELOPE}
    while version < cls.VERSION:
        upcast = UPCASTERS.get((cls.EVENT_TYPE, version))
        if upcast is None:
            raise RecordError(f"{kind}: no upcaster from version {version}")
        fields = upcast(fields)
        version += 1
    event: Event = from_fields(fields, cls, cls.EVENT_TYPE)
    return event


def decode_record(stored: Mapping[str, Any]) -> Recorded:
    """A whole record: its envelope checked, its event decoded."""
    seq: Any = stored.get("seq")
    ts: Any = stored.get("ts")
    cause: Any = stored.get("cause")
    kind = stored.get("type")
    if type(seq) is not int or seq < 1:
        raise RecordError(f"{kind}: seq {seq!r} is not a position in a log")
    if type(ts) not in (int, float):
        raise RecordError(f"{kind} at seq {seq}: ts {ts!r} is not a time")
    if cause is not None and type(cause) is not int:
        raise RecordError(f"{kind} at seq {seq}: cause {cause!r} is not a seq")
    return Recorded(seq, float(ts), decode(stored), cause)


def _class_of(kind: object) -> type[Event]:
    if not isinstance(kind, str):
        raise RecordError(f"a record without a type: {kind!r}")
    cls = _registry.get(kind)
    if cls is None:
        _refresh()
        cls = _registry.get(kind)
        if cls is None:
            raise RecordError(f"no event type {kind!r}")
    return cls


def _refresh() -> None:
    """The registry again from `Event`'s subclasses (a class defined since is picked up)."""
    found: dict[str, type[Event]] = {}
    for cls in _subclasses(Event):
        kind = cls.EVENT_TYPE
        if not kind:
            continue
        if kind in found and found[kind] is not cls:
            raise RecordError(f"{found[kind].__name__} and {cls.__name__} are both {kind!r}")
        taken = set(ENVELOPE) & set(hints(cls))
        if taken:
            raise RecordError(f"{cls.__name__} has fields the envelope uses: {sorted(taken)}")
        found[kind] = cls
    _registry.clear()
    _registry.update(found)


def _subclasses(cls: type[Event]) -> Iterable[type[Event]]:
    for sub in cls.__subclasses__():
        # `dataclass(slots=True)` replaces the class it decorates; the one replaced lingers
        # among the subclasses until collected: the module's name says which is the class.
        defined = vars(sys.modules.get(sub.__module__, sys)).get(sub.__name__)
        if defined is None or defined is sub:
            yield sub
        yield from _subclasses(sub)
