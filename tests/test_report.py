"""`mtt report`: the figures from a hand-made log (exact numbers), and the whole report from a
real `mtt run` on Ray (files written, charts inlined, invariants that tie it to the run)."""

from __future__ import annotations

import doctest
import html
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orchestrator.core.config_toml import parse_config
from orchestrator.errors import UnreadableRun
from orchestrator.shell.driver import RunOptions, run_tournament
from orchestrator.views import amounts as amounts_module
from orchestrator.views.audit import PhhSection
from orchestrator.views.report import figures as figures_module
from orchestrator.views.report import read_figures
from orchestrator.views.report.charts import CHARTS
from orchestrator.views.report.figures import run_figures


def seat(player: str, seat: int, start: int, end: int) -> dict[str, Any]:
    return {"player": player, "seat": seat, "start": start, "end": end}


def log(*events: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"seq": k, **e} for k, e in enumerate(events, start=1)]


def phh(table: int, hand: int, players: list[str], blinds: list[int]) -> PhhSection:
    fields = {"table": table, "hand": hand, "players": players, "blinds_or_straddles": blinds}
    return PhhSection(f"hands/table-{table:04d}.phhs", hand, "", fields)


# Six players at two tables of a 6-max tournament: short-handed means fewer than 4 (BAL-1).
EVENTS = log(
    {"ts": 100, "type": "tournament_started", "tournament": "t", "players": 6, "tables": 2,
     "max_per_table": 6, "structure": "freezeout", "policy": "equilibrium",
     "starting_stack": 1000},
    {"ts": 100, "type": "level_started", "level": 1, "small_blind": 10, "big_blind": 20, "ante": 0},
    {"ts": 100, "type": "table_opened", "table": 1},
    *({"ts": 100, "type": "player_seated", "player": p, "table": 1, "seat": s, "stack": 1000}
      for p, s in (("a", 1), ("b", 2), ("c", 3))),
    {"ts": 100, "type": "table_opened", "table": 2},
    *({"ts": 100, "type": "player_seated", "player": p, "table": 2, "seat": s, "stack": 1000}
      for p, s in (("d", 1), ("e", 2), ("f", 3))),
    {"ts": 110, "type": "hand_finished", "table": 1, "hand": 1, "button": 1,
     "players": [seat("a", 1, 1000, 2000), seat("b", 2, 1000, 0), seat("c", 3, 1000, 1000)]},
    {"ts": 110, "type": "player_eliminated", "player": "b", "place": 6, "table": 1, "hand": 1,
     "start": 1000},
    {"ts": 110, "type": "player_moved", "player": "d", "from_table": 2, "from_seat": 1,
     "to_table": 1, "to_seat": 2, "stack": 1000, "reason": "balance"},
    {"ts": 120, "type": "hand_finished", "table": 2, "hand": 1, "button": 2,
     "players": [seat("e", 2, 1000, 1000), seat("f", 3, 1000, 1000)]},
    {"ts": 120, "type": "level_started", "level": 2, "small_blind": 20, "big_blind": 40, "ante": 0},
    {"ts": 130, "type": "hand_finished", "table": 1, "hand": 2, "button": 3,
     "players": [seat("a", 1, 2000, 2500), seat("d", 2, 1000, 1000), seat("c", 3, 1000, 500)]},
    {"ts": 130, "type": "player_moved", "player": "e", "from_table": 2, "from_seat": 2,
     "to_table": 1, "to_seat": 4, "stack": 1000, "reason": "close"},
    {"ts": 130, "type": "player_moved", "player": "f", "from_table": 2, "from_seat": 3,
     "to_table": 1, "to_seat": 5, "stack": 1000, "reason": "close"},
    {"ts": 130, "type": "table_closed", "table": 2},
    {"ts": 130, "type": "final_table", "table": 1, "players": ["a", "d", "c", "e", "f"]},
    {"ts": 140, "type": "hand_finished", "table": 1, "hand": 3, "button": 1,
     "players": [seat("a", 1, 2500, 4000), seat("d", 2, 1000, 1000), seat("c", 3, 500, 0),
                 seat("e", 4, 1000, 0), seat("f", 5, 1000, 1000)]},
    {"ts": 140, "type": "player_eliminated", "player": "e", "place": 4, "table": 1, "hand": 3,
     "start": 1000},
    {"ts": 140, "type": "player_eliminated", "player": "c", "place": 5, "table": 1, "hand": 3,
     "start": 500},
)  # fmt: skip
HANDS = [
    phh(1, 1, ["b", "c", "a"], [10, 20, 0]),
    phh(2, 1, ["e", "f"], [10, 20]),  # heads-up: written reversed, e (p1) posts the big blind
    phh(1, 2, ["d", "c", "a"], [0, 40, 0]),  # a dead small blind (HE-9)
    phh(1, 3, ["c", "e", "f", "a", "d"], [20, 40, 0, 0, 0]),
    phh(1, 3, ["c", "e", "f", "a", "d"], [20, 40, 0, 0, 0]),  # the same hand twice: once
    phh(2, 2, ["e", "f"], [20, 40]),  # never reported (a voided hand): not counted
]
RESULTS = {
    "prize_pool": 6000,
    "seconds": 41.0,
    "places": [{"place": 1, "player": "a", "prize": 6000}],
}


def test_timeline_follows_the_field_and_the_big_blind() -> None:
    figures = run_figures(EVENTS, HANDS, RESULTS)
    assert [(p.seconds, p.hands, p.players_left) for p in figures.timeline] == [
        (10, 1, 5),
        (20, 2, 5),
        (30, 3, 5),
        (40, 4, 3),
    ]
    # 6,000 chips among those still in, against the big blind once the hand's consequences
    # are in: table 2's hand ended level 1 (20), so its point is at level 2 (40).
    assert [p.average_bb for p in figures.timeline] == [60, 30, 30, 50]
    assert [p.largest_bb for p in figures.timeline] == [100, 50, 62.5, 100]
    assert figures.hands_per_table == {1: 3, 2: 1}
    assert figures.entries == 6 and figures.hands == 4 and figures.seconds == 41.0
    assert figures.levels == [(1, 10, 20, 0), (2, 20, 40, 0)]
    assert figures.winner == "a" and figures.cancelled is None


def test_final_table_chip_counts_start_at_its_forming() -> None:
    final = run_figures(EVENTS, HANDS, RESULTS).final_table
    assert final is not None
    assert (final.table, final.players, final.hands) == (1, ("a", "d", "c", "e", "f"), (3,))
    assert final.stacks == ({"a": 4000, "d": 1000, "c": 0, "e": 0, "f": 1000},)


def test_fairness_counts_moves_big_blinds_and_bal1_short_handed_hands() -> None:
    players = run_figures(EVENTS, HANDS, RESULTS).players
    moves = {p: (r.moves_balance, r.moves_close) for p, r in players.items() if r.moves}
    assert moves == {"d": (1, 0), "e": (0, 1), "f": (0, 1)}
    # Short-handed (< 4 players) only while two tables were open: not at the final table.
    assert {p: r.short_handed for p, r in players.items()} == {
        "a": 2, "b": 1, "c": 2, "d": 1, "e": 1, "f": 1,
    }  # fmt: skip
    assert {p: r.big_blinds for p, r in players.items() if r.big_blinds} == {"c": 2, "e": 2}
    assert players["a"].orbits == pytest.approx(1 / 3 + 1 / 3 + 1 / 5)
    assert players["e"].orbits == pytest.approx(1 / 2 + 1 / 5)
    assert players["e"].big_blinds_per_orbit == pytest.approx(2 / 0.7)
    assert players["b"].hands == 1 and players["a"].hands == 3


def test_a_log_without_a_start_or_with_a_missing_field_is_unreadable() -> None:
    with pytest.raises(UnreadableRun, match="no tournament_started"):
        run_figures(EVENTS[1:], HANDS, RESULTS)
    broken = [dict(e) for e in EVENTS]
    first_hand = next(e for e in broken if e["type"] == "hand_finished")
    del first_hand["players"]
    with pytest.raises(UnreadableRun, match="players"):
        run_figures(broken, HANDS, RESULTS)


def test_docstring_examples_hold() -> None:
    for module in (figures_module, amounts_module):
        failed, tried = doctest.testmod(module)
        assert tried and not failed, module.__name__


def test_mtt_report_names_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "events.jsonl").write_text(json.dumps({"seq": 1, "type": "x"}) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "report", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert f"mtt report: {tmp_path / 'results.json'}: no such file" in done.stderr


def test_bench_view_of_a_synthetic_opening() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "orchestrator.cli.main",
            "bench",
            "view",
            "--players",
            "95",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    measured = json.loads(done.stdout)
    # 95 registrations, the start and level 1, 10 tables (opened, seated, button), 10 hands.
    assert measured["events"] == 95 + 2 + 10 * 2 + 95 + 10
    assert measured["opening_tables"] == 10 and measured["snapshot_bytes"] > 95 * 15
    assert measured["update_bytes"] > 0 and "report_s" not in measured


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_report_of_a_real_run(tmp_path: Path) -> None:
    """A real 24-player run on Ray, then `mtt report` on its folder."""
    config = parse_config(
        {
            "tournament": {"name": "report-e2e", "players": 24, "max_per_table": 8,
                           "starting_stack": 2000, "buy_in": 1000},
            "levels": {"unit": "hands", "length": 6, "blinds": [[10, 20], [25, 50], [50, 100]]},
        }
    )  # fmt: skip
    run = tmp_path / "run"
    summary = run_tournament(config, RunOptions(out=run, seed=7, ray_logs=False))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "orchestrator.cli.main",
            "report",
            str(run),
            "--out",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r" / "report.html").read_text()
    for chart in CHARTS:
        png = (tmp_path / "r" / chart.file).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000, chart.file
        assert html.escape(chart.title) in page
    assert page.count('src="data:image/png;base64,') == len(CHARTS)
    assert "http://" not in page and "https://" not in page  # self-contained
    winner = summary.results["places"][0]["player"]
    assert f"won by <b>{winner}</b>" in page

    figures = read_figures(run)
    assert figures.entries == 24 and figures.hands == summary.hands
    assert sum(figures.hands_per_table.values()) == summary.hands
    assert figures.timeline[0].players_left <= 24 and figures.timeline[-1].players_left == 1
    # Every hand has exactly one big blind and one orbit's worth of seats.
    players = figures.players.values()
    assert sum(p.big_blinds for p in players) == summary.hands
    assert sum(p.orbits for p in players) == pytest.approx(summary.hands)
    moved = sum(e["type"] == "player_moved" for e in _events(run))
    assert sum(p.moves for p in players) == moved > 0
    final = figures.final_table
    assert final is not None and final.stacks[-1][winner] == 24 * 2000

    bench = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "bench", "view", str(run), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    measured = json.loads(bench.stdout.splitlines()[-1])
    assert measured["events"] == len(_events(run)) and measured["fold_events_per_s"] > 0
    assert measured["opening_tables"] == 3 and measured["report_s"] > 0


def _events(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
