"""The table floor: seating (SEAT-1), balancing and closing tables (FO-2..FO-5, CLOSE-1, BAL-1,
TDA-1..TDA-3).

Pure and deterministic: no Ray, no I/O, no clock; every random choice comes from the
`random.Random` passed in, and no decision depends on the iteration order of a set of strings.
The orchestrator calls `TableFloor.after_hand` at every table's hand boundary and carries out
the returned `BoundaryDecision` (logging it first).

The floor checks every request, keeps who sits where in a `SeatMap` (seats, positions and the
SEAT-1 draw: `orchestrator.core.seating`) and leaves closing and balancing to its policy
(`orchestrator.core.balancing`: ``equilibrium``, FO-2..FO-5; ``threshold``, CLOSE-1 and
BAL-1; ``tda``, TDA-1..TDA-3).

Moves happen only at the source table's hand boundary
    A player leaves a table only in the `moves` of that table's own `after_hand`. The move
    reserves the seat at the target at once: `tables` shows the player there, counted in the
    target's players; the target's shell seats the player at its own next boundary (before
    handing anyone over: a player reserved at a table may be moved on again, e.g. when that
    table closes before the player sat down). Under FO-4 a short table waits for the seats
    its eliminated players left to be filled (`pending_requests`).

Invariants (checked by the property tests in tests/test_floor_properties.py)
    Always, both policies: every player is either eliminated or seated at exactly one open
    table and one seat in 1..max_per_table; no seat holds two players; every open table has a
    player.
    Equilibrium, after every boundary: ``open tables == ceil(active / max_per_table)``; the
    table that just reached its boundary holds fewer than 2 players more than the shortest
    table, players on their way counted (it has sent what FO-2 asks of it). Between
    boundaries a short table may wait for its player, so tables may differ by 2+; once every
    open table passes a boundary with no eliminations (repeated while that still moves
    players), tables differ by at most 1.
    Threshold: a table sends a BAL-1 player only when it has at least 2 more players than the
    short table.
    TDA: a table breaks only at its own boundary and in the published order (TDA-2), so between
    boundaries there may be one table more than FO-3 needs; once every open table passes a
    boundary with no eliminations (repeated while that still moves players), ``open tables ==
    ceil(active / max_per_table)`` and tables differ by at most 1.

Dealing in (TDA-3)
    Before it deals a table's next hand, the core asks `waiting_for_big_blind` which seats sit
    that hand out (not dealt in at all); it computes the hand's blinds over the other seats.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from orchestrator.core.balancing import (
    BALANCING_POLICIES,
    Balancer,
    BalancingPolicy,
    Move,
    TdaBreaks,
    Threshold,
)
from orchestrator.core.equilibrium import Equilibrium
from orchestrator.core.seating import SeatMap, draw_tables
from orchestrator.core.tda import Tda
from orchestrator.errors import (
    InvalidReportError,
    InvalidSeatingError,
    PlayerEliminatedError,
    UnknownPlayerError,
    UnknownTableError,
)
from table_worker.protocol import Blinds

__all__ = ["BoundaryDecision", "TableFloor"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BoundaryDecision:
    """What happens at the table that just reached its hand boundary."""

    moves: tuple[Move, ...]  # players leaving this table now (all of them when `closed`)
    closed: bool  # this table closes now
    final_table: int | None  # set once: the table left when one table remains for the first time


class TableFloor:
    """Who sits where, and which players move or which table closes at each hand boundary."""

    def __init__(
        self,
        tables: Mapping[int, Mapping[int, str]],
        *,
        max_per_table: int,
        policy: BalancingPolicy,
        big_blinds: Mapping[int, int] | None = None,
        sitting_out: Collection[str] = (),
        tda_breaks: TdaBreaks = "due",
    ) -> None:
        """A floor with a known seating: table -> seat -> player (tables from 1, seats in
        1..max_per_table); `big_blinds` is each table's last big blind seat (seat 1 when
        missing); `sitting_out` are players seated but sitting out (CLOSE-1 counts them as not
        active). A new tournament draws its seating with `seat_players`."""
        _check_config(max_per_table, policy)
        blinds = dict(big_blinds or {})
        _check_seating(tables, max_per_table, blinds, sitting_out)
        self._seating = SeatMap(
            tables, max_per_table=max_per_table, big_blinds=blinds, sitting_out=sitting_out
        )
        self._balancer = _balancer(policy, tda_breaks)
        self._eliminated: set[str] = set()
        opened = sorted(tables)
        self._final: int | None = opened[0] if len(opened) == 1 else None
        self._highest_table = opened[-1]  # table numbers are never reused

    @classmethod
    def seat_players(
        cls,
        players: Sequence[str],
        *,
        max_per_table: int,
        policy: BalancingPolicy,
        rng: random.Random,
        tda_breaks: TdaBreaks = "due",
    ) -> TableFloor:
        """SEAT-1: a new tournament's players seated at random (`seating.draw_tables`)."""
        _check_config(max_per_table, policy)
        if len(set(players)) != len(players):
            raise InvalidSeatingError("a player is listed twice")
        if len(players) < 2:
            raise InvalidSeatingError(f"a tournament needs at least 2 players, got {len(players)}")
        tables = draw_tables(players, max_per_table=max_per_table, rng=rng)
        return cls(tables, max_per_table=max_per_table, policy=policy, tda_breaks=tda_breaks)

    # ---------------------------------------------------------------- queries

    @property
    def tables(self) -> Mapping[int, Mapping[int, str]]:
        """Open tables, seat -> player, reserved seats included (a live read-only view)."""
        return self._seating.tables

    @property
    def max_per_table(self) -> int:
        return self._seating.max_per_table

    @property
    def active(self) -> int:
        """Players not eliminated (all seated somewhere)."""
        return self._seating.active

    @property
    def final_table(self) -> int | None:
        """The final table once one table is left (from the start if it began with one)."""
        return self._final

    def table_of(self, player: str) -> tuple[int, int]:
        """(table, seat) of a player still in, reserved seats included."""
        where = self._seating.locate(player)
        if where is not None:
            return where
        if player in self._eliminated:
            raise PlayerEliminatedError(f"{player!r} is eliminated")
        raise UnknownPlayerError(f"{player!r} was never seated")

    def big_blind_seat(self, table: int) -> int:
        """The big blind seat of the last hand `table` reported (1 before its first hand)."""
        self._open(table)
        return self._seating.big_blind(table)

    def pending_requests(self, table: int) -> tuple[int, ...]:
        """FO-4: the seats `table` is waiting to have filled, next to be filled first."""
        self._open(table)
        return self._balancer.pending_requests(self._seating, table)

    def waiting_for_big_blind(self, table: int, previous: Blinds | None) -> tuple[int, ...]:
        """TDA-3: the seats of `table` that are not dealt into the hand it deals next (players
        from a broken table between that hand's button and small blind: they wait for the big
        blind); `previous` is the blinds of the table's last hand (None before its first). The
        core asks once per hand it deals, after this table's `after_hand`, and computes the
        hand's blinds over the other seats (`blinds.next_blinds`). Always () under the
        ``equilibrium`` and ``threshold`` policies."""
        self._open(table)
        return self._balancer.waiting_for_big_blind(self._seating, table, previous)

    def owes_players(self, table: int) -> bool:
        """Whether `table` would send players at a boundary with no eliminations now (FO-2;
        nothing changes): a table waiting at its boundary asks."""
        self._open(table)
        return self._balancer.gives(self._seating, table)

    def idle_wakes(self) -> tuple[int, ...] | None:
        """The waiting tables whose idle boundary may have changed without a step naming them
        (TDA-2: the table due to break); None: any of them, once players moved or busted."""
        return self._balancer.idle_wakes(self._seating)

    # ---------------------------------------------------------------- the boundary

    def after_hand(
        self,
        table: int,
        *,
        eliminated: Sequence[str],
        big_blind_seat: int,
        sitting_out: Collection[str] = (),
        rng: random.Random,
    ) -> BoundaryDecision:
        """Table `table` finished a hand whose big blind sat at `big_blind_seat`; `eliminated`
        are its players who busted in that hand, `sitting_out` all its players now sitting
        out (replacing what the table reported last; only CLOSE-1 uses it).
        Apply the eliminations, then decide closing and balancing, and return what happens at
        this table now. Raises a `FloorError` (state unchanged) for a report that cannot be
        true. A table that cannot play (one player, waiting) may report with no eliminations
        to take its decision."""
        seating, balancer = self._seating, self._balancer

        # STEP 1: check the whole report before changing anything.
        gone = self._check_report(table, eliminated, big_blind_seat, sitting_out)

        # STEP 2: apply it: eliminated players free their seats (leaving FO-4 requests);
        # remember the big blind (positions) and who sits out (CLOSE-1 counts active players).
        seating.set_big_blind(table, big_blind_seat)
        for player in gone:
            _, seat = self.table_of(player)
            seating.unplace(table, seat)
            self._eliminated.add(player)
            balancer.seat_freed(table, seat)
        seating.set_sitting_out(table, {p for p in sitting_out if p not in gone})

        # STEP 3: closing (FO-3 / CLOSE-1): only this table can close, at its own boundary.
        # STEP 4: otherwise balancing (FO-2, FO-4 / BAL-1): this table may be the source.
        closed = balancer.closes(seating, table)
        if closed:
            moves = balancer.close(seating, table, rng)
        else:
            moves = balancer.balance(seating, table, rng)

        # STEP 5: a table that is no longer short stops waiting (FO-4 requests are only for
        # the players eliminated while it is short).
        if not closed:
            balancer.settle(seating, table)

        # STEP 6: the final table forms when one table is left for the first time.
        final: int | None = None
        if len(seating.tables) == 1 and self._final is None:
            final = self._final = next(iter(seating.tables))
        return BoundaryDecision(moves=tuple(moves), closed=closed, final_table=final)

    # ---------------------------------------------------------------- late entries

    def seat_entrant(
        self,
        player: str,
        *,
        forbidden: Mapping[int, Collection[int]],
        rng: random.Random,
    ) -> tuple[int, int, bool]:
        """A late registrant or a re-entry takes a seat drawn at random among the open seats
        of the emptiest tables, never one in `forbidden` (the seats between the small blind
        and the button, which would skip the blinds). With no such seat a new table opens;
        balancing (FO-2, BAL-1) then fills it at the other tables' boundaries.
        Returns (table, seat, whether the table is new)."""
        seating = self._seating
        if seating.locate(player) is not None:
            raise InvalidSeatingError(f"{player!r} is already seated")
        candidates: list[tuple[int, int]] = []
        fewest: int | None = None
        for table in sorted(seating.tables):
            count = len(seating.seats(table))
            banned = forbidden.get(table, ())
            open_seats = [s for s in seating.empty_seats(table) if s not in banned]
            if not open_seats or (fewest is not None and count > fewest):
                continue
            if fewest is None or count < fewest:
                fewest, candidates = count, []
            candidates += [(table, s) for s in open_seats]
        opened = not candidates
        if opened:
            self._highest_table += 1
            table = self._highest_table
            seating.open_table(table)
            candidates = [(table, s) for s in range(1, seating.max_per_table + 1)]
            # The final table, once announced, stays announced (DESIGN: one final_table event):
            # a late entrant who needs a table of his own does not make it form twice.
        table, seat = rng.choice(candidates)
        self._eliminated.discard(player)  # a re-entry is back in
        seating.place(table, seat, player, sitting_out=False)
        return table, seat, opened

    # ---------------------------------------------------------------- checks

    def _open(self, table: int) -> Mapping[int, str]:
        try:
            return self._seating.seats(table)
        except KeyError:
            raise UnknownTableError(f"table {table} is not open") from None

    def _check_report(
        self,
        table: int,
        eliminated: Sequence[str],
        big_blind_seat: int,
        sitting_out: Collection[str],
    ) -> list[str]:
        seats = self._open(table)
        size = self.max_per_table
        if not 1 <= big_blind_seat <= size:
            raise InvalidReportError(f"big blind seat {big_blind_seat} not in 1..{size}")
        if len(set(eliminated)) != len(eliminated):
            raise InvalidReportError(f"table {table}: a player is reported eliminated twice")
        for player in (*eliminated, *sitting_out):
            where = self.table_of(player)  # unknown or already eliminated: typed error
            if where[0] != table:
                raise InvalidReportError(f"{player!r} sits at table {where[0]}, not {table}")
        if len(eliminated) >= len(seats):
            raise InvalidReportError(f"table {table}: a hand cannot eliminate every player")
        return list(eliminated)


def _balancer(policy: BalancingPolicy, tda_breaks: TdaBreaks) -> Balancer:
    if policy == "equilibrium":
        return Equilibrium()
    return Threshold() if policy == "threshold" else Tda(tda_breaks)


def _check_config(max_per_table: int, policy: str) -> None:
    if not 2 <= max_per_table <= 10:  # FO-1
        raise InvalidSeatingError(f"max_per_table must be 2..10, got {max_per_table}")
    if policy not in BALANCING_POLICIES:
        raise InvalidSeatingError(
            f"policy must be one of {sorted(BALANCING_POLICIES)}, got {policy!r}"
        )


def _check_seating(
    tables: Mapping[int, Mapping[int, str]],
    max_per_table: int,
    big_blinds: Mapping[int, int],
    sitting_out: Collection[str],
) -> None:
    if not tables:
        raise InvalidSeatingError("no tables")
    seen: set[str] = set()
    for table, seats in tables.items():
        if table < 1:
            raise InvalidSeatingError(f"table numbers start at 1, got {table}")
        if not seats:
            raise InvalidSeatingError(f"table {table} has no players")
        for seat, player in seats.items():
            if not 1 <= seat <= max_per_table:
                raise InvalidSeatingError(f"table {table}: seat {seat} not in 1..{max_per_table}")
            if player in seen:
                raise InvalidSeatingError(f"{player!r} is seated twice")
            seen.add(player)
    for table, seat in big_blinds.items():
        if table not in tables or not 1 <= seat <= max_per_table:
            raise InvalidSeatingError(f"big blind seat {seat} at table {table}")
    if unknown := [p for p in sitting_out if p not in seen]:
        raise InvalidSeatingError(f"sitting out but not seated: {sorted(unknown)}")
