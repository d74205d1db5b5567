"""The ``equilibrium`` balancing policy: FO-2..FO-5, with RULES.md's FO-4 and FO-5 Decisions.

Pure and deterministic: every random choice comes from the `random.Random` passed in.

When (FO-2, FO-3)
    A fullest table, at its own boundary, sends players while some table has 2+ fewer; the
    elimination that makes one table fewer suffice closes the table where it happened, at that
    very boundary, so ``open tables == ceil(active / max_per_table)`` always.

Who and where (FO-4)
    A short table keeps a queue of the seats its eliminated players left (its pending
    requests); the fullest table that reaches a boundary first fills the most recent one. The
    mover is the player whose position (players clockwise from his table's next big blind,
    `orchestrator.core.seating`) is nearest, round the table, to the position of that seat at
    the short table (counted as taken: the eliminated player's position). Counted in players,
    the fullest table always has someone at every position the short table can ask for, so the
    mover is the one at exactly that position (`player_at`) and lands where the eliminated
    player sat relative to the blinds; the Decision's tie-breaks (fewest moves so far, then the
    RNG) are never needed.

Closing (FO-5)
    The closed table's players fill open seats at the emptiest tables first (so the rest stays
    balanced); which seat each takes minimises the total distance, round the table, between his
    position at the closed table and his position at the new one (ties by the RNG). A new
    position counts the players seated there after the closing: when a table receives several
    players, which of its open seats they fill changes each one's position, so every choice of
    seats there is searched, each with an exact assignment (`assignment.min_cost_assignment`).
    Under this policy tables are balanced, so the choices are few; past `_COMBINATIONS` the
    tables with the most choices count each open seat as if only it were filled.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from typing import Final

from orchestrator.core.assignment import min_cost_assignment
from orchestrator.core.balancing import Move, fill_emptiest, move_player, reseat
from orchestrator.core.seating import SeatMap, distance, position
from table_worker.protocol import Blinds

__all__ = ["Equilibrium", "player_at"]

_NO_REQUEST: Final = 1 << 62  # sorts after every real request number

# FO-5 cost scaling: distance * scale + a random tie-break below one unit of scale in total.
_TIE: Final = 1024
_COMBINATIONS: Final = 512  # FO-5: most choices of seats searched exactly per closing


class Equilibrium:
    """FO-2..FO-5, with the FO-4 pending requests: per short table, the seats its eliminated
    players left (most recent last), and the order in which tables started waiting (who is
    served first)."""

    def __init__(self) -> None:
        self._requests: dict[int, list[int]] = {}
        self._waiting_since: dict[int, int] = {}
        self._request_no = 0

    def seat_freed(self, table: int, seat: int) -> None:
        """FO-4: the seat a moved player will take."""
        if table not in self._requests:
            self._request_no += 1
            self._waiting_since[table] = self._request_no
        requests = self._requests.setdefault(table, [])
        if seat in requests:  # a seat filled and freed again: only its latest vacancy
            requests.remove(seat)
        requests.append(seat)

    def closes(self, seating: SeatMap, table: int) -> bool:
        """FO-3: one table fewer suffices."""
        return len(seating.tables) > -(-seating.active // seating.max_per_table)

    def settle(self, seating: SeatMap, table: int) -> None:
        """A table that is no longer short stops waiting (FO-4 requests are only for the
        players eliminated while it is short)."""
        if len(seating.seats(table)) >= seating.counts.highest() - 1:
            self._drop_requests(table)

    def pending_requests(self, seating: SeatMap, table: int) -> tuple[int, ...]:
        seats = seating.seats(table)
        return tuple(s for s in reversed(self._requests.get(table, ())) if s not in seats)

    def waiting_for_big_blind(
        self, seating: SeatMap, table: int, previous: Blinds | None
    ) -> tuple[int, ...]:
        return ()  # TDA-3 is the tda policy's

    def gives(self, seating: SeatMap, table: int) -> bool:
        """FO-2: this table holds 2+ more players than the shortest (players on their way
        counted: their seats are reserved), fullest or not."""
        return seating.counts.lowest() <= len(seating.seats(table)) - 2

    def idle_wakes(self, seating: SeatMap) -> tuple[int, ...] | None:
        return None  # FO-3 closes any idle table once a break is due; HALT-1 follows the fullest

    def balance(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """FO-2, FO-4: while this table holds 2+ more players than the shortest, send the
        player nearest the position of the short table's request into that seat. Equally
        full tables: whichever reports first sends."""
        counts = seating.counts
        moves: list[Move] = []
        while self.gives(seating, table):
            short = counts.at(counts.lowest())
            # FO-2: to the emptiest table; among those, the one waiting longest.
            target = min(short, key=lambda t: (self._waiting_since.get(t, _NO_REQUEST), t))
            to_seat = self._take_request(seating, target, rng)
            wanted = seating.position(target, to_seat)
            from_seat = player_at(seating, table, wanted)
            moves.append(move_player(seating, table, from_seat, target, to_seat))
            if len(seating.seats(target)) >= counts.highest() - 1:
                self._drop_requests(target)
        return moves

    def close(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """FO-3, FO-5: close this table; its players take the open seats that keep their
        positions best (module doc)."""
        old = {seat: seating.position(table, seat) for seat in seating.seats(table)}
        leaving = seating.take_down(table)
        self._drop_requests(table)
        quota = fill_emptiest(seating, len(leaving), rng)
        places = _closest_seats(seating, [old[seat] for seat, _, _ in leaving], quota, rng)
        return [
            reseat(seating, table, leaver, *place)
            for leaver, place in zip(leaving, places, strict=True)
        ]

    def _take_request(self, seating: SeatMap, target: int, rng: random.Random) -> int:
        """The seat a player moved to `target` takes: the seat of its most recently eliminated
        player that is still empty (FO-4); without one, a random empty seat."""
        seats, requests = seating.seats(target), self._requests.get(target, [])
        while requests:
            seat = requests.pop()
            if seat not in seats:
                return seat
        return rng.choice(seating.empty_seats(target))

    def _drop_requests(self, table: int) -> None:
        self._requests.pop(table, None)
        self._waiting_since.pop(table, None)


def player_at(seating: SeatMap, table: int, wanted: int) -> int:
    """FO-4 (Decision): the seat of the player at `table` whose position is nearest `wanted`
    round the table. Positions there are 0..n-1 for its n players and the short table asks
    for one below n - 1 (it has 2+ fewer players), so he sits exactly at `wanted`: the
    Decision's tie-breaks (fewest moves, then the RNG) never come into play."""
    for seat in seating.seats(table):
        if seating.position(table, seat) == wanted:
            return seat
    raise AssertionError(f"FO-4: nobody at position {wanted} of table {table}")


# ---------------------------------------------------------------- FO-5


_Column = tuple[int, int, int, int]  # table, seat, position there, players there after


def _closest_seats(
    seating: SeatMap, old: Sequence[int], quota: Mapping[int, int], rng: random.Random
) -> list[tuple[int, int]]:
    """FO-5 (Decision): for players at positions `old` of the closed table, the (table, seat)
    of each, `quota[t]` of them at table t, minimising the total distance round the table
    between old and new positions; ties by the RNG (module doc)."""
    tables = sorted(quota)
    empty = {t: seating.empty_seats(t) for t in tables}
    noise = {
        (i, t, s): rng.randrange(_TIE) for i in range(len(old)) for t in tables for s in empty[t]
    }
    choices = {t: _seat_choices(seating, t, quota[t], rng) for t in tables if quota[t] > 1}
    searched = sorted(choices, key=lambda t: (len(choices[t]), t))
    while searched and math.prod(len(choices[t]) for t in searched) > _COMBINATIONS:
        searched.pop()  # the most choices: each open seat there counted as if filled alone
    alone = [t for t in tables if t not in searched]
    loose: list[_Column] = [
        (t, s, seating.position(t, s), len(seating.seats(t)) + quota[t])
        for t in alone
        for s in empty[t]
    ]
    placeholders = [t for t in alone for _ in range(len(empty[t]) - quota[t])]
    scale = _TIE * (len(old) + 1)  # random tie-breaks sum to less than one unit
    forbidden = scale * seating.max_per_table * (len(old) + len(loose) + 1)
    best: tuple[int, list[tuple[int, int]]] | None = None
    for combination in itertools.product(*(choices[t] for t in searched)):
        columns = [column for chosen in combination for column in chosen] + loose
        cost = [
            [distance(o, pos, n) * scale + noise[(i, t, s)] for t, s, pos, n in columns]
            for i, o in enumerate(old)
        ]
        cost += [[0 if c[0] == t else forbidden for c in columns] for t in placeholders]
        chosen = min_cost_assignment(cost)
        total = sum(cost[i][chosen[i]] for i in range(len(old)))
        if best is None or total < best[0]:
            best = total, [columns[chosen[i]][:2] for i in range(len(old))]
    assert best is not None
    return best[1]


def _seat_choices(
    seating: SeatMap, table: int, count: int, rng: random.Random
) -> list[list[_Column]]:
    """Every way `count` players can fill open seats of `table`, as the columns they make (each
    seat with its position once they all sit there); choices giving the same positions are one,
    its seats drawn by the RNG."""
    seats, last_big_blind = seating.seats(table), seating.big_blind(table)
    after = len(seats) + count
    by_positions: dict[tuple[int, ...], list[list[_Column]]] = {}
    for chosen in itertools.combinations(seating.empty_seats(table), count):
        taken = [*seats, *chosen]
        columns = [(table, s, position(s, taken, last_big_blind), after) for s in chosen]
        by_positions.setdefault(tuple(c[2] for c in columns), []).append(columns)
    return [ways[0] if len(ways) == 1 else rng.choice(ways) for ways in by_positions.values()]
