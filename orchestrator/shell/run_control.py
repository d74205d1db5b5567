"""What `mtt run` gives the live view: its events.jsonl followed as it grows, and operator
commands sent to its orchestrator actor."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.core.events import EventRecord
from orchestrator.errors import RemoteUnavailable, TournamentStateError

if TYPE_CHECKING:
    from orchestrator.shell.orchestrators import OrchestratorHandle

__all__ = ["EventFileSource", "RunControl"]


class EventFileSource:
    """A run's `events.jsonl` read as it grows (whole lines only: the log writes a batch at a
    time). The file holds every event from seq 1, which the orchestrator's in-memory
    `events_since` (its most recent 10,000) does not once a big field has registered."""

    def __init__(self, path: Path, *, batch: int = 5000) -> None:
        self._path = path
        self._offset = 0
        self._batch = batch
        self._pending: list[EventRecord] = []

    async def events_since(self, seq: int) -> list[EventRecord]:
        if len(self._pending) < self._batch:
            self._read()
        events = [e for e in self._pending[: self._batch] if e["seq"] > seq]
        del self._pending[: self._batch]
        return events

    def _read(self) -> None:
        try:
            with self._path.open("rb") as file:
                file.seek(self._offset)
                chunk = file.read(8 << 20)
        except FileNotFoundError:
            return  # not written yet
        end = chunk.rfind(b"\n") + 1
        self._offset += end
        self._pending += [json.loads(line) for line in chunk[:end].splitlines() if line.strip()]


class RunControl:
    """Operator commands for `mtt run`: `start` releases a run that waits for it
    (`--wait-for-start`); the rest go to the orchestrator actor once it exists."""

    def __init__(self, *, wait_for_start: bool) -> None:
        self.started = threading.Event()
        if not wait_for_start:
            self.started.set()
        self.orchestrator: OrchestratorHandle | None = None  # set by the driver

    async def start(self) -> None:
        if self.started.is_set():
            raise TournamentStateError("the tournament has already started")
        self.started.set()

    async def pause(self) -> None:
        await self._call("pause")

    async def resume(self) -> None:
        await self._call("resume")

    async def cancel(self, reason: str) -> None:
        await self._call("cancel", reason)

    async def _call(self, method: str, *args: Any) -> None:
        """The core's refusal (already paused) comes back as itself (`OrchestratorHandle`); an
        actor gone means the run is over."""
        if self.orchestrator is None:
            raise TournamentStateError(f"cannot {method}: the tournament is not running")
        try:
            await getattr(self.orchestrator, method)(*args)
        except RemoteUnavailable as exc:
            raise TournamentStateError(f"cannot {method}: the tournament has ended") from exc
