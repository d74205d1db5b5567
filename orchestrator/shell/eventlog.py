"""events.jsonl (DESIGN.md) and the store behind it: the write-ahead record of every decision.

Each record: `seq` (1, 2, 3, ...), `ts` (unix seconds), `type`, the event's fields, and for
events caused by a finished hand, `cause`: the seq of that `hand_finished`. A batch is appended
to the store (durable, the truth a restarted orchestrator rebuilds from) and then to the file,
both before the caller carries out what it decided. The file is a copy: after a crash it is
brought level with the store (`EventLog(..., resume=True)`).
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from orchestrator.core.events import Event, HandFinished
from orchestrator.errors import LogConflict, RecoveryError, StoreUnavailable
from orchestrator.shell.store import Store

__all__ = ["EventLog", "event_time"]

STORE_RETRY_SECONDS = 0.2
STORE_OUTAGE_SECONDS = 120.0  # then the orchestrator gives up (and Ray restarts it)


def event_time(now: float) -> float:
    """A time as the log keeps it (what a replay reads back), so decide with this one."""
    return round(now, 6)


class EventLog:
    def __init__(
        self,
        path: str | Path,
        *,
        store: Store | None = None,
        stream: str = "",
        keep_recent: int = 10_000,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._path = Path(path)
        self._store = store
        self._stream = stream
        self._sleep = sleep
        self.seq = 0
        self._recent: deque[dict[str, Any]] = deque(maxlen=keep_recent)
        self._file = open(self._path, "a", encoding="utf-8", newline="\n")  # noqa: SIM115

    def resume(self, records: Sequence[dict[str, Any]]) -> None:
        """Continue after a restart: `records` is the store's whole log (or its tail after the
        file's last line); the file gets what it lacks, a torn last line is cut off."""
        self._file.close()
        on_file = _complete_lines(self._path)
        self._file = open(self._path, "a", encoding="utf-8", newline="\n")  # noqa: SIM115
        missing = [r for r in records if r["seq"] > on_file]
        self._write(missing)
        if records:
            self.seq = records[-1]["seq"]
        self._recent.extend(records)

    def append(self, events: Sequence[Event], *, ts: float) -> list[dict[str, Any]]:
        records = []
        cause: int | None = None
        seq = self.seq
        for event in events:
            seq += 1
            record: dict[str, Any] = {"seq": seq, "ts": event_time(ts), "type": event.EVENT_TYPE}
            if isinstance(event, HandFinished):
                cause = seq
            elif cause is not None:
                record["cause"] = cause
            record.update(event.fields())
            records.append(record)
        if records:
            self._store_durably(records)
            self.seq = seq
            self._write(records)
            self._recent.extend(records)
        return records

    def _store_durably(self, records: list[dict[str, Any]]) -> None:
        """Append to the store, riding out an outage: an append that failed may have landed
        (Redis), and a Redis restarted without its tail may have lost earlier records, which
        are appended again from memory (docs/OPERATIONS.md "a lost tail")."""
        store = self._store
        if store is None:
            return
        deadline = time.monotonic() + STORE_OUTAGE_SECONDS
        batch = records
        while True:
            try:
                store.append(self._stream, batch)
                if batch[-1]["seq"] == records[-1]["seq"]:
                    return
            except (StoreUnavailable, LogConflict) as exc:
                if time.monotonic() > deadline:
                    raise RecoveryError(
                        f"the store has been failing for {STORE_OUTAGE_SECONDS:.0f} s: {exc}"
                    ) from exc
                self._sleep(STORE_RETRY_SECONDS)
            try:
                last = store.last_seq(self._stream)
            except StoreUnavailable:
                continue
            batch = [r for r in (*self._recent, *records) if r["seq"] > last]
            if not batch:  # it had landed, unless someone else wrote these seqs
                first = records[0]["seq"]
                try:
                    stored = store.read(self._stream, after=first - 1, limit=len(records))
                except StoreUnavailable:
                    continue
                if stored != json.loads(json.dumps(records)):
                    raise RecoveryError(
                        f"seqs {first}..{records[-1]['seq']} of {self._stream!r} hold another "
                        "writer's records: this orchestrator no longer owns the tournament"
                    )
                return
            if batch[0]["seq"] != last + 1:
                raise RecoveryError(
                    f"the store's log ends at seq {last} and the records after it are no "
                    f"longer in memory (oldest kept: {batch[0]['seq']})"
                )

    def _write(self, records: Sequence[dict[str, Any]]) -> None:
        if records:
            self._file.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
            self._file.flush()

    def since(self, seq: int, limit: int = 1000) -> list[dict[str, Any]]:
        """The events after `seq`, at most `limit` (what followers page through). Recent ones
        come from memory; older ones than memory keeps (a large field registers tens of
        thousands at the start) from the store, so a follower never skips any."""
        oldest = self._recent[0]["seq"] if self._recent else self.seq + 1
        if seq + 1 < oldest and self._store is not None:
            return self._store.read(self._stream, after=seq, limit=limit)
        return [r for r in self._recent if r["seq"] > seq][:limit]

    def close(self) -> None:
        self._file.close()


def _complete_lines(path: Path) -> int:
    """The seq of the file's last complete line; a torn line after it is cut off."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with open(path, "r+b") as file:
            file.truncate(end)
    lines = data[:end].splitlines()
    return int(json.loads(lines[-1])["seq"]) if lines else 0
