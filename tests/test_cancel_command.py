"""CRASH-2 by hand (`mtt cancel --store`): a tournament whose orchestrator died for good is
rebuilt from the store it wrote, cancelled and rolled forward; the step lands in the store's
log and the run folder, and the whole log keeps every invariant of a cancelled run."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import RedisServer
from test_tournament_core import config, play
from tournament_checks import check_log, funds, open_logged

from orchestrator.core.events import TournamentOpened
from orchestrator.core.replay import step_rng
from orchestrator.shell.eventlog import event_time
from orchestrator.shell.store import Store, open_store

STREAM = "cup-5/0a1b2c"


def orchestrator_dies_after(
    store: Store, folder: Path, hands: int, *, log_alone: bool = False
) -> list[dict[str, Any]]:
    """What an orchestrator leaves in its store when it dies for good after `hands` hands: the
    registered run, the log (the steps driven as the actor drives them, its opening record
    first), the opening snapshot and its lease, left to expire; with `log_alone`, no snapshot
    and no seed in the registry: the log alone (the config, players, deposits and seed)."""
    cfg = config(players=30, max_per_table=8, buy_in=1000, fee=100)
    seed, rng = 5, random.Random(5)
    meta = {"tournament": "cup-5", "run": "0a1b2c", "out": str(folder)}
    store.register(STREAM, meta if log_alone else {**meta, "seed": 5})
    now = event_time(1_700_000_000.0)
    players = [f"p{k}" for k in range(30)]
    opened = TournamentOpened(
        tournament="cup-5",
        config=cfg,
        players=tuple(players),
        deposits=funds(cfg, players),
        seed=seed,
    )
    tournament, log, ready = open_logged(store, STREAM, opened, now=now, snapshot_it=not log_alone)
    while tournament.hands < hands:
        table = rng.choice(sorted(ready))
        directive = ready.pop(table)
        if directive.next_hand is None:
            step = tournament.poll(table, now=now, rng=step_rng(seed, log.seq))
        else:
            now += 1.0
            report = play(directive.next_hand, rng)
            step = tournament.apply_hand(report, now=now, rng=step_rng(seed, log.seq))
        log.append(step.events, ts=now)
        assert step.reply is not None
        if not step.reply.close:
            ready[table] = step.reply
    store.acquire(STREAM, "cup-5-orchestrator", 0.2)  # the dead owner's lease runs out
    return store.read(STREAM)


def mtt(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "orchestrator.cli.main", "cancel", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_crash2_mtt_cancel_rolls_forward_a_tournament_whose_orchestrator_died(
    backend: str, tmp_path: Path, redis_server: RedisServer
) -> None:
    url = redis_server.url if backend == "redis" else f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    # 8 hands: 24 of 30 out, nobody in the money yet (the tables keep in step now, so the
    # random bots' first hands go round every table before any table plays on)
    before = orchestrator_dies_after(store, tmp_path, hands=8)
    store.close()
    time.sleep(0.3)
    done = mtt("cup-5", "--reason", "the venue flooded", "--store", url)
    assert done.returncode == 0, done.stderr
    assert "cancelled (the venue flooded)" in done.stdout
    store = open_store(url)
    log = store.read(STREAM)
    added = log[len(before) :]
    assert log[: len(before)] == before  # nothing rewritten
    assert added[0]["type"] == "tournament_cancelled" and added[0]["reason"] == "the venue flooded"
    check_log(config(players=30, max_per_table=8, buy_in=1000, fee=100), log)
    on_file = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert on_file == log
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["cancelled"] == "the venue flooded"
    rolled = [e for e in added if e["type"] == "roll_forward_paid"]
    assert sum(e["equal_share"] + e["chip_share"] for e in rolled) == 30 * 1000
    # a second cancel is refused and changes nothing
    again = mtt("cup-5", "--reason", "twice", "--store", url)
    assert again.returncode == 1 and "cancelled" in again.stderr
    assert store.read(STREAM) == log
    store.close()


def test_crash2_mtt_cancel_rebuilds_from_the_log_alone(tmp_path: Path) -> None:
    """The log's opening record holds all the start was given: no snapshot, no seed in the
    registry, and the cancellation still rolls everyone forward."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    before = orchestrator_dies_after(store, tmp_path, hands=8, log_alone=True)  # nobody paid yet
    assert store.load_snapshot(STREAM) is None and "seed" not in store.meta(STREAM)
    store.close()
    time.sleep(0.3)
    done = mtt("cup-5", "--reason", "the venue flooded", "--store", url)
    assert done.returncode == 0, done.stderr
    store = open_store(url)
    log = store.read(STREAM)
    store.close()
    assert log[: len(before)] == before and log[0]["type"] == "tournament_opened"
    added = log[len(before) :]
    assert added[0]["type"] == "tournament_cancelled"
    check_log(config(players=30, max_per_table=8, buy_in=1000, fee=100), log)
    rolled = [e for e in added if e["type"] == "roll_forward_paid"]
    assert sum(e["equal_share"] + e["chip_share"] for e in rolled) == 30 * 1000


def test_mtt_cancel_refuses_while_a_live_orchestrator_holds_the_tournament(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    before = orchestrator_dies_after(store, tmp_path, hands=4)
    assert store.acquire(STREAM, "cup-5-orchestrator", 60.0)  # alive after all
    refused = mtt("cup-5", "--reason", "x", "--store", url)
    assert refused.returncode == 1
    assert "cup-5-orchestrator" in refused.stderr and "cancel through it" in refused.stderr
    assert store.read(STREAM) == before
    unknown = mtt("nope", "--reason", "x", "--store", url)
    assert unknown.returncode == 2 and "no tournament 'nope'" in unknown.stderr
    blank = mtt("cup-5", "--reason", " ", "--store", url)
    assert blank.returncode == 1 and "reason" in blank.stderr
    store.close()
