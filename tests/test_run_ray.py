"""End to end on real Ray: `mtt run` plays whole tournaments with one actor per table, decks
from the real deck service, and leaves files that keep every contract."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil
import pytest
from tournament_checks import check_log

from orchestrator.core.config_toml import load_config, parse_config
from orchestrator.shell.driver import LOCAL_RAY_VARIABLE, RunOptions, run_tournament
from orchestrator.views.audit import (
    audit_hands,
    audit_hands_against_log,
    audit_results,
    audit_run,
    audit_unique_decks,
    read_hand_files,
)

# One Ray cluster at a time on 2 cores: these share the xdist group "ray".
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
ROOT = Path(__file__).resolve().parent.parent


def read_events(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]


def check_hands_replay_in_pokerkit(out: Path, expected_hands: int) -> None:
    """Every hand replays in pokerkit to its finishing stacks, and its deck is the one the
    deck service committed to before the deal, dealt in HE-3 order (RNG-3, DESIGN.md
    "Decks"); no deck dealt twice; the hands, the log and results.json agree. The checks are
    `orchestrator.views.audit`'s."""
    audit = audit_hands(read_hand_files(out / "hands"))
    log, results = read_events(out), json.loads((out / "results.json").read_text())
    violations = [
        *audit.violations,
        *audit_unique_decks(audit.hands),
        *audit_hands_against_log(log, audit.hands),
        *audit_results(log, results),
    ]
    assert not violations, "\n".join(map(str, violations))
    assert audit.replayed == audit.decks_verified == expected_hands == len(audit.hands)


def test_a_multi_table_tournament_runs_to_one_winner_on_ray(tmp_path: Path) -> None:
    config = parse_config(
        {
            "tournament": {
                "name": "ray-e2e",
                "players": 26,
                "max_per_table": 6,
                "starting_stack": 1500,
                "buy_in": 1000,
                "hand_for_hand": 12,
                "late_registration_levels": 2,
                "reentries": 1,
                "late_entries": 4,
            },
            "levels": {"unit": "hands", "length": 4, "blinds": [[10, 20], [25, 50], [50, 100]]},
        }
    )
    summary = run_tournament(config, RunOptions(out=tmp_path, seed=11))
    events = read_events(tmp_path)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    check_log(config, events)
    results = json.loads((tmp_path / "results.json").read_text())
    entries = results["players"]  # re-entries included
    reentries = sum(e["type"] == "player_reentered" for e in events)
    assert entries == 26 + 4 + reentries and results["prize_pool"] == 1000 * entries
    assert [p["place"] for p in results["places"]] == list(range(1, 31))
    assert sum(p["prize"] for p in results["places"]) == 1000 * entries
    assert results["ledger"]["prize_pool_left"] == 0
    assert sum(e["type"] == "hand_for_hand" for e in events) == 2
    assert results["hands"] == summary.hands == sum(e["type"] == "hand_finished" for e in events)
    assert any(e["type"] == "player_moved" for e in events)
    assert any(e["type"] == "table_closed" for e in events)
    check_hands_replay_in_pokerkit(tmp_path, summary.hands)


def test_mtt_run_command_from_an_example_listening_on_127_0_0_1_only(tmp_path: Path) -> None:
    """From a shell that does not set RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER, every process of the
    run (the deck service, Ray's GCS, raylets and workers) listens on the loopback address
    only: before, `mtt run` had imported Ray before defaulting it, and Ray bound the machine's
    address."""
    env = {k: v for k, v in os.environ.items() if k != LOCAL_RAY_VARIABLE}
    command = [sys.executable, "-m", "orchestrator.cli.main", "run"]
    out_dir = tmp_path / "run"
    command += [str(ROOT / "examples/single-table-9.toml"), "--seed", "5", "--out", str(out_dir)]
    listening: dict[str, set[str]] = {}  # process name -> addresses it listened on
    with (tmp_path / "stdout").open("w+") as out, (tmp_path / "stderr").open("w+") as err:
        run = subprocess.Popen(command, env=env, stdout=out, stderr=err)
        while run.poll() is None:
            for name, address in _listening(run.pid):
                listening.setdefault(name, set()).add(address)
            time.sleep(0.2)
    stdout, stderr = ((tmp_path / name).read_text() for name in ("stdout", "stderr"))
    assert run.returncode == 0, stderr
    assert "gcs_server" in listening and "raylet" in listening  # seen while Ray was up
    outside = {n: a for n, a in listening.items() if not a <= LOOPBACK}
    assert not outside, f"listening beyond 127.0.0.1: {outside}"
    assert "wins single-table-9" in stdout
    config = load_config(ROOT / "examples/single-table-9.toml")
    check_log(config, read_events(out_dir))
    results = json.loads((out_dir / "results.json").read_text())
    check_hands_replay_in_pokerkit(out_dir, results["hands"])


LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


def _listening(pid: int) -> list[tuple[str, str]]:
    """(process name, address) of every socket the process and its children listen on."""
    found = []
    with contextlib.suppress(psutil.NoSuchProcess):
        root = psutil.Process(pid)
        for process in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                for connection in process.net_connections(kind="inet"):
                    if connection.status == psutil.CONN_LISTEN:
                        found.append((process.name(), connection.laddr.ip))
    return found


def test_mtt_run_refuses_a_bad_config_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[tournament]\nmax_per_table = 12\n[levels]\nblinds = [[1, 2]]\n")
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "run", str(bad), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "max_per_table must be 2..10, not 12" in done.stderr


@pytest.mark.parametrize(
    "example", ["rebuy-50.toml", "heads-up-knockout-16.toml", "shootout-180.toml"]
)
def test_each_structure_runs_end_to_end_on_ray(example: str, tmp_path: Path) -> None:
    """Rebuys (RB-2..RB-4), a heads-up knockout (SO-5) and shoot-out phases (SO-4), each with
    its table actors (later phases' tables opened by the orchestrator) on real Ray."""
    config = load_config(ROOT / "examples" / example)
    if example == "shootout-180.toml":
        config = config.with_players(40)  # 4 tables of 10 -> 4 players -> the final
    summary = run_tournament(config, RunOptions(out=tmp_path, seed=21))
    events = read_events(tmp_path)
    check_log(config, events)
    kinds = {e["type"] for e in events}
    if config.structure == "rebuy":
        assert {"rebuy", "addon", "side_event_started"} <= kinds
        sides = [e for e in events if e["type"] == "side_event_started"]
        for side in sides:  # RB-6: each side event ran to its end with its own files
            folder = tmp_path / "side-events" / str(side["event"])
            side_config = config.side_event_config(side["event"])
            side_events = read_events(folder)
            check_log(side_config, side_events)
            hands = sum(e["type"] == "hand_finished" for e in side_events)
            check_hands_replay_in_pokerkit(folder, hands)
            assert json.loads((folder / "results.json").read_text())["players"] == 10
    else:
        assert {"phase_started", "player_qualified"} <= kinds
    check_hands_replay_in_pokerkit(tmp_path, summary.hands)


CHAOS = {
    "tournament": {
        "name": "chaos",
        "players": 40,
        "max_per_table": 8,
        "starting_stack": 2000,
        "buy_in": 100,
    },
    "levels": {"unit": "hands", "length": 6, "blinds": [[10, 20], [25, 50], [50, 100]]},
}


def test_a_table_actor_killed_mid_tournament_restarts_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    """The table's hand in progress is voided and the table plays on from a new actor; the
    audit (chips, places, every other hand replayed in pokerkit, decks) finds nothing wrong."""
    import ray

    config = parse_config(CHAOS)
    killed: list[int] = []
    closed: set[int] = set()  # by the log so far: a table closing as it is killed is no test
    restarted: set[int] = set()

    def kill_a_table(status: dict[str, Any]) -> None:
        for event in status["events"]:
            if event["type"] == "table_closed":
                closed.add(event["table"])
            elif event["type"] == "table_restarted":
                restarted.add(event["table"])
        waiting = killed and killed[-1] not in closed and killed[-1] not in restarted
        if restarted or waiting or len(killed) == 3 or status["hands"] < 10:
            return
        orchestrator = ray.get_actor("chaos-7-orchestrator")
        open_tables = set(ray.get(orchestrator.table_nodes.remote())) - closed
        if open_tables:
            table = min(open_tables)
            ray.kill(ray.get_actor(f"chaos-7-table-{table}-1"), no_restart=True)
            killed.append(table)

    # Tight-aggressive bots: a field of random and calling-station bots can be played out
    # between two progress calls (half a second apart) on an idle machine, before any kill.
    options = RunOptions(out=tmp_path, seed=7, bots=("tag",))
    run_tournament(config, options, progress=kill_a_table)
    report = audit_run(tmp_path)
    assert not report.violations, "\n".join(map(str, report.violations))
    events = read_events(tmp_path)
    logged = [e["table"] for e in events if e["type"] == "table_restarted"]
    assert logged and set(logged) <= set(killed)  # each killed table restarted or had closed


def test_chaos_drill_a_node_dies_and_the_tournament_still_finishes(tmp_path: Path) -> None:
    """`mtt run --nodes 3 --kill-node-after S`: a worker node hosting tables is killed; the
    loss is logged, its tables restart on live nodes, one winner, nothing lost."""
    # The lost tables start new actors here (no warm spares: test_spares_ray drills those).
    # Bots that play a while, deep stacks and long levels: with long polls the default bots
    # played an 80-player, 8,000-chip field down to 5 players in half a second of play,
    # before any kill was due.
    deep = {**CHAOS["tournament"], "starting_stack": 8000}
    longer = {**CHAOS["levels"], "length": 30}
    config = parse_config(
        {**CHAOS, "tournament": deep, "levels": longer, "cluster": {"spare_tables": 0}}
    ).with_players(80)
    options = RunOptions(
        out=tmp_path, seed=8, nodes=3, kill_node_after=0.5, bots=("tag", "lag", "station")
    )
    run_tournament(config, options, progress=lambda status: None)
    report = audit_run(tmp_path)
    assert not report.violations, "\n".join(map(str, report.violations))
    events = read_events(tmp_path)
    restarted = {e["table"] for e in events if e["type"] == "table_restarted"}
    voided = {e["table"] for e in events if e["type"] == "hand_voided"}
    assert restarted and voided <= restarted  # the killed node's tables came back
    lost = [e for e in events if e["type"] == "node_lost"]
    assert len(lost) <= 1
    if lost:  # Ray reported the node's death in time: it names tables that died with it
        # (issue 6's bug listed tables that were never restarted). A table whose new actor had
        # not yet said where it runs when the node died is restarted but cannot be named.
        # A table lost between two hands (waiting for play to start, START-1, or for the
        # slowest table) has no hand to void: its loss is logged as table_lost.
        closed = {e["table"] for e in events if e["type"] == "table_closed"}
        between = {e["table"] for e in events if e["type"] == "table_lost"}
        assert set(lost[0]["tables"]) <= (restarted | closed) & (voided | between)


def test_operator_pauses_resumes_and_cancels_a_running_tournament(tmp_path: Path) -> None:
    """Paused, tables finish their hand and deal no more; resumed and cancelled (CRASH-2),
    every table closes, the run ends with everyone still in rolled forward, and the
    audit of the folder is clean."""
    import ray

    config = parse_config(CHAOS)
    seen: dict[str, int] = {}

    def operate(status: dict[str, Any]) -> None:
        orchestrator = ray.get_actor("chaos-9-orchestrator")
        hands = status["hands"]
        if "paused" not in seen and hands >= 5:
            ray.get(orchestrator.pause.remote())
            seen["paused"] = hands
        elif "paused" in seen and "resumed" not in seen:
            seen["calls"] = seen.get("calls", 0) + 1
            if seen["calls"] == 6:  # 3 s paused
                assert ray.get(orchestrator.status.remote())["paused"]
                ray.get(orchestrator.resume.remote())
                seen["resumed"] = hands
                # At once: on an idle machine the 40 bots play the field out within half a
                # second of the resume, before the next progress call.
                ray.get(orchestrator.cancel.remote("the room lost power"))
                seen["cancelled"] = hands

    # Tight-aggressive bots: random and calling-station bots can play the field out before
    # the first progress call on an idle machine, and the pause is then refused.
    options = RunOptions(out=tmp_path, seed=9, bots=("tag",))
    summary = run_tournament(config, options, progress=operate)
    assert summary.results["cancelled"] == "the room lost power"
    report = audit_run(tmp_path)
    assert not report.violations, "\n".join(map(str, report.violations))
    events = read_events(tmp_path)
    kinds = [e["type"] for e in events]
    assert kinds.count("tournament_paused") == kinds.count("tournament_resumed") == 1
    paused, resumed = kinds.index("tournament_paused"), kinds.index("tournament_resumed")
    dealt = [e["table"] for e in events[paused:resumed] if e["type"] == "hand_finished"]
    while_paused = Counter(dealt)
    assert all(n == 1 for n in while_paused.values())  # only the hands already in progress
    assert "tournament_finished" not in kinds and "roll_forward_paid" in kinds
