"""GTD-1: a guaranteed prize pool; the operator pays the overlay when registration closes."""

from __future__ import annotations

from typing import Any

import pytest
from test_tournament_core import run
from tournament_checks import check_log

from orchestrator.core.config_toml import parse_config
from orchestrator.core.ledger import Ledger
from orchestrator.core.ledger_records import OPERATOR, POOL, Reason
from orchestrator.core.rankings import Rankings
from orchestrator.core.registration import Registration, RegistrationRules
from orchestrator.errors import ConfigError, LedgerInvariantError
from orchestrator.views.read_model import ReadModel


def _registration(guarantee: int, players: int, *, late: int = 0) -> Registration:
    rules = RegistrationRules(
        tournament="t", buy_in=1000, fee=100, guarantee=guarantee, late_registration_levels=late
    )
    registration = Registration(rules, Ledger(), Rankings())
    for k in range(players + 1):
        registration.ledger.open_account(f"p{k}", 1100, now=0.0)
        registration.rankings.add_player(f"p{k}")
    registration.open(now=0.0)
    for k in range(players):
        registration.register(f"p{k}", now=0.0)
    return registration


def test_gtd1_the_operator_pays_the_shortfall_into_the_pool_when_registration_closes() -> None:
    registration = _registration(10_000, 6)
    events = registration.start(now=1.0)
    assert [e.EVENT_TYPE for e in events] == [
        "registration_closed",
        "overlay_paid",
        "ledger_posted",
    ]
    closed, overlay, posted = (e.fields() for e in events)
    assert closed["prize_pool"] == 6000
    assert overlay == {"guarantee": 10_000, "entries_pool": 6000, "overlay": 4000}
    assert posted["source"] == "operator" and posted["target"] == "pool"
    assert posted["reason"] == "overlay" and posted["amount"] == 4000
    ledger = registration.ledger
    assert (ledger.pool, ledger.operator, ledger.overlay) == (10_000, 600, 4000)
    assert ledger.postings[-1].reason is Reason.OVERLAY and ledger.postings[-1].rule == "GTD-1"
    ledger.check()


def test_gtd1_no_overlay_when_the_entries_reach_the_guarantee() -> None:
    registration = _registration(6000, 6)
    assert [e.EVENT_TYPE for e in registration.start(now=1.0)] == ["registration_closed"]
    assert registration.ledger.overlay == 0 and registration.ledger.pool == 6000


def test_gtd1_late_registration_counts_its_entries_before_the_overlay() -> None:
    registration = _registration(10_000, 6, late=2)
    assert registration.start(now=1.0) == ()  # late registration open: no overlay yet
    registration.register("p6", now=2.0)
    assert registration.level_started(2, now=3.0) == ()
    events = registration.level_started(3, now=4.0)
    assert [e.EVENT_TYPE for e in events][:2] == ["registration_closed", "overlay_paid"]
    assert registration.ledger.overlay == 3000 and registration.ledger.pool == 10_000


def test_gtd1_the_overlay_is_paid_once_and_before_any_prize() -> None:
    ledger = Ledger()
    ledger.open_account("ann", 2000, now=0.0)
    ledger.entry("ann", buy_in=1000, fee=0, now=0.0)
    ledger.award_prize("ann", 500, now=1.0)
    before = ledger.snapshot()
    with pytest.raises(LedgerInvariantError, match="before any prize"):
        ledger.pay_overlay(5000, now=2.0)
    assert ledger.snapshot() == before
    other = Ledger()
    other.pay_overlay(100, now=0.0)
    with pytest.raises(LedgerInvariantError, match="already paid"):
        other.pay_overlay(200, now=1.0)
    assert (other.pool, other.balances()[OPERATOR], other.balances()[POOL]) == (100, 0, 100)


def test_gtd1_config_key_is_payouts_guarantee_in_cents() -> None:
    base: dict[str, Any] = {"tournament": {"players": 10}, "levels": {"blinds": [[10, 20]]}}
    assert parse_config(base).guarantee == 0
    config = parse_config({**base, "payouts": {"guarantee": 500_000, "paid_percent": 20}})
    assert (config.guarantee, config.paid_percent, config.payout_percent) == (500_000, 20, None)
    with pytest.raises(ConfigError, match=r"payouts\.guarantee must be a whole number"):
        parse_config({**base, "payouts": {"guarantee": 10.5}})
    with pytest.raises(ConfigError, match=r"payouts\.guarantee must be >= 0"):
        parse_config({**base, "payouts": {"guarantee": -1}})


@pytest.mark.parametrize("late", [0, 2])
def test_gtd1_a_guaranteed_tournament_pays_the_guarantee_and_its_books_balance(late: int) -> None:
    tournament: dict[str, Any] = {"players": 18, "max_per_table": 9, "buy_in": 1000, "fee": 100}
    if late:
        tournament |= {"late_registration_levels": late, "late_entries": 4}
    cfg = parse_config(
        {
            "tournament": {**tournament, "starting_stack": 1000},
            "levels": {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40], [50, 100]]},
            "payouts": {"guarantee": 50_000},
        }
    )
    core, log = run(cfg, seed=5)
    check_log(cfg, log)  # the audit of `mtt replay`: the money balances to the cent
    entries = sum(1 for e in log if e["type"] == "player_registered")
    assert entries > 18 if late else entries == 18
    (overlay,) = (e for e in log if e["type"] == "overlay_paid")
    assert overlay["overlay"] == 50_000 - 1000 * entries
    first_prize = next(e["seq"] for e in log if e["type"] == "prize_awarded")
    assert overlay["seq"] < first_prize
    assert sum(e["amount"] for e in log if e["type"] == "prize_awarded") == 50_000
    assert core.play.prize_pool == 50_000 and core.play.registration.ledger.pool == 0
    results = core.play.results(tournament="t", hands=core.hands)
    assert results["prize_pool"] == 50_000


def test_gtd1_the_read_model_shows_the_guaranteed_pool_once_registration_closed() -> None:
    cfg = parse_config(
        {
            "tournament": {"players": 12, "max_per_table": 6, "buy_in": 1000},
            "levels": {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40], [50, 100]]},
            "payouts": {"guarantee": 20_000},
        }
    )
    _, log = run(cfg, seed=2)
    model = ReadModel()
    closed = next(e["seq"] for e in log if e["type"] == "overlay_paid")
    for record in log[: closed - 1]:
        model.apply_record(record)
    assert model.prize_pool == 12_000
    model.apply_record(log[closed - 1])
    assert model.prize_pool == 20_000
