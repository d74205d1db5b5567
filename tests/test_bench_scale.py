"""`mtt bench scale` on a small field: the whole tournament through the core and the durable
store ends with one winner and every chip and cent accounted for, with the fast hand model and
with the engine; the fast model keeps chips exact and is calibrated to the engine's pace of
eliminations within 10%; Pace's incremental sync (START-2) agrees with a scan of every table,
START-1's check with the old copy of every table's state, and hand-for-hand with the paid
places asked after every hand near the money."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace
from typing import Any

import pytest
from tournament_checks import check_log

from orchestrator.cli.bench_scale import growth
from orchestrator.cli.main import main
from orchestrator.core.clock import LevelClock
from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_toml import load_config
from orchestrator.core.events import Event
from orchestrator.core.hand_for_hand import HandForHand
from orchestrator.core.pace import Pace
from orchestrator.core.play import Play
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


def test_start1_may_start_agrees_with_a_scan_of_every_tables_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """START-1's check without a copy of every table's state per step, newest first, decides
    as the old one did (every open table ready and not in a hand) at every step of a whole
    tournament: at the start, at every break and after the last table's answer."""
    newest_first = Pace.may_start
    answers: list[bool] = []

    def checked(self: Pace, tables: Any, states: Any, clock: LevelClock, *, now: float) -> bool:
        old = {t: states[t] for t in tables}  # the old call's copy
        scanned = (
            not (self.playing or clock.paused or not old)
            and not (self.lead is None and now < clock.level_started_at)
            and all(t in self.ready and not state.in_hand for t, state in old.items())
        )
        answer = newest_first(self, tables, states, clock, now=now)
        assert answer == scanned
        answers.append(answer)
        return answer

    monkeypatch.setattr(Pace, "may_start", checked)
    bench_scale(ScaleOptions(config=online_regular(300), seed=4))
    assert answers.count(True) >= 4  # the start and the breaks
    assert answers.count(False) >= 300 // 9  # at the start, every table's answer but the last


@pytest.mark.parametrize(("threshold", "reached"), [(30, "done early"), (160, "played")])
def test_hand_for_hand_starts_when_it_did_with_the_prize_table_asked_only_when_needed(
    monkeypatch: pytest.MonkeyPatch, threshold: int, reached: str
) -> None:
    """ELIM-1's hand-for-hand starts after the same hands as when the paid places were asked
    after every hand near the money: at a threshold above the paid places (45 of 300) it is
    played; at one below them the field is in the money already, so it is done at once and
    the old condition never holds again to the end."""
    config = replace(online_regular(300), hand_for_hand=threshold)
    lazy = HandForHand.table_done
    seen = {"done early": 0, "played": 0}

    def checked(self: HandForHand, play: Play, table: int, *, closed: bool) -> list[Event]:
        near = not self._done and play.active_players <= threshold
        playing = sum(1 for seats in self._seating.tables.values() if len(seats) >= 2)
        old_starts = (  # the old condition, from the paid places asked after every hand
            play.paid_places < play.active_players
            and playing > 1
            and not play.registration.is_open()
        )
        was_active, was_done = self._active, self._done
        events = lazy(self, play, table, closed=closed)
        if was_done and not was_active:
            assert not old_starts  # done early: the old code would not start it either
        if near and not was_active:
            assert self._active == old_starts
            assert bool(events) == old_starts
            if self._done:
                seen["done early"] += 1
        if self._active:
            seen["played"] += 1
        return events

    monkeypatch.setattr(HandForHand, "table_done", checked)
    figures = bench_scale(ScaleOptions(config=config, seed=5), keep_log=True)
    check_log(config, figures["log"])
    assert seen[reached] > 0
    started = [r for r in figures["log"] if r["type"] == "hand_for_hand" and r["active"]]
    assert len(started) == (reached == "played")
