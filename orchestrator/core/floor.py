"""The table floor: seating (SEAT-1), balancing and closing tables (FO-2..FO-5, CLOSE-1, BAL-1).

Pure and deterministic: no Ray, no I/O, no clock; every random choice comes from the
`random.Random` passed in, and no decision depends on the iteration order of a set of strings.
The orchestrator calls `TableFloor.hand_finished` at every table's hand boundary and carries out
the returned `BoundaryDecision` (logging it first).

Seats and positions
    Tables are numbered 1..T, seats 1..max_per_table, clockwise (a seat's left neighbour is the
    next number, wrapping round). A seat's *position relative to the blinds* (FO-4, FO-5) is its
    clockwise distance from the big blind of the last hand its table reported::

        position = (seat - big_blind_seat) mod max_per_table

    0 is the big blind, 1 the first to act pre-flop, max_per_table - 1 the seat just right of the
    big blind (the small blind when that seat is taken). Empty seats count, so a position never
    changes while nobody moves. A table that has not reported a hand yet counts seat 1 as its
    big blind.

Moves happen only at the source table's hand boundary
    A player leaves a table only in the `moves` of that table's own `hand_finished`. The move
    reserves the seat at the target at once: `tables` shows the player there, counted in the
    target's players; the target's shell seats the player at its own next boundary (before
    handing anyone over: a player reserved at a table may be moved on again, e.g. when that
    table closes before the player sat down). A short table keeps a queue of the seats its
    eliminated players left (its pending requests); the fullest table that reaches a boundary
    first fills the most recent one (FO-4).

Policies (RULES.md Decision)
    ``equilibrium`` (default, FO-2..FO-5): tables never differ by 2+ players for longer than it
    takes the fullest tables to finish their hands; ``open tables == ceil(active /
    max_per_table)`` always, because the elimination that makes one table fewer suffice (the
    critical player, FO-6) closes the table where it happened, at that very boundary.
    ``threshold`` (CLOSE-1, BAL-1): the table with the fewest active (not sitting-out) players
    closes when the open seats elsewhere can hold everyone seated there; otherwise a short
    table (fewer than floor(0.7 * seats) players) receives one random player from the fullest.

Invariants (checked by the property tests in tests/test_floor_properties.py)
    Always, both policies: every player is either eliminated or seated at exactly one open
    table and one seat in 1..max_per_table; no seat holds two players; every open table has a
    player.
    Equilibrium, after every boundary: ``open tables == ceil(active / max_per_table)``; the
    table that just reached its boundary is not a fullest table with another table 2+ players
    below it (it has sent what FO-2 asks of it). Between boundaries a short table may wait for
    its player, so tables may differ by 2+; once every open table passes a boundary with no
    eliminations (repeated while that still moves players), tables differ by at most 1.
    Threshold: a table sends a BAL-1 player only when it has at least 2 more players than the
    short table (RULES.md is silent; without it 6 and 5 players at two 10-seat tables would
    swap a player back and forth forever, as both are short).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, get_args

from orchestrator.core.assignment import min_cost_assignment
from orchestrator.errors import (
    InvalidReportError,
    InvalidSeatingError,
    PlayerEliminatedError,
    UnknownPlayerError,
    UnknownTableError,
)

__all__ = [
    "BoundaryDecision",
    "Move",
    "Policy",
    "TableFloor",
    "is_short",
    "position",
]

Policy = Literal["equilibrium", "threshold"]
_POLICIES: Final = frozenset(get_args(Policy))
_NO_REQUEST: Final = 1 << 62  # sorts after every real request number

# FO-5 cost scaling: |position change| * _SCALE + a random tie-break below _SCALE in total.
_TIE: Final = 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """A player handed over by `from_table` at its boundary to a reserved seat at `to_table`."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: Literal["balance", "close"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BoundaryDecision:
    """What happens at the table that just reached its hand boundary."""

    moves: tuple[Move, ...]  # players leaving this table now (all of them when `closed`)
    closed: bool  # this table closes now
    final_table: int | None  # set once: the table left when one table remains for the first time


def position(seat: int, big_blind_seat: int, max_per_table: int) -> int:
    """Clockwise distance of `seat` from the big blind (0 = big blind); see the module doc.

    >>> position(3, 9, 10), position(9, 9, 10), position(8, 9, 10)
    (4, 0, 9)
    """
    return (seat - big_blind_seat) % max_per_table


def is_short(players: int, seats: int) -> bool:
    """BAL-1 (Decision): a table is short when `players < floor(0.7 * seats)`.

    >>> is_short(6, 10), is_short(7, 10), is_short(2, 5), is_short(3, 5)
    (True, False, True, False)
    """
    return players < (7 * seats) // 10  # integer floor of 0.7 * seats, no float rounding


class _Index:
    """Open tables bucketed by a small number (0..max_per_table), so the lowest and highest
    value are found in O(max_per_table) instead of a scan over every table."""

    __slots__ = ("_buckets",)

    def __init__(self, top: int) -> None:
        self._buckets: list[set[int]] = [set() for _ in range(top + 1)]

    def add(self, table: int, value: int) -> None:
        self._buckets[value].add(table)

    def remove(self, table: int, value: int) -> None:
        self._buckets[value].discard(table)

    def at(self, value: int) -> set[int]:
        return self._buckets[value]

    def lowest(self) -> int:
        return next(v for v, tables in enumerate(self._buckets) if tables)

    def highest(self) -> int:
        return next(v for v in range(len(self._buckets) - 1, -1, -1) if self._buckets[v])

    def below(self, value: int) -> Iterator[int]:
        """Tables whose value is below `value`, in table order."""
        return iter(sorted(t for v in range(value) for t in self._buckets[v]))


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


class TableFloor:
    """Who sits where, and which players move or which table closes at each hand boundary."""

    def __init__(
        self,
        tables: Mapping[int, Mapping[int, str]],
        *,
        max_per_table: int,
        policy: Policy,
        big_blinds: Mapping[int, int],
        sitting_out: Collection[str],
    ) -> None:
        """Use `seat_players` (a new tournament) or `from_tables` (a known seating)."""
        self._max = max_per_table
        self._policy: Policy = policy
        self._seats: dict[int, dict[int, str]] = {t: dict(s) for t, s in sorted(tables.items())}
        self._where: dict[str, tuple[int, int]] = {
            p: (t, s) for t, seats in self._seats.items() for s, p in seats.items()
        }
        self._eliminated: set[str] = set()
        self._bb: dict[int, int] = dict(big_blinds)
        out = set(sitting_out)
        self._out: dict[int, set[str]] = {
            t: {p for p in seats.values() if p in out} for t, seats in self._seats.items()
        }
        self._counts = _Index(max_per_table)  # players seated (reserved seats included)
        self._actives = _Index(max_per_table)  # players seated and not sitting out (CLOSE-1)
        for t, seats in self._seats.items():
            self._counts.add(t, len(seats))
            self._actives.add(t, len(seats) - len(self._out[t]))
        self._active = len(self._where)
        # FO-4 pending requests: per short table, the seats its eliminated players left (most
        # recent last), and the order in which tables started waiting (who is served first).
        self._requests: dict[int, list[int]] = {}
        self._waiting_since: dict[int, int] = {}
        self._request_no = 0
        self._final: int | None = next(iter(self._seats)) if len(self._seats) == 1 else None
        self._highest_table = max(self._seats, default=0)  # table numbers are never reused

    # ---------------------------------------------------------------- construction

    @classmethod
    def seat_players(
        cls,
        players: Sequence[str],
        *,
        max_per_table: int,
        policy: Policy,
        rng: random.Random,
    ) -> TableFloor:
        """SEAT-1: tables = ceil(players / max_per_table), table and seat drawn at random for
        each player, tables differing by at most 1. Tables numbered 1..T, seats
        1..max_per_table."""
        _check_config(max_per_table, policy)
        names = list(players)
        if len(set(names)) != len(names):
            raise InvalidSeatingError("a player is listed twice")
        if len(names) < 2:
            raise InvalidSeatingError(f"a tournament needs at least 2 players, got {len(names)}")
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
        return cls(
            tables, max_per_table=max_per_table, policy=policy, big_blinds={}, sitting_out=()
        )

    @classmethod
    def from_tables(
        cls,
        tables: Mapping[int, Mapping[int, str]],
        *,
        max_per_table: int,
        policy: Policy,
        big_blinds: Mapping[int, int] | None = None,
        sitting_out: Collection[str] = (),
        pending_requests: Mapping[int, Sequence[int]] | None = None,
    ) -> TableFloor:
        """A floor with a known seating (rebuilding from the event log, tests). `big_blinds` is
        each table's last big blind seat (seat 1 when missing); `sitting_out` are players
        seated but sitting out (CLOSE-1 counts them as not active); `pending_requests` are the
        FO-4 seats short tables wait to have filled, as `pending_requests()` returns them, in
        the order the tables started waiting. With all four, the rebuilt floor decides exactly
        as the original would, given the same RNG state."""
        _check_config(max_per_table, policy)
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
                    raise InvalidSeatingError(
                        f"table {table}: seat {seat} not in 1..{max_per_table}"
                    )
                if player in seen:
                    raise InvalidSeatingError(f"{player!r} is seated twice")
                seen.add(player)
        blinds = dict(big_blinds or {})
        for table, seat in blinds.items():
            if table not in tables or not 1 <= seat <= max_per_table:
                raise InvalidSeatingError(f"big blind seat {seat} at table {table}")
        if unknown := [p for p in sitting_out if p not in seen]:
            raise InvalidSeatingError(f"sitting out but not seated: {sorted(unknown)}")
        floor = cls(
            tables,
            max_per_table=max_per_table,
            policy=policy,
            big_blinds=blinds,
            sitting_out=sitting_out,
        )
        for table, waiting in (pending_requests or {}).items():
            if table not in tables or any(
                s in tables[table] or not 1 <= s <= max_per_table for s in waiting
            ):
                raise InvalidSeatingError(f"pending requests {list(waiting)} at table {table}")
            floor._request_no += 1
            floor._waiting_since[table] = floor._request_no
            floor._requests[table] = list(reversed(waiting))  # the next to fill is last
        return floor

    # ---------------------------------------------------------------- queries

    @property
    def tables(self) -> Mapping[int, Mapping[int, str]]:
        """Open tables, seat -> player, reserved seats included (a live read-only view)."""
        return _TablesView(self._seats)

    @property
    def max_per_table(self) -> int:
        return self._max

    @property
    def policy(self) -> Policy:
        return self._policy

    @property
    def active(self) -> int:
        """Players not eliminated (all seated somewhere)."""
        return self._active

    @property
    def final_table(self) -> int | None:
        """The final table once one table is left (from the start if it began with one)."""
        return self._final

    def table_of(self, player: str) -> tuple[int, int]:
        """(table, seat) of a player still in, reserved seats included."""
        try:
            return self._where[player]
        except KeyError:
            if player in self._eliminated:
                raise PlayerEliminatedError(f"{player!r} is eliminated") from None
            raise UnknownPlayerError(f"{player!r} was never seated") from None

    def is_eliminated(self, player: str) -> bool:
        return player in self._eliminated

    def big_blind_seat(self, table: int) -> int:
        """The big blind seat of the last hand `table` reported (1 before its first hand)."""
        self._open(table)
        return self._bb.get(table, 1)

    def position_of(self, player: str) -> int:
        """The player's position relative to the blinds at their table (module doc)."""
        table, seat = self.table_of(player)
        return position(seat, self._bb.get(table, 1), self._max)

    def pending_requests(self, table: int) -> tuple[int, ...]:
        """FO-4: the seats `table` is waiting to have filled, next to be filled first."""
        self._open(table)
        seats = self._seats[table]
        return tuple(s for s in reversed(self._requests.get(table, ())) if s not in seats)

    def sitting_out(self, table: int) -> frozenset[str]:
        """The players of `table` sitting out, as its last report (or the seating) said."""
        self._open(table)
        return frozenset(self._out[table])

    def waiting_order(self) -> tuple[int, ...]:
        """Tables with FO-4 pending requests, longest waiting first."""
        return tuple(sorted(self._waiting_since, key=self._waiting_since.__getitem__))

    # ---------------------------------------------------------------- the boundary

    def hand_finished(
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
        # STEP 1: check the whole report before changing anything.
        gone = self._check_report(table, eliminated, big_blind_seat, sitting_out)

        # STEP 2: apply it: eliminated players free their seats (leaving FO-4 requests);
        # remember the big blind (positions) and who sits out (CLOSE-1 counts active players).
        self._bb[table] = big_blind_seat
        for player in gone:
            self._eliminate(table, player)
        self._set_sitting_out(table, {p for p in sitting_out if p not in gone})

        # STEP 3: closing (FO-3 / CLOSE-1): only this table can close, at its own boundary.
        # STEP 4: otherwise balancing (FO-2, FO-4 / BAL-1): this table may be the source.
        moves: list[Move]
        if self._policy == "equilibrium":
            closed = len(self._seats) > -(-self._active // self._max)
            moves = self._close_fo5(table, rng) if closed else self._balance_fo4(table, rng)
        else:
            closed = self._close1_allows(table) and table in self._actives.at(
                self._actives.lowest()
            )
            moves = self._close_close1(table, rng) if closed else self._balance_bal1(table, rng)

        # STEP 5: a table that is no longer short stops waiting (FO-4 requests are only for
        # the players eliminated while it is short).
        if not closed and len(self._seats[table]) >= self._counts.highest() - 1:
            self._drop_requests(table)

        # STEP 6: the final table forms when one table is left for the first time.
        final: int | None = None
        if len(self._seats) == 1 and self._final is None:
            final = self._final = next(iter(self._seats))
        return BoundaryDecision(moves=tuple(moves), closed=closed, final_table=final)

    # ---------------------------------------------------------------- steps 1 and 2

    def _open(self, table: int) -> dict[int, str]:
        try:
            return self._seats[table]
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
        if not 1 <= big_blind_seat <= self._max:
            raise InvalidReportError(f"big blind seat {big_blind_seat} not in 1..{self._max}")
        if len(set(eliminated)) != len(eliminated):
            raise InvalidReportError(f"table {table}: a player is reported eliminated twice")
        for player in (*eliminated, *sitting_out):
            where = self.table_of(player)  # unknown or already eliminated: typed error
            if where[0] != table:
                raise InvalidReportError(f"{player!r} sits at table {where[0]}, not {table}")
        if len(eliminated) >= len(seats):
            raise InvalidReportError(f"table {table}: a hand cannot eliminate every player")
        return list(eliminated)

    def _eliminate(self, table: int, player: str) -> None:
        seat = self._where[player][1]
        self._unplace(table, seat)
        self._eliminated.add(player)
        self._active -= 1
        if self._policy == "equilibrium":  # FO-4: the seat a moved player will take
            if table not in self._requests:
                self._request_no += 1
                self._waiting_since[table] = self._request_no
            requests = self._requests.setdefault(table, [])
            if seat in requests:  # a seat filled and freed again: only its latest vacancy
                requests.remove(seat)
            requests.append(seat)

    def _set_sitting_out(self, table: int, players: set[str]) -> None:
        seats = self._seats[table]
        self._actives.remove(table, len(seats) - len(self._out[table]))
        self._out[table] = players
        self._actives.add(table, len(seats) - len(players))

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
        if player in self._where:
            raise InvalidSeatingError(f"{player!r} is already seated")
        candidates: list[tuple[int, int]] = []
        fewest: int | None = None
        for table in sorted(self._seats):
            count = len(self._seats[table])
            banned = forbidden.get(table, ())
            open_seats = [s for s in self._empty_seats(table) if s not in banned]
            if not open_seats or (fewest is not None and count > fewest):
                continue
            if fewest is None or count < fewest:
                fewest, candidates = count, []
            candidates += [(table, s) for s in open_seats]
        opened = not candidates
        if opened:
            self._highest_table += 1
            table = self._highest_table
            self._seats[table], self._out[table] = {}, set()
            self._counts.add(table, 0)
            self._actives.add(table, 0)
            candidates = [(table, s) for s in range(1, self._max + 1)]
            self._final = None
        table, seat = rng.choice(candidates)
        self._eliminated.discard(player)  # a re-entry is back in
        self._place(table, seat, player, sitting_out=False)
        self._active += 1
        return table, seat, opened

    # ---------------------------------------------------------------- seat bookkeeping

    def _unplace(self, table: int, seat: int) -> str:
        seats, out = self._seats[table], self._out[table]
        self._counts.remove(table, len(seats))
        self._actives.remove(table, len(seats) - len(out))
        player = seats.pop(seat)
        out.discard(player)
        del self._where[player]
        self._counts.add(table, len(seats))
        self._actives.add(table, len(seats) - len(out))
        return player

    def _place(self, table: int, seat: int, player: str, *, sitting_out: bool) -> None:
        seats, out = self._seats[table], self._out[table]
        self._counts.remove(table, len(seats))
        self._actives.remove(table, len(seats) - len(out))
        seats[seat] = player
        if sitting_out:
            out.add(player)
        self._where[player] = (table, seat)
        self._counts.add(table, len(seats))
        self._actives.add(table, len(seats) - len(out))

    def _move(self, source: int, from_seat: int, target: int, to_seat: int) -> Move:
        """A balancing move, carried out in the floor at once (the seat is reserved)."""
        player = self._seats[source][from_seat]
        was_out = player in self._out[source]
        self._unplace(source, from_seat)
        self._place(target, to_seat, player, sitting_out=was_out)
        return Move(
            player=player,
            from_table=source,
            from_seat=from_seat,
            to_table=target,
            to_seat=to_seat,
            reason="balance",
        )

    def _take_down(self, table: int) -> list[tuple[int, str, bool]]:
        """Close `table`: remove it from the floor; return its (seat, player, sitting out)."""
        seats, out = self._seats.pop(table), self._out.pop(table)
        self._counts.remove(table, len(seats))
        self._actives.remove(table, len(seats) - len(out))
        self._bb.pop(table, None)
        self._drop_requests(table)
        for player in seats.values():
            del self._where[player]
        return [(s, p, p in out) for s, p in sorted(seats.items())]

    def _empty_seats(self, table: int) -> list[int]:
        seats = self._seats[table]
        return [s for s in range(1, self._max + 1) if s not in seats]

    def _drop_requests(self, table: int) -> None:
        self._requests.pop(table, None)
        self._waiting_since.pop(table, None)

    # ---------------------------------------------------------------- equilibrium (FO)

    def _balance_fo4(self, table: int, rng: random.Random) -> list[Move]:
        """FO-2, FO-4: while this table is a fullest one and some table has 2+ fewer players,
        send the player sitting where the short table's eliminated player sat (relative to the
        blinds) into that player's seat. Equally full tables: whichever reports first sends."""
        seats = self._seats[table]
        moves: list[Move] = []
        while len(seats) == self._counts.highest() and self._counts.lowest() <= len(seats) - 2:
            short = self._counts.at(self._counts.lowest())
            # FO-2: to the emptiest table; among those, the one waiting longest.
            target = min(short, key=lambda t: (self._waiting_since.get(t, _NO_REQUEST), t))
            to_seat = self._take_request(target, rng)
            wanted = position(to_seat, self._bb.get(target, 1), self._max)
            from_seat = self._seat_nearest(table, wanted, rng)
            moves.append(self._move(table, from_seat, target, to_seat))
            if len(self._seats[target]) >= self._counts.highest() - 1:
                self._drop_requests(target)
        return moves

    def _take_request(self, target: int, rng: random.Random) -> int:
        """The seat a player moved to `target` takes: the seat of its most recently eliminated
        player that is still empty (FO-4); without one, a random empty seat."""
        seats, requests = self._seats[target], self._requests.get(target, [])
        while requests:
            seat = requests.pop()
            if seat not in seats:
                return seat
        return rng.choice(self._empty_seats(target))

    def _seat_nearest(self, table: int, wanted: int, rng: random.Random) -> int:
        """The occupied seat of `table` whose position is nearest `wanted` (FO-4: the same
        position when it is taken); ties broken by the RNG."""
        bb = self._bb.get(table, 1)
        by_distance: dict[int, list[int]] = {}
        for seat in sorted(self._seats[table]):
            by_distance.setdefault(abs(position(seat, bb, self._max) - wanted), []).append(seat)
        return rng.choice(by_distance[min(by_distance)])

    def _close_fo5(self, table: int, rng: random.Random) -> list[Move]:
        """FO-3, FO-5: close this table; its players take open seats elsewhere, filling the
        emptiest tables first (so the rest stays balanced), each seat chosen by an exact
        assignment minimising the total |old position - new position| (ties by the RNG)."""
        old_bb = self._bb.get(table, 1)
        leaving = self._take_down(table)
        quota = self._fill_emptiest(len(leaving), rng)
        # Columns: the open seats of the tables that receive players. Rows: the players, then
        # for each receiving table one placeholder per seat of it that stays empty, so each
        # table gets exactly its quota (a placeholder may only take a seat at its own table).
        columns = [(t, s) for t in sorted(quota) for s in self._empty_seats(t)]
        scale = _TIE * (len(columns) + 1)  # random tie-breaks sum to less than one unit
        forbidden = scale * self._max * (len(columns) + 1)
        cost: list[list[int]] = []
        for seat, _, _ in leaving:
            old = position(seat, old_bb, self._max)
            cost.append(
                [
                    abs(old - position(s, self._bb.get(t, 1), self._max)) * scale
                    + rng.randrange(_TIE)
                    for t, s in columns
                ]
            )
        for t in sorted(quota):
            for _ in range(len(self._empty_seats(t)) - quota[t]):
                cost.append([0 if ct == t else forbidden for ct, _ in columns])
        chosen = min_cost_assignment(cost)
        moves: list[Move] = []
        for (seat, player, was_out), column in zip(leaving, chosen[: len(leaving)], strict=True):
            to_table, to_seat = columns[column]
            self._place(to_table, to_seat, player, sitting_out=was_out)
            moves.append(
                Move(
                    player=player,
                    from_table=table,
                    from_seat=seat,
                    to_table=to_table,
                    to_seat=to_seat,
                    reason="close",
                )
            )
        return moves

    def _fill_emptiest(self, players: int, rng: random.Random) -> dict[int, int]:
        """How many of `players` each open table receives, one at a time to a table with the
        fewest players (ties: a random but fixed order, so equal tables take turns)."""
        heap = [(len(self._seats[t]), rng.random(), t) for t in self._counts.below(self._max)]
        heapq.heapify(heap)
        quota: dict[int, int] = {}
        for _ in range(players):
            count, key, t = heapq.heappop(heap)  # FO-3 guarantees enough open seats
            quota[t] = quota.get(t, 0) + 1
            if count + 1 < self._max:
                heapq.heappush(heap, (count + 1, key, t))
        return quota

    # ---------------------------------------------------------------- threshold (CLOSE, BAL)

    def _open_elsewhere(self, table: int) -> int:
        open_seats = len(self._seats) * self._max - self._active
        return open_seats - (self._max - len(self._seats[table]))

    def _close1_allows(self, table: int) -> bool:
        """CLOSE-1 (Decision): open seats at the other tables >= players seated here."""
        return self._open_elsewhere(table) >= len(self._seats[table])

    def _close_close1(self, table: int, rng: random.Random) -> list[Move]:
        """CLOSE-1: the players (sitting-out ones too) move one at a time, in random order, each
        to a random open seat of a table with the fewest players (ties: a random fixed order,
        so equal tables take turns)."""
        leaving = self._take_down(table)
        rng.shuffle(leaving)
        heap = [(len(self._seats[t]), rng.random(), t) for t in self._counts.below(self._max)]
        heapq.heapify(heap)
        moves: list[Move] = []
        for seat, player, was_out in leaving:
            count, key, to_table = heapq.heappop(heap)
            to_seat = rng.choice(self._empty_seats(to_table))
            self._place(to_table, to_seat, player, sitting_out=was_out)
            if count + 1 < self._max:
                heapq.heappush(heap, (count + 1, key, to_table))
            moves.append(
                Move(
                    player=player,
                    from_table=table,
                    from_seat=seat,
                    to_table=to_table,
                    to_seat=to_seat,
                    reason="close",
                )
            )
        return moves

    def _balance_bal1(self, table: int, rng: random.Random) -> list[Move]:
        """BAL-1: when no table can close, a fullest table sends one random player to a
        random open seat of the emptiest short table (2+ fewer players, module doc)."""
        count, low = len(self._seats[table]), self._counts.lowest()
        if count != self._counts.highest() or not is_short(low, self._max) or low > count - 2:
            return []
        fewest = self._actives.lowest()
        if any(self._close1_allows(t) for t in sorted(self._actives.at(fewest))):
            return []  # CLOSE-1 comes first: that table closes at its own boundary
        target = rng.choice(sorted(self._counts.at(low)))
        from_seat = rng.choice(sorted(self._seats[table]))
        return [self._move(table, from_seat, target, rng.choice(self._empty_seats(target)))]


def _check_config(max_per_table: int, policy: str) -> None:
    if not 2 <= max_per_table <= 10:  # FO-1
        raise InvalidSeatingError(f"max_per_table must be 2..10, got {max_per_table}")
    if policy not in _POLICIES:
        raise InvalidSeatingError(f"policy must be one of {sorted(_POLICIES)}, got {policy!r}")
