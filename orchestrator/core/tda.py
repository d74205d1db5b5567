"""The ``tda`` balancing policy: TDA-1..TDA-3 (RULES.md, "Rules beyond the sources").

Pure and deterministic: every random choice comes from the `random.Random` passed in.

When
    As ``equilibrium``: tables break while fewer suffice (FO-3), and players move while tables
    differ by 2 or more (FO-2). While a break is due, nobody is balanced: the break evens the
    tables out.

Which tables (TDA-2), published before the start (`procedure`)
    Tables break in a fixed order, highest table number first (`break_order`). When the field
    needs `k` tables fewer, the `k` highest-numbered tables are due, and each breaks at its own
    boundary (`tda_breaks = "due"`, the default; its players go to the tables that stay, not to
    another due to break): a big field loses tables as fast as FO-3 asks. `"one"` waits for the
    highest table's boundary alone, one break at a time (the only way before it was
    published, kept for the logs of then). A balancing player comes from the highest-numbered
    of the fullest tables, at its boundary, and goes to the lowest-numbered of the emptiest.

Who and where (TDA-1)
    The player who would be big blind next at the sending table (it is at its boundary: the
    first player after the big blind it just reported) moves to the worst position at the short
    table: the open seat that will post the big blind soonest, never the small blind. The short
    table is playing the hand it was dealt at its last boundary, whose big blind is the first
    player after the big blind it reported; the mover's first hand there is the next one, whose
    big blind is the first player after that: the first open seat clockwise from there is his.
    (Had the short table not dealt, he posts it one hand later, still never the small blind.)

A broken table's players (TDA-3)
    They go to the emptiest tables first (so the rest stays balanced), each drawing any open
    seat there at random, the blinds and the button included. They are dealt in at once,
    except where they sit strictly between the button and the small blind of their first hand
    there (between the button and the big blind when no small blind is posted): those seats
    wait for the big blind (`waiting_for_big_blind`), and play from the hand after.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Final

from orchestrator.core.balancing import Move, TdaBreaks, fill_emptiest, move_player, reseat
from orchestrator.core.blinds import blind_gap
from orchestrator.core.seating import SeatMap
from table_worker.protocol import Blinds

__all__ = ["Tda", "break_order", "procedure"]

_BREAKS: Final[dict[TdaBreaks, str]] = {
    "due": "Tables break in order, highest table number first; when the field needs several "
    "tables fewer, that many of the highest-numbered each break at the end of their hand.",
    "one": "Tables break in order, highest table number first, one at a time.",
}
_REST: Final[tuple[str, ...]] = (
    "A balancing player comes from the highest-numbered of the fullest tables and goes to the "
    "lowest-numbered of the emptiest.",
    "The player due to post the big blind next moves, to the open seat that posts it soonest "
    "(never the small blind).",
    "Players from a broken table draw their seats; a seat between the button and the small "
    "blind waits for the big blind.",
)


def procedure(breaks: TdaBreaks) -> tuple[str, ...]:
    """TDA-2: the procedure published before the start, as the lobby shows it."""
    return (_BREAKS[breaks], *_REST)


def break_order(tables: Iterable[int]) -> tuple[int, ...]:
    """TDA-2: the open tables in the order they break, the first to break first.

    >>> break_order([3, 12, 7])
    (12, 7, 3)
    """
    return tuple(sorted(tables, reverse=True))


class Tda:
    """TDA-1..TDA-3. It remembers, per table, the players who came from a broken table since
    its last boundary (`_arrived`) and those whose first hand there is the next (`_first`)."""

    def __init__(self, breaks: TdaBreaks = "due") -> None:
        self._breaks: TdaBreaks = breaks
        self._arrived: dict[int, set[str]] = {}
        self._first: dict[int, set[str]] = {}

    def seat_freed(self, table: int, seat: int) -> None:
        pass

    def closes(self, seating: SeatMap, table: int) -> bool:
        """FO-3 says when tables break and how many, TDA-2 which."""
        return table in self._due(seating)

    def _due(self, seating: SeatMap) -> tuple[int, ...]:
        """TDA-2: the tables due to break, highest first."""
        fewer = _tables_fewer(seating)
        return seating.highest_tables(fewer if self._breaks == "due" else min(fewer, 1))

    def settle(self, seating: SeatMap, table: int) -> None:
        """TDA-3: who came from a broken table before this boundary plays his first hand here
        next."""
        seats = seating.seats(table)
        arrived = self._arrived.pop(table, set())
        self._first[table] = {p for p in seats.values() if p in arrived}

    def pending_requests(self, seating: SeatMap, table: int) -> tuple[int, ...]:
        return ()

    def waiting_for_big_blind(
        self, seating: SeatMap, table: int, previous: Blinds | None
    ) -> tuple[int, ...]:
        """TDA-3: the seats of players from a broken table whose first hand here would deal
        them in strictly between the button and the small blind (module doc)."""
        first = self._first.get(table)
        if not first or previous is None:
            return ()
        seats = seating.seats(table)
        arrivals = {s for s, p in seats.items() if p in first}
        others = [s for s in seats if s not in arrivals]
        if len(others) < 2:
            return ()  # nobody to deal with otherwise: they play
        return tuple(sorted(arrivals & blind_gap(previous, others, seating.max_per_table)))

    def close(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """TDA-3: the players draw open seats at random at the tables that receive them."""
        breaking = self._due(seating) if self._breaks == "due" else ()  # before it goes
        leaving = seating.take_down(table)
        self._arrived.pop(table, None)
        self._first.pop(table, None)
        quota = fill_emptiest(seating, len(leaving), rng, breaking=breaking)
        places = [
            (t, s) for t in sorted(quota) for s in rng.sample(seating.empty_seats(t), quota[t])
        ]
        rng.shuffle(places)
        moves = [
            reseat(seating, table, leaver, *place)
            for leaver, place in zip(leaving, places, strict=True)
        ]
        for move in moves:
            self._arrived.setdefault(move.to_table, set()).add(move.player)
        return moves

    def idle_wakes(self, seating: SeatMap) -> tuple[int, ...]:
        """The waiting tables a step can let go without naming them: the tables due to break
        (TDA-2), whose idle boundary breaks them. A short table waits for nothing else: nobody
        is balanced while a break is due, and a player sent to it names it."""
        return self._due(seating)

    def gives(self, seating: SeatMap, table: int) -> bool:
        """FO-2 says when, TDA-2 which table: the highest-numbered fullest one sends, while it
        holds 2+ more players than the shortest (and no break is due)."""
        seats, counts = seating.seats(table), seating.counts
        return (
            not _tables_fewer(seating)
            and len(seats) == counts.highest()
            and table == max(counts.at(len(seats)))
            and counts.lowest() <= len(seats) - 2
        )

    def balance(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """FO-2 says when; TDA-2 which tables; TDA-1 who and where (module doc)."""
        counts = seating.counts
        moves: list[Move] = []
        while self.gives(seating, table):  # no break due: it comes first and evens them out
            target = min(counts.at(counts.lowest()))
            move = move_player(
                seating, table, seating.next_big_blind(table), target, _worst_seat(seating, target)
            )
            for waiting in (self._arrived, self._first):  # balanced on: TDA-3 no longer his
                waiting.get(table, set()).discard(move.player)
            moves.append(move)
        return moves


def _tables_fewer(seating: SeatMap) -> int:
    """FO-3: how many tables fewer would seat everyone."""
    return max(0, len(seating.tables) - -(-seating.active // seating.max_per_table))


def _worst_seat(seating: SeatMap, table: int) -> int:
    """TDA-1: the open seat of `table` that posts the big blind soonest (module doc)."""
    size, seats = seating.max_per_table, seating.seats(table)
    start = seating.next_big_blind(table) if seats else size
    return next(s for k in range(1, size + 1) if (s := (start + k - 1) % size + 1) not in seats)
