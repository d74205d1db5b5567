"""Tournaments that open and start by themselves (`registration_opens_at`, `starts_at`:
orchestrator/core/config_schedule.py), on the desk's clock.

`due(entries, now)` decides, purely, what is due: registration opening for an announced
tournament whose `registration_opens_at` has come; the start of one whose `starts_at` has
come. `Scheduler.tick()` carries that out through the desk, as an operator's calls would be:
a start with fewer than two registered (or the config's minimum) is no start but a
cancellation with every entry refunded (CRASH-1), its reason saying so; a tournament still
announced at its start is cancelled the same way. One tournament's failure is logged and never
stops the others; `run()` ticks every `poll_seconds` until cancelled. A tournament already
past its time when `mtt serve` starts (after a restart) is acted on at the first tick.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from orchestrator.frontdoor.desk import Desk, Entry
from orchestrator.frontdoor.errors import FrontDoorError

__all__ = ["Due", "Scheduler", "due"]

log = logging.getLogger(__name__)

MIN_PLAYERS = 2  # a tournament needs at least two players


@dataclass(frozen=True, slots=True)
class Due:
    tournament_id: str
    action: Literal["open", "start", "cancel"]
    reason: str = ""  # a cancellation's


def due(entries: Iterable[Entry], now: float) -> list[Due]:
    """What the schedule asks for at `now`, by tournament id."""
    actions = []
    for entry in sorted(entries, key=lambda e: e.tournament_id):
        config, state = entry.config, entry.state
        opens, starts = config.registration_opens_at, config.starts_at
        if starts is not None and now >= starts and state in ("announced", "registering"):
            actions.append(_at_start(entry, starts))
        elif state == "announced" and opens is not None and now >= opens:
            actions.append(Due(entry.tournament_id, "open"))
    return actions


def _at_start(entry: Entry, starts: float) -> Due:
    """The start, or the cancellation of a start that cannot be (CRASH-1: refunds)."""
    if entry.state == "announced":
        reason = f"registration never opened before its start at {_when(starts)}"
        return Due(entry.tournament_id, "cancel", reason)
    registered = len(entry.registration.in_play())
    needed = max(MIN_PLAYERS, entry.registration.rules.min_entries)
    if registered < needed:
        reason = (
            f"{registered} registered at its start at {_when(starts)}, at least {needed} are "
            "needed: every entry refunded"
        )
        return Due(entry.tournament_id, "cancel", reason)
    return Due(entry.tournament_id, "start")


class Scheduler:
    def __init__(self, desk: Desk, *, poll_seconds: float = 1.0) -> None:
        self._desk = desk
        self._poll = poll_seconds

    async def tick(self) -> list[Due]:
        """Carry out what is due now; what was done (a refusal is logged, not done)."""
        done = []
        for action in due(self._desk.all(), self._desk.now()):
            tournament = action.tournament_id
            try:
                if action.action == "open":
                    self._desk.open_registration(tournament)
                elif action.action == "start":
                    await self._desk.start(tournament)
                else:
                    await self._desk.cancel(tournament, action.reason)
            except FrontDoorError as exc:  # one tournament's trouble is its own
                log.error("%s: the scheduled %s failed: %s", tournament, action.action, exc)
                continue
            log.info("%s: scheduled %s %s", tournament, action.action, action.reason)
            done.append(action)
        return done

    async def run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # the supervising loop: a bug here must not stop the schedule
                log.exception("the scheduler's tick failed; it goes on")
            await asyncio.sleep(self._poll)


def _when(instant: float) -> str:
    return datetime.datetime.fromtimestamp(instant, datetime.UTC).isoformat(timespec="seconds")
