"""Long polls: a table told to wait is answered when it may deal, not when a timer says.

A waiting table's poll is held here until a step may have released it; then the caller asks
the core again. Which steps may release which table (the core's `wake_mark` and
`release_at`, `Tournament` queries):

- a table held only by START-2's lead is released once the slowest table has played the
  hands it waits for (most waiting tables of a big field wait for this);
- any other waiting table (short of players, halted, held for a hand-for-hand round) is
  released by a step with more than a hand in it (moves, eliminations, closings, a table lost
  or ready): such a step can have changed its seats;
- every table named by a step's events, and every table when the wake mark changes (play
  started or stopped, a pause, a new level, a hand-for-hand round ended, the end).

A missed release costs time, never a wrong decision: every hold ends after `TICK_SECONDS`
and the caller asks the core again, which decides as it always does. Before, a waiting table
polled with a backoff up to 250 ms, and a table that overslept held the field back
(docs/BENCHMARKS.md, "What stops the record field").
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from orchestrator.core.directives import Step
from orchestrator.core.events import Event, HandFinished

__all__ = ["HOLD_SECONDS", "TICK_SECONDS", "LongPolls"]

TICK_SECONDS = 0.25  # a held poll asks the core again at least this often
HOLD_SECONDS = 1.0  # and answers "wait" at the latest after this (the table asks again)


class LongPolls:
    """The tables whose polls are held, each with what releases it."""

    def __init__(self) -> None:
        self._held: dict[int, asyncio.Future[None]] = {}
        self._by_pace: dict[int, set[int]] = {}  # the slowest's hands -> the tables it releases
        self._pace_of: dict[int, int] = {}  # the inverse
        self._other: set[int] = set()  # held for anything but START-2's lead
        self._mark: tuple[object, ...] | None = None

    def __len__(self) -> int:
        return len(self._held)

    async def poll(
        self,
        table: int,
        decide: Callable[[], Step],
        durable: Callable[[Step], Awaitable[None]],
        release_at: Callable[[], int | None],
    ) -> Step:
        """A waiting table's poll: `decide` (the core's poll, staged), and while it says wait,
        held until a step may have released the table and decided again, for at most
        `HOLD_SECONDS`. The hold is taken before the step is durable, so no step staged
        meanwhile goes unseen; `durable` waits for the step and carries out its directives."""
        deadline = time.monotonic() + HOLD_SECONDS
        while True:
            step = decide()
            assert step.reply is not None
            waits = not step.reply.close and step.reply.next_hand is None
            held = self.hold(table, release_at()) if waits and time.monotonic() < deadline else None
            await durable(step)
            if held is None:
                return step
            await held

    def hold(self, table: int, release_at: int | None) -> Coroutine[Any, Any, None]:
        """Hold `table` from now until a step may have released it (`stepped`), or for
        `TICK_SECONDS`: await the result."""
        future = asyncio.get_running_loop().create_future()
        self._release([table])  # a table has one poll in flight; a retried one replaces it
        self._held[table] = future
        if release_at is None:
            self._other.add(table)
        else:
            self._by_pace.setdefault(release_at, set()).add(table)
            self._pace_of[table] = release_at
        return self._until(table, future)

    async def _until(self, table: int, future: asyncio.Future[None]) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(future), TICK_SECONDS)
        finally:
            if self._held.get(table) is future:
                self._release([table])

    def stepped(self, events: Iterable[Event], mark: tuple[object, ...], slowest: int) -> None:
        """A step was staged: release every held table it may have released."""
        if mark != self._mark:
            self._mark = mark
            self._release(list(self._held))
            return
        named: set[int] = set()
        more_than_a_hand = False
        for event in events:
            more_than_a_hand = more_than_a_hand or not isinstance(event, HandFinished)
            for key in ("table", "from_table", "to_table"):
                value = getattr(event, key, None)
                if isinstance(value, int):
                    named.add(value)
        released = named & self._held.keys()
        if more_than_a_hand:
            released |= self._other
        for at in [at for at in self._by_pace if at <= slowest]:
            released |= self._by_pace[at]
        self._release(released)

    def _release(self, tables: Iterable[int]) -> None:
        for table in list(tables):
            future = self._held.pop(table, None)
            if future is None:
                continue
            self._other.discard(table)
            at = self._pace_of.pop(table, None)
            if at is not None:
                waiting = self._by_pace[at]
                waiting.discard(table)
                if not waiting:
                    del self._by_pace[at]
            if not future.done():
                future.set_result(None)
