"""The audit of `mtt replay` on core logs (no Ray): the log is read as typed events, a record the
codec cannot read is a violation naming its seq (never a crash), and the checks that compare an
event with the state the read model holds before it catch facts that disagree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_registration import BUY_IN, FEE, make
from test_tournament_core import config, run

from orchestrator.core import codec
from orchestrator.views.audit import Violation, audit_events, audit_results
from orchestrator.views.audit.money import Money
from orchestrator.views.audit.tally import Tally, decode_log

Log = list[dict[str, Any]]


@pytest.fixture(scope="module")
def knockout() -> tuple[Log, dict[str, Any]]:
    """Two tables, moves, a table closed, bounties: a log and its results, both clean."""
    bounties = {"kind": "progressive", "bounty": 400}
    cfg = config(players=14, max_per_table=8, buy_in=1000, knockout=bounties)
    tournament, log = run(cfg, seed=7)
    results = tournament.results(seconds=1.0)
    assert audit_events(log) == [] and audit_results(log, results) == []
    return log, results


def changed(log: Log, kind: str, change: Callable[[dict[str, Any]], None], nth: int = 0) -> Log:
    """A copy of `log` in which the `nth` record of `kind` was changed."""
    copy = [dict(e) for e in log]
    change([e for e in copy if e["type"] == kind][nth])
    return copy


def found(violations: list[Violation]) -> list[str]:
    return [str(v) for v in violations]


# --- records the codec cannot read: violations with their seq ---------------------------------


def test_a_mistyped_field_is_a_contract_violation_naming_its_seq(knockout: tuple[Log, Any]) -> None:
    log = changed(knockout[0], "player_moved", lambda e: e.update(to_table="two"))
    seq = next(e["seq"] for e in log if e.get("to_table") == "two")
    assert found(audit_events(log)) == [
        f"events.jsonl seq {seq}: [contract] unreadable record: player_moved.to_table: "
        "expected an int, got 'two'"
    ]


def test_a_missing_field_an_unknown_field_and_an_unknown_type_are_each_named(
    knockout: tuple[Log, Any],
) -> None:
    log = changed(knockout[0], "hand_finished", lambda e: e.pop("players"), nth=3)
    log = changed(log, "player_seated", lambda e: e.update(colour="red"))
    log = changed(log, "table_opened", lambda e: e.update(type="table_painted"))
    details = {v.detail for v in audit_events(log)}
    assert details == {
        "unreadable record: hand_finished: field players is missing",
        "unreadable record: player_seated: no field colour in PlayerSeated",
        "unreadable record: no event type 'table_painted'",
    }
    assert all(v.rule == "contract" for v in audit_events(log))


def test_a_record_without_a_seq_is_named_by_its_line(knockout: tuple[Log, Any]) -> None:
    log = [dict(e) for e in knockout[0]]
    del log[4]["seq"]
    assert found(audit_events(log)) == [
        f"events.jsonl:5: [contract] {log[4]['type']!r} has seq None, not a position in the log"
    ]


def test_results_against_a_log_that_cannot_be_read_gets_the_log_s_violations(
    knockout: tuple[Log, dict[str, Any]],
) -> None:
    log, results = knockout
    broken = changed(log, "prize_awarded", lambda e: e.pop("amount"))
    assert [v.rule for v in audit_results(broken, results)] == ["contract"]


# --- facts that disagree with the log before them ------------------------------------------


def test_a_player_moved_with_chips_he_does_not_hold_is_named(knockout: tuple[Log, Any]) -> None:
    log = changed(knockout[0], "player_moved", lambda e: e.update(stack=e["stack"] + 7))
    moved = next(e for e in log if e["type"] == "player_moved")
    chips = [v for v in audit_events(log) if v.where == f"events.jsonl seq {moved['seq']}"]
    assert found(chips) == [
        f"events.jsonl seq {moved['seq']}: [chips] {moved['player']} moved with "
        f"{moved['stack']} chips, held {moved['stack'] - 7}"
    ]


def test_a_player_eliminated_holding_chips_is_named(knockout: tuple[Log, Any]) -> None:
    log = knockout[0]
    busts = [e for e in log if e["type"] == "player_eliminated"]
    alive = next(e["winner"] for e in log if e["type"] == "tournament_finished")
    wrong = changed(log, "player_eliminated", lambda e: e.update(player=alive))
    chips = {v.detail for v in audit_events(wrong) if v.rule == "chips"}
    assert any(d.startswith(f"{alive} eliminated holding ") for d in chips), chips
    assert busts  # the log has eliminations to change


def test_a_player_seated_at_a_table_never_opened_is_named(knockout: tuple[Log, Any]) -> None:
    log = changed(knockout[0], "player_seated", lambda e: e.update(table=99))
    details = {v.detail for v in audit_events(log) if v.rule == "contract"}
    player = next(e["player"] for e in log if e["type"] == "player_seated")
    assert f"{player} seated at table 99, which is not open" in details


def test_a_place_given_twice_and_a_prize_paid_twice_are_named(
    knockout: tuple[Log, dict[str, Any]],
) -> None:
    log, results = knockout
    second = [e for e in log if e["type"] == "player_eliminated"][1]["place"]
    twice = changed(log, "player_eliminated", lambda e: e.update(place=second))
    assert any("also given at seq" in v.detail for v in audit_events(twice))
    prize = next(e for e in log if e["type"] == "prize_awarded")
    paid_twice = [*log, {**prize, "seq": len(log) + 1}]
    pool = results["prize_pool"]
    assert found(audit_events(paid_twice)) == [
        f"events.jsonl: [REG-1] prizes add up to {pool + prize['amount']}, the pool is {pool}"
    ]
    assert {v.rule for v in audit_results(paid_twice, results)} == {"REG-1"}


def test_reg2_an_unregistration_gives_the_fee_back_and_the_operator_keeps_the_charge() -> None:
    """The ledger balances when a player unregistered (the operator holds the fees of the
    entries still paid and the cancellation charge), and not when a charge is misstated."""
    registration = make(cancellation_bp=1_000)
    events = list(registration.open(now=1.0))
    for player in ("ann", "bob", "cy"):
        events += registration.register(player, now=2.0)
    events += registration.unregister("bob", now=3.0)
    log = [codec.record(e, seq=k, ts=3.0) for k, e in enumerate(events, start=1)]
    held, expected = operator_cents(log)
    assert held == expected == 2 * FEE + (BUY_IN + FEE) // 10
    wrong = changed(log, "player_unregistered", lambda e: e.update(charge=e["charge"] + 1))
    held, expected = operator_cents(wrong)
    assert expected == held + 1


def operator_cents(log: Log) -> tuple[int, int]:
    """What the ledger's postings leave the operator, and what the money check expects him to
    hold (the fees kept, less the overlay), over a log of registrations."""
    money = Money(None, None)
    tally = Tally()
    for record in decode_log(log).records:
        money.see(record, tally)
        tally.add(record)
    return money.balance["operator"], money.fees - money.refunded_fees - money.overlay
