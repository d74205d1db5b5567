"""DEAL-1..DEAL-3 in the tournament: the operator proposes, every player answers, the ledger
pays, and the tournament ends or plays on for what was left."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_payouts import play_random, record_events
from tournament_checks import check_log, funds, quiet

from orchestrator.core import codec
from orchestrator.core.config_toml import parse_config
from orchestrator.core.deals import DealKind
from orchestrator.core.replay import load_snapshot, rebuild, snapshot, step_rng
from orchestrator.core.tournament import Step, Tournament
from orchestrator.errors import DealError
from table_worker.protocol import TableDirective


def _config(players: int) -> Any:
    return parse_config(
        {
            "tournament": {
                "players": players,
                "max_per_table": 6,
                "starting_stack": 1000,
                "buy_in": 1000,
                "fee": 100,
            },
            "levels": {"length": 5, "blinds": [[10, 20], [20, 40], [50, 100], [100, 200]]},
            "payouts": {"percent": [50, 30, 20]},
        }
    )


def _at_the_final_table(
    players: int = 6,
) -> tuple[Tournament, list[dict[str, Any]], dict[int, TableDirective], random.Random]:
    """A one-table tournament after one hand (p1's stack changed), paused at its boundary."""
    cfg = _config(players)
    names = [f"p{k}" for k in range(players)]
    rng = random.Random(7)
    tournament, step = Tournament.start(
        cfg, names, deposits=funds(cfg, names), tournament_id="t", now=0.0, rng=rng
    )
    log: list[dict[str, Any]] = []
    record_events(log, step.events)
    directives: dict[int, TableDirective] = {}
    for table in sorted(tournament.tables):
        record_events(log, tournament.table_ready(table, now=0.0).events)
    for table in sorted(tournament.tables):
        step = tournament.poll(table, now=0.0, rng=rng)
        record_events(log, step.events)
        assert step.reply is not None
        directives[table] = step.reply
    return tournament, log, directives, rng


def _pause_at_boundary(
    tournament: Tournament, log: list[dict[str, Any]], directives: dict[int, TableDirective]
) -> None:
    (table,) = directives
    spec = directives[table].next_hand
    assert spec is not None
    with pytest.raises(DealError, match="in a hand"):
        tournament.propose_deal("icm", now=1.0)
    record_events(log, tournament.pause(now=1.0).events)
    step = tournament.apply_hand(quiet(spec, won=300), now=1.0, rng=random.Random(1))
    record_events(log, step.events)
    assert step.reply is not None and step.reply.next_hand is None  # paused: it waits
    directives[table] = step.reply


def _take(log: list[dict[str, Any]], step: Step) -> Step:
    record_events(log, step.events)
    return step


def test_deal1_only_at_the_final_table_between_hands() -> None:
    tournament, *_ = _at_the_final_table(players=12)
    assert len(tournament.tables) == 2
    with pytest.raises(DealError, match="only at the final table, 2 are open"):
        tournament.propose_deal("chip_chop", now=1.0)
    assert not tournament.can_propose_deal("chip_chop")


def test_deal3_an_accepted_deal_pays_every_amount_and_ends_the_tournament() -> None:
    tournament, log, directives, _ = _at_the_final_table()
    _pause_at_boundary(tournament, log, directives)
    assert tournament.can_propose_deal(DealKind.ICM)
    proposed = _take(log, tournament.propose_deal(DealKind.ICM, now=2.0)).events[0].fields()
    assert proposed["kind"] == "icm" and proposed["left"] == 0
    assert sum(proposed["amounts"]) == tournament.prize_pool == 6000
    with pytest.raises(DealError, match="already waiting"):
        tournament.propose_deal("equal", now=2.0)
    for player in proposed["players"][:-1]:
        assert not _take(log, tournament.answer_deal(player, True, now=3.0)).events[1:]
    last = _take(log, tournament.answer_deal(proposed["players"][-1], True, now=4.0))
    paid = [e.fields() for e in last.events if e.EVENT_TYPE == "deal_paid"]
    amounts = dict(zip(proposed["players"], proposed["amounts"], strict=True))
    assert {e["player"]: e["amount"] for e in paid} == amounts
    assert [e["place"] for e in paid] == [1, 2, 3, 4, 5, 6]
    assert paid[0]["chips"] == max(e["chips"] for e in paid)  # the chip leader wins
    assert last.events[-1].EVENT_TYPE == "tournament_finished"
    assert tournament.finished and tournament.play.registration.ledger.pool == 0
    (table,) = directives
    assert _take(log, tournament.poll(table, now=5.0, rng=random.Random(2))).reply.close  # type: ignore[union-attr]
    check_log(_config(6), log)  # mtt replay's audit: places, chips and money
    results = tournament.results(seconds=1.0)
    rows = {r["player"]: r["prize"] for r in results["places"]}  # type: ignore[attr-defined]
    assert rows == amounts


def test_deal1_one_refusal_ends_the_deal_and_play_resumes_unchanged() -> None:
    tournament, log, directives, _ = _at_the_final_table()
    _pause_at_boundary(tournament, log, directives)
    stacks = dict(tournament.stacks)
    proposed = _take(log, tournament.propose_deal("chip_chop", now=2.0)).events[0].fields()
    _take(log, tournament.answer_deal(proposed["players"][0], True, now=3.0))
    refused = _take(log, tournament.answer_deal(proposed["players"][1], False, now=3.0))
    assert [e.EVENT_TYPE for e in refused.events] == ["deal_answered", "tournament_resumed"]
    assert tournament.play.deal_vote is None and tournament.play.deal is None
    assert dict(tournament.stacks) == stacks and tournament.play.registration.ledger.pool == 6000
    with pytest.raises(DealError, match="no deal is waiting"):
        tournament.answer_deal(proposed["players"][2], True, now=3.0)


def test_deal3_a_deal_leaving_money_plays_on_for_it_and_the_title() -> None:
    tournament, log, directives, rng = _at_the_final_table()
    _pause_at_boundary(tournament, log, directives)
    with pytest.raises(DealError, match=r"deal\.left must be 0\.\.1200"):
        tournament.propose_deal("equal", left=1201, now=2.0)
    proposed = _take(log, tournament.propose_deal("equal", left=600, now=2.0)).events[0].fields()
    assert sum(proposed["amounts"]) == 5400
    for player in proposed["players"]:
        step = _take(log, tournament.answer_deal(player, True, now=3.0))
    assert step.events[-1].EVENT_TYPE == "tournament_resumed"
    assert tournament.play.registration.ledger.pool == 600
    with pytest.raises(DealError, match="made its deal already"):
        tournament.propose_deal("equal", now=3.0)
    (table,) = directives
    for _ in range(5000):
        if tournament.finished:
            break
        spec = directives[table].next_hand
        if spec is None:
            step = _take(log, tournament.poll(table, now=4.0, rng=rng))
        else:
            step = _take(log, tournament.apply_hand(play_random(spec, rng), now=4.0, rng=rng))
        assert step.reply is not None
        directives[table] = step.reply
    assert tournament.finished
    prizes = {e["place"]: e["amount"] for e in log if e["type"] == "prize_awarded"}
    assert prizes[1] == 600 and all(amount == 0 for place, amount in prizes.items() if place > 1)
    check_log(_config(6), log)


@settings(max_examples=25, deadline=None)
@given(
    won=st.integers(1, 900),
    kind=st.sampled_from(list(DealKind)),
    left=st.sampled_from([0, 1, 700, 1200]),
)
def test_deal3_any_accepted_deal_balances_the_books_to_the_cent(
    won: int, kind: DealKind, left: int
) -> None:
    tournament, log, directives, _ = _at_the_final_table()
    (table,) = directives
    spec = directives[table].next_hand
    assert spec is not None
    _take(log, tournament.pause(now=1.0))
    _take(log, tournament.apply_hand(quiet(spec, won=won), now=1.0, rng=random.Random(1)))
    proposed = _take(log, tournament.propose_deal(kind, left=left, now=2.0)).events[0].fields()
    assert sum(proposed["amounts"]) == 6000 - left
    for player in proposed["players"]:
        _take(log, tournament.answer_deal(player, True, now=3.0))
    ledger = tournament.play.registration.ledger
    assert ledger.pool == left and tournament.finished is (left == 0)
    ledger.check()
    if left == 0:
        check_log(_config(6), log)


def test_deal1_a_deal_waiting_for_answers_survives_a_snapshot() -> None:
    tournament, log, directives, _ = _at_the_final_table()
    _pause_at_boundary(tournament, log, directives)
    proposed = _take(log, tournament.propose_deal("icm", left=300, now=2.0)).events[0].fields()
    _take(log, tournament.answer_deal(proposed["players"][0], True, now=3.0))
    loaded = load_snapshot(snapshot(tournament))
    for player in proposed["players"][1:]:
        mine = tournament.answer_deal(player, True, now=4.0).events
        theirs = loaded.answer_deal(player, True, now=4.0).events
        assert [e.fields() for e in mine] == [e.fields() for e in theirs]
    assert loaded.play.deal == tournament.play.deal and loaded.play.awards() == [300, 0, 0, 0, 0, 0]


def test_deal3_a_restarted_orchestrator_replays_the_deal_from_the_log() -> None:
    cfg, seed = _config(6), 11
    names = [f"p{k}" for k in range(6)]
    log: list[dict[str, Any]] = []

    def logged(step: Step, now: float) -> Step:
        for event in step.events:
            log.append(codec.record(event, seq=len(log) + 1, ts=now))
        return step

    def rng() -> random.Random:  # the next step's RNG, as `core.replay` draws it
        return step_rng(seed, len(log))

    tournament, step = Tournament.start(
        cfg, names, deposits=funds(cfg, names), tournament_id="t", now=0.0, rng=rng()
    )
    logged(step, 0.0)
    logged(tournament.table_ready(1, now=0.0), 0.0)
    spec = logged(tournament.poll(1, now=0.0, rng=rng()), 0.0).reply.next_hand  # type: ignore[union-attr]
    assert spec is not None
    logged(tournament.pause(now=1.0), 1.0)
    logged(tournament.apply_hand(quiet(spec, won=300), now=1.0, rng=rng()), 1.0)
    proposed = logged(tournament.propose_deal("icm", now=2.0), 2.0).events[0].fields()
    for player in proposed["players"]:
        logged(tournament.answer_deal(player, True, now=3.0), 3.0)
    assert tournament.finished
    rebuilt = rebuild(
        cfg, names, deposits=funds(cfg, names), tournament_id="t", seed=seed, records=log
    )
    assert rebuilt.finished and dict(rebuilt.places) == dict(tournament.places)
    ledger = rebuilt.play.registration.ledger
    assert ledger.snapshot() == tournament.play.registration.ledger.snapshot()
