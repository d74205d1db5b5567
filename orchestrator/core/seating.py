"""Who sits where: the SEAT-1 draw, positions relative to the blinds, and the floor's seat map.

Pure: no Ray, no I/O, no clock; the draw takes its `random.Random` as an argument.

Seats and positions
    Tables are numbered 1..T, seats 1..max_per_table, clockwise (a seat's left neighbour is the
    next number, wrapping round). A player's *position relative to the blinds* (FO-4, FO-5,
    RULES.md Decision) is counted in players, not seats: the number of players seated clockwise
    from the big blind of the table's next hand to him, the big blind 0, the next player 1, ...,
    wrapping round the table; empty seats do not count. The next hand's big blind is the first
    player clockwise after the big blind of the last hand the table reported (HE-9: the big
    blind moves to the next player still in). A seat measured for a player about to sit there
    counts as taken. A table that has not reported a hand yet counts seat 1 as its last big
    blind. Two positions differ by their distance round the table (`distance`): at a table of
    10, positions 9 and 0 are 1 apart.

    The floor sees hands at their boundaries only: a table measured while it plays a hand is
    measured from its last report, as every table is.

`SeatMap` is the state the table floor (`orchestrator.core.floor`) and its balancing policies
(`orchestrator.core.balancing`) share: seat -> player per open table, where each player sits,
each table's last big blind and sitting-out players, and open tables bucketed by how many
players they seat, so the fullest and emptiest are found without a scan of every table.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from types import MappingProxyType

__all__ = ["SeatMap", "TableIndex", "distance", "draw_tables", "next_big_blind", "position"]


def next_big_blind(seats: Collection[int], last_big_blind: int) -> int:
    """The next hand's big blind: the first of `seats` clockwise after `last_big_blind` (HE-9).

    >>> next_big_blind([1, 4, 6], 4), next_big_blind([1, 4, 6], 6), next_big_blind([1, 4, 6], 2)
    (6, 1, 4)
    """
    ordered = sorted(seats)
    return next((s for s in ordered if s > last_big_blind), ordered[0])


def position(seat: int, seats: Collection[int], last_big_blind: int) -> int:
    """FO-4 (Decision): the players clockwise from the next hand's big blind to `seat` (big
    blind 0) among `seats`, `seat` counted as taken; see the module doc.

    >>> position(3, [1, 3, 9], 9), position(9, [1, 3, 9], 9), position(9, [1, 3, 9], 8)
    (1, 2, 0)
    >>> position(5, [1, 2, 4, 6], 2)  # seat 5 empty: it would be the first after the big blind 4
    1
    """
    ordered = sorted({*seats, seat})
    big_blind = next_big_blind(ordered, last_big_blind)
    return (ordered.index(seat) - ordered.index(big_blind)) % len(ordered)


def distance(first: int, second: int, players: int) -> int:
    """How far apart two positions are round a table of `players` (FO-4, FO-5 Decisions).

    >>> distance(9, 0, 10), distance(2, 7, 10), distance(3, 3, 6)
    (1, 5, 0)
    """
    gap = (first - second) % players
    return min(gap, players - gap)


def draw_tables(
    players: Sequence[str], *, max_per_table: int, rng: random.Random
) -> dict[int, dict[int, str]]:
    """SEAT-1: tables = ceil(players / max_per_table), table and seat drawn at random for each
    player, tables differing by at most 1. Tables numbered 1..T, seats 1..max_per_table.

    >>> tables = draw_tables([f"p{i}" for i in range(7)], max_per_table=4, rng=random.Random(0))
    >>> sorted(len(seats) for seats in tables.values())
    [3, 4]
    """
    names = list(players)
    count = -(-len(names) // max_per_table)
    base, extra = divmod(len(names), count)
    bigger = set(rng.sample(range(1, count + 1), extra))  # which tables get one more
    rng.shuffle(names)
    drawn = iter(names)
    tables: dict[int, dict[int, str]] = {}
    for table in range(1, count + 1):
        size = base + (table in bigger)
        tables[table] = {
            s: next(drawn) for s in sorted(rng.sample(range(1, max_per_table + 1), size))
        }
    return tables


class TableIndex:
    """Open tables bucketed by a small number (0..max_per_table), so the lowest and highest
    value are found in O(max_per_table) instead of a scan over every table. `SeatMap` keeps
    it; the policies only read it."""

    __slots__ = ("_buckets",)

    def __init__(self, top: int) -> None:
        self._buckets: list[set[int]] = [set() for _ in range(top + 1)]

    def add(self, table: int, value: int) -> None:
        self._buckets[value].add(table)

    def remove(self, table: int, value: int) -> None:
        self._buckets[value].discard(table)

    def at(self, value: int) -> AbstractSet[int]:
        return self._buckets[value]

    def lowest(self) -> int:
        return next(v for v, tables in enumerate(self._buckets) if tables)

    def highest(self) -> int:
        return next(v for v in range(len(self._buckets) - 1, -1, -1) if self._buckets[v])


class _TablesView(Mapping[int, Mapping[int, str]]):
    """A live, read-only view of the open tables (no copy per call)."""

    __slots__ = ("_tables",)

    def __init__(self, tables: dict[int, dict[int, str]]) -> None:
        self._tables = tables

    def __getitem__(self, table: int) -> Mapping[int, str]:
        return MappingProxyType(self._tables[table])

    def __iter__(self) -> Iterator[int]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)


class SeatMap:
    """The open tables, seat -> player, reserved seats included, and their indexes. It checks
    nothing: the floor validates every request before it changes the map."""

    __slots__ = ("_actives", "_bb", "_counts", "_max", "_out", "_seats", "_where")

    def __init__(
        self,
        tables: Mapping[int, Mapping[int, str]],
        *,
        max_per_table: int,
        big_blinds: Mapping[int, int],
        sitting_out: Collection[str],
    ) -> None:
        self._max = max_per_table
        self._seats: dict[int, dict[int, str]] = {t: dict(s) for t, s in sorted(tables.items())}
        self._where: dict[str, tuple[int, int]] = {
            p: (t, s) for t, seats in self._seats.items() for s, p in seats.items()
        }
        self._bb: dict[int, int] = dict(big_blinds)
        out = set(sitting_out)
        self._out: dict[int, set[str]] = {
            t: {p for p in seats.values() if p in out} for t, seats in self._seats.items()
        }
        self._counts = TableIndex(max_per_table)  # players seated (reserved seats included)
        self._actives = TableIndex(max_per_table)  # players seated and not sitting out (CLOSE-1)
        for t, seats in self._seats.items():
            self._counts.add(t, len(seats))
            self._actives.add(t, len(seats) - len(self._out[t]))

    # ---------------------------------------------------------------- reading

    @property
    def tables(self) -> Mapping[int, Mapping[int, str]]:
        """Open tables, seat -> player (a live read-only view)."""
        return _TablesView(self._seats)

    @property
    def max_per_table(self) -> int:
        return self._max

    @property
    def active(self) -> int:
        """Players seated (all players not eliminated)."""
        return len(self._where)

    @property
    def counts(self) -> TableIndex:
        """Open tables by the number of players seated there."""
        return self._counts

    @property
    def actives(self) -> TableIndex:
        """Open tables by the number of players seated there and not sitting out."""
        return self._actives

    def seats(self, table: int) -> Mapping[int, str]:
        """Seat -> player of an open table (KeyError for any other)."""
        return self._seats[table]

    def locate(self, player: str) -> tuple[int, int] | None:
        """(table, seat) of a seated player, None for anyone else."""
        return self._where.get(player)

    def big_blind(self, table: int) -> int:
        """The big blind seat of the last hand `table` reported (1 before its first hand)."""
        return self._bb.get(table, 1)

    def position(self, table: int, seat: int) -> int:
        """The position of `seat` at `table` (taken, or as if taken), from the table's next big
        blind (module doc)."""
        return position(seat, self._seats[table], self.big_blind(table))

    def next_big_blind(self, table: int) -> int:
        """The seat of the player who is big blind in `table`'s next hand (HE-9)."""
        return next_big_blind(self._seats[table], self.big_blind(table))

    def highest_table(self) -> int:
        """The highest-numbered open table, without a scan: tables open in number order
        (`open_table` takes a number above every other, numbers are never reused), so the map
        keeps them in that order."""
        return next(reversed(self._seats))

    def highest_tables(self, count: int) -> tuple[int, ...]:
        """The `count` highest-numbered open tables, highest first (`highest_table`'s order)."""
        return tuple(itertools.islice(reversed(self._seats), max(0, count)))

    def tables_below(self, players: int) -> list[int]:
        """The open tables seating fewer than `players`, in table order (the map's)."""
        return [t for t, seats in self._seats.items() if len(seats) < players]

    def empty_seats(self, table: int) -> list[int]:
        seats = self._seats[table]
        return [s for s in range(1, self._max + 1) if s not in seats]

    # ---------------------------------------------------------------- changing

    def set_big_blind(self, table: int, seat: int) -> None:
        self._bb[table] = seat

    def set_sitting_out(self, table: int, players: set[str]) -> None:
        seats = self._seats[table]
        self._actives.remove(table, len(seats) - len(self._out[table]))
        self._out[table] = players
        self._actives.add(table, len(seats) - len(players))

    def open_table(self, table: int) -> None:
        """A new, empty table, numbered above every table opened before it."""
        self._seats[table], self._out[table] = {}, set()
        self._counts.add(table, 0)
        self._actives.add(table, 0)

    def place(self, table: int, seat: int, player: str, *, sitting_out: bool) -> None:
        seats, out = self._seats[table], self._out[table]
        self._counts.remove(table, len(seats))
        self._actives.remove(table, len(seats) - len(out))
        seats[seat] = player
        if sitting_out:
            out.add(player)
        self._where[player] = (table, seat)
        self._counts.add(table, len(seats))
        self._actives.add(table, len(seats) - len(out))

    def unplace(self, table: int, seat: int) -> str:
        """Free `seat`; returns the player who sat there."""
        seats, out = self._seats[table], self._out[table]
        self._counts.remove(table, len(seats))
        self._actives.remove(table, len(seats) - len(out))
        player = seats.pop(seat)
        out.discard(player)
        del self._where[player]
        self._counts.add(table, len(seats))
        self._actives.add(table, len(seats) - len(out))
        return player

    def relocate(self, source: int, from_seat: int, target: int, to_seat: int) -> str:
        """Move the player at `source`/`from_seat` to `target`/`to_seat` (sitting out or not,
        as before); returns the player."""
        player = self._seats[source][from_seat]
        was_out = player in self._out[source]
        self.unplace(source, from_seat)
        self.place(target, to_seat, player, sitting_out=was_out)
        return player

    def take_down(self, table: int) -> list[tuple[int, str, bool]]:
        """Close `table`: remove it and its players; return its (seat, player, sitting out),
        by seat, for the caller to seat again."""
        seats, out = self._seats.pop(table), self._out.pop(table)
        self._counts.remove(table, len(seats))
        self._actives.remove(table, len(seats) - len(out))
        self._bb.pop(table, None)
        for player in seats.values():
            del self._where[player]
        return [(s, p, p in out) for s, p in sorted(seats.items())]
