"""Outages of the parts around the tables on real Ray (issue 15): the deck service `mtt run`
started is killed mid-run; the run restarts it on its port and store, says so, and finishes
clean with no hand voided for it (before, the run hung while its tables failed and restarted
in a loop, voiding a hand each time)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from conftest import RedisServer, deck_service_children

from orchestrator.core.config_toml import parse_config
from orchestrator.errors import StoreLost
from orchestrator.shell.driver import RunOptions, run_tournament
from orchestrator.views.audit import audit_run, read_events

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

CONFIG = {
    "tournament": {
        "name": "decks",
        "players": 80,
        "max_per_table": 8,
        "starting_stack": 2000,
        "buy_in": 100,
    },
    "levels": {"unit": "hands", "length": 6, "blinds": [[10, 20], [25, 50], [50, 100]]},
}


def test_the_deck_service_killed_mid_run_is_restarted_and_no_hand_is_voided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    killed: list[int] = []

    def kill_the_deck_service(status: dict[str, Any]) -> None:
        if not killed and status["hands"] >= 1:
            (child,) = deck_service_children()
            child.send_signal(signal.SIGKILL)
            killed.append(child.pid)

    summary = run_tournament(
        parse_config(CONFIG), RunOptions(out=tmp_path, seed=12), progress=kill_the_deck_service
    )
    assert killed and summary.results["places"][0]["place"] == 1
    said = capsys.readouterr().out
    assert "the deck service exited (killed by SIGKILL); restarted on 127.0.0.1:" in said
    report = audit_run(tmp_path)
    assert not report.violations, "\n".join(map(str, report.violations))
    kinds = {e["type"] for e in read_events(tmp_path / "events.jsonl")}
    assert "hand_voided" not in kinds and "table_restarted" not in kinds
    assert not deck_service_children()


def test_rng3_a_redis_restarted_empty_mid_run_stops_it_with_one_clear_error(
    tmp_path: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 15 part 7: a Redis with no persistence restarted mid-run comes back empty. Before,
    the run finished (exit 0) dealing decks again with serials from 1 (43 repeated serials).
    Now the store's epoch is gone: the run stops with `StoreLost`, the deck service stops and
    is not restarted, and no deck is dealt from the empty store."""
    restarted: list[int] = []

    def restart_redis_empty(status: dict[str, Any]) -> None:
        if not restarted and status["hands"] >= 2:
            redis_server.restart()
            restarted.append(status["hands"])

    options = RunOptions(out=tmp_path, seed=12, store=redis_server.url)
    with pytest.raises(StoreLost, match="lost its data: it holds no epoch, not epoch "):
        run_tournament(parse_config(CONFIG), options, progress=restart_redis_empty)
    assert restarted
    with redis_server.client() as client:
        assert client.get(b"mtt:udn") in (None, b"0")  # no deck recorded (so dealt) since
        assert client.get(b"mtt:epoch") is None  # nothing wrote a new epoch behind our back
    assert "restarted on" not in capsys.readouterr().out
    assert not deck_service_children()
