"""The tournament clock: the level in play, its breaks, and the operator's pause (START-2,
RB-5). Pure: the step passes `now`.

Levels in minutes run on one clock for every table; levels in hands count the hands played
at all tables, `length` per table open when the level began (`levels.level_due`). While the
operator's pause lasts the clock stands still: a hand finished meanwhile is counted at the time
of the pause, and the resume moves the level's start on by the time paused.
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
    hands_this_level: int = 0
    tables_at_level_start: int = 1
    paused_at: float | None = None  # when the operator stopped the clock

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    def pause(self, *, now: float) -> None:
        if self.paused_at is not None:
            raise TournamentStateError("the tournament is already paused")
        self.paused_at = now

    def resume(self, *, now: float) -> float:
        """Start again; the seconds the clock stood still (the level ends that much later)."""
        if self.paused_at is None:
            raise TournamentStateError("the tournament is not paused")
        paused = max(0.0, now - self.paused_at)
        self.paused_at = None
        self.level_started_at += paused
        return paused

    def hand_played(
        self, config: TournamentConfig, *, now: float, tables: int
    ) -> list[BreakStarted] | None:
        """Count one hand. None while the level goes on; once it is over, the clock is at the
        next level, started after the breaks that follow the last one (returned, maybe none)
        with `tables` open."""
        at = now if self.paused_at is None else self.paused_at
        self.hands_this_level += 1
        if not level_due(
            config,
            level_started_at=self.level_started_at,
            hands_this_level=self.hands_this_level,
            tables_at_level_start=self.tables_at_level_start,
            now=at,
        ):
            return None
        breaks = [b for b in config.breaks if b.after_level == self.level]
        for pause in breaks:
            at += 60 * pause.minutes  # the next level starts after the break
        self.level += 1
        self.level_started_at = at
        self.hands_this_level = 0
        self.tables_at_level_start = max(1, tables)
        return [BreakStarted(minutes=b.minutes) for b in breaks]
