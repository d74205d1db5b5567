"""events.jsonl (DESIGN.md): the write-ahead record of every decision.

Each line: `seq` (1, 2, 3, ...), `ts` (unix seconds), `type`, the event's fields, and for
events caused by a finished hand, `cause`: the seq of that `hand_finished`. A batch is written
and flushed before the caller carries out what it decided.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestrator.events import Event, HandFinished

__all__ = ["EventLog"]


class EventLog:
    def __init__(self, path: str | Path, *, keep_recent: int = 10_000) -> None:
        self._file = open(path, "a", encoding="utf-8", newline="\n")  # noqa: SIM115
        self.seq = 0
        self._recent: deque[dict[str, Any]] = deque(maxlen=keep_recent)

    def append(self, events: Sequence[Event], *, ts: float) -> list[dict[str, Any]]:
        records = []
        cause: int | None = None
        for event in events:
            self.seq += 1
            record: dict[str, Any] = {"seq": self.seq, "ts": round(ts, 6), "type": event.EVENT_TYPE}
            if isinstance(event, HandFinished):
                cause = self.seq
            elif cause is not None:
                record["cause"] = cause
            record.update(event.fields())
            records.append(record)
        if records:
            self._file.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
            self._file.flush()
            self._recent.extend(records)
        return records

    def since(self, seq: int, limit: int = 1000) -> list[dict[str, Any]]:
        """Recent events after `seq` (what a live view follows)."""
        return [r for r in self._recent if r["seq"] > seq][:limit]

    def close(self) -> None:
        self._file.close()
