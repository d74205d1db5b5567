"""Long polls: a table told to wait is answered when it may deal, not when a timer says.

A waiting table's poll is held here until a step may have released it; then the caller asks
the core again. Which steps may release which table (the core's `wake_mark` and
`release_at`, `Tournament` queries):

- a table held only by START-2's lead is released once the slowest table has played the
  hands it waits for (most waiting tables of a big field wait for this);
- any other waiting table (short of players, halted, held for a hand-for-hand round) is
  released by a step with more than a hand in it (moves, eliminations, closings, a table lost
  or ready): such a step can have changed its seats. Unless the floor names the only ones
  such a step can have let go (`Tournament.idle_wakes`; TDA: the table due to break): then
  only those, so a big field's short tables do not all ask again at every elimination;
- every table named by a step's events, and every table when the wake mark changes (play
  started or stopped, a pause, a new level, a hand-for-hand round ended, the end).

A missed release costs time, never a wrong decision: every hold ends after `HOLD_SECONDS`
and the table asks again, and the core decides as it always does. Only a release makes a held
poll ask the core again before then: a timer that did (every 0.25 s, until session 6) made
the waiting tables of a big field ask the core four times a second each, 10 decisions a hand
at 20,000 players, and the event loop that spent its time on them held the slowest table
back, so more tables waited (docs/BENCHMARKS.md, "The record field"). Before the long polls,
a waiting table polled with a backoff up to 250 ms, and a table that overslept held the field
back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from orchestrator.core.directives import Step
from orchestrator.core.events import Event, HandFinished

__all__ = ["HOLD_SECONDS", "LongPolls"]

HOLD_SECONDS = 1.0  # a held poll answers "wait" at the latest after this (the table asks again)


class LongPolls:
    """The tables whose polls are held, each with what releases it."""

    def __init__(self, *, hold_seconds: float = HOLD_SECONDS) -> None:
        self._hold_seconds = hold_seconds
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
        held until a step may have released the table, then decided again; "wait" once held
        for `hold_seconds` in all. The hold is taken before the step is durable, so no step
        staged meanwhile goes unseen; `durable` waits for the step and carries out its
        directives."""
        deadline = time.monotonic() + self._hold_seconds
        while True:
            step = decide()
            assert step.reply is not None
            waits = not step.reply.close and step.reply.next_hand is None
            left = deadline - time.monotonic()
            held = self.hold(table, release_at(), left) if waits and left > 0 else None
            await durable(step)
            if held is None or not await held:
                return step

    def hold(self, table: int, release_at: int | None, seconds: float) -> Coroutine[Any, Any, bool]:
        """Hold `table` from now until a step may have released it (`stepped`: True), or for
        `seconds` (False): await the result."""
        future = asyncio.get_running_loop().create_future()
        self._release([table])  # a table has one poll in flight; a retried one replaces it
        self._held[table] = future
        if release_at is None:
            self._other.add(table)
        else:
            self._by_pace.setdefault(release_at, set()).add(table)
            self._pace_of[table] = release_at
        return self._until(table, future, seconds)

    async def _until(self, table: int, future: asyncio.Future[None], seconds: float) -> bool:
        try:
            await asyncio.wait_for(asyncio.shield(future), seconds)
        except TimeoutError:
            return False
        finally:
            if self._held.get(table) is future:
                self._release([table])
        return True

    def stepped(
        self,
        events: Iterable[Event],
        mark: tuple[object, ...],
        slowest: int,
        idle_wakes: Iterable[int] | None = None,
    ) -> None:
        """A step was staged: release every held table it may have released. `idle_wakes`:
        the only tables held for anything but START-2's lead that it can have let go without
        naming them (None: any of them, if it moved or eliminated players)."""
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
        if idle_wakes is not None:
            named.update(idle_wakes)
        released = named & self._held.keys()
        if more_than_a_hand and idle_wakes is None:
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
