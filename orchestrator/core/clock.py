"""The tournament clock: the level in play, its breaks, the operator's pause, and the hold
while the tables gather to start together (START-1, START-2, RB-5). Pure: the step passes `now`.

Levels in minutes run on one clock for every table; levels in hands follow the slowest table
(`core.pace` counts the hands; `levels.level_due` says when the level is over). While the
operator's pause lasts the clock stands still: a hand finished meanwhile is counted at the time
of the pause, and the resume moves the level's start on by the time paused. It stands still as
well while it is held (`hold`, START-1: from the start, the end of a break, a new phase or the
pause, until every table is ready to deal): `release` moves the level's start on by the time
held, so the level begins when play starts.

>>> clock = LevelClock(level_started_at=100.0)
>>> clock.hold(at=100.0)
>>> clock.release(now=130.0), clock.level_started_at
(30.0, 130.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import BreakStarted
from orchestrator.core.levels import level_due
from orchestrator.errors import TournamentStateError

__all__ = ["LevelClock"]


@dataclass(slots=True)
class LevelClock:
    level: int = 1
    level_started_at: float = 0.0
    paused_at: float | None = None  # when the operator stopped the clock
    held_at: float | None = None  # START-1: held from then until play starts (maybe later)

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def pause(self, *, now: float) -> None:
        if self.paused_at is not None:
            raise TournamentStateError("the tournament is already paused")
        self.paused_at = now

    def resume(self, *, now: float) -> float:
        """Start again; the seconds the clock stood still (the level ends that much later).
        A hold goes on past the resume, moved on by the pause like the level."""
        if self.paused_at is None:
            raise TournamentStateError("the tournament is not paused")
        paused = max(0.0, now - self.paused_at)
        self.paused_at = None
        self.level_started_at += paused
        if self.held_at is not None:
            self.held_at += paused
        return paused

    def hold(self, *, at: float) -> None:
        """START-1: stand still from `at` until `release` (already held: from then)."""
        if self.held_at is None:
            self.held_at = at

    def release(self, *, now: float) -> float:
        """Play starts at `now`: the level goes on from the play it had when the hold began (a
        level after a break begins now, or at the break's end if that is later); the seconds
        it moved on by."""
        started = self.level_started_at
        played = 0.0 if self.held_at is None else max(0.0, self.held_at - started)
        self.held_at = None
        self.level_started_at = max(started, now - played)
        return self.level_started_at - started

    def hand_played(
        self, config: TournamentConfig, *, now: float, hands: int
    ) -> list[BreakStarted] | None:
        """A hand was played; `hands` are the hands the slowest table has played in this level
        (START-2). None while the level goes on; once it is over, the clock is at the next
        level, started after the breaks that follow the last one (returned, maybe none)."""
        at = now if self.paused_at is None else self.paused_at
        if not level_due(
            config,
            level_started_at=self.level_started_at,
            hands_this_level=hands,
            tables_at_level_start=1,
            now=at,
        ):
            return None
        breaks = [b for b in config.breaks if b.after_level == self.level]
        for pause in breaks:
            at += 60 * pause.minutes  # the next level starts after the break
        self.level += 1
        self.level_started_at = at
        return [BreakStarted(minutes=b.minutes) for b in breaks]
