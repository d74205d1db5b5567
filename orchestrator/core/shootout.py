"""Shoot-out phases (SO-1..SO-5): autonomous tables, qualifiers per table, reseating. Pure."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from orchestrator.core.config import Phase, TournamentConfig
from orchestrator.core.floor import BoundaryDecision, TableFloor

__all__ = ["PhaseSeating", "phase_rules"]

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

    def after_hand(
        self,
        table: int,
        *,
        eliminated: Sequence[str],
        big_blind_seat: int,
        rng: random.Random,
    ) -> BoundaryDecision:
        """SO-1: the busted players leave the table; nobody moves between tables."""
        seats = self._tables[table]
        gone = set(eliminated)
        for seat in [s for s, player in seats.items() if player in gone]:
            del seats[seat]
        return BoundaryDecision(moves=(), closed=False, final_table=None)

    def finish_table(self, table: int) -> list[str]:
        """The table is done for this phase: its players (the qualifiers) by seat."""
        seats = self._tables.pop(table)
        return [seats[s] for s in sorted(seats)]

    # alias until tournament.py is rewritten
    hand_finished = after_hand
