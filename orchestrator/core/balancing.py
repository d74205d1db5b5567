"""Balancing policies: which table closes and who moves at a table's hand boundary.

Pure and deterministic: every random choice comes from the `random.Random` passed in, and no
decision depends on the iteration order of a set of strings. The table floor
(`orchestrator.core.floor`) applies a table's report to the `SeatMap`, then asks its policy
whether the table closes (STEP 3) and, if not, whom it sends to another table (STEP 4). Every
move is carried out in the seat map at once: the player's new seat is reserved.

Policies (RULES.md Decision), one `Balancer` each
    ``equilibrium`` (default, FO-2..FO-5, `orchestrator.core.equilibrium`): a table that reaches
    its boundary with 2+ players more than the shortest sends players until it has not, so
    tables never differ by 2+ for longer than it takes the fuller tables to finish their
    hands; ``open
    tables == ceil(active / max_per_table)`` always, because the elimination that makes one
    table fewer suffice (the critical player, FO-6) closes the table where it happened, at that
    very boundary. The moved player keeps his position relative to the blinds.
    ``threshold`` (CLOSE-1, BAL-1, here): the table with the fewest active (not sitting-out)
    players closes when the open seats elsewhere can hold everyone seated there; otherwise a
    short table (fewer than floor(0.7 * seats) players) receives one random player from the
    fullest. A table sends a BAL-1 player only when it has at least 2 more players than the
    short table (RULES.md is silent; without it 6 and 5 players at two 10-seat tables would
    swap a player back and forth forever, as both are short).
    ``tda`` (TDA-1..TDA-3, `orchestrator.core.tda`): FO-2 and FO-3 say when; a procedure
    published before the start says which table breaks and which sends (`tda.procedure`); the
    player due to post the big blind moves to the seat that posts it soonest; a broken table's
    players draw their seats and wait for the big blind where they would skip it.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final, Literal, Protocol, get_args

from orchestrator.core.seating import SeatMap
from table_worker.protocol import Blinds

__all__ = [
    "BALANCING_POLICIES",
    "TDA_BREAKS",
    "Balancer",
    "BalancingPolicy",
    "Move",
    "TdaBreaks",
    "Threshold",
    "fill_emptiest",
    "is_short",
    "move_player",
    "reseat",
]

BalancingPolicy = Literal["equilibrium", "threshold", "tda"]
BALANCING_POLICIES: Final[tuple[BalancingPolicy, ...]] = get_args(BalancingPolicy)
TdaBreaks = Literal["due", "one"]  # TDA-2's procedure: every table due to break, or one at a time
TDA_BREAKS: Final[tuple[TdaBreaks, ...]] = get_args(TdaBreaks)


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """A player handed over by `from_table` at its boundary to a reserved seat at `to_table`."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: Literal["balance", "close"]


def is_short(players: int, seats: int) -> bool:
    """BAL-1 (Decision): a table is short when `players < floor(0.7 * seats)`.

    >>> is_short(6, 10), is_short(7, 10), is_short(2, 5), is_short(3, 5)
    (True, False, True, False)
    """
    return players < (7 * seats) // 10  # integer floor of 0.7 * seats, no float rounding


class Balancer(Protocol):
    """What a policy decides at the boundary of `table`, once the floor has applied the table's
    report. It changes the shared `SeatMap` only through its moves; what it must remember
    between boundaries (the FO-4 requests) it keeps itself. The STEP numbers are those of
    `TableFloor.after_hand`."""

    def seat_freed(self, table: int, seat: int) -> None:
        """A player eliminated at `table` left `seat` (STEP 2)."""

    def closes(self, seating: SeatMap, table: int) -> bool:
        """STEP 3: whether `table` closes now."""
        ...

    def close(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """STEP 3: take `table` down and seat all its players elsewhere."""
        ...

    def balance(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """STEP 4: the players `table` sends to other tables now."""
        ...

    def gives(self, seating: SeatMap, table: int) -> bool:
        """Whether `table`, at its boundary with no eliminations, would send players now (a
        table waiting at its boundary asks; nothing changes)."""
        ...

    def idle_wakes(self, seating: SeatMap) -> tuple[int, ...] | None:
        """The waiting tables whose idle boundary a step may have changed without naming them
        (their shells ask the core again): these, or None for any of them after a step that
        moves or eliminates players (a break due, the fullest or emptiest table changed)."""
        ...

    def settle(self, seating: SeatMap, table: int) -> None:
        """STEP 5: `table` stayed open; forget what it no longer waits for."""

    def pending_requests(self, seating: SeatMap, table: int) -> tuple[int, ...]:
        """The seats `table` is waiting to have filled, next to be filled first."""
        ...

    def waiting_for_big_blind(
        self, seating: SeatMap, table: int, previous: Blinds | None
    ) -> tuple[int, ...]:
        """TDA-3: the seats of `table` not dealt into its next hand (they wait for the big
        blind); `previous` is the blinds of the table's last hand."""
        ...


def move_player(seating: SeatMap, source: int, from_seat: int, target: int, to_seat: int) -> Move:
    """A balancing move, carried out in the seat map at once (the seat is reserved)."""
    player = seating.relocate(source, from_seat, target, to_seat)
    return Move(
        player=player,
        from_table=source,
        from_seat=from_seat,
        to_table=target,
        to_seat=to_seat,
        reason="balance",
    )


def reseat(
    seating: SeatMap, table: int, leaver: tuple[int, str, bool], to_table: int, to_seat: int
) -> Move:
    """One of a closed table's players (`SeatMap.take_down`'s seat, player, sitting out)
    placed at his new seat (CLOSE-1, FO-5, TDA-3), as the move the log records."""
    seat, player, was_out = leaver
    seating.place(to_table, to_seat, player, sitting_out=was_out)
    return Move(
        player=player,
        from_table=table,
        from_seat=seat,
        to_table=to_table,
        to_seat=to_seat,
        reason="close",
    )


def fill_emptiest(
    seating: SeatMap, players: int, rng: random.Random, *, breaking: Collection[int] = ()
) -> dict[int, int]:
    """How many of `players` each open table receives, one at a time to a table with the
    fewest players (ties: a random but fixed order, so equal tables take turns); none to the
    tables `breaking` soon themselves (FO-3 leaves room for everyone without them)."""
    size = seating.max_per_table
    heap = _emptiest(seating, players, rng, breaking)
    quota: dict[int, int] = {}
    for _ in range(players):
        count, key, t = heapq.heappop(heap)  # FO-3 guarantees enough open seats
        quota[t] = quota.get(t, 0) + 1
        if count + 1 < size:
            heapq.heappush(heap, (count + 1, key, t))
    return quota


def _emptiest(
    seating: SeatMap, players: int, rng: random.Random, breaking: Collection[int] = ()
) -> list[tuple[int, float, int]]:
    """The heap `players` are seated from, one at a time to its least (players seated, a
    tie-break, table), which goes back in with one more until full: one tie-break drawn per
    table with an open seat, in table order, and only the `players` least of those entries
    kept. Each pop takes the least of the rest, so the pops never reach past them: the same
    choices as a heap of every such table, without heaping a big field's tables per closing."""
    tables = seating.tables_below(seating.max_per_table)
    if breaking:
        tables = [t for t in tables if t not in breaking]
    ties = [rng.random() for _ in tables]  # every table's draw, as ever: the RNG goes on alike
    entries = zip([len(seating.seats(t)) for t in tables], ties, tables, strict=True)
    return heapq.nsmallest(players, entries)  # sorted: already a heap


# ---------------------------------------------------------------- threshold (CLOSE, BAL)


class Threshold:
    """CLOSE-1 and BAL-1. It keeps no state of its own: no table waits for a seat."""

    def seat_freed(self, table: int, seat: int) -> None:
        pass

    def closes(self, seating: SeatMap, table: int) -> bool:
        """CLOSE-1: the table with the fewest active players, when the others can seat its
        players."""
        actives = seating.actives
        return _close1_allows(seating, table) and table in actives.at(actives.lowest())

    def settle(self, seating: SeatMap, table: int) -> None:
        pass

    def pending_requests(self, seating: SeatMap, table: int) -> tuple[int, ...]:
        return ()

    def waiting_for_big_blind(
        self, seating: SeatMap, table: int, previous: Blinds | None
    ) -> tuple[int, ...]:
        return ()

    def gives(self, seating: SeatMap, table: int) -> bool:
        return False  # BAL-1 is taken after a hand (CLOSE-1: "after every hand")

    def idle_wakes(self, seating: SeatMap) -> tuple[int, ...] | None:
        return None  # CLOSE-1, BAL-1: any table's, as the field changes

    def close(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """CLOSE-1: the players (sitting-out ones too) move one at a time, in random order, each
        to a random open seat of a table with the fewest players (ties: a random fixed order,
        so equal tables take turns)."""
        size = seating.max_per_table
        leaving = seating.take_down(table)
        rng.shuffle(leaving)
        heap = _emptiest(seating, len(leaving), rng)
        moves: list[Move] = []
        for leaver in leaving:
            count, key, to_table = heapq.heappop(heap)
            to_seat = rng.choice(seating.empty_seats(to_table))
            moves.append(reseat(seating, table, leaver, to_table, to_seat))
            if count + 1 < size:
                heapq.heappush(heap, (count + 1, key, to_table))
        return moves

    def balance(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """BAL-1: when no table can close, a fullest table sends one random player to a
        random open seat of the emptiest short table (2+ fewer players, module doc)."""
        counts, actives = seating.counts, seating.actives
        count, low = len(seating.seats(table)), counts.lowest()
        if count != counts.highest() or not is_short(low, seating.max_per_table) or low > count - 2:
            return []
        fewest = actives.lowest()
        if any(_close1_allows(seating, t) for t in sorted(actives.at(fewest))):
            return []  # CLOSE-1 comes first: that table closes at its own boundary
        target = rng.choice(sorted(counts.at(low)))
        from_seat = rng.choice(sorted(seating.seats(table)))
        return [
            move_player(seating, table, from_seat, target, rng.choice(seating.empty_seats(target)))
        ]


def _close1_allows(seating: SeatMap, table: int) -> bool:
    """CLOSE-1 (Decision): open seats at the other tables >= players seated here."""
    size, here = seating.max_per_table, len(seating.seats(table))
    open_elsewhere = len(seating.tables) * size - seating.active - (size - here)
    return open_elsewhere >= here
