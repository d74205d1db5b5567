"""Property tests of the table floor: random elimination sequences, reported by tables in
random order (0..2 eliminations per hand, random players sitting out), through both policies.

Invariants checked (orchestrator/core/floor.py states when each holds):
- always, both policies: every player is eliminated or seated at exactly one open table and
  one seat in 1..max_per_table; no seat holds two players; no open table is empty; a decision
  moves only players of the reporting table, into the seats it reserved; a closed table hands
  over every survivor; the final table forms once, and the tournament ends on it.
- equilibrium, after every boundary: tables == ceil(active / max_per_table) (FO-3); the
  reporting table holds fewer than 2 players more than the shortest, fullest or not (FO-2: it
  did its part), so it owes no player.
- equilibrium, once every table has finished a hand with no eliminations (repeated while
  players still move): tables differ by at most 1 (FO-2). Between boundaries a short table
  may wait for its player, so this is not checked there.
"""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.core.assignment import assignment_cost, min_cost_assignment
from orchestrator.core.balancing import BalancingPolicy
from orchestrator.core.floor import TableFloor

POLICIES: tuple[BalancingPolicy, ...] = ("equilibrium", "threshold")


def check_seating(floor: TableFloor, players: set[str], eliminated: set[str]) -> None:
    seated: list[str] = []
    for table, seats in floor.tables.items():
        assert seats, f"table {table} is open but empty"
        for seat, player in seats.items():
            assert 1 <= seat <= floor.max_per_table
            assert floor.table_of(player) == (table, seat)
            seated.append(player)
    assert len(seated) == len(set(seated)), "a player seated twice"
    assert set(seated) | eliminated == players, "a player lost"
    assert not set(seated) & eliminated, "an eliminated player still seated"
    assert floor.active == len(seated)


def check_balanced(floor: TableFloor) -> None:
    counts = [len(s) for s in floor.tables.values()]
    assert max(counts) - min(counts) <= 1, counts


def settle(floor: TableFloor, rng: random.Random) -> None:
    """Every table finishes a hand with no eliminations, repeated while players move."""
    for _ in range(4 * floor.max_per_table):  # each move lowers the spread: this terminates
        moved = False
        for table in rng.sample(sorted(floor.tables), len(floor.tables)):
            if table in floor.tables:
                bb = rng.randint(1, floor.max_per_table)
                decision = floor.after_hand(table, eliminated=[], big_blind_seat=bb, rng=rng)
                moved = moved or bool(decision.moves)
        if not moved:
            return
    raise AssertionError("balancing did not settle")


def play_tournament(n: int, max_per_table: int, policy: BalancingPolicy, seed: int) -> None:
    rng = random.Random(seed)
    players = {f"p{i}" for i in range(n)}
    floor = TableFloor.seat_players(
        sorted(players), max_per_table=max_per_table, policy=policy, rng=rng
    )
    counts = sorted(len(s) for s in floor.tables.values())
    assert len(counts) == -(-n // max_per_table) and counts[-1] - counts[0] <= 1  # SEAT-1
    eliminated: set[str] = set()
    finals: list[int] = [] if floor.final_table is None else [floor.final_table]
    check_seating(floor, players, eliminated)
    for _ in range(40 * n):
        if floor.active == 1:
            break
        table = rng.choice(sorted(floor.tables))
        seats = dict(floor.tables[table])
        here = sorted(seats.values())
        gone = rng.sample(here, rng.randint(0, min(2, len(here) - 1)))
        out = [p for p in here if p not in gone and rng.random() < 0.2]
        bb = rng.randint(1, max_per_table)
        decision = floor.after_hand(
            table, eliminated=gone, big_blind_seat=bb, sitting_out=out, rng=rng
        )
        eliminated.update(gone)
        check_seating(floor, players, eliminated)

        survivors = {p for p in here if p not in gone}
        for move in decision.moves:
            assert move.player in survivors and seats[move.from_seat] == move.player
            assert move.from_table == table and move.to_table != table
        if decision.closed:
            assert table not in floor.tables
            assert {m.player for m in decision.moves} == survivors
            assert all(m.reason == "close" for m in decision.moves)
        else:
            assert table in floor.tables
            assert all(m.reason == "balance" for m in decision.moves)
        for move in decision.moves:  # reserved where the decision said (nobody moved since)
            assert floor.table_of(move.player) == (move.to_table, move.to_seat)
        if decision.final_table is not None:
            finals.append(decision.final_table)
            assert list(floor.tables) == [decision.final_table]

        if policy == "equilibrium":
            assert len(floor.tables) == -(-floor.active // max_per_table)  # FO-3
            if table in floor.tables:  # FO-2: the reporting table has done its part
                counts = [len(s) for s in floor.tables.values()]
                mine = len(floor.tables[table])
                assert not (mine == max(counts) and min(counts) <= mine - 2), counts
                assert mine < min(counts) + 2, counts  # fullest or not (balance at every boundary)
                assert not floor.owes_players(table)
            if rng.random() < 0.1:
                settle(floor, rng)
                check_seating(floor, players, eliminated)
                check_balanced(floor)
    assert floor.active == 1, "the tournament did not end"
    assert len(finals) == 1 and list(floor.tables) == finals == [floor.final_table]


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=70),
    max_per_table=st.integers(min_value=2, max_value=10),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_fo2_fo3_equilibrium_invariants_over_random_tournaments(
    n: int, max_per_table: int, seed: int
) -> None:
    play_tournament(n, max_per_table, "equilibrium", seed)


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=70),
    max_per_table=st.integers(min_value=2, max_value=10),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_close1_bal1_threshold_invariants_over_random_tournaments(
    n: int, max_per_table: int, seed: int
) -> None:
    play_tournament(n, max_per_table, "threshold", seed)


def test_fo6_and_close1_invariants_on_a_1000_player_tournament() -> None:
    for policy in POLICIES:
        play_tournament(1_000, 10, policy, seed=1_000)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1, max_value=6).flatmap(
        lambda rows: st.integers(min_value=rows, max_value=7).flatmap(
            lambda cols: st.lists(
                st.lists(st.integers(min_value=-20, max_value=50), min_size=cols, max_size=cols),
                min_size=rows,
                max_size=rows,
            )
        )
    )
)
def test_fo5_assignment_is_optimal_against_brute_force(cost: list[list[int]]) -> None:
    chosen = min_cost_assignment(cost)
    assert len(set(chosen)) == len(cost)
    best = min(
        assignment_cost(cost, columns)
        for columns in itertools.permutations(range(len(cost[0])), len(cost))
    )
    assert assignment_cost(cost, chosen) == best
