"""`mtt bench scale` on a small field: the whole tournament through the core and the durable
store ends with one winner and every chip and cent accounted for, with the fast hand model and
with the engine; the fast model keeps chips exact and is calibrated to the engine's pace of
eliminations within 10%; Pace's incremental sync (START-2) agrees with a scan of every table."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from tournament_checks import check_log

from orchestrator.cli.bench_scale import growth
from orchestrator.cli.main import main
from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_toml import load_config
from orchestrator.core.pace import Pace
from orchestrator.errors import ConfigError
from orchestrator.shell.bench_scale import FastHands, ScaleOptions, bench_scale, calibrate
from table_worker.protocol import Blinds, NextHand

ONLINE_REGULAR = "examples/online-regular-1000.toml"


def online_regular(players: int) -> TournamentConfig:
    return load_config(ONLINE_REGULAR).with_players(players)


@pytest.mark.parametrize(("hands", "players"), [("model", 300), ("engine", 120)])
def test_bench_scale_one_winner_every_chip_and_cent_accounted_for(hands: str, players: int) -> None:
    cfg = online_regular(players)
    figures = bench_scale(ScaleOptions(config=cfg, hands=hands, seed=3), keep_log=True)
    log: list[dict[str, Any]] = figures["log"]
    check_log(cfg, log)  # chips conserved, places, prizes = pool, cents by the ledger
    finished = [r for r in log if r["type"] == "tournament_finished"]
    assert len(finished) == 1 and finished[0]["winner"] == figures["winner"]
    eliminated = [r for r in log if r["type"] == "player_eliminated"]
    assert len(eliminated) == players - 1  # ELIM: everyone but the winner placed once
    assert figures["reports"] == figures["hands"] == finished[0]["hands"]
    assert figures["core_p99_ms"] >= figures["core_p50_ms"] > 0


def test_fast_model_eliminates_at_the_engines_rate_within_10_percent() -> None:
    """The calibration docs/BENCHMARKS.md records: hands per tournament with the fast model
    over hands with the engine and the field's bots, same config and seeds."""
    figures = calibrate(online_regular(300), seeds=(1, 2, 3))
    assert 0.9 <= figures["ratio"] <= 1.1, figures


def test_fast_model_keeps_every_chip_and_ends_all_ins() -> None:
    rng = random.Random(5)
    model = FastHands(random.Random(6))
    busted = 0
    for hand in range(1, 2001):
        seats = sorted(rng.sample(range(1, 10), rng.randint(2, 9)))
        stacks = [rng.choice([1, 50, 400, 3_000, 10_000, 60_000]) for _ in seats]
        spec = NextHand(
            table=1,
            hand=hand,
            seats=tuple((s, f"p{s}", c) for s, c in zip(seats, stacks, strict=True)),
            blinds=Blinds(button=seats[0], small_blind=seats[1 % len(seats)], big_blind=seats[-1]),
            level=1,
            small_blind=100,
            big_blind=200,
            ante=25,
            betting="no",
        )
        report = model.play(spec)
        assert sum(p.end for p in report.players) == sum(stacks)
        assert all(p.end >= 0 for p in report.players)
        busted += sum(1 for p in report.players if not p.end)
    assert busted > 0


def test_bench_scale_refuses_what_it_does_not_play() -> None:
    with pytest.raises(ConfigError, match="pace"):
        ScaleOptions(config=online_regular(20), pace="sunday")
    with pytest.raises(ConfigError, match="hands"):
        ScaleOptions(config=online_regular(20), hands="cards")
    with pytest.raises(ConfigError, match="freeze-out"):
        ScaleOptions(config=load_config("examples/rebuy-50.toml"))


def test_start2_incremental_sync_agrees_with_a_scan_of_every_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pace.sync with the tables a step names keeps the same pacing set, hands and slowest
    table as a scan of every table, at every step of a whole tournament."""
    incremental = Pace.sync
    steps = 0

    def checked(self: Pace, seating: Any, changed: Any = None) -> None:
        nonlocal steps
        scanned = copy.deepcopy(self)
        scanned._sync_all(seating)
        incremental(self, seating, changed)
        assert self.pacing == scanned.pacing
        assert {t: self.hands[t] for t in self.pacing} == {
            t: scanned.hands[t] for t in scanned.pacing
        }
        assert self.slowest() == scanned.slowest()
        steps += 1

    monkeypatch.setattr(Pace, "sync", checked)
    bench_scale(ScaleOptions(config=online_regular(200), seed=2))
    assert steps > 1000


def test_sweep_slopes_read_log_log() -> None:
    runs = [{"players": 1000, "hands": 10_000}, {"players": 10_000, "hands": 100_000}]
    assert growth(runs)["hands"] == [1.0]


def test_sweep_runs_each_size_in_its_own_process_and_prints_slopes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "scale", "--sweep", "--sizes", "120,60", "--json"]) == 0
    sweep = json.loads(capsys.readouterr().out)
    assert [run["players"] for run in sweep["runs"]] == [60, 120]
    assert all(run["winner"] for run in sweep["runs"])
    assert len(sweep["slopes"]["hands"]) == 1 and sweep["slopes"]["hands"][0] > 0
