"""A progressive knockout (KO-2, KO-3, KO-5) end to end on real Ray: table actors report their
pots, the core pays the bounties through the ledger, and `mtt replay`'s audit of the run's
files balances every cent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tournament_checks import check_log

from orchestrator.core.config_toml import load_config
from orchestrator.shell.driver import RunOptions, run_tournament
from orchestrator.views.audit import audit_run

# One Ray cluster at a time on 2 cores: these share the xdist group "ray".
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_ko2_a_progressive_knockout_runs_on_ray_and_its_money_audits(tmp_path: Path) -> None:
    config = load_config(EXAMPLES / "pko-18.toml")
    summary = run_tournament(config, RunOptions(out=tmp_path, seed=4))
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    check_log(config, events)
    audit = audit_run(tmp_path)  # what `mtt replay` runs: hands, decks, log, results, money
    assert not audit.violations, "\n".join(map(str, audit.violations))
    assert audit.hands == summary.hands
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["prize_pool"] == 18 * config.prize_buy_in
    assert sum(r["bounties"] for r in results["places"]) == 18 * config.bounty
    assert results["ledger"]["bounties_left"] == 0
    hands = [e for e in events if e["type"] == "hand_finished"]
    assert all(e["v"] == 2 for e in hands)  # every hand reports its pots: none for a walk
    assert all(e["pots"] for e in hands if any(p["start"] != p["end"] for p in e["players"]))
    assert sum(e["type"] == "bounty_won" for e in events) >= 17  # one or more per bust
