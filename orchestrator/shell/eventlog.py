"""The tournament's event log, written ahead of every decision into the store, with the hand
histories that came with it (DESIGN.md "Stores: the store is the record"). It writes no file:
`events.jsonl` and `hands/*.phhs` are exports of the store (`orchestrator.shell.export`).

Each record: `seq` (1, 2, 3, ...), `ts` (unix seconds), `type`, `v` (its version), the event's
fields, and for events caused by a finished hand, `cause`: the seq of that `hand_finished`, as
the codec writes it (`orchestrator.core.codec.record`).

Two ways to make a step durable:
- `append(events, ts=..., hands=...)`: number the step's records and write them now, one store
  call, blocking (the orchestrator's opening step, `mtt cancel --store`, one step at a time).
- Group commit, in an asyncio actor: `stage(...)` numbers a step's records and queues them (no
  await, so steps are numbered in the order they are decided), then `await durable()` waits
  until everything staged so far is in the store. One committer task writes everything queued
  in one store call (one transaction, one fsync), in a thread, so the event loop goes on
  deciding while the store works; what is staged meanwhile goes in the next call. A step waits
  for its own batch only, and batches land in seq order, so when a step is durable every step
  before it is too. Never both ways at once on one log.

Followers (`since`) see a record only once it is durable. A snapshot handed to
`offer_snapshot` (the core's state taken at a step boundary) is saved by a task of its own once
the log holds its seq: no step waits for it (on SQLite, whose file has one writer at a time, a
batch that comes due meanwhile waits for the snapshot's transaction; on Redis they run side by
side).

Snapshots are paced (`SnapshotPacer`): taking one (the core's state encoded at a step boundary)
holds the event loop, and a big field's takes seconds (about 0.9 KB a player), so one is taken
after `every` events, and no sooner after the last than its duration divided by `duty`: taking
them never costs more than that share of the orchestrator's time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from orchestrator.core import codec
from orchestrator.core.events import Event, HandFinished
from orchestrator.errors import LogConflict, RecoveryError, StoreError, StoreUnavailable
from orchestrator.shell.store import Store, StoredHand

__all__ = ["SNAPSHOT_EVERY", "EventLog", "SnapshotPacer", "event_time"]

_T = TypeVar("_T")

SNAPSHOT_EVERY = 2000  # events between snapshots of the core, by default
STORE_RETRY_SECONDS = 0.2
STORE_OUTAGE_SECONDS = 120.0  # then the orchestrator gives up (and Ray restarts it)

_Hand = tuple[int, StoredHand]  # the seq its step ended at, the hand


def event_time(now: float) -> float:
    """A time as the log keeps it (what a replay reads back), so decide with this one."""
    return round(now, 6)


class EventLog:
    def __init__(
        self,
        store: Store,
        stream: str,
        *,
        keep_recent: int = 10_000,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._store = store
        self._stream = stream
        self._sleep = sleep
        self.seq = 0  # the last seq numbered (decided)
        self.durable_seq = 0  # the last seq the store holds
        self.commits = 0  # store calls that wrote a batch
        self.last_ts: float | None = None  # the time of the last durable record
        # Durable records and hands, for followers and for appending again after a store
        # that lost its tail (docs/OPERATIONS.md "a lost tail"); at most one hand a record.
        self._recent: deque[dict[str, Any]] = deque(maxlen=keep_recent)
        self._recent_hands: deque[_Hand] = deque(maxlen=keep_recent)
        self._queue: list[dict[str, Any]] = []
        self._queued_hands: list[_Hand] = []
        self._queued_done: asyncio.Future[None] | None = None  # the queue's batch written
        self._writing: asyncio.Future[None] | None = None  # the batch in the store's hands
        self._committer: asyncio.Task[None] | None = None
        self._snapshot: tuple[int, bytes] | None = None
        self._snapshotting: asyncio.Task[None] | None = None
        self._failed: BaseException | None = None

    def resume(self, records: Sequence[dict[str, Any]], *, after: int = 0) -> None:
        """Continue a log the store holds: `records` is its tail after seq `after` (the
        snapshot's; 0 with the whole log)."""
        self.seq = self.durable_seq = records[-1]["seq"] if records else after
        if records:
            self.last_ts = records[-1]["ts"]
        self._recent.extend(records)

    # --- numbering ------------------------------------------------------------------------

    def stage(
        self, events: Sequence[Event], *, ts: float, hands: Sequence[StoredHand] = ()
    ) -> list[dict[str, Any]]:
        """Number a step's events as records and queue them, with the hands it finished, for
        the next write; returns the records."""
        records = []
        cause: int | None = None
        seq = self.seq
        for event in events:
            seq += 1
            if isinstance(event, HandFinished):
                records.append(codec.record(event, seq=seq, ts=event_time(ts)))
                cause = seq
            else:
                records.append(codec.record(event, seq=seq, ts=event_time(ts), cause=cause))
        self.seq = seq
        self._queue += records
        self._queued_hands += [(seq, hand) for hand in hands]
        return records

    # --- one step at a time ---------------------------------------------------------------

    def append(
        self, events: Sequence[Event], *, ts: float, hands: Sequence[StoredHand] = ()
    ) -> list[dict[str, Any]]:
        """Number a step's events and write them (and its hands) now, in one store call."""
        records = self.stage(events, ts=ts, hands=hands)
        self.commit()
        return records

    def commit(self) -> None:
        """Write everything staged, now, in one store call (blocking)."""
        if self._committer is not None:
            raise RuntimeError("the group committer is writing this log")
        records, hands = self._take()
        if records or hands:
            self._store_durably(records, hands)
            self._written(records, hands)

    # --- group commit ---------------------------------------------------------------------

    async def durable(self) -> None:
        """Wait until every record and hand staged so far is in the store. Raises what the
        write raised (`RecoveryError` once the store has failed for too long): the caller's
        decisions are then ahead of the log, and nothing written after it."""
        if self._failed is not None:
            raise RecoveryError(f"the log of {self._stream!r} could not be written") from (
                self._failed
            )
        if self._queue or self._queued_hands:
            if self._queued_done is None:
                self._queued_done = asyncio.get_running_loop().create_future()
            done = self._queued_done
            self._start_committer()
        elif self._writing is not None:
            done = self._writing
        else:
            return
        await asyncio.shield(done)

    def offer_snapshot(self, seq: int, state: bytes) -> None:
        """Have `state` (the core after seq `seq`, taken at a step boundary) saved once the
        log holds `seq`, off every step's path; a later offer replaces one not yet saved."""
        self._snapshot = (seq, state)
        if self._queue or self._queued_hands:
            self._start_committer()
        self._start_snapshot()

    async def settle(self) -> None:
        """Wait until everything staged is durable and the snapshot offered is saved."""
        await self.durable()
        while self._snapshotting is not None:
            await asyncio.shield(self._snapshotting)

    def _start_committer(self) -> None:
        if self._committer is None:
            self._committer = asyncio.get_running_loop().create_task(self._commit())

    async def _commit(self) -> None:
        """Write what is queued, one store call per batch, until nothing is; release each
        batch's steps once it is durable."""
        loop = asyncio.get_running_loop()
        try:
            while self._queue or self._queued_hands:
                records, hands = self._take()
                done, self._queued_done = self._queued_done or loop.create_future(), None
                self._writing = done
                try:
                    await asyncio.to_thread(self._store_durably, records, hands)
                except BaseException as exc:
                    self._fail(exc, done)
                    raise
                finally:
                    self._writing = None
                self._written(records, hands)
                done.set_result(None)
                self._start_snapshot()
        finally:
            self._committer = None

    def _fail(self, exc: BaseException, *futures: asyncio.Future[None] | None) -> None:
        """A batch could not be written: its steps, and every one staged after it, fail."""
        if not isinstance(exc, asyncio.CancelledError):
            self._failed = exc
        for future in (*futures, self._queued_done):
            if future is not None and not future.done():
                if isinstance(exc, asyncio.CancelledError):
                    future.cancel()
                else:
                    future.set_exception(exc)
        self._queued_done = None

    def _snapshot_due(self) -> bool:
        return self._snapshot is not None and self._snapshot[0] <= self.durable_seq

    def _start_snapshot(self) -> None:
        if self._snapshot_due() and self._snapshotting is None:
            self._snapshotting = asyncio.get_running_loop().create_task(self._save_snapshots())

    async def _save_snapshots(self) -> None:
        try:
            while self._snapshot is not None and self._snapshot_due():
                (seq, state), self._snapshot = self._snapshot, None
                try:
                    await asyncio.to_thread(self._store.save_snapshot, self._stream, seq, state)
                except StoreError as exc:  # the next one tries again; the log alone rebuilds
                    logging.getLogger(__name__).warning("snapshot at %d not saved: %s", seq, exc)
        finally:
            self._snapshotting = None

    # --- the store ------------------------------------------------------------------------

    def _take(self) -> tuple[list[dict[str, Any]], list[_Hand]]:
        taken = self._queue, self._queued_hands
        self._queue, self._queued_hands = [], []
        return taken

    def _written(self, records: list[dict[str, Any]], hands: list[_Hand]) -> None:
        if records:
            self.durable_seq = records[-1]["seq"]
            self.last_ts = records[-1]["ts"]
        self._recent.extend(records)
        self._recent_hands.extend(hands)
        self.commits += 1

    def _store_durably(self, records: list[dict[str, Any]], hands: list[_Hand]) -> None:
        """Append to the store in one call, riding out an outage: an append that failed may
        have landed (Redis), and a Redis restarted without its tail may have lost earlier
        records, which are appended again from memory with their hands (docs/OPERATIONS.md
        "a lost tail"). Runs in the committer's thread: reads the recent records, never
        changes them."""
        store = self._store
        deadline = time.monotonic() + STORE_OUTAGE_SECONDS
        batch, batch_hands = records, hands
        while True:
            try:
                store.append(self._stream, batch, [hand for _, hand in batch_hands])
                if not records or batch[-1]["seq"] == records[-1]["seq"]:
                    return
            except (StoreUnavailable, LogConflict) as exc:
                if time.monotonic() > deadline:
                    raise RecoveryError(
                        f"the store has been failing for {STORE_OUTAGE_SECONDS:.0f} s: {exc}"
                    ) from exc
                self._sleep(STORE_RETRY_SECONDS)
            if not records:
                continue  # hands alone: one stored already with the same text is a no-op
            try:
                last = store.last_seq(self._stream)
            except StoreUnavailable:
                continue
            batch = [r for r in (*self._recent, *records) if r["seq"] > last]
            batch_hands = [(s, h) for s, h in (*self._recent_hands, *hands) if s > last]
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

    # --- followers ------------------------------------------------------------------------

    def since(self, seq: int, limit: int = 1000) -> list[dict[str, Any]]:
        """The durable events after `seq`, at most `limit` (what followers page through).
        Recent ones come from memory; older ones than memory keeps (a large field registers
        tens of thousands at the start) from the store, so a follower never skips any."""
        oldest = self._recent[0]["seq"] if self._recent else self.durable_seq + 1
        if seq + 1 < oldest:
            return self._store.read(self._stream, after=seq, limit=limit)
        return [r for r in self._recent if r["seq"] > seq][:limit]


class SnapshotPacer:
    """When the next snapshot is due: after `every` events, and no sooner than the last one's
    duration divided by `duty` since it began (`duty` 0.05: at most 5% of the time)."""

    def __init__(
        self, every: int, *, duty: float = 0.05, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._every = every
        self._duty = duty
        self._clock = clock
        self._events = 0
        self._not_before = clock()
        self.taken = 0  # how many so far
        self.seconds = 0.0  # spent taking them

    def staged(self, events: int) -> bool:
        """`events` more were staged: whether a snapshot is due now (then the count starts
        again: the caller takes it)."""
        self._events += events
        if self._events < self._every or self._clock() < self._not_before:
            return False
        self._events = 0
        return True

    def take(self, encode: Callable[[], _T]) -> _T:
        """Run `encode` (the snapshot) and time it: the next is due no sooner than its
        duration over `duty` from now."""
        began = self._clock()
        state = encode()
        ended = self._clock()
        self._not_before = began + (ended - began) / self._duty
        self.taken += 1
        self.seconds += ended - began
        return state
