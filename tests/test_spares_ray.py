"""Issue 19 parts 1 and 2 on real Ray: what a table process imports, and warm spare table
actors taking over a lost node's tables.

- A table actor's process imports the engine, the bots, the protocol and the deck client,
  and none of the core, the stores, the metrics, the heavy packages or eval7's hand-range
  parser (only its compiled evaluator, `table_worker.evaluator`), nor the deck service's
  health check (its watchers'): looked at from inside
  a real table actor of a running tournament (Ray's `__ray_call__` runs a function in the
  actor's process), beside a bare Ray actor (Ray's own worker imports a little of starlette).
- A node killed in the middle of play: its tables are re-seated on the spares the other
  nodes kept (each spare says which table it plays, `seated`), the pool fills up again, and
  the run's audit is clean. How much faster that is: `mtt bench failover`."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from orchestrator.core.config_toml import parse_config
from orchestrator.shell.driver import RunOptions, run_tournament
from orchestrator.views.audit import audit_run, read_events

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

FIELD = ("tag", "lag", "station")  # bots that play a while: the kill lands in play
HEAVY = ("numpy", "networkx", "matplotlib", "pokerkit", "prometheus_client", "redis", "sqlite3")
# eval7's hand-range parser, which its package imports: the table loads only its evaluator.
RANGE_PARSER = ("pyparsing", "unittest")
EVAL7_EVALUATOR = {"eval7.cards", "eval7.evaluate"}
THE_ORCHESTRATOR = ("orchestrator.core", "orchestrator.views", "orchestrator.shell.actor")
# The deck service's health check (`rng_service.health`) is its watchers', not a table's.
HEALTH_STUBS = ("grpc_health.v1", "rng_service.health")


def config(
    players: int, *, spares: int, stack: int = 3000, length: int = 10, per_table: int = 8
) -> Any:
    return parse_config(
        {
            "tournament": {
                "name": "spares",
                "players": players,
                "max_per_table": per_table,
                "starting_stack": stack,
            },
            "levels": {
                "unit": "hands",
                "length": length,
                "blinds": [[10, 20], [15, 30], [25, 50], [50, 100]],
            },
            "cluster": {"spare_tables": spares},
        }
    )


def modules_of(actor: Any) -> set[str]:
    import ray

    # A lambda is sent by value: the actor's process imports nothing to run it.
    return set(ray.get(actor.__ray_call__.remote(lambda _self: list(__import__("sys").modules))))


def test_a_table_process_imports_neither_the_core_nor_heavy_packages(tmp_path: Path) -> None:
    import ray

    seen: dict[str, set[str]] = {}

    def look_inside(status: dict[str, Any]) -> None:
        tables = [n for n in ray.util.list_named_actors() if "-table-" in n]
        if seen or not status["hands"] or not tables:
            return

        class Bare:
            pass

        bare: Any = ray.remote(num_cpus=0)(Bare).remote()
        seen["table"] = modules_of(ray.get_actor(tables[0]))
        seen["bare"] = modules_of(bare)
        ray.kill(bare)

    run_tournament(
        config(24, spares=0),
        RunOptions(out=tmp_path, seed=3, bots=FIELD, ray_logs=False),
        progress=look_inside,
    )
    table, bare = seen["table"], seen["bare"]
    assert {"table_worker.engine", "table_worker.bots", "rng_service.client"} <= table
    heavy = {m for m in table if m.split(".")[0] in HEAVY}
    assert not heavy, sorted(heavy)
    assert not {m for m in bare if m.split(".")[0] in RANGE_PARSER}  # else the check says nothing
    ranges = {m for m in table if m.split(".")[0] in RANGE_PARSER}
    assert not ranges, sorted(ranges)
    assert {m for m in table if m.split(".")[0] == "eval7"} == EVAL7_EVALUATOR
    core = {m for m in table if m.startswith(THE_ORCHESTRATOR)}
    assert not core, sorted(core)
    health = {m for m in table if m.startswith(HEALTH_STUBS)}
    assert not health, sorted(health)
    assert {m for m in table if m.startswith("starlette")} <= bare  # Ray's own, no more


def test_a_lost_nodes_tables_are_reseated_on_warm_spares_and_the_pool_refills(
    tmp_path: Path,
) -> None:
    """Spares answer `seated` with the table they took; sampled while the run plays. They are
    asked for with the opening tables: the first look, once the orchestrator started its
    tables, finds every node's (they used to wait for the last table to answer, and a field
    could play out before they were up)."""
    import ray

    samples: list[tuple[float, set[int], int]] = []  # (when, tables on spares, spares free)
    first: list[dict[str, Any]] = []

    def watch_spares(status: dict[str, Any]) -> None:
        first[:] = first or [status]
        tables: set[int] = set()
        free = 0
        for name in ray.util.list_named_actors():
            if "-spare-" not in name:
                continue
            try:
                spare: Any = ray.get_actor(name)
                seated: tuple[int, int] | None = ray.get(spare.seated.remote(), timeout=0.5)
            except (ValueError, ray.exceptions.RayError):
                continue  # still starting, on the node being killed, or let go
            if seated is None:
                free += 1
            else:
                tables.add(seated[0])
        samples.append((time.time(), tables, free))

    done = run_tournament(
        # The kill comes once every node holds its spare (the driver waits for them, a few
        # seconds at most): one each. Deep stacks and long levels (about 2,000 hands), so
        # several tables still play then on a loaded machine too.
        config(64, spares=1, stack=24000, length=60),
        RunOptions(out=tmp_path, seed=5, bots=FIELD, nodes=3, kill_node_after=0.5, ray_logs=False),
        progress=watch_spares,
    )
    assert first[0]["spares"] == 3, first  # one per node, asked for with the opening tables
    report = audit_run(tmp_path)
    assert not report.violations, "\n".join(map(str, report.violations))
    events = read_events(tmp_path / "events.jsonl")
    restarted = {e["table"] for e in events if e["type"] == "table_restarted"}
    assert restarted and done.node_killed_at is not None
    # CRASH decision: 8 tables pinned evenly over 3 nodes, so the node lost held at most 3
    # (Ray's "SPREAD" alone once put 6 of 10 on one).
    lost = {e["table"] for e in events if e["type"] in ("hand_voided", "table_lost")}
    assert len(lost) <= 3, lost
    on_spares = set().union(*(tables for _, tables, _ in samples))
    # Lost tables took the spares ready on the live nodes (sampled: one that closed soon
    # after may be missed; one lost beyond the spares ready starts a new actor).
    assert on_spares and on_spares <= restarted, (restarted, on_spares)
    after = [free for when, tables, free in samples if tables and when > done.node_killed_at]
    assert max(after, default=0) >= 1, after  # refilled: a free spare again beside them
    assert any(e["type"] == "tournament_finished" for e in events)


def test_crash_opening_tables_are_pinned_evenly_over_the_live_nodes(tmp_path: Path) -> None:
    """CRASH decision: each table is pinned to the live node hosting the fewest (hard node
    affinity), so no node holds more than its share, ceil(10 / 3) = 4 of 10, and the other
    nodes' spares can take a lost node's tables. Ray's "SPREAD" alone put 6 of 10 on one."""
    import ray

    seen: list[tuple[int, Counter[str], set[str]]] = []  # (tables open, by node, live nodes)

    def look(status: dict[str, Any]) -> None:
        # As soon as every opening table's actor is asked for: before play no table closes.
        tables = [n for n in ray.util.list_named_actors() if "-table-" in n]
        if seen or len(tables) < status["tables"]:
            return
        nodes = Counter(ray.get([ray.get_actor(n).node.remote() for n in tables], timeout=60))
        live = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        seen.append((status["tables"], nodes, live))

    run_tournament(
        config(40, spares=0, per_table=4),
        RunOptions(out=tmp_path, seed=2, bots=FIELD, nodes=3, ray_logs=False),
        progress=look,
    )
    tables, nodes, live = seen[0]
    assert tables == 10 and sum(nodes.values()) == 10, seen
    assert set(nodes) == live and len(live) == 3  # every node hosts tables
    assert sorted(nodes.values()) == [3, 3, 4], nodes
