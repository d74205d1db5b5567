"""`mtt replay DIR` on real `mtt run` output: a clean run passes (exit 0); each kind of tampering,
one at a time in a copy, is named (exit 1), and unreadable input is refused clearly (exit 2)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from orchestrator.cli.main import main
from orchestrator.views.audit import (
    Violation,
    audit_events,
    audit_hands,
    audit_hands_against_log,
    read_events,
    read_hand_files,
)

# Each run starts real Ray and the deck service: one Ray at a time (xdist group "ray").
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
ROOT = Path(__file__).resolve().parent.parent


def mtt_run(example: str, seed: int, out: Path) -> Path:
    example_path = str(ROOT / "examples" / example)
    command = ["run", example_path, "--seed", str(seed), "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", *command],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return mtt_run("single-table-9.toml", 1, tmp_path_factory.mktemp("single"))


@pytest.fixture(scope="module")
def rebuy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Several tables, moves and closings, rebuys and add-ons, and side events (RB-6)."""
    return mtt_run("rebuy-50.toml", 3, tmp_path_factory.mktemp("rebuy"))


def replay(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["replay", str(folder)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def tampered(run: Path, tmp_path: Path, change: Callable[[Path], None]) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns("store.db*"))
    change(copy)
    return copy


def edit_events(folder: Path, edit: Callable[[list[dict[str, Any]]], None]) -> None:
    path = folder / "events.jsonl"
    events = [json.loads(line) for line in path.read_text().splitlines()]
    edit(events)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))


def edit_hand(folder: Path, number: int, edit: Callable[[str], str]) -> None:
    """Rewrite section `[number]` of the first table's hand histories."""
    path = folder / "hands" / "table-0001.phhs"
    text = path.read_text()
    start = text.index(f"[{number}]\n")
    end = text.find("\n[", start + 1)
    end = len(text) if end < 0 else end
    path.write_text(text[:start] + edit(text[start:end]) + text[end:])


# --- clean runs -----------------------------------------------------------------------------


def test_a_clean_run_passes_the_replay_as_a_command(single: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "replay", str(single)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hands = json.loads((single / "results.json").read_text())["hands"]
    assert f"OK: 1 event(s): {hands} hands replayed, {hands} decks verified, 9 players placed" in (
        done.stdout
    )


def test_a_clean_multi_table_run_with_side_events_passes(
    rebuy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sides = len(list((rebuy / "side-events").iterdir()))
    assert sides > 0
    code, out = replay(rebuy, capsys)
    assert code == 0, out
    assert f"OK: {1 + sides} event(s)" in out


# --- tampering: exit 1, the violation named -------------------------------------------------


def move_a_chip(events: list[dict[str, Any]]) -> None:
    hand = next(
        e
        for e in events
        if e["type"] == "hand_finished" and e["hand"] > 1 and e["players"][0]["end"]
    )
    hand["players"][0]["end"] -= 1
    hand["players"][1]["end"] += 1


def duplicate_a_place(events: list[dict[str, Any]]) -> None:
    busts = [e for e in events if e["type"] == "player_eliminated"]
    busts[0]["place"] = busts[1]["place"]


def change_a_finishing_stack(hand: str) -> str:
    stacks = re.search(r"finishing_stacks = \[(\d+), (\d+)", hand)
    assert stacks is not None
    first, second = int(stacks[1]), int(stacks[2])
    return hand.replace(stacks[0], f"finishing_stacks = [{first + 5}, {second - 5}", 1)


def swap_two_deck_cards(hand: str) -> str:
    deck = re.search(r'_deck = "(..)(..)', hand)
    assert deck is not None
    return hand.replace(deck[0], f'_deck = "{deck[2]}{deck[1]}', 1)


def change_the_salt(hand: str) -> str:
    salt = re.search(r'_deck_salt = "(.)', hand)
    assert salt is not None
    return hand.replace(salt[0], f'_deck_salt = "{"0" if salt[1] != "0" else "1"}', 1)


def change_a_prize(folder: Path) -> None:
    path = folder / "results.json"
    results = json.loads(path.read_text())
    results["places"][0]["prize"] += 100
    path.write_text(json.dumps(results))


def renumbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log with seq 1, 2, 3, ... again after events were moved or dropped, each `cause`
    still naming its hand."""
    new = {e["seq"]: k for k, e in enumerate(events, start=1)}
    return [
        {**e, "seq": new[e["seq"]], **({"cause": new[e["cause"]]} if "cause" in e else {})}
        for e in events
    ]


def deal_before_play_started(events: list[dict[str, Any]]) -> None:
    """START-1 broken: play_started logged only after the first hand."""
    started = next(e for e in events if e["type"] == "play_started")
    events.remove(started)
    first = next(k for k, e in enumerate(events) if e["type"] == "hand_finished")
    after = next(k for k in range(first + 1, len(events)) if "cause" not in events[k])
    events.insert(after, started)
    events[:] = renumbered(events)


def drop_the_last_hand(folder: Path) -> None:
    path = folder / "hands" / "table-0001.phhs"
    text = path.read_text()
    path.write_text(text[: text.rindex("\n[") + 1])


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: edit_events(d, move_a_chip), "[chips]"),
        (lambda d: edit_events(d, duplicate_a_place), "also given at seq"),
        (lambda d: edit_events(d, deal_before_play_started), "[START-1] table 1 hand 1 was dealt"),
        (lambda d: edit_hand(d, 3, change_a_finishing_stack), "[HE-7] finishing stacks"),
        (lambda d: edit_hand(d, 4, swap_two_deck_cards), "does not match its commitment"),
        (lambda d: edit_hand(d, 4, swap_two_deck_cards), "[HE-3] 'd dh p1"),
        (lambda d: edit_hand(d, 5, change_the_salt), "[commitment]"),
        (drop_the_last_hand, "has no hand history"),
        (change_a_prize, "results.json place 1: [REG-1] prize"),
    ],
    ids=[
        "chip-moved",
        "place-duplicated",
        "dealt-before-play-started",
        "finishing-stack",
        "deck-card-swapped",
        "deck-card-swapped-dealing-order",
        "salt-changed",
        "hand-missing",
        "prize-changed",
    ],
)
def test_tampering_is_named_and_exits_1(
    single: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[Path], None],
    named: str,
) -> None:
    code, out = replay(tampered(single, tmp_path, change), capsys)
    assert code == 1, out
    assert named in out
    assert "FAILED:" in out


def test_tampering_in_a_side_event_is_named(
    rebuy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = replay(
        tampered(rebuy, tmp_path, lambda d: drop_the_last_hand(d / "side-events" / "1")), capsys
    )
    assert code == 1, out
    assert "side-events/1/events.jsonl seq" in out and "has no hand history" in out


def test_a_voided_hand_may_be_missing_from_the_hand_histories(single: Path) -> None:
    """DESIGN.md "Failure model": a hand voided on a lost node has no history to match."""
    log = read_events(single / "events.jsonl")
    hands = audit_hands(read_hand_files(single / "hands")).hands
    last = hands[-1]
    assert [v.detail for v in audit_hands_against_log(log, hands[:-1])] == [
        f"table {last.table} hand {last.hand} has no hand history"
    ]
    voided = {"seq": len(log) + 1, "type": "hand_voided", "table": last.table, "hand": last.hand}
    assert audit_hands_against_log([*log, voided], hands[:-1]) == []


# --- unreadable input: exit 2, the file and line named, no traceback ------------------------


def corrupt_line_7(folder: Path) -> None:
    path = folder / "events.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[6] = lines[6][: len(lines[6]) // 2] + "\n"
    path.write_text("".join(lines))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (corrupt_line_7, "events.jsonl:7: not a JSON line"),
        (lambda d: (d / "results.json").unlink(), "results.json: no such file"),
        (lambda d: shutil.rmtree(d / "hands"), "hands: no hands folder"),
        (lambda d: shutil.rmtree(d), "run: no such folder"),
    ],
    ids=["corrupted-json-line", "results-missing", "hands-missing", "folder-missing"],
)
def test_unreadable_input_exits_2_naming_the_file(
    single: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[Path], None],
    named: str,
) -> None:
    code, out = replay(tampered(single, tmp_path, change), capsys)
    assert code == 2, out
    assert out.startswith("mtt replay: ") and named in out
    assert "Traceback" not in out


# --- START-1 and FO-2 from the log alone, on logs of the core (no Ray) ------------------------


def core_log(players: int, seats: int, seed: int) -> list[dict[str, Any]]:
    """A whole tournament's log, its tables driven as a cluster drives them (test_lockstep)."""
    from test_lockstep import Cluster, config

    cluster = Cluster(config(players, seats=seats, halt_short_tables=False), seed)
    cluster.run()
    assert cluster.tournament.finished
    return cluster.log


def rules(violations: list[Violation]) -> set[str]:
    return {v.rule for v in violations}


def test_start1_the_audit_passes_a_core_log_and_names_a_hand_dealt_before_play_started() -> None:
    log = core_log(24, 8, seed=3)
    assert audit_events(log) == []
    deal_before_play_started(log)
    found = audit_events(log)
    assert rules(found) == {"START-1"}
    detail = found[0].detail
    assert "before play_started (play stopped at seq" in detail and "tournament_started" in detail


def test_start1_the_audit_allows_the_hand_in_progress_at_a_pause_and_nothing_more() -> None:
    log = core_log(24, 8, seed=4)
    hands = [k for k, e in enumerate(log) if e["type"] == "hand_finished"]
    pause_at = hands[len(hands) // 2]  # a pause right after a hand: its table may not deal
    table = log[pause_at]["table"]
    after = next(k for k in range(pause_at + 1, len(log)) if "cause" not in log[k])
    paused = renumbered([*log[:after], {"seq": -1, "type": "tournament_paused"}, *log[after:]])
    found = audit_events(paused)
    assert rules(found) == {"START-1"}  # nothing starts play again after the pause
    dealt = {(v.detail.split()[1]) for v in found}
    assert str(table) in dealt
    others = {e["table"] for e in log[after:] if e["type"] == "hand_finished"} - {table}
    for other in others:  # each other table finishes its hand in progress unchallenged once
        first = next(
            e for e in paused[after:] if e["type"] == "hand_finished" and e["table"] == other
        )
        assert not any(v.where == f"events.jsonl seq {first['seq']}" for v in found)


def test_fo2_the_audit_names_a_boundary_left_two_above_the_shortest() -> None:
    log = core_log(28, 10, seed=5)
    moved = next(
        k
        for k, e in enumerate(log)
        if e["type"] == "player_moved" and e["reason"] == "balance" and "cause" in e
    )
    hand = log[log[moved]["cause"] - 1]
    log[moved] = {**log[moved], "to_table": log[moved]["from_table"]}  # the move not made
    found = [v for v in audit_events(log) if v.rule == "FO-2"]
    assert found and found[0].where == f"events.jsonl seq {hand['seq']}"
    assert f"table {hand['table']} left its boundary with" in found[0].detail
