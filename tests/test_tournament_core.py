"""The tournament core end to end without Ray: tables play real engine hands in a random
order, the core decides, and the event log it produces keeps every invariant."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tournament_checks import check_log

from orchestrator.config import TournamentConfig, parse_config
from orchestrator.errors import ReportError
from orchestrator.eventlog import EventLog
from orchestrator.events import Event, HandPlayer
from orchestrator.tournament import HandReport, NextHand, TableDirective, Tournament
from table_worker.bots import make_bot
from table_worker.engine import Betting, Hand, HandSetup


def config(**tournament: Any) -> TournamentConfig:
    tournament.setdefault("starting_stack", 1000)
    return parse_config(
        {
            "tournament": tournament,
            "levels": {
                "unit": "hands",
                "length": 3,
                "blinds": [[10, 20], [20, 40], [40, 80, 10], [100, 200, 25]],
            },
        }
    )


def play(spec: NextHand, rng: random.Random) -> HandReport:
    hand = Hand(
        HandSetup(
            seats=tuple(s for s, _, _ in spec.seats),
            stacks=tuple(c for _, _, c in spec.seats),
            button=spec.blinds.button,
            small_blind_seat=spec.blinds.small_blind,
            big_blind_seat=spec.blinds.big_blind,
            small_blind=spec.small_blind,
            big_blind=spec.big_blind,
            ante=spec.ante,
            betting=Betting(spec.betting),
        ),
        rng.sample(range(52), 52),
    )
    bot = make_bot("random", rng)
    while (seat := hand.actor) is not None:
        hand.act(seat, bot.decide(hand, hand.legal_actions()))
    end = hand.finishing_stacks()
    return HandReport(
        spec.table,
        spec.hand,
        spec.blinds.button,
        tuple(HandPlayer(p, s, c, end[s]) for s, p, c in spec.seats),
    )


def run(cfg: TournamentConfig, seed: int) -> tuple[Tournament, list[dict[str, Any]]]:
    """Tables finish hands in a random order, as on a cluster; returns the core and its log."""
    rng = random.Random(seed)
    players = [f"p{k}" for k in range(cfg.players)]
    tournament, step = Tournament.start(cfg, players, tournament_id="t", now=0.0, rng=rng)
    log: list[dict[str, Any]] = []
    seq = 0

    def record(events: list[Event]) -> None:
        nonlocal seq
        cause = None
        for event in events:
            seq += 1
            entry = {"seq": seq, "type": event.EVENT_TYPE, **event.fields()}
            if event.EVENT_TYPE == "hand_finished":
                cause = seq
            elif cause is not None:
                entry["cause"] = cause
            log.append(entry)

    record(step.events)
    ready: dict[int, TableDirective] = {d.table: d for d in tournament.first_hands()}
    now = 0.0
    while not tournament.finished:
        table = rng.choice(sorted(ready))
        directive = ready.pop(table)
        if directive.close:
            continue
        if directive.next_hand is None:
            step = tournament.poll(table, rng=rng)
            record(step.events)
            assert step.directive is not None
            ready[table] = step.directive
            continue
        now += 1.0
        step = tournament.hand_finished(play(directive.next_hand, rng), now=now, rng=rng)
        record(step.events)
        assert step.directive is not None
        ready[table] = step.directive
    return tournament, log


@pytest.mark.parametrize(
    ("players", "max_per_table", "policy"),
    [(9, 9, "equilibrium"), (2, 2, "equilibrium"), (45, 10, "equilibrium"), (37, 6, "threshold")],
)
def test_a_tournament_plays_to_one_winner_keeping_every_invariant(
    players: int, max_per_table: int, policy: str
) -> None:
    cfg = config(players=players, max_per_table=max_per_table, policy=policy, buy_in=1000)
    tournament, log = run(cfg, seed=players)
    check_log(cfg, log)
    assert tournament.results(seconds=1.0)["places"][0]["prize"] > 0  # type: ignore[index]


def test_fo3_tables_are_the_fewest_that_seat_everyone_after_each_closing() -> None:
    cfg = config(players=60, max_per_table=10, buy_in=100)
    _, log = run(cfg, seed=3)
    active, tables = 60, 6
    for e in log:
        if e["type"] == "player_eliminated":
            active -= 1
        elif e["type"] == "table_closed":
            tables -= 1
            assert tables == -(-active // 10)
    assert sum(e["type"] == "final_table" for e in log) == 1


def test_same_seed_same_tournament() -> None:
    cfg = config(players=30, max_per_table=6, buy_in=100)
    assert run(cfg, seed=9)[1] == run(cfg, seed=9)[1]


@settings(max_examples=12, deadline=None)
@given(
    players=st.integers(2, 40),
    max_per_table=st.integers(2, 10),
    policy=st.sampled_from(["equilibrium", "threshold"]),
    seed=st.integers(0, 10**6),
)
def test_random_tournaments_keep_the_invariants(
    players: int, max_per_table: int, policy: str, seed: int
) -> None:
    cfg = config(players=players, max_per_table=max_per_table, policy=policy, buy_in=7)
    _, log = run(cfg, seed=seed)
    check_log(cfg, log)


def test_a_repeated_report_is_idempotent_and_a_false_one_refused() -> None:
    cfg = config(players=18, max_per_table=9)
    rng = random.Random(1)
    tournament, _ = Tournament.start(
        cfg, [f"p{k}" for k in range(18)], tournament_id="t", now=0.0, rng=rng
    )
    first = tournament.first_hands()[0]
    assert first.next_hand is not None
    report = play(first.next_hand, rng)
    step = tournament.hand_finished(report, now=1.0, rng=rng)
    again = tournament.hand_finished(report, now=2.0, rng=rng)
    assert again.events == [] and again.directive == step.directive
    assert step.directive is not None and step.directive.next_hand is not None
    honest = play(step.directive.next_hand, rng)
    cheat = HandReport(
        honest.table,
        honest.hand,
        honest.button,
        (
            HandPlayer(honest.players[0].player, honest.players[0].seat, 1, 2),
            *honest.players[1:],
        ),
    )
    hands = tournament.hands
    with pytest.raises(ReportError, match="differ from the hand it was dealt"):
        tournament.hand_finished(cheat, now=3.0, rng=rng)
    with pytest.raises(ReportError, match="not open"):
        tournament.hand_finished(HandReport(99, 1, 1, ()), now=3.0, rng=rng)
    assert tournament.hands == hands
    tournament.hand_finished(honest, now=3.0, rng=rng)  # still serving
    assert tournament.hands == hands + 1


def test_event_log_numbers_events_and_marks_their_cause(tmp_path: Any) -> None:
    from orchestrator.events import HandFinished, PlayerEliminated, TableOpened

    log = EventLog(tmp_path / "events.jsonl")
    log.append([TableOpened(table=1)], ts=1.0)
    hand = HandFinished(table=1, hand=1, button=2, players=(HandPlayer("a", 1, 10, 0),))
    records = log.append(
        [hand, PlayerEliminated(player="a", place=2, table=1, hand=1, start=10)], ts=2.0
    )
    log.close()
    assert [r["seq"] for r in records] == [2, 3] and records[1]["cause"] == 2
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    assert len(lines) == 3 and '"players":[{"player":"a","seat":1,"start":10,"end":0}]' in lines[1]
