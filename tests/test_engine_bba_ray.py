"""BBA-1 end to end on real Ray: the big blind ante example played by table actors with decks
from the deck service; every hand history replays in pokerkit (the audit `mtt replay` runs)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from test_run_ray import check_hands_replay_in_pokerkit, read_events
from tournament_checks import check_log

from orchestrator.core.config_toml import load_config
from orchestrator.shell.driver import RunOptions, run_tournament

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
ROOT = Path(__file__).resolve().parent.parent


def test_bba1_the_big_blind_ante_example_runs_end_to_end_on_ray(tmp_path: Path) -> None:
    config = load_config(ROOT / "examples" / "big-blind-ante-180.toml").with_players(27)
    summary = run_tournament(config, RunOptions(out=tmp_path, seed=5))
    check_log(config, read_events(tmp_path))
    check_hands_replay_in_pokerkit(tmp_path, summary.hands)
    big_blind_antes = [
        hand
        for path in sorted((tmp_path / "hands").glob("*.phhs"))
        for hand in tomllib.loads(path.read_text(encoding="utf-8")).values()
        if hand["ante_trimming_status"] is False and any(hand["antes"])
    ]
    assert big_blind_antes  # the ante levels were reached and written as BBA-1 hands
    assert all(sum(1 for a in hand["antes"] if a) == 1 for hand in big_blind_antes)
