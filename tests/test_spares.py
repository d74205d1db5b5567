"""Warm spare table actors (issue 19 part 2), the pure parts: the pool's bookkeeping
(`orchestrator.shell.tables.SparePool`: which spare a lost table takes, how many a node lacks)
and `[cluster] spare_tables` in the config. The pool on real Ray: `test_spares_ray.py`."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from orchestrator.core.config_toml import parse_config
from orchestrator.errors import ConfigError
from orchestrator.shell.tables import Spare, SparePool

BASE: dict[str, Any] = {
    "tournament": {"name": "t", "players": 20, "max_per_table": 8},
    "levels": {"blinds": [[10, 20]]},
}


def pool(*spares: tuple[str, bool], size: int = 2) -> SparePool:
    found = SparePool(size)
    for node, ready in spares:
        found.add(object(), node).ready = ready
    return found


def test_a_lost_table_takes_a_ready_spare_on_the_node_hosting_fewest_tables() -> None:
    spares = pool(("a", True), ("b", True), ("b", True))
    taken = spares.take(avoid="c", hosted=["a", "a", "b"])
    assert isinstance(taken, Spare) and taken.node == "b"
    assert [s.node for s in spares.spares] == ["a", "b"]  # taken off the pool, once


def test_no_spare_on_the_lost_node_nor_on_one_that_lost_a_table_nor_one_still_starting() -> None:
    spares = pool(("lost", True), ("earlier", True), ("a", False))
    spares.lost_nodes.add("earlier")
    assert spares.take(avoid="lost", hosted=[]) is None
    assert len(spares.spares) == 3  # nothing taken: the restart starts a new actor


def test_a_node_lacks_the_spares_it_does_not_have_those_starting_count() -> None:
    spares = pool(("a", True), ("a", False), ("b", True), size=2)
    assert (spares.missing("a"), spares.missing("b"), spares.missing("c")) == (0, 1, 2)


def test_spares_on_a_node_no_longer_live_leave_the_pool() -> None:
    spares = pool(("a", True), ("dead", True), ("", False))
    gone = spares.gone({"a"})
    assert [s.node for s in gone] == ["dead"]
    assert [s.node for s in spares.spares] == ["a", ""]  # one found at a restart, node unknown


def test_cluster_spare_tables_is_read_and_defaults_to_one() -> None:
    assert parse_config(BASE).spare_tables == 1
    assert parse_config(BASE | {"cluster": {"spare_tables": 0}}).spare_tables == 0
    assert parse_config(BASE | {"cluster": {"spare_tables": 3}}).spare_tables == 3


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        ({"spare_tables": -1}, "cluster.spare_tables must be 0..16, not -1"),
        ({"spare_tables": 2.5}, "cluster.spare_tables must be a whole number"),
        ({"spares": 2}, "[cluster]: unknown key spares"),
        (3, "[cluster] must be a table of settings"),
    ],
)
def test_a_bad_cluster_setting_is_refused_naming_its_key(cluster: object, message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_config(BASE | {"cluster": cluster})
    assert message in str(refused.value)


def test_the_failover_bench_sets_both_paths_side_by_side_with_their_ratio() -> None:
    from orchestrator.shell.drill import DrillRun, compare

    def run(seed: int, seconds: float, ok: bool = True) -> DrillRun:
        return DrillRun(seed, ok, 3, 3, 0.5, True, 0, death_to_dealing_seconds=seconds)

    old = [run(1, 6.0), run(2, 8.0), run(3, 4.0)]
    spares = [run(1, 1.5), run(2, 2.0, ok=False), run(3, 1.0)]
    figures = compare(old, spares, spare_tables=2)
    assert figures["runs"] == 6 and figures["succeeded"] == 5
    assert (figures["no_spares_death_to_dealing_p50"], figures["spares_death_to_dealing_p50"]) == (
        6.0,
        1.5,
    )
    assert figures["no_spares_death_to_dealing_max"] == 8.0
    assert figures["speedup_p50"] == 4.0 and figures["speedup_p95"] == 4.0  # 8.0 / 2.0


def test_the_orchestrators_light_ray_class_answers_every_call_of_its_body_alike() -> None:
    """`OrchestratorCalls` (what table processes load) forwards each public call of the body
    (`shell.actor.Orchestrator`) under the same name and parameters: a call added to one
    and not the other fails here, not on a cluster."""
    from orchestrator.shell.actor import Orchestrator
    from orchestrator.shell.orchestrator_actor import OrchestratorCalls

    def calls(cls: type) -> dict[str, list[tuple[str, object, object]]]:
        return {
            name: [
                (p.name, p.kind, p.default)
                for p in inspect.signature(getattr(cls, name)).parameters.values()
                if p.name != "_ray_trace_ctx"  # Ray's decorator adds it to the class it wraps
            ]
            for name in dir(cls)
            if name == "__init__" or (not name.startswith("_") and callable(getattr(cls, name)))
        }

    assert calls(OrchestratorCalls) == calls(Orchestrator)


@pytest.mark.parametrize(
    ("after_its_time", "ready", "due"),
    [
        (-0.1, 6, False),  # not yet its time
        (0.0, 6, True),  # its time, every spare up
        (2.0, 4, False),  # its time, waiting for the last spares
        (None, 4, True),  # waited SPARES_PATIENCE for them: killed anyway (and said)
    ],
)
def test_a_drills_kill_waits_for_every_spare_but_not_past_its_deadline(
    after_its_time: float | None, ready: int, due: bool
) -> None:
    from orchestrator.shell.driver import SPARES_PATIENCE, kill_due

    played = 1.0 + (SPARES_PATIENCE if after_its_time is None else after_its_time)
    assert kill_due(played, kill_after=1.0, ready=ready, wanted=6) is due


def test_a_drill_without_spares_kills_on_time() -> None:
    from orchestrator.shell.driver import kill_due

    assert kill_due(1.0, kill_after=1.0, ready=0, wanted=0)


def drill_log(*events: tuple[str, float, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": kind, "ts": ts, **fields} for kind, ts, fields in events]


def test_a_drills_phases_run_from_the_kill_to_the_last_tables_first_card() -> None:
    """Ray reports the first loss, the restarts are logged, and each restarted table deals
    its first card `seconds - deck_wait_seconds` before its first report."""
    from orchestrator.shell.drill import restart_phases

    log = drill_log(
        ("tournament_started", 0.0, {}),
        ("play_started", 3.0, {}),
        ("hand_finished", 10.5, {"table": 3, "seconds": 0.1, "deck_wait_seconds": 0.0}),
        ("hand_voided", 11.0, {"table": 3}),
        ("table_lost", 11.1, {"table": 5}),
        ("table_restarted", 11.3, {"table": 5}),
        ("table_restarted", 11.4, {"table": 3}),
        ("hand_finished", 11.9, {"table": 5, "seconds": 0.2, "deck_wait_seconds": 0.05}),
        ("hand_finished", 12.2, {"table": 3, "seconds": 0.5, "deck_wait_seconds": 0.2}),
        ("hand_finished", 12.9, {"table": 3, "seconds": 0.5, "deck_wait_seconds": 0.0}),
    )
    phases = restart_phases(log, killed=10.0)
    assert phases.tables == {3, 5}
    assert (phases.detected, phases.restart_logged) == (1.0, 1.4)
    assert phases.dealing == 1.9  # table 3: 12.2 - 0.5 + 0.2, its first hand after its restart
    assert (phases.restart_seconds, phases.startup) == (0.4, 3.0)


def test_a_table_restarted_twice_deals_again_after_its_last_restart() -> None:
    from orchestrator.shell.drill import restart_phases

    log = drill_log(
        ("hand_voided", 11.0, {"table": 6}),
        ("table_restarted", 11.2, {"table": 6}),
        ("hand_finished", 11.3, {"table": 6, "seconds": 0.05, "deck_wait_seconds": 0.0}),
        ("hand_voided", 11.5, {"table": 6}),
        ("table_restarted", 11.7, {"table": 6}),
        ("hand_finished", 12.0, {"table": 6, "seconds": 0.1, "deck_wait_seconds": 0.0}),
    )
    assert restart_phases(log, killed=10.0).dealing == 1.9


def test_a_restarted_table_that_deals_no_more_counts_at_its_restart() -> None:
    """Closed (its players moved) or the tournament over at its restart: nothing to deal."""
    from orchestrator.shell.drill import restart_phases

    log = drill_log(("hand_voided", 11.0, {"table": 2}), ("table_restarted", 11.5, {"table": 2}))
    phases = restart_phases(log, killed=10.0)
    assert (phases.dealing, phases.restart_logged) == (1.5, 1.5)


def test_no_kill_no_phases_from_it() -> None:
    from orchestrator.shell.drill import restart_phases

    log = drill_log(("hand_voided", 11.0, {"table": 2}), ("table_restarted", 11.5, {"table": 2}))
    phases = restart_phases(log, killed=None)
    assert (phases.detected, phases.dealing, phases.restart_seconds) == (0.0, 0.0, 0.5)
