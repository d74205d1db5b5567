"""Balancing policies: which table closes and who moves at a table's hand boundary.

Pure and deterministic: every random choice comes from the `random.Random` passed in, and no
decision depends on the iteration order of a set of strings. The table floor
(`orchestrator.core.floor`) applies a table's report to the `SeatMap`, then asks its policy
whether the table closes (STEP 3) and, if not, whom it sends to another table (STEP 4). Every
move is carried out in the seat map at once: the player's new seat is reserved.

Policies (RULES.md Decision)
    ``equilibrium`` (default, FO-2..FO-5): a table that reaches its boundary with 2+ players more
    than the shortest sends players until it has not, so tables never differ by 2+ for longer
    than it takes the fuller tables to finish their hands; ``open tables == ceil(active /
    max_per_table)`` always, because the elimination that makes one table fewer suffice (the
    critical player, FO-6) closes the table where it happened, at that very boundary. A short
    table keeps a queue of the seats its eliminated players left (its pending requests); the
    fuller table that reaches a boundary first fills the most recent one (FO-4).
    ``threshold`` (CLOSE-1, BAL-1): the table with the fewest active (not sitting-out) players
    closes when the open seats elsewhere can hold everyone seated there; otherwise a short
    table (fewer than floor(0.7 * seats) players) receives one random player from the fullest.
    A table sends a BAL-1 player only when it has at least 2 more players than the short table
    (RULES.md is silent; without it 6 and 5 players at two 10-seat tables would swap a player
    back and forth forever, as both are short).
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from typing import Final, Literal, Protocol, get_args

from orchestrator.core.assignment import min_cost_assignment
from orchestrator.core.seating import SeatMap, position

__all__ = [
    "BALANCING_POLICIES",
    "Balancer",
    "BalancingPolicy",
    "Equilibrium",
    "Move",
    "Threshold",
    "balancer_for",
    "is_short",
]

BalancingPolicy = Literal["equilibrium", "threshold"]
BALANCING_POLICIES: Final[tuple[BalancingPolicy, ...]] = get_args(BalancingPolicy)

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

    def settle(self, seating: SeatMap, table: int) -> None:
        """STEP 5: `table` stayed open; forget what it no longer waits for."""

    def pending_requests(self, seating: SeatMap, table: int) -> tuple[int, ...]:
        """The seats `table` is waiting to have filled, next to be filled first."""
        ...


def balancer_for(policy: BalancingPolicy) -> Balancer:
    return Equilibrium() if policy == "equilibrium" else Threshold()


def _move(seating: SeatMap, source: int, from_seat: int, target: int, to_seat: int) -> Move:
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


# ---------------------------------------------------------------- equilibrium (FO)


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

    def gives(self, seating: SeatMap, table: int) -> bool:
        """FO-2: this table holds 2+ more players than the shortest (players on their way
        counted: their seats are reserved), fullest or not."""
        return seating.counts.lowest() <= len(seating.seats(table)) - 2

    def balance(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """FO-2, FO-4: while this table holds 2+ more players than the shortest, send the
        player sitting where the short table's eliminated player sat (relative to the blinds)
        into that player's seat. Equally full tables: whichever reports first sends."""
        counts = seating.counts
        moves: list[Move] = []
        while self.gives(seating, table):
            short = counts.at(counts.lowest())
            # FO-2: to the emptiest table; among those, the one waiting longest.
            target = min(short, key=lambda t: (self._waiting_since.get(t, _NO_REQUEST), t))
            to_seat = self._take_request(seating, target, rng)
            wanted = position(to_seat, seating.big_blind(target), seating.max_per_table)
            from_seat = _seat_nearest(seating, table, wanted, rng)
            moves.append(_move(seating, table, from_seat, target, to_seat))
            if len(seating.seats(target)) >= counts.highest() - 1:
                self._drop_requests(target)
        return moves

    def close(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """FO-3, FO-5: close this table; its players take open seats elsewhere, filling the
        emptiest tables first (so the rest stays balanced), each seat chosen by an exact
        assignment minimising the total |old position - new position| (ties by the RNG)."""
        size = seating.max_per_table
        old_bb = seating.big_blind(table)
        leaving = seating.take_down(table)
        self._drop_requests(table)
        quota = _fill_emptiest(seating, len(leaving), rng)
        # Columns: the open seats of the tables that receive players. Rows: the players, then
        # for each receiving table one placeholder per seat of it that stays empty, so each
        # table gets exactly its quota (a placeholder may only take a seat at its own table).
        columns = [(t, s) for t in sorted(quota) for s in seating.empty_seats(t)]
        scale = _TIE * (len(columns) + 1)  # random tie-breaks sum to less than one unit
        forbidden = scale * size * (len(columns) + 1)
        cost: list[list[int]] = []
        for seat, _, _ in leaving:
            old = position(seat, old_bb, size)
            cost.append(
                [
                    abs(old - position(s, seating.big_blind(t), size)) * scale + rng.randrange(_TIE)
                    for t, s in columns
                ]
            )
        for t in sorted(quota):
            for _ in range(len(seating.empty_seats(t)) - quota[t]):
                cost.append([0 if ct == t else forbidden for ct, _ in columns])
        chosen = min_cost_assignment(cost)
        moves: list[Move] = []
        for (seat, player, was_out), column in zip(leaving, chosen[: len(leaving)], strict=True):
            to_table, to_seat = columns[column]
            seating.place(to_table, to_seat, player, sitting_out=was_out)
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


def _seat_nearest(seating: SeatMap, table: int, wanted: int, rng: random.Random) -> int:
    """The occupied seat of `table` whose position is nearest `wanted` (FO-4: the same
    position when it is taken); ties broken by the RNG."""
    bb, size = seating.big_blind(table), seating.max_per_table
    by_distance: dict[int, list[int]] = {}
    for seat in sorted(seating.seats(table)):
        by_distance.setdefault(abs(position(seat, bb, size) - wanted), []).append(seat)
    return rng.choice(by_distance[min(by_distance)])


def _fill_emptiest(seating: SeatMap, players: int, rng: random.Random) -> dict[int, int]:
    """How many of `players` each open table receives, one at a time to a table with the
    fewest players (ties: a random but fixed order, so equal tables take turns)."""
    size = seating.max_per_table
    heap = [(len(seating.seats(t)), rng.random(), t) for t in seating.counts.below(size)]
    heapq.heapify(heap)
    quota: dict[int, int] = {}
    for _ in range(players):
        count, key, t = heapq.heappop(heap)  # FO-3 guarantees enough open seats
        quota[t] = quota.get(t, 0) + 1
        if count + 1 < size:
            heapq.heappush(heap, (count + 1, key, t))
    return quota


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

    def gives(self, seating: SeatMap, table: int) -> bool:
        return False  # BAL-1 is taken after a hand (CLOSE-1: "after every hand")

    def close(self, seating: SeatMap, table: int, rng: random.Random) -> list[Move]:
        """CLOSE-1: the players (sitting-out ones too) move one at a time, in random order, each
        to a random open seat of a table with the fewest players (ties: a random fixed order,
        so equal tables take turns)."""
        size = seating.max_per_table
        leaving = seating.take_down(table)
        rng.shuffle(leaving)
        heap = [(len(seating.seats(t)), rng.random(), t) for t in seating.counts.below(size)]
        heapq.heapify(heap)
        moves: list[Move] = []
        for seat, player, was_out in leaving:
            count, key, to_table = heapq.heappop(heap)
            to_seat = rng.choice(seating.empty_seats(to_table))
            seating.place(to_table, to_seat, player, sitting_out=was_out)
            if count + 1 < size:
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
        return [_move(seating, table, from_seat, target, rng.choice(seating.empty_seats(target)))]


def _close1_allows(seating: SeatMap, table: int) -> bool:
    """CLOSE-1 (Decision): open seats at the other tables >= players seated here."""
    size, here = seating.max_per_table, len(seating.seats(table))
    open_elsewhere = len(seating.tables) * size - seating.active - (size - here)
    return open_elsewhere >= here
