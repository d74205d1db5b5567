"""Where table actors go (`orchestrator.shell.placement`), without Ray: the CRASH decision (a
running tournament survives the loss of any node but the last) is cheapest when every lost
table is re-seated on a warm spare, which holds only if no node hosts more tables than the
other nodes keep spares. The same placement on a real cluster: `test_spares_ray.py`."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.shell.placement import least_loaded, spares_to_cover, uncovered


def place(tables: int, live: list[str]) -> list[str]:
    """Each table in turn on the least loaded node, as `TableFleet.create` does."""
    hosted: list[str] = []
    for _ in range(tables):
        node = least_loaded(live, hosted)
        assert node is not None
        hosted.append(node)
    return hosted


def test_crash_tables_go_round_robin_over_the_live_nodes() -> None:
    assert place(7, ["b", "a", "c"]) == ["a", "b", "c", "a", "b", "c", "a"]


def test_crash_session_7s_drill_six_of_ten_on_one_node_no_longer_happens() -> None:
    """Session 7: 6 of 10 tables on the killed node, 4 spares elsewhere, 2 new processes."""
    spares = {"a": 2, "b": 2, "c": 2}
    assert uncovered(["a"] * 6 + ["b"] * 2 + ["c"] * 2, spares) == 2
    assert Counter(place(10, ["a", "b", "c"])) == {"a": 4, "b": 3, "c": 3}
    assert uncovered(place(10, ["a", "b", "c"]), spares) == 0


def test_crash_a_restart_goes_to_the_node_with_fewest_tables_never_the_lost_one() -> None:
    hosted = ["a", "a", "b", "c", "c", "c"]
    assert least_loaded(["a", "c"], hosted) == "a"  # b is the node just lost
    assert least_loaded([], hosted) is None


def test_crash_spares_still_starting_or_on_the_lost_node_do_not_cover_it() -> None:
    hosted = ["a"] * 3 + ["b"] * 3
    assert uncovered(hosted, {"a": 2, "b": 2}, node="a") == 1  # a's own spares die with it
    assert uncovered(hosted, {"a": 2, "b": 3}, node="a") == 0
    assert uncovered(hosted, {}, node="a") == 3  # no spares: every table a new process
    assert uncovered([], {"a": 1}) == 0


@settings(deadline=None)  # no timed assertions: a loaded machine is no failure
@given(tables=st.integers(0, 200), nodes=st.integers(2, 12))
def test_crash_balanced_tables_and_spares_to_cover_leave_no_node_uncovered(
    tables: int, nodes: int
) -> None:
    live = [f"node-{i:02d}" for i in range(nodes)]
    hosted = place(tables, live)
    counts = Counter(hosted)
    assert max(counts.values(), default=0) - min(counts.get(n, 0) for n in live) <= 1
    size = spares_to_cover(tables, nodes=nodes)
    assert uncovered(hosted, dict.fromkeys(live, size)) == 0
    if size:  # and no fewer would do
        assert uncovered(hosted, dict.fromkeys(live, size - 1)) > 0


@pytest.mark.parametrize("nodes", [0, 1])
def test_crash_one_node_needs_no_spares_nothing_survives_its_loss(nodes: int) -> None:
    assert spares_to_cover(10, nodes=nodes) == 0
