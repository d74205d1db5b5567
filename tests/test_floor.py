"""The table floor by rule: SEAT-1, FO-2..FO-6, CLOSE-1, BAL-1, TDA-1..TDA-3, typed errors."""

from __future__ import annotations

import heapq
import itertools
import random
from collections import Counter

import pytest

from orchestrator.core import codec
from orchestrator.core.balancing import BalancingPolicy, TdaBreaks, fill_emptiest, is_short
from orchestrator.core.blinds import next_blinds
from orchestrator.core.config_toml import parse_config
from orchestrator.core.events import TournamentOpened
from orchestrator.core.floor import BoundaryDecision, TableFloor
from orchestrator.core.seating import SeatMap, distance, position
from orchestrator.core.tda import break_order, procedure
from orchestrator.errors import (
    ConfigError,
    FloorError,
    InvalidReportError,
    InvalidSeatingError,
    OrchestratorError,
    PlayerEliminatedError,
    UnknownPlayerError,
    UnknownTableError,
)
from table_worker.protocol import Blinds


def names(n: int) -> list[str]:
    return [f"p{i:05d}" for i in range(n)]


def sizes(floor: TableFloor) -> list[int]:
    return sorted(len(seats) for seats in floor.tables.values())


def seated(floor: TableFloor) -> set[str]:
    """Every player with a seat (reserved seats included): the players not eliminated."""
    return {player for seats in floor.tables.values() for player in seats.values()}


def table_with(floor: TableFloor, count: int) -> int:
    return min(t for t, seats in floor.tables.items() if len(seats) == count)


def eliminate(
    floor: TableFloor, table: int, k: int, rng: random.Random, *, bb: int = 1
) -> BoundaryDecision:
    """Table `table` finishes a hand in which k of its players (chosen by rng) bust."""
    gone = rng.sample(sorted(floor.tables[table].values()), k)
    return floor.after_hand(table, eliminated=gone, big_blind_seat=bb, rng=rng)


def settle(floor: TableFloor, rng: random.Random) -> None:
    """Every open table finishes a hand with no eliminations, until nobody moves."""
    moved = True
    while moved:
        moved = False
        for table in rng.sample(sorted(floor.tables), len(floor.tables)):
            if table in floor.tables:
                bb = rng.randint(1, floor.max_per_table)
                decision = floor.after_hand(table, eliminated=[], big_blind_seat=bb, rng=rng)
                moved = moved or bool(decision.moves)


def seating(spec: dict[int, list[int]], prefix: str = "") -> dict[int, dict[int, str]]:
    """Tables from {table: [seats]}, players named t<table>s<seat>."""
    return {t: {s: f"{prefix}t{t}s{s}" for s in seats} for t, seats in spec.items()}


# ------------------------------------------------------------------ SEAT-1


def test_seat1_124_players_on_13_tables_at_random() -> None:
    floor = TableFloor.seat_players(
        names(124), max_per_table=10, policy="threshold", rng=random.Random(1)
    )
    assert len(floor.tables) == 13
    assert sorted(floor.tables) == list(range(1, 14))
    assert Counter(sizes(floor)) == {10: 7, 9: 6}
    seated = [p for seats in floor.tables.values() for p in seats.values()]
    assert sorted(seated) == names(124)
    assert all(1 <= s <= 10 for seats in floor.tables.values() for s in seats)
    for player in seated:
        table, seat = floor.table_of(player)
        assert floor.tables[table][seat] == player
    again = TableFloor.seat_players(
        names(124), max_per_table=10, policy="threshold", rng=random.Random(1)
    )
    other = TableFloor.seat_players(
        names(124), max_per_table=10, policy="threshold", rng=random.Random(2)
    )
    assert dict(again.tables.items()) == dict(floor.tables.items())
    assert dict(other.tables.items()) != dict(floor.tables.items())


@pytest.mark.parametrize("max_per_table", [1, 11])
def test_fo1_max_per_table_outside_2_to_10_is_refused(max_per_table: int) -> None:
    with pytest.raises(InvalidSeatingError):
        TableFloor.seat_players(
            names(20), max_per_table=max_per_table, policy="equilibrium", rng=random.Random(0)
        )


def test_seat1_refuses_duplicates_and_a_lone_player() -> None:
    with pytest.raises(InvalidSeatingError):
        TableFloor.seat_players(
            ["a", "b", "a"], max_per_table=9, policy="equilibrium", rng=random.Random(0)
        )
    with pytest.raises(InvalidSeatingError):
        TableFloor.seat_players(["a"], max_per_table=9, policy="equilibrium", rng=random.Random(0))


def test_single_table_is_the_final_table_from_the_start() -> None:
    floor = TableFloor.seat_players(
        names(9), max_per_table=9, policy="equilibrium", rng=random.Random(0)
    )
    assert floor.final_table == 1
    decision = eliminate(floor, 1, 2, random.Random(0))
    assert decision == BoundaryDecision(moves=(), closed=False, final_table=None)


# ------------------------------------------------------------------ FO-6 walk-through


def test_fo6_walkthrough_180_players_to_the_final_table() -> None:
    rng = random.Random(180)
    floor = TableFloor.seat_players(names(180), max_per_table=10, policy="equilibrium", rng=rng)
    assert sizes(floor) == [10] * 18

    # Two simultaneous eliminations at one table (8 left): it waits for one player.
    short = 1
    decision = eliminate(floor, short, 2, rng, bb=4)
    assert decision == BoundaryDecision(moves=(), closed=False, final_table=None)
    assert sizes(floor) == [8] + [10] * 17
    # ... who comes from the 10-table that finishes its hand first: two 9s, sixteen 10s.
    decision = floor.after_hand(7, eliminated=[], big_blind_seat=2, rng=rng)
    assert len(decision.moves) == 1
    move = decision.moves[0]
    assert (move.from_table, move.to_table, move.reason) == (7, short, "balance")
    assert floor.tables[short][move.to_seat] == move.player
    assert sizes(floor) == [9, 9] + [10] * 16
    settle(floor, rng)  # nobody else moves
    assert sizes(floor) == [9, 9] + [10] * 16

    # Down to 171: one elimination at each of seven 10-tables (no moves needed).
    for _ in range(7):
        decision = eliminate(floor, table_with(floor, 10), 1, rng)
        assert decision.moves == ()
    assert floor.active == 171
    assert Counter(sizes(floor)) == {9: 9, 10: 9}

    # The 171st player's elimination (the critical player) closes the table where it
    # happened; its 8 players fill the 8 open seats elsewhere: 17 tables of 10.
    critical_table = table_with(floor, 9)
    players = set(floor.tables[critical_table].values())
    decision = eliminate(floor, critical_table, 1, rng)
    assert decision.closed
    assert critical_table not in floor.tables
    assert {m.player for m in decision.moves} == players & seated(floor)
    assert len(decision.moves) == 8
    assert all(m.reason == "close" and m.from_table == critical_table for m in decision.moves)
    assert sizes(floor) == [10] * 17

    # This repeats until the final table: always ceil(active / 10) tables, balanced once
    # every table has finished a hand.
    while floor.active > 11:
        table = rng.choice(sorted(floor.tables))
        eliminate(floor, table, 1, rng, bb=rng.randint(1, 10))
        assert len(floor.tables) == -(-floor.active // 10)
        settle(floor, rng)
        assert max(sizes(floor)) - min(sizes(floor)) <= 1
    assert sizes(floor) == [5, 6]
    assert floor.final_table is None

    # With tables of 5 and 6, the 11th player's elimination forms the final table of 10.
    critical_table = rng.choice(sorted(floor.tables))
    decision = eliminate(floor, critical_table, 1, rng)
    assert decision.closed
    [final] = floor.tables
    assert decision.final_table == final == floor.final_table
    assert sizes(floor) == [10]


def test_fo6_critical_player_at_a_full_table_closes_it_into_the_nine_short_tables() -> None:
    rng = random.Random(171)
    floor = TableFloor.seat_players(names(180), max_per_table=10, policy="equilibrium", rng=rng)
    for table in range(1, 10):  # 171 players: 9 tables of 9, 9 of 10
        eliminate(floor, table, 1, rng)
    assert Counter(sizes(floor)) == {9: 9, 10: 9}
    decision = eliminate(floor, 12, 1, rng)  # the critical player sat at a table of 10
    assert decision.closed and len(decision.moves) == 9
    assert sorted(m.to_table for m in decision.moves) == list(range(1, 10))
    assert sizes(floor) == [10] * 17


# ------------------------------------------------------------------ FO-4


def fo4_floor() -> TableFloor:
    # Three full 6-seat tables; table 1 then loses two players in one hand.
    return TableFloor(
        seating({1: [1, 2, 3, 4, 5, 6], 2: [1, 2, 3, 4, 5, 6], 3: [1, 2, 3, 4, 5, 6]}),
        max_per_table=6,
        policy="equilibrium",
    )


@pytest.mark.parametrize("first", [2, 3])
def test_fo4_moved_player_has_the_eliminated_players_position_and_takes_the_seat(
    first: int,
) -> None:
    floor, rng = fo4_floor(), random.Random(4)
    # Big blind at seat 2; seats 3 and 5 bust (5 last): 1, 2, 4, 6 are left, 4 is the next big
    # blind. Counted in players (FO-4 Decision), seat 5 taken again is position 1 (4 is 0).
    decision = floor.after_hand(1, eliminated=["t1s3", "t1s5"], big_blind_seat=2, rng=rng)
    assert decision.moves == ()
    assert floor.pending_requests(1) == (5, 3)
    # Tables 2 and 3 are equally full: the first to finish its hand sends. Its big blind was
    # seat 6, so seat 1 is its next big blind and position 1 is seat 2.
    decision = floor.after_hand(first, eliminated=[], big_blind_seat=6, rng=rng)
    [move] = decision.moves
    assert move.player == f"t{first}s2"
    assert (move.from_table, move.from_seat, move.to_table, move.to_seat) == (first, 2, 1, 5)
    assert position(2, range(1, 7), 6) == position(5, [1, 2, 4, 6], 2) == 1
    assert floor.table_of(move.player) == (1, 5)
    assert floor.pending_requests(1) == ()  # 5, 5, 6: balanced, table 1 waits no more
    other = 5 - first
    assert floor.after_hand(other, eliminated=[], big_blind_seat=1, rng=rng).moves == ()
    assert sizes(floor) == [5, 5, 6]


def test_fo4_position_counts_players_not_empty_seats() -> None:
    # Table 1 (big blind 2) loses seats 6, 5 and 3: 1, 2, 4 are left, seat 3 is filled first.
    # Taken again, seat 3 would be the next big blind (the first player after seat 2): position
    # 0. Table 2 (seats 2..6, big blind 6) has its next big blind at seat 2, wrapping round:
    # the player at seat 2 moves, every time, with no draw. (By seat numbers, the old reading,
    # seat 3 was position 1 at table 1 and seat 1, empty, was position 1 at table 2.)
    spec = {1: [1, 2, 3, 4, 5, 6], 2: [2, 3, 4, 5, 6], 3: [1, 2, 3, 4, 5]}
    for seed in range(20):
        floor = TableFloor(seating(spec), max_per_table=6, policy="equilibrium")
        rng = random.Random(seed)
        floor.after_hand(1, eliminated=["t1s6", "t1s5", "t1s3"], big_blind_seat=2, rng=rng)
        [move] = floor.after_hand(2, eliminated=[], big_blind_seat=6, rng=rng).moves
        assert (move.from_seat, move.to_table, move.to_seat) == (2, 1, 3)


def test_fo4_only_a_fullest_table_sends() -> None:
    # 6, 5, 4 on 6 seats: the 5-table is not the fullest, so it sends nothing; the 6-table does.
    floor = TableFloor(
        seating({1: [1, 2, 3, 4, 5, 6], 2: [1, 2, 3, 4, 5], 3: [1, 2, 3, 4, 5, 6]}),
        max_per_table=6,
        policy="equilibrium",
    )
    rng = random.Random(0)
    floor.after_hand(3, eliminated=["t3s1", "t3s2"], big_blind_seat=1, rng=rng)
    assert floor.after_hand(2, eliminated=[], big_blind_seat=1, rng=rng).moves == ()
    [move] = floor.after_hand(1, eliminated=[], big_blind_seat=1, rng=rng).moves
    assert (move.from_table, move.to_table) == (1, 3)
    assert sizes(floor) == [5, 5, 5]


def test_fo2_one_table_sends_several_while_it_stays_the_fullest() -> None:
    # 10, 7, 7 on 10 seats; table 2 loses one (10, 6, 7): table 1 stays the fullest after
    # sending one (9, 7, 7), so it sends a second (8, 8, 7).
    floor = TableFloor(
        seating({1: list(range(1, 11)), 2: list(range(1, 8)), 3: list(range(1, 8))}),
        max_per_table=10,
        policy="equilibrium",
    )
    rng = random.Random(0)
    assert floor.after_hand(2, eliminated=["t2s1"], big_blind_seat=1, rng=rng).moves == ()
    decision = floor.after_hand(1, eliminated=[], big_blind_seat=1, rng=rng)
    assert len(decision.moves) == 2
    assert all(m.from_table == 1 for m in decision.moves)
    assert sizes(floor) == [7, 8, 8]


# ------------------------------------------------------------------ FO-5


def fo5_cost(
    before: TableFloor, old_seats: dict[int, str], old_bb: int, placed: dict[str, tuple[int, int]]
) -> int:
    """FO-5 (Decision): the total distance round the table between each moved player's old
    position and his new one, both counted in players (the new ones once everybody sits);
    `before` holds the receiving tables as they were."""
    final = {t: set(seats) for t, seats in before.tables.items()}
    for table, seat in placed.values():
        final[table].add(seat)
    total = 0
    for seat, player in old_seats.items():
        table, new_seat = placed[player]
        old = position(seat, old_seats, old_bb)
        new = position(new_seat, final[table], before.big_blind_seat(table))
        total += distance(old, new, len(final[table]))
    return total


@pytest.mark.parametrize("seed", range(25))
def test_fo5_closing_assignment_minimises_total_position_change(seed: int) -> None:
    rng = random.Random(seed)
    m = 8
    # Table 1 closes: 5 players there (one busts, 4 move), the others have exactly 4 seats.
    seats_1 = sorted(rng.sample(range(1, m + 1), 5))
    seats_2 = sorted(rng.sample(range(1, m + 1), 6))
    seats_3 = sorted(rng.sample(range(1, m + 1), 6))
    floor = TableFloor(
        seating({1: seats_1, 2: seats_2, 3: seats_3}),
        max_per_table=m,
        policy="equilibrium",
        big_blinds={2: rng.randint(1, m), 3: rng.randint(1, m)},
    )
    bust, old_bb = f"t1s{seats_1[0]}", rng.randint(1, m)
    leaving = {s: f"t1s{s}" for s in seats_1[1:]}
    open_seats = [(t, s) for t in (2, 3) for s in range(1, m + 1) if s not in floor.tables[t]]
    before = TableFloor(
        seating({2: seats_2, 3: seats_3}),
        max_per_table=m,
        policy="equilibrium",
        big_blinds={2: floor.big_blind_seat(2), 3: floor.big_blind_seat(3)},
    )
    best = min(
        fo5_cost(before, leaving, old_bb, dict(zip(leaving.values(), chosen, strict=True)))
        for chosen in itertools.permutations(open_seats, len(leaving))
    )
    decision = floor.after_hand(1, eliminated=[bust], big_blind_seat=old_bb, rng=rng)
    assert decision.closed and {m.player for m in decision.moves} == set(leaving.values())
    got = fo5_cost(
        before, leaving, old_bb, {m.player: (m.to_table, m.to_seat) for m in decision.moves}
    )
    assert got == best
    assert sizes(floor) == [8, 8]


def test_fo5_more_open_seats_than_players_keeps_the_rest_balanced() -> None:
    # 4, 4, 3 on 4 seats (11): table 1 loses two (9 -> 3 tables still), then table 3 loses
    # two more (7 players: 2 tables) and closes: its player goes to the emptier table.
    floor = TableFloor(
        seating({1: [1, 2, 3, 4], 2: [1, 2, 3, 4], 3: [1, 2, 3]}),
        max_per_table=4,
        policy="equilibrium",
    )
    rng = random.Random(5)
    floor.after_hand(1, eliminated=["t1s1", "t1s2"], big_blind_seat=1, rng=rng)  # 2, 4, 3
    assert sizes(floor) == [2, 3, 4]
    decision = floor.after_hand(3, eliminated=["t3s1", "t3s2"], big_blind_seat=1, rng=rng)
    assert decision.closed
    [move] = decision.moves
    assert move.to_table == 1
    assert sizes(floor) == [3, 4]


# ------------------------------------------------------------------ CLOSE-1


def close1_floor() -> TableFloor:
    # 10-seat tables with 7/6, 8/2, 7/5, 8/8 seated/active.
    tables = seating({1: list(range(1, 8)), 2: list(range(1, 9)), 3: list(range(1, 8))})
    tables[4] = {s: f"t4s{s}" for s in range(1, 9)}
    out = ["t1s1", *(f"t2s{s}" for s in range(1, 7)), "t3s1", "t3s2"]
    return TableFloor(tables, max_per_table=10, policy="threshold", sitting_out=out)


def test_close1_example_table_2_closes_into_3_3_2() -> None:
    floor, rng = close1_floor(), random.Random(1)
    out = [f"t2s{s}" for s in range(1, 7)]
    decision = floor.after_hand(2, eliminated=[], big_blind_seat=3, sitting_out=out, rng=rng)
    assert decision.closed
    assert len(decision.moves) == 8
    assert {m.player for m in decision.moves} == {f"t2s{s}" for s in range(1, 9)}
    assert Counter(m.to_table for m in decision.moves) == {1: 3, 3: 3, 4: 2}
    assert all(m.reason == "close" for m in decision.moves)
    assert sizes(floor) == [10, 10, 10]


def test_close1_only_the_table_with_fewest_active_players_closes() -> None:
    floor, rng = close1_floor(), random.Random(1)
    for table, out in ((1, ["t1s1"]), (3, ["t3s1", "t3s2"]), (4, [])):
        decision = floor.after_hand(
            table, eliminated=[], big_blind_seat=1, sitting_out=out, rng=rng
        )
        assert decision == BoundaryDecision(moves=(), closed=False, final_table=None)


def test_close1_not_enough_open_seats_elsewhere() -> None:
    floor = TableFloor(
        seating({1: list(range(1, 9)), 2: list(range(1, 10))}),
        max_per_table=10,
        policy="threshold",
        sitting_out=["t2s1", "t2s2", "t2s3", "t2s4"],
    )
    # Table 2 has the fewest active (5) but 9 seated and only 2 open seats elsewhere.
    decision = floor.after_hand(
        2,
        eliminated=[],
        big_blind_seat=1,
        sitting_out=["t2s1", "t2s2", "t2s3", "t2s4"],
        rng=random.Random(0),
    )
    assert not decision.closed and decision.moves == ()


def test_close1_threshold_final_table_forms() -> None:
    floor = TableFloor(
        seating({1: [1, 2, 3, 4, 5], 2: [1, 2, 3, 4, 5, 6]}), max_per_table=10, policy="threshold"
    )
    rng = random.Random(0)
    assert not floor.after_hand(2, eliminated=[], big_blind_seat=1, rng=rng).closed
    decision = floor.after_hand(1, eliminated=["t1s1"], big_blind_seat=1, rng=rng)
    assert decision.closed and decision.final_table == 2 == floor.final_table
    assert sizes(floor) == [10]


# ------------------------------------------------------------------ TDA


def test_tda1_next_big_blind_of_the_designated_table_moves_to_the_worst_seat() -> None:
    floor = TableFloor(
        seating({1: [1, 2, 3, 4, 5, 6], 2: [1, 2, 3, 4, 5, 6], 3: [1, 2, 3, 4, 5, 6]}),
        max_per_table=6,
        policy="tda",
    )
    rng = random.Random(0)
    # Table 3 (big blind 1) loses seats 2 and 3: 1, 4, 5, 6 left; it now plays a hand whose
    # big blind is seat 4, so the mover's first hand there has its big blind at seat 5.
    assert floor.after_hand(3, eliminated=["t3s2", "t3s3"], big_blind_seat=1, rng=rng).moves == ()
    # TDA-2: tables 1 and 2 are equally full; table 2, the higher number, is the one that sends.
    assert floor.after_hand(1, eliminated=[], big_blind_seat=6, rng=rng).moves == ()
    [move] = floor.after_hand(2, eliminated=[], big_blind_seat=3, rng=rng).moves
    # TDA-1: table 2's next big blind (seat 4) moves; of table 3's open seats (2 and 3) the big
    # blind reaches seat 2 first (after 5, 6 and 1); the small blind is never his.
    assert (move.player, move.to_table, move.to_seat) == ("t2s4", 3, 2)
    assert sizes(floor) == [5, 5, 6]


def test_tda2_tables_break_highest_number_first() -> None:
    assert break_order([2, 10, 7]) == (10, 7, 2)
    assert (
        procedure("one")[0] == "Tables break in order, highest table number first, one at a time."
    )
    floor = TableFloor(
        seating({1: [1, 2, 3], 2: [1, 2, 3], 3: [1, 2, 3]}), max_per_table=6, policy="tda"
    )
    rng = random.Random(0)
    # 8 players fit 2 tables: under equilibrium table 1 would close at once (FO-6's critical
    # player); under tda table 3 breaks, at its own boundary, and nobody is balanced meanwhile.
    assert floor.after_hand(1, eliminated=["t1s1"], big_blind_seat=1, rng=rng).moves == ()
    assert floor.after_hand(2, eliminated=[], big_blind_seat=1, rng=rng).moves == ()
    decision = floor.after_hand(3, eliminated=[], big_blind_seat=1, rng=rng)
    assert decision.closed and len(decision.moves) == 3
    assert sizes(floor) == [4, 4]


@pytest.mark.parametrize("breaks", ["due", "one"])
def test_tda2_with_fo3_every_table_the_field_no_longer_needs_breaks_at_its_own_boundary(
    breaks: TdaBreaks,
) -> None:
    """12 players at four tables of 4 seats; four busts leave 8, who fit two: tables 4 and 3
    are both due (FO-3: the number of tables is always the minimum). Under "due" table 3
    breaks at its own boundary, its players seated at tables 1 and 2 only (table 4 breaks
    too), then table 4 at its own; under "one" (before v2) table 3 waits for table 4."""
    floor = TableFloor(
        seating({1: [1, 2, 3], 2: [1, 2, 3], 3: [1, 2, 3], 4: [1, 2, 3]}),
        max_per_table=4,
        policy="tda",
        tda_breaks=breaks,
    )
    rng = random.Random(0)
    floor.after_hand(1, eliminated=["t1s1", "t1s2"], big_blind_seat=1, rng=rng)
    floor.after_hand(2, eliminated=["t2s1", "t2s2"], big_blind_seat=1, rng=rng)
    assert floor.idle_wakes() == ((4, 3) if breaks == "due" else (4,))
    third = floor.after_hand(3, eliminated=[], big_blind_seat=1, rng=rng)
    if breaks == "due":
        assert third.closed and {m.to_table for m in third.moves} <= {1, 2}
        assert len(floor.tables[4]) == 3 and floor.idle_wakes() == (4,)
    else:
        assert not third.closed and third.moves == ()
    assert floor.after_hand(4, eliminated=[], big_blind_seat=1, rng=rng).closed
    if breaks == "one":
        assert floor.idle_wakes() == (3,)
        assert floor.after_hand(3, eliminated=[], big_blind_seat=1, rng=rng).closed
    assert sorted(floor.tables) == [1, 2] and sizes(floor) == [4, 4]
    assert floor.idle_wakes() == ()


def test_tda2_the_procedure_is_published_and_a_log_of_before_keeps_breaking_one_at_a_time() -> None:
    assert procedure("due")[0].startswith("Tables break in order, highest table number first;")
    cfg = parse_config(
        {"tournament": {"players": 20, "policy": "tda"}, "levels": {"blinds": [[10, 20]]}}
    )
    assert cfg.tda_breaks == "due"
    with pytest.raises(ConfigError, match='under policy = "tda"'):
        parse_config(
            {"tournament": {"players": 20, "tda_breaks": "one"}, "levels": {"blinds": [[10, 20]]}}
        )
    with pytest.raises(ConfigError, match="tda_breaks"):
        parse_config(
            {
                "tournament": {"players": 20, "policy": "tda", "tda_breaks": "all"},
                "levels": {"blinds": [[10, 20]]},
            }
        )
    opened = TournamentOpened(tournament="t", config=cfg, players=(), deposits={}, seed=1)
    record = codec.record(opened, seq=1, ts=1.0)
    assert record["v"] == 2
    old = {
        **record,
        "v": 1,
        "config": {k: v for k, v in record["config"].items() if k != "tda_breaks"},
    }
    read = codec.decode(old)
    assert isinstance(read, TournamentOpened) and read.config.tda_breaks == "one"


def test_tda2_the_table_due_to_break_is_the_one_idle_table_a_step_can_let_go() -> None:
    """The long polls wake only the table TDA-2 breaks next (`idle_wakes`); the other
    policies' idle tables can change with any elimination (None: wake them all)."""
    tables = seating({1: [1, 2, 3], 2: [1, 2, 3], 3: [1, 2, 3]})
    floor = TableFloor(tables, max_per_table=4, policy="tda")
    rng = random.Random(0)
    assert floor.idle_wakes() == ()  # 9 players need 3 tables of 4: no break is due
    floor.after_hand(1, eliminated=["t1s1"], big_blind_seat=1, rng=rng)
    assert floor.idle_wakes() == (3,)  # 8 players fit 2: the highest-numbered breaks
    assert floor.after_hand(3, eliminated=[], big_blind_seat=1, rng=rng).closed
    assert floor.idle_wakes() == ()
    for policy in ("equilibrium", "threshold"):
        assert TableFloor(tables, max_per_table=4, policy=policy).idle_wakes() is None


def test_tda2_the_highest_table_is_found_among_tables_opened_and_closed() -> None:
    """Tables open in number order, so the seat map finds the highest without a scan."""
    floor = TableFloor(seating({1: [1, 2], 2: [1, 2], 4: [1, 2]}), max_per_table=3, policy="tda")
    rng = random.Random(3)
    floor.seat_entrant("late1", forbidden={}, rng=rng)
    floor.seat_entrant("late2", forbidden={}, rng=rng)
    floor.seat_entrant("late3", forbidden={}, rng=rng)
    opened = floor.seat_entrant("late4", forbidden={}, rng=rng)  # every table full: table 5
    assert opened[0] == 5 and opened[2]
    assert floor.idle_wakes() == ()  # 10 players need 4 tables of 3
    floor.after_hand(1, eliminated=[floor.tables[1][1]], big_blind_seat=1, rng=rng)
    assert floor.idle_wakes() == (5,)  # 9 players fit 3: table 5, opened last, breaks
    assert floor.after_hand(5, eliminated=[], big_blind_seat=1, rng=rng).closed
    assert floor.idle_wakes() == ()
    floor.after_hand(2, eliminated=list(floor.tables[2].values())[:2], big_blind_seat=1, rng=rng)
    assert floor.idle_wakes() == ()  # 7 players still need 3 tables
    floor.after_hand(1, eliminated=list(floor.tables[1].values())[:1], big_blind_seat=1, rng=rng)
    assert sorted(floor.tables) == [1, 2, 4] and floor.idle_wakes() == (4,)


def test_tda3_a_broken_tables_players_between_button_and_small_blind_wait() -> None:
    # Table 1's last hand: button 1, small blind 2, big blind 5 (seats 3 and 4 empty). Table 2
    # breaks: its two players can only sit at 3 and 4, between the next hand's button (2) and
    # small blind (5): they are not dealt in that hand, and play from the next.
    floor = TableFloor(
        seating({1: [1, 2, 5, 6, 7, 8], 2: [1, 2, 3]}),
        max_per_table=8,
        policy="tda",
        big_blinds={1: 5},
    )
    rng, last = random.Random(0), Blinds(1, 2, 5)
    decision = floor.after_hand(2, eliminated=["t2s1"], big_blind_seat=2, rng=rng)
    assert decision.closed and sorted(m.to_seat for m in decision.moves) == [3, 4]
    floor.after_hand(1, eliminated=[], big_blind_seat=5, rng=rng)
    assert floor.waiting_for_big_blind(1, last) == (3, 4)
    dealt = next_blinds(last, [1, 2, 5, 6, 7, 8])
    assert dealt == Blinds(2, 5, 6)
    floor.after_hand(1, eliminated=[], big_blind_seat=6, rng=rng)
    assert floor.waiting_for_big_blind(1, dealt) == ()


@pytest.mark.parametrize("policy", ["equilibrium", "threshold"])
def test_tda3_only_under_tda_does_anyone_wait(policy: BalancingPolicy) -> None:
    floor = TableFloor(
        seating({1: [1, 2, 5, 6, 7, 8], 2: [1, 2, 3]}),
        max_per_table=8,
        policy=policy,
        big_blinds={1: 5},
    )
    rng = random.Random(0)
    assert floor.after_hand(2, eliminated=["t2s1"], big_blind_seat=2, rng=rng).closed
    floor.after_hand(1, eliminated=[], big_blind_seat=5, rng=rng)
    assert floor.waiting_for_big_blind(1, Blinds(1, 2, 5)) == ()


# ------------------------------------------------------------------ BAL-1


@pytest.mark.parametrize(
    ("seats", "players", "short"), [(10, 6, True), (10, 7, False), (5, 2, True), (5, 3, False)]
)
def test_bal1_short_below_70_percent(seats: int, players: int, short: bool) -> None:
    assert is_short(players, seats) is short
    floor = TableFloor(
        seating(
            {
                1: list(range(1, seats + 1)),
                2: list(range(1, seats + 1)),
                3: list(range(1, players + 1)),
            }
        ),
        max_per_table=seats,
        policy="threshold",
    )
    rng = random.Random(0)
    decision = floor.after_hand(1, eliminated=[], big_blind_seat=1, rng=rng)
    assert not decision.closed
    if short:
        [move] = decision.moves
        assert (move.from_table, move.to_table, move.reason) == (1, 3, "balance")
        assert floor.tables[3][move.to_seat] == move.player
        # The short table is no longer short: the other full table sends nothing.
        assert floor.after_hand(2, eliminated=[], big_blind_seat=1, rng=rng).moves == ()
    else:
        assert decision.moves == ()


def test_bal1_waits_while_a_table_can_close() -> None:
    floor = TableFloor(
        seating({1: list(range(1, 11)), 2: [1, 2, 3, 4, 5], 3: [1, 2, 3]}),
        max_per_table=10,
        policy="threshold",
    )
    rng = random.Random(0)
    assert floor.after_hand(1, eliminated=[], big_blind_seat=1, rng=rng).moves == ()
    decision = floor.after_hand(3, eliminated=[], big_blind_seat=1, rng=rng)
    assert decision.closed and {m.to_table for m in decision.moves} == {2}


def test_bal1_no_swap_between_two_short_tables() -> None:
    floor = TableFloor(
        seating({1: list(range(1, 7)), 2: [1, 2, 3, 4, 5]}), max_per_table=10, policy="threshold"
    )
    rng = random.Random(0)
    for table in (1, 2, 1, 2):
        assert floor.after_hand(table, eliminated=[], big_blind_seat=1, rng=rng).moves == ()


# ------------------------------------------------------------------ errors


def snapshot(floor: TableFloor) -> tuple[object, ...]:
    return (
        {t: dict(s) for t, s in floor.tables.items()},
        floor.active,
        floor.final_table,
        {t: floor.big_blind_seat(t) for t in floor.tables},
    )


@pytest.mark.parametrize("policy", ["equilibrium", "threshold"])
def test_bad_reports_raise_typed_errors_and_change_nothing(policy: BalancingPolicy) -> None:
    floor = TableFloor(
        seating({1: [1, 2, 3, 4], 2: [1, 2, 3, 4], 3: [1, 2, 4]}),
        max_per_table=4,
        policy=policy,
    )
    rng = random.Random(0)
    floor.after_hand(1, eliminated=["t1s1"], big_blind_seat=2, rng=rng)
    before = snapshot(floor)
    cases: list[tuple[type[FloorError], int, list[str], int]] = [
        (UnknownTableError, 9, [], 1),
        (UnknownPlayerError, 2, ["nobody"], 1),
        (PlayerEliminatedError, 1, ["t1s1"], 1),
        (InvalidReportError, 2, ["t2s1", "t2s1"], 1),
        (InvalidReportError, 2, ["t1s2"], 1),
        (InvalidReportError, 3, ["t3s1", "t3s2", "t3s4"], 1),
        (InvalidReportError, 2, [], 5),
        (InvalidReportError, 2, [], 0),
    ]
    for error, table, gone, bb in cases:
        with pytest.raises(error):
            floor.after_hand(table, eliminated=gone, big_blind_seat=bb, rng=rng)
        assert snapshot(floor) == before
    with pytest.raises(UnknownPlayerError):
        floor.after_hand(2, eliminated=[], big_blind_seat=1, sitting_out=["ghost"], rng=rng)
    assert snapshot(floor) == before
    with pytest.raises(PlayerEliminatedError):
        floor.table_of("t1s1")
    with pytest.raises(LookupError):
        floor.table_of("nobody")
    assert issubclass(FloorError, OrchestratorError)


def test_a_closed_table_is_unknown() -> None:
    floor = TableFloor(seating({1: [1, 2], 2: [1, 2, 3]}), max_per_table=4, policy="equilibrium")
    rng = random.Random(0)
    assert floor.after_hand(1, eliminated=["t1s1"], big_blind_seat=1, rng=rng).closed
    with pytest.raises(UnknownTableError):
        floor.after_hand(1, eliminated=[], big_blind_seat=1, rng=rng)


# ------------------------------------------------------------------ scale


@pytest.mark.parametrize("policy", ["equilibrium", "threshold"])
def test_a_10000_player_floor_stays_balanced_down_to_half_the_field(
    policy: BalancingPolicy,
) -> None:
    """Speed is `mtt bench tournament`'s to measure (report CPU time, docs/BENCHMARKS.md);
    this checks the floor at 1,000 tables keeps FO-3 and BAL-1 report after report."""
    rng = random.Random(10_000)
    floor = TableFloor.seat_players(names(10_000), max_per_table=10, policy=policy, rng=rng)
    assert len(floor.tables) == 1_000
    while floor.active > 5_000:
        table = rng.choice(list(floor.tables))
        seats = floor.tables[table]
        gone = rng.sample(list(seats.values()), rng.choice((0, 0, 0, 1, 1, 2)) % len(seats))
        floor.after_hand(table, eliminated=gone, big_blind_seat=rng.randint(1, 10), rng=rng)
    sizes = [len(seats) for seats in floor.tables.values()]
    assert len(floor.tables) == -(-floor.active // 10)  # FO-3: the fewest tables
    assert max(sizes) - min(sizes) <= 2


def test_the_final_table_is_announced_once_even_if_a_late_entrant_opens_a_table() -> None:
    floor = TableFloor(seating({1: [1, 2, 3]}), max_per_table=3, policy="equilibrium")
    assert floor.final_table == 1  # one table from the start
    table, _, opened = floor.seat_entrant("late", forbidden={}, rng=random.Random(0))
    assert opened and table == 2 and floor.final_table == 1
    rng = random.Random(0)
    decisions = [floor.after_hand(t, eliminated=[], big_blind_seat=1, rng=rng) for t in (1, 2)]
    decision = floor.after_hand(1, eliminated=["t1s1"], big_blind_seat=1, rng=rng)
    assert all(d.final_table is None for d in (*decisions, decision))


def test_fo5_the_emptiest_tables_fill_as_a_heap_of_every_table_would() -> None:
    """`fill_emptiest` heaps only the entries its players can reach: the same quotas, and the
    same RNG draws after it (a replay decides alike), as a heap of every open table."""

    def every_table(seat_map: SeatMap, players: int, rng: random.Random) -> dict[int, int]:
        size = seat_map.max_per_table
        heap = [
            (len(seat_map.seats(t)), rng.random(), t)
            for t in sorted(seat_map.tables)
            if len(seat_map.seats(t)) < size
        ]
        heapq.heapify(heap)
        quota: dict[int, int] = {}
        for _ in range(players):
            count, key, t = heapq.heappop(heap)
            quota[t] = quota.get(t, 0) + 1
            if count + 1 < size:
                heapq.heappush(heap, (count + 1, key, t))
        return quota

    draw = random.Random(7)
    for _ in range(300):
        size = draw.randint(2, 10)
        tables = {
            t: {s: f"t{t}s{s}" for s in draw.sample(range(1, size + 1), draw.randint(1, size))}
            for t in draw.sample(range(1, 60), draw.randint(1, 40))
        }
        seat_map = SeatMap(tables, max_per_table=size, big_blinds={}, sitting_out=())
        free = sum(size - len(seats) for seats in tables.values())
        players = draw.randint(0, min(free, size))
        mine, theirs = random.Random(draw.random()), random.Random(0)
        theirs.setstate(mine.getstate())
        assert fill_emptiest(seat_map, players, mine) == every_table(seat_map, players, theirs)
        assert mine.random() == theirs.random()
