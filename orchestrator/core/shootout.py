"""Shoot-out phases (SO-1..SO-5): autonomous tables, qualifiers per table, reseating. Pure."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from orchestrator.core.config import Phase, TournamentConfig
from orchestrator.core.events import Event, PhaseStarted, PlayerQualified, TableClosed
from orchestrator.core.floor import TableFloor
from orchestrator.core.places import place_eliminated
from orchestrator.core.play import Play
from orchestrator.core.structures import Boundary, Busts, Seating, final_table
from table_worker.protocol import Blinds

__all__ = ["PhaseSeating", "ShootOut", "phase_rules"]

HEADS_UP = Phase(max_per_table=2, qualifiers=1)  # SO-5: a single-elimination bracket


def phase_rules(config: TournamentConfig, index: int) -> Phase:
    """The rules of phase `index` (0-based); past the configured phases the last one repeats,
    so a field that leaves more qualifiers than planned still plays down to one."""
    if config.heads_up_knockout:
        return HEADS_UP
    return config.phases[min(index, len(config.phases) - 1)]


class PhaseSeating:
    """SO-1: the tables of one phase. Each is autonomous: nobody moves between them, players
    leave only by busting (or by qualifying, when the table is done)."""

    def __init__(self, tables: dict[int, dict[int, str]], *, max_per_table: int) -> None:
        self._tables = tables
        self.max_per_table = max_per_table

    @classmethod
    def seat(
        cls,
        players: Sequence[str],
        *,
        max_per_table: int,
        first_table: int,
        rng: random.Random,
    ) -> PhaseSeating:
        """SO-1: everyone still in is seated at random (the SEAT-1 draw), tables numbered on
        from `first_table` so each table of the tournament keeps its own number."""
        drawn = TableFloor.seat_players(
            players, max_per_table=max_per_table, policy="equilibrium", rng=rng
        )
        tables = {
            first_table + k: dict(seats)
            for k, (_, seats) in enumerate(sorted(drawn.tables.items()))
        }
        return cls(tables, max_per_table=max_per_table)

    @property
    def tables(self) -> Mapping[int, Mapping[int, str]]:
        return self._tables

    def remove(self, table: int, players: Sequence[str]) -> None:
        """Players busted at `table` leave their seats."""
        seats = self._tables[table]
        gone = set(players)
        for seat in [s for s, player in seats.items() if player in gone]:
            del seats[seat]

    def finish_table(self, table: int) -> list[str]:
        """The table is done for this phase: its players (the qualifiers) by seat."""
        seats = self._tables.pop(table)
        return [seats[s] for s in sorted(seats)]


class ShootOut(Seating):
    """SO-1..SO-5 phase by phase: a table done with its phase sends its qualifiers on and
    closes; when every table of a phase is done, the next phase seats them at random."""

    def __init__(self, config: TournamentConfig, players: Sequence[str], rng: random.Random):
        self._config = config
        self._phase = 0  # 0-based
        self._qualified: list[str] = []
        self._next_table = 1  # table numbers are never reused
        self._seating = PhaseSeating.seat(
            players, max_per_table=self._rules(0).max_per_table, first_table=1, rng=rng
        )

    @property
    def tables(self) -> Mapping[int, Mapping[int, str]]:
        return self._seating.tables

    def pending_requests(self, table: int) -> tuple[int, ...]:
        return ()  # nobody moves between a phase's tables

    def waiting_for_big_blind(self, table: int, previous: Blinds | None) -> tuple[int, ...]:
        return ()  # SO-1: tables are autonomous; nobody arrives from a broken table

    def owes_players(self, table: int) -> bool:
        return False

    def idle_wakes(self) -> tuple[int, ...] | None:
        return None

    def opening(self, play: Play, rng: random.Random) -> list[Event]:
        return self._open_phase(play, self._seating, rng)

    def really_out(self, play: Play, table: int, busts: Busts, *, button: int) -> Busts:
        """SO-2 ("the first N placed go through"): when one hand busts a table below its
        qualifiers, the best placed of those busted (ELIM-1) still qualify. They hold no
        chips, so this happens only when the next phase resets the stacks (SO-3); with carried
        stacks a table sends fewer."""
        if not busts.out:
            return busts
        short = self._rules(self._phase).qualifiers - (
            len(self._seating.tables[table]) - len(busts.out)
        )
        if short <= 0 or self._rules(self._phase + 1).stacks != "reset":
            return busts
        ranked = tuple(
            who
            for who, _ in place_eliminated(
                busts.out,
                button=button,
                seats_per_table=self._seating.max_per_table,
                remaining_before=0,
            )
        )
        return Busts(out=ranked[short:], back=busts.back)

    def boundary(
        self,
        play: Play,
        table: int,
        *,
        gone: Sequence[str],
        big_blind: int,
        rng: random.Random,
    ) -> Boundary:
        """A table down to its qualifiers is done (SO-2); the last one done starts the next
        phase (SO-1), which may be all byes: then on again. Its tables start together
        (START-1)."""
        self._seating.remove(table, gone)
        if len(self._seating.tables[table]) > self._rules(self._phase).qualifiers:
            return Boundary()
        events = self._qualify(table)
        events.append(TableClosed(table=table))
        phase = False
        while not self._seating.tables:
            self._phase += 1
            players, self._qualified = self._qualified, []
            seating = PhaseSeating.seat(
                players,
                max_per_table=self._rules(self._phase).max_per_table,
                first_table=self._next_table,
                rng=rng,
            )
            events += self._open_phase(play, seating, rng)
            phase = True
        return Boundary(tuple(events), closed=True, new_phase=phase)

    def _rules(self, phase: int) -> Phase:
        return phase_rules(self._config, phase)

    def _open_phase(self, play: Play, seating: PhaseSeating, rng: random.Random) -> list[Event]:
        """SO-1/SO-3: a phase's tables open with reset or carried stacks; a table already
        down to its qualifiers (a bye) sends them through without playing."""
        rules = self._rules(self._phase)
        if self._phase > 0 and rules.stacks == "reset":
            for seats in seating.tables.values():
                for player in seats.values():
                    play.stacks[player] = rules.starting_stack
        self._seating = seating
        byes = [t for t, seats in seating.tables.items() if len(seats) <= rules.qualifiers]
        events: list[Event] = [
            PhaseStarted(phase=self._phase + 1, tables=len(seating.tables) - len(byes))
        ]
        for table in byes:
            events += self._qualify(table)
        events += play.open_tables(seating.tables, rng)
        self._next_table = max([self._next_table, *(t + 1 for t in seating.tables)])
        if len(seating.tables) == 1 and rules.qualifiers == 1:
            events.append(final_table(seating.tables, next(iter(seating.tables))))
        return events

    def _qualify(self, table: int) -> list[Event]:
        players = self._seating.finish_table(table)
        self._qualified += players
        return [PlayerQualified(player=p, phase=self._phase + 1) for p in players]
