"""The tournament's structures behind one protocol. Pure.

A tournament is a seating (`FreezeOut`, FO-1..FO-6 with CLOSE-1/BAL-1, or `ShootOut`,
SO-1..SO-5) and the structures its config adds on: `Rebuys` (RB-2..RB-4), `HandForHand` (the
ELIM-1 extension near the money) and `LateEntry` (late registration and re-entry, REG-1). Each
owns its state. The tournament's step (`Tournament.apply_hand`) calls every one, in that order,
at fixed points, and each answers for its own rules; the defaults here do nothing:

- STEP 2 `chips_added`: a player's hand is recorded; the chips he takes at his boundary.
- STEP 3 `really_out`: which of the players the hand busted are really out (the others keep
  their seats as qualifiers, or leave them to enter again); `holds_places`: the first
  structure that holds places now takes the really out, to place them later; else they are
  placed at once (ELIM-1).
- STEP 3 `knocked_out`: the bounties on the players the hand knocked out, and on those
  disqualified at this boundary (KO-1..KO-5: the report's pots say who won them).
- STEP 4 `settle`, then `finish`: one player is left: everyone still waiting for a place gets
  it, then the structures end. `settle` also runs when the tournament is cancelled (CRASH-2).
- STEP 5 `boundary`: the table's boundary: balancing, closing, or the end of a phase.
- STEP 6 `seat_entrants`: the players entering again take their seats.
- STEP 7 `level_starting`: the clock reached a new level.
- STEP 8 `table_done`; STEP 9 `holds_table`: does the table wait (for a round)?
  `holds_tables`: does it hold any?

A seating is the structure that also owns the tables (`Seating`); a structure that needs them
holds the seating from the start.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from orchestrator.core.events import Event, FinalTable
from orchestrator.core.places import Busted
from orchestrator.core.play import Play
from table_worker.protocol import Blinds, HandPlayer, HandReport

__all__ = ["Boundary", "Busts", "Seating", "Structure", "final_table"]


@dataclass(frozen=True, slots=True)
class Busts:
    """The players a hand left without chips who leave their seats: really out, or to enter
    again. (A shoot-out's qualifiers who busted keep their seats: they are in neither.)"""

    out: tuple[Busted, ...]  # really out: placed now or later
    back: tuple[Busted, ...] = ()  # leave their seats to enter again (re-entry)


@dataclass(frozen=True, slots=True)
class Boundary:
    """What a table's hand boundary decided: the events, whether the table closes, and
    whether a new phase opened its tables (they start together: START-1)."""

    events: tuple[Event, ...] = ()
    closed: bool = False
    new_phase: bool = False


class Structure(Protocol):
    def chips_added(self, play: Play, player: str) -> list[Event]:
        return []

    def really_out(self, play: Play, table: int, busts: Busts, *, button: int) -> Busts:
        return busts

    def holds_places(
        self, play: Play, out: Sequence[Busted], *, button: int, table: int, hand: int
    ) -> bool:
        return False

    def knocked_out(
        self,
        play: Play,
        report: HandReport,
        out: Sequence[Busted],
        removed: Sequence[HandPlayer],
    ) -> list[Event]:
        return []

    def settle(self, play: Play) -> list[Event]:
        return []

    def finish(self, play: Play) -> list[Event]:
        return []

    def boundary(
        self,
        play: Play,
        table: int,
        *,
        gone: Sequence[str],
        big_blind: int,
        rng: random.Random,
    ) -> Boundary:
        return Boundary()

    def seat_entrants(self, play: Play, back: Sequence[Busted], rng: random.Random) -> list[Event]:
        return []

    def level_starting(self, play: Play, level: int) -> list[Event]:
        return []

    def table_done(self, play: Play, table: int, *, closed: bool) -> list[Event]:
        return []

    def holds_table(self, table: int) -> bool:
        return False

    def holds_tables(self) -> bool:
        """Whether it holds any table now: when that ends, every held table may deal."""
        return False

    def in_rounds(self) -> bool:
        """Whether every table now plays one hand a round and waits (hand-for-hand): the
        rounds keep the tables in step, so START-2's lead holds none of them back."""
        return False


class Seating(Structure, Protocol):
    """The structure that seats the players: its tables, and who sits where."""

    @property
    def tables(self) -> Mapping[int, Mapping[int, str]]: ...

    def opening(self, play: Play, rng: random.Random) -> list[Event]:
        """The start: open the first tables."""
        ...

    def pending_requests(self, table: int) -> tuple[int, ...]:
        """What an idle table still waits for (FO-4 requests): its idle poll is logged only
        when this or its big blind changes."""
        ...

    def waiting_for_big_blind(self, table: int, previous: Blinds | None) -> tuple[int, ...]:
        """TDA-3: the seats of `table` not dealt into the hand it deals next (players from a
        broken table between that hand's button and small blind wait for the big blind);
        `previous` is the blinds of its last hand. Asked once per hand dealt, after the
        table's boundary; the hand is dealt, its blinds drawn, over the other seats."""
        ...

    def owes_players(self, table: int) -> bool:
        """Whether `table`, waiting at its boundary, would send players now (FO-2): its poll
        then takes its boundary again. Asking changes nothing."""
        ...

    def idle_wakes(self) -> tuple[int, ...] | None:
        """The tables waiting short of players (or halted) whose answer a step may have
        changed without naming them: these, or None for any of them after a step that moves
        or eliminates players (the shells' long polls ask those again). Asking changes
        nothing."""
        ...


def final_table(tables: Mapping[int, Mapping[int, str]], table: int) -> FinalTable:
    seated = tables[table]
    return FinalTable(table=table, players=tuple(seated[s] for s in sorted(seated)))
