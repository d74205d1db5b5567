"""The freeze-out's seating: one phase on the table floor (FO-1..FO-6, SEAT-1, CLOSE-1,
BAL-1, TDA-1..TDA-3, by the tournament's balancing policy). Pure.

The floor (`core.floor`) decides who moves and which table closes at each boundary; this turns
its decisions into events, and seats entrants (late registrants, re-entries) where the floor
finds them a seat.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import Event, PlayerMoved, TableClosed
from orchestrator.core.floor import TableFloor
from orchestrator.core.play import Play
from orchestrator.core.structures import Boundary, Seating, final_table
from table_worker.protocol import Blinds

__all__ = ["FreezeOut"]


class FreezeOut(Seating):
    def __init__(self, floor: TableFloor) -> None:
        self._floor = floor

    @classmethod
    def seat(
        cls, config: TournamentConfig, players: Sequence[str], rng: random.Random
    ) -> FreezeOut:
        """SEAT-1: tables and seats drawn at random."""
        return cls(
            TableFloor.seat_players(
                players,
                max_per_table=config.max_per_table,
                policy=config.policy,
                rng=rng,
                tda_breaks=config.tda_breaks,
            )
        )

    @property
    def tables(self) -> Mapping[int, Mapping[int, str]]:
        return self._floor.tables

    def pending_requests(self, table: int) -> tuple[int, ...]:
        return self._floor.pending_requests(table)

    def waiting_for_big_blind(self, table: int, previous: Blinds | None) -> tuple[int, ...]:
        return self._floor.waiting_for_big_blind(table, previous)  # TDA-3, policy tda only

    def owes_players(self, table: int) -> bool:
        return self._floor.owes_players(table)

    def idle_wakes(self) -> tuple[int, ...] | None:
        return self._floor.idle_wakes()

    def opening(self, play: Play, rng: random.Random) -> list[Event]:
        events = play.open_tables(self.tables, rng)
        if len(self.tables) == 1:
            events.append(final_table(self.tables, next(iter(self.tables))))
        return events

    def boundary(
        self,
        play: Play,
        table: int,
        *,
        gone: Sequence[str],
        big_blind: int,
        rng: random.Random,
    ) -> Boundary:
        """FO-2..FO-5 or CLOSE-1/BAL-1: the players leaving this table, whether it closes,
        and the final table once one is left."""
        decision = self._floor.after_hand(table, eliminated=gone, big_blind_seat=big_blind, rng=rng)
        events: list[Event] = [
            PlayerMoved(
                player=move.player,
                from_table=move.from_table,
                from_seat=move.from_seat,
                to_table=move.to_table,
                to_seat=move.to_seat,
                stack=play.stacks[move.player],
                reason=move.reason,
            )
            for move in decision.moves
        ]
        if decision.closed:
            events.append(TableClosed(table=table))
        if decision.final_table is not None:
            events.append(final_table(self.tables, decision.final_table))
        return Boundary(tuple(events), decision.closed)

    def seat_entrant(
        self, player: str, *, forbidden: Mapping[int, Collection[int]], rng: random.Random
    ) -> tuple[int, int, bool]:
        """A random open seat of the emptiest tables outside `forbidden`, or a new table:
        (table, seat, whether the table is new)."""
        return self._floor.seat_entrant(player, forbidden=forbidden, rng=rng)
