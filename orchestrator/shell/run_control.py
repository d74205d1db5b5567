"""What `mtt run` gives the live view: the run's log followed in the store as it grows, and
operator commands sent to its orchestrator actor."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from orchestrator.core.events import EventRecord
from orchestrator.errors import RemoteUnavailable, TournamentStateError
from orchestrator.shell.store import Store, open_store

if TYPE_CHECKING:
    from orchestrator.shell.orchestrators import OrchestratorHandle

__all__ = ["RunControl", "StoreEventSource"]


class StoreEventSource:
    """A run's log (`stream`) read from the store as it grows: `Store.read(stream, after=seq,
    limit=batch)`. It holds every record from seq 1 (the orchestrator's in-memory
    `events_since` keeps its most recent 10,000), and it is the same wherever the run's actors
    are: a run on a cluster (`--ray-address`) is followed from here as one on this machine.
    The store is opened at the first read, in whichever thread reads (the live view's)."""

    def __init__(self, url: str, stream: str, *, batch: int = 5000) -> None:
        self._url = url
        self._stream = stream
        self._batch = batch
        self._store: Store | None = None
        self._lock = threading.Lock()  # a store is used by one thread at a time

    def read_since(self, seq: int) -> list[EventRecord]:
        """The records after `seq`, at most `batch` of them ([] before the run has begun)."""
        with self._lock:
            if self._store is None:
                self._store = open_store(self._url)
            return self._store.read(self._stream, after=seq, limit=self._batch)

    async def events_since(self, seq: int) -> list[EventRecord]:
        """`read_since` off the event loop (a remote store takes a round trip)."""
        return await asyncio.to_thread(self.read_since, seq)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None


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
