"""A satellite and its target end to end on real Ray (SAT-1..SAT-3), as `mtt run` plays them:
the satellite to its seats, then the target with the ticket holders registered by their
tickets; each run's files are audited as `mtt replay` audits them, and the seats appear in
results.json, the lobby and the HTML report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.core.config_toml import load_config
from orchestrator.shell.driver import RunOptions
from orchestrator.shell.satellite import load_target, run_satellite
from orchestrator.views.audit import audit_run
from orchestrator.views.live.lobby import Lobby
from orchestrator.views.report import build_report

# One Ray cluster at a time on 2 cores: these share the xdist group "ray".
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

_LEVELS = """
[levels]
unit = "hands"
length = 3
blinds = [[25, 50, 0], [50, 100, 0], [100, 200, 25], [200, 400, 50], [400, 800, 100]]
"""
SATELLITE = (
    """
[tournament]
name = "sat-30"
players = 30
max_per_table = 6
starting_stack = 2000
buy_in = 1000
fee = 100

[satellite]
seat_value = 5500
target = "target.toml"
"""
    + _LEVELS
)
TARGET = (
    """
[tournament]
name = "target-10"
players = 10
max_per_table = 6
starting_stack = 2000
buy_in = 5000
fee = 500
"""
    + _LEVELS
)


def test_sat3_a_satellite_runs_on_ray_and_its_ticket_holders_play_the_target(
    tmp_path: Path,
) -> None:
    (tmp_path / "sat.toml").write_text(SATELLITE)
    (tmp_path / "target.toml").write_text(TARGET)
    satellite = load_config(tmp_path / "sat.toml")
    target = load_target(satellite, tmp_path / "sat.toml")
    assert target is not None
    out = tmp_path / "run"
    run = run_satellite(satellite, target, RunOptions(out=out, seed=3), announce=lambda _: None)
    # the satellite: 30 x 1000 = 30000 cents pay 5 seats of 5500 and 2500 to place 6
    audit = audit_run(out)
    assert not audit.violations, "\n".join(map(str, audit.violations))
    results = json.loads((out / "results.json").read_text())
    assert results["satellite"] == {
        "seats": 5, "seat_value": 5500, "remainder": 2500, "target": "target.toml"
    }  # fmt: skip
    holders = {r["player"] for r in results["places"] if r.get("ticket") == 5500}
    assert len(holders) == 5 and results["ledger"]["tickets"] == 5 * 5500
    assert [r["prize"] for r in results["places"] if r["place"] == 6] == [2500]
    lobby = Lobby(satellite)
    for line in (out / "events.jsonl").read_text().splitlines():
        lobby.apply(json.loads(line))
    clock = lobby.clock(now=0.0)
    assert clock["status"] == "finished" and set(clock["tickets"]) == holders
    assert clock["payouts"] == [5500] * 5 + [2500]
    page = build_report(out, tmp_path / "report").read_text()
    assert "5</b> seats won" in page and "ticket" in page
    # the target: its 10 bots and the 5 ticket holders, whose tickets paid their entries
    assert run.target is not None
    target_out = out / "target"
    audit = audit_run(target_out)
    assert not audit.violations, "\n".join(map(str, audit.violations))
    played = json.loads((target_out / "results.json").read_text())
    assert played["players"] == 15 and played["prize_pool"] == 15 * 5000
    assert holders <= {r["player"] for r in played["places"]}
    events = [json.loads(line) for line in (target_out / "events.jsonl").read_text().splitlines()]
    opened = events[0]
    assert opened["type"] == "tournament_opened" and opened["tickets"] == dict.fromkeys(
        holders, 5500
    )
    spent = [e for e in events if e["type"] == "ledger_posted" and e["reason"] == "ticket_entry"]
    assert {e["source"] for e in spent} == {f"ticket:{p}" for p in holders}
