"""DEAL-1..DEAL-3 on Ray: the operator pauses the final table and proposes a deal through the
orchestrator actor; the bots accept by `[deal] bots_accept`; the run ends and audits clean."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.core.config_toml import parse_config
from orchestrator.errors import DealError
from orchestrator.shell.driver import RunOptions, run_tournament
from orchestrator.views.audit import audit_run, read_events

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

DEAL = {
    "tournament": {
        "name": "deal",
        "players": 6,  # one table, the final table from the start
        "max_per_table": 6,
        "starting_stack": 5000,
        "buy_in": 1000,
        "fee": 100,
    },
    "levels": {"unit": "hands", "length": 20, "blinds": [[10, 20], [25, 50], [50, 100]]},
    "payouts": {"percent": [50, 30, 20]},
    "deal": {"bots_accept": "always"},
}


def test_deal3_the_operator_proposes_a_deal_at_the_final_table_and_the_bots_take_it(
    tmp_path: Path,
) -> None:
    import ray

    config = parse_config(DEAL)
    seen: dict[str, Any] = {}

    def operate(status: dict[str, Any]) -> None:
        if "dealt" in seen or status["tables"] != 1 or status["players_left"] < 2:
            return
        orchestrator = ray.get_actor("deal-4-orchestrator")
        if "paused" not in seen:
            ray.get(orchestrator.pause.remote())
            seen["paused"] = True
        try:  # the table may still be finishing its hand: ask again at the next call
            ray.get(orchestrator.propose_deal.remote("icm"))
        except DealError as refused:
            assert "in a hand" in str(refused)
            return
        seen["dealt"] = status["players_left"]

    # Tight-aggressive bots: the field lasts past the first progress calls (bots play a
    # 12-player field down to its final table between two calls half a second apart).
    options = RunOptions(out=tmp_path, seed=4, bots=("tag",))
    summary = run_tournament(config, options, progress=operate)
    assert "dealt" in seen, "the final table was never reached between two progress calls"
    report = audit_run(tmp_path)
    assert not report.violations, "\n".join(map(str, report.violations))
    events = read_events(tmp_path / "events.jsonl")
    paid = [e for e in events if e["type"] == "deal_paid"]
    assert len(paid) == seen["dealt"] and [e["place"] for e in paid] == list(
        range(1, len(paid) + 1)
    )
    answered = [e for e in events if e["type"] == "deal_answered"]
    assert len(answered) == len(paid) and all(e["accepted"] for e in answered)
    (finished,) = (e for e in events if e["type"] == "tournament_finished")
    assert finished["seq"] > paid[-1]["seq"] and finished["winner"] == paid[0]["player"]
    assert not [e for e in events if e["type"] == "hand_finished" and e["seq"] > finished["seq"]]
    assert summary.results["prize_pool"] == 6000
