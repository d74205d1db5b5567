"""The base of every event (`Event`: its type, the version of its fields) and the record type
a reader of the log holds (`EventRecord`); the events themselves are in `core.events`."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

__all__ = ["Event", "EventRecord"]


EventRecord = dict[str, Any]  # one record of the log as read: seq, ts, type, cause?, fields


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    EVENT_TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1

    def fields(self) -> dict[str, Any]:
        return asdict(self)
