"""The tournament's side of a multi-day event (FL-1, FL-3). Pure.

A Day 1 flight (`config.bag`) plays until its bag is due: once `bag.players` or fewer are left,
once level `bag.after_level` is over, or when one player is left (a flight has no winner); not
while its late registration (REG-1) still takes entries, unless one player is left. Each only
grows more true as play goes on, so the state alone says whether it is due. From then
(`flight_bagging`, logged once) every table closes at its boundary: the hands in play are
played out, their busted placed by ELIM-1 within the flight; the last table to close bags it:
`stack_bagged` for everyone still in, the pool to the event's Day 2 (`flight_bagged`) and the
registration ends. Nobody is paid: FL-3 keeps the money for Day 2.

A Day 2 (`config.day2`) starts with the bags as stacks, at the flights' level, its pool the
flights' (`opening_field`; the ledger's side is `core.play.open_registration`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from orchestrator.core.clock import LevelClock
from orchestrator.core.config import TournamentConfig
from orchestrator.core.directives import Step
from orchestrator.core.events import Event, FlightBagged, FlightBagging, StackBagged
from orchestrator.core.ledger_records import posting_event
from orchestrator.core.play import Play
from orchestrator.errors import ReportError
from table_worker.protocol import TableDirective

__all__ = ["TournamentBagging", "opening_field"]


class _Tournament(Protocol):
    config: TournamentConfig
    play: Play
    finished: bool

    def _close(self, table: int) -> TableDirective: ...
    def _step(self, events: list[Event], reply: TableDirective | None = None) -> Step: ...


def opening_field(
    config: TournamentConfig, players: Sequence[str], *, now: float
) -> tuple[dict[str, int], int, LevelClock]:
    """The stacks, the entries (the prize table's) and the clock a tournament starts with: the
    config's starting stack for each of its entries at level 1, or a Day 2's (FL-3) bags, all
    the flights' entries and the level they stopped at."""
    day2 = config.day2
    if day2 is None:
        return (
            dict.fromkeys(players, config.starting_stack),
            len(players),
            LevelClock(level=1, level_started_at=now),
        )
    stacks = dict(day2.stacks)
    if sorted(stacks) != sorted(players):
        raise ReportError("FL-3: Day 2 seats exactly the players whose bags it carries")
    return stacks, day2.entries, LevelClock(level=day2.level, level_started_at=now)


class TournamentBagging:
    """FL-1: when a flight bags, and the bagging itself, over the fields `Tournament` declares."""

    __slots__ = ()

    def _bag_due(self: _Tournament) -> bool:
        bag = self.config.bag
        if bag is None:
            return False
        play = self.play
        if play.active_players > 1 and play.registration.is_open():
            return False  # REG-1: late registration still takes entries into this flight
        level_over = bag.after_level > 0 and play.clock.level > bag.after_level
        return play.active_players <= max(1, bag.players) or level_over

    def _bag_table(self: _Tournament, table: int, events: list[Event], now: float) -> Step:
        """FL-1: the flight is bagging: this table closes at its boundary; the last one bags."""
        play = self.play
        if not play.bagging:
            play.bagging = True
            events.append(FlightBagging(players=play.active_players, level=play.clock.level))
        directive = self._close(table)
        if not self.play.tables:
            events += TournamentBagging._bag_flight(self, now)
        return self._step(events, directive)

    def _bag_flight(self: _Tournament, now: float) -> list[Event]:
        play = self.play
        registration = play.registration
        bagged = sorted(play.stacks.items())
        events: list[Event] = [StackBagged(player=p, chips=chips) for p, chips in bagged]
        posting = registration.ledger.carry_to_day2(now=now)
        events.append(
            FlightBagged(
                players=len(bagged),
                chips=sum(chips for _, chips in bagged),
                level=play.clock.level,
                pool=posting.amount if posting else 0,
            )
        )
        events += [posting_event(posting)] if posting else []
        events += registration.finish(now=now)
        registration.ledger.check()
        self.finished = True
        return events
