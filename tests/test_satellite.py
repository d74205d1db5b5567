"""Satellites (SAT-1..SAT-3): seats N = floor(pool / V) and the remainder to place N+1, play
stopping at N with hand-for-hand on the seat bubble, tickets in the ledger spent as the target's
entry and refunded at face value by CRASH-1. Pure core: no Ray."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_tournament_core import run
from tournament_checks import begin, check_log, funds

from orchestrator.core import codec
from orchestrator.core.config import SatelliteRules, TournamentConfig
from orchestrator.core.config_satellite import check_target
from orchestrator.core.config_toml import load_config, parse_config
from orchestrator.core.events import Event, TournamentOpened
from orchestrator.core.ledger import Ledger
from orchestrator.core.ledger_records import POOL, Reason, ticket_account
from orchestrator.core.replay import load_snapshot, open_tournament, rebuild_from_log, snapshot
from orchestrator.core.satellite import Seats
from orchestrator.core.tournament import Tournament
from orchestrator.errors import ConfigError, InsufficientFundsError
from orchestrator.shell.satellite import load_target
from orchestrator.views.audit import audit_results
from orchestrator.views.live.lobby import Lobby
from table_worker.protocol import HandPlayer, HandReport, NextHand

_LEVELS = {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40], [50, 100], [100, 200]]}


def _satellite(
    players: int = 30, *, buy_in: int = 1000, seat: int = 5500, **extra: Any
) -> TournamentConfig:
    tournament = {"players": players, "max_per_table": 6, "buy_in": buy_in, "fee": 100}
    tournament |= {"starting_stack": 1000} | extra
    return parse_config(
        {"tournament": tournament, "levels": _LEVELS, "satellite": {"seat_value": seat}}
    )


def test_sat1_config_section_and_its_refusals_name_the_key() -> None:
    cfg = _satellite()
    assert cfg.satellite == SatelliteRules(seat_value=5500)
    base: dict[str, Any] = {"tournament": {"players": 10}, "levels": _LEVELS}
    with pytest.raises(ConfigError, match=r"satellite\.seat_value must be >= 1"):
        parse_config({**base, "satellite": {"seat_value": 0}})
    with pytest.raises(ConfigError, match=r"satellite\.seat_value must be a whole number"):
        parse_config({**base, "satellite": {"seat_value": 10.5}})
    with pytest.raises(ConfigError, match=r"unknown key seats"):
        parse_config({**base, "satellite": {"seat_value": 10, "seats": 3}})
    with pytest.raises(ConfigError, match=r"remove \[side_events\]"):
        parse_config({**base, "satellite": {"seat_value": 10}, "side_events": {}})
    late = {"players": 10, "late_registration_levels": 2}
    with pytest.raises(ConfigError, match="remove late_registration_levels"):
        parse_config({**base, "tournament": late, "satellite": {"seat_value": 10}})
    with pytest.raises(ConfigError, match=r"\[payouts\] takes only guarantee"):
        parse_config({**base, "satellite": {"seat_value": 10}, "payouts": {"percent": [100]}})


def test_sat1_seats_are_the_pool_over_the_seat_value_and_the_remainder_goes_to_place_n_plus_1() -> (
    None
):
    rules = SatelliteRules(seat_value=5500)
    seats = Seats.paid(rules, pool=30_000, field=30, hand_for_hand=0)
    assert (seats.count, seats.remainder) == (5, 2500)
    assert seats.prizes() == [5500] * 5 + [2500]
    assert seats.hand_for_hand(0, 6) == 11  # SAT-2: N + one table by default
    with pytest.raises(ConfigError, match=r"smaller than one seat \(satellite\.seat_value 5500\)"):
        Seats.paid(rules, pool=5000, field=30, hand_for_hand=0)
    with pytest.raises(ConfigError, match="fewer seats than players"):
        Seats.paid(rules, pool=5500 * 4, field=4, hand_for_hand=0)
    with pytest.raises(ConfigError, match="hand_for_hand 5 starts inside the 5 seats"):
        Seats.paid(rules, pool=30_000, field=30, hand_for_hand=5)


def test_sat1_a_satellite_whose_pool_is_short_of_one_seat_is_refused_at_the_start() -> None:
    cfg = _satellite(4, buy_in=1000, seat=5500)
    players = [f"p{k}" for k in range(4)]
    with pytest.raises(ConfigError, match=r"satellite\.seat_value"):
        Tournament.start(
            cfg,
            players,
            deposits=funds(cfg, players),
            tournament_id="t",
            now=0.0,
            rng=random.Random(1),
        )


def test_sat1_the_target_must_charge_the_seat_value() -> None:
    target = parse_config(
        {"tournament": {"players": 10, "buy_in": 5000, "fee": 500}, "levels": _LEVELS}
    )
    check_target(_satellite(seat=5500), target)
    with pytest.raises(ConfigError, match=r"satellite\.seat_value 5400 is not the entry"):
        check_target(_satellite(seat=5400), target)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sat2_play_stops_at_n_and_each_of_the_n_holds_the_same_ticket(seed: int) -> None:
    cfg = _satellite()
    core, log = run(cfg, seed=seed)
    check_log(cfg, log)  # the audit of `mtt replay`, tickets counted as paid at face value
    assert core.finished
    (end,) = (e for e in log if e["type"] == "satellite_finished")
    assert (end["seats"], end["value"], end["remainder"]) == (5, 5500, 2500)
    tickets = [e for e in log if e["type"] == "ticket_awarded"]
    assert sorted(e["place"] for e in tickets) == [1, 2, 3, 4, 5]
    assert [e["player"] for e in sorted(tickets, key=lambda e: e["place"])] == list(end["players"])
    (finished,) = (e for e in log if e["type"] == "tournament_finished")
    assert finished["winner"] == end["players"][0]
    ledger = core.play.registration.ledger
    assert ledger.pool == 0 and ledger.tickets == 5 * 5500
    for player in end["players"]:
        assert ledger.balances()[ticket_account(player)] == 5500
    (bubble,) = (e for e in log if e["type"] == "prize_awarded")
    assert (bubble["place"], bubble["amount"]) == (6, 2500)
    on = [e for e in log if e["type"] == "hand_for_hand"]
    assert on and on[0]["active"] and on[0]["players"] <= 11  # SAT-2: on the seat bubble
    results = core.play.results(tournament="t", hands=core.hands)
    assert not audit_results(log, results)
    assert sum(1 for r in results["places"] if r.get("ticket") == 5500) == 5


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(min_value=8, max_value=40),
    buy_in=st.integers(min_value=100, max_value=3000),
    wanted=st.integers(min_value=1, max_value=39),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_sat1_sat2_every_satellite_seats_exactly_n_ticket_holders_and_balances_to_the_cent(
    players: int, buy_in: int, wanted: int, seed: int
) -> None:
    pool = players * buy_in
    seat = pool // min(wanted, players - 1)  # about `wanted` seats, fewer than the players
    assume(1 <= pool // seat < players)  # else refused at the start: tested above
    cfg = _satellite(players, buy_in=buy_in, seat=seat)
    core, log = run(cfg, seed=seed)
    check_log(cfg, log)
    seats = pool // seat
    tickets = [e for e in log if e["type"] == "ticket_awarded"]
    assert len(tickets) == seats and len({e["player"] for e in tickets}) == seats
    ledger = core.play.registration.ledger
    assert ledger.pool == 0 and ledger.tickets == seats * seat
    cash = sum(e["amount"] for e in log if e["type"] == "prize_awarded")
    assert ledger.tickets + cash == pool  # entries = tickets at face value + the remainder
    ledger.check()


def _target(players: int = 8) -> TournamentConfig:
    return parse_config(
        {
            "tournament": {"players": players, "max_per_table": 6, "buy_in": 5000, "fee": 500},
            "levels": _LEVELS,
        }
    )


def test_sat3_a_ticket_pays_the_target_entry_from_the_ticket_account() -> None:
    cfg = _target()
    holders = {"won1": 5500, "won2": 5500}
    players = [*holders, *(f"p{k}" for k in range(6))]
    deposits = funds(cfg, players[2:]) | dict.fromkeys(holders, 0)
    core, step = Tournament.start(
        cfg,
        players,
        deposits=deposits,
        tournament_id="t",
        now=0.0,
        rng=random.Random(3),
        tickets=holders,
    )
    ledger = core.play.registration.ledger
    assert ledger.pool == 8 * 5000 and ledger.tickets == 0
    spent = [p for p in ledger.postings if p.reason in (Reason.TICKET_ENTRY, Reason.TICKET_FEE)]
    assert {(str(p.source), p.amount) for p in spent} == {
        ("ticket:won1", 5000),
        ("ticket:won1", 500),
        ("ticket:won2", 5000),
        ("ticket:won2", 500),
    }
    posted = [e.fields() for e in step.events if e.EVENT_TYPE == "ledger_posted"]
    assert [e["source"] for e in posted if e["reason"] == "ticket_entry"] == [
        "ticket:won1",
        "ticket:won2",
    ]
    ledger.check()


def test_sat3_crash1_a_target_cancelled_in_registration_refunds_the_ticket_at_face_value() -> None:
    ledger = Ledger()
    ledger.open_account("won", 0, now=0.0)
    ledger.open_ticket("won", 5500, now=0.0)
    ledger.entry("won", buy_in=5000, fee=500, now=1.0, ticket=True)
    assert ledger.ticket_of("won") == 0 and ledger.pool == 5000
    ledger.refund_all(now=2.0)  # CRASH-1
    assert ledger.balance_of("won") == 5500 and ledger.ticket_of("won") == 0
    assert ledger.pool == 0 and ledger.operator == 0
    ledger.check()


def test_sat3_reg2_unregistering_gives_the_ticket_back_whole() -> None:
    ledger = Ledger()
    ledger.open_account("won", 0, now=0.0)
    ledger.open_ticket("won", 5500, now=0.0)
    ledger.entry("won", buy_in=5000, fee=500, now=1.0, ticket=True)
    refunded = ledger.refund_entry("won", charge_bp=1000, now=2.0)
    assert refunded.charge == 0 and ledger.ticket_of("won") == 5500
    ledger.check()


def test_sat3_a_ticket_must_be_worth_the_entry_and_a_refusal_changes_nothing() -> None:
    ledger = Ledger()
    ledger.open_account("won", 10_000, now=0.0)
    ledger.open_ticket("won", 5400, now=0.0)
    before = ledger.snapshot()
    with pytest.raises(InsufficientFundsError, match="ticket is worth 5400, the entry is 5500"):
        ledger.entry("won", buy_in=5000, fee=500, now=1.0, ticket=True)
    assert ledger.snapshot() == before


def test_sat3_the_pool_pays_a_seat_into_the_ticket_account() -> None:
    ledger = Ledger()
    ledger.open_account("ann", 1000, now=0.0)
    ledger.entry("ann", buy_in=1000, fee=0, now=0.0)
    with pytest.raises(InsufficientFundsError, match="the pool holds 1000, a seat is 1100"):
        ledger.award_ticket("ann", 1100, now=1.0)
    posting = ledger.award_ticket("ann", 1000, now=1.0)
    assert (posting.source, posting.target, posting.rule) == (POOL, ticket_account("ann"), "SAT-3")
    assert ledger.tickets == 1000 and ledger.pool == 0
    ledger.check()


def _bust(spec: NextHand, losers: set[str]) -> HandReport:
    """A report of `spec` in which `losers` lost every chip to the first other seat."""
    ends = {p: c for _, p, c in spec.seats}
    keeper = next(p for _, p, _ in spec.seats if p not in losers)
    for player in losers:
        ends[keeper] += ends[player]
        ends[player] = 0
    players = tuple(HandPlayer(p, seat, stack, ends[p]) for seat, p, stack in spec.seats)
    return HandReport(spec.table, spec.hand, spec.blinds.button, players)


def test_sat2_elim1_a_hand_for_hand_round_crossing_the_seat_line_seats_the_best_placed_busted() -> (
    None
):
    # 8 x 1000 pays 3 seats of 2500 and 500 to place 4; hand-for-hand from 8 players left
    cfg = _satellite(8, buy_in=1000, seat=2500, max_per_table=4, hand_for_hand=8)
    players = [f"p{k}" for k in range(8)]
    core, step = Tournament.start(
        cfg, players, deposits=funds(cfg, players), tournament_id="t", now=0.0,
        rng=random.Random(7),
    )  # fmt: skip
    hands = {t: d.next_hand for t, d in begin(core, step).items()}
    events: list[Event] = []
    # round 1: two busted at one table, one at the other (8 -> 5 left)
    for table, busting in ((1, 2), (2, 1)):
        spec = hands[table]
        assert spec is not None
        losers = {p for _, p, _ in spec.seats[1 : 1 + busting]}
        events += (
            step := core.apply_hand(_bust(spec, losers), now=1.0, rng=random.Random(1))
        ).events
        hands[table] = step.reply.next_hand if step.reply else None
    for table in sorted(core.seating.tables):
        if hands.get(table) is None:
            reply = core.poll(table, now=2.0, rng=random.Random(2)).reply
            hands[table] = reply.next_hand if reply else None
    assert core.play.active_players == 5 and not core.finished
    # round 2: every table busts all but its shortest stack (5 -> 2 left): below the 3 seats,
    # round 1's winners among the busted
    busted: list[str] = []
    for table in sorted(t for t, spec in hands.items() if spec is not None):
        spec = hands[table]
        assert spec is not None
        short = min(spec.seats, key=lambda s: s[2])[1]
        losers = {p for _, p, _ in spec.seats if p != short}
        busted += losers
        events += core.apply_hand(_bust(spec, losers), now=3.0, rng=random.Random(3)).events
    assert core.finished and len(busted) == 3
    fields = [e.fields() | {"type": e.EVENT_TYPE} for e in events]
    out = {
        e["player"]: e for e in fields if e["type"] == "player_eliminated" and e["player"] in busted
    }
    assert sorted(e["place"] for e in out.values()) == [3, 4, 5]
    best = max(busted, key=lambda p: out[p]["start"])
    assert sorted(out[p]["start"] for p in busted)[-2] < out[best]["start"]  # no tie
    assert out[best]["place"] == 3  # ELIM-1: the most chips at the hand's start
    tickets = {e["player"]: e for e in fields if e["type"] == "ticket_awarded"}
    assert len(tickets) == 3 and tickets[best]["chips"] == 0 and tickets[best]["place"] == 3
    (cash,) = (e for e in fields if e["type"] == "prize_awarded")
    assert (cash["place"], cash["amount"]) == (4, 500)
    core.play.registration.ledger.check()


def test_sat3_mtt_run_refuses_a_satellite_whose_target_does_not_exist(tmp_path: Path) -> None:
    config = tmp_path / "sat.toml"
    config.write_text(
        "[tournament]\nplayers = 10\nbuy_in = 1000\n[levels]\nblinds = [[10, 20]]\n"
        '[satellite]\nseat_value = 5500\ntarget = "missing.toml"\n'
    )
    ran = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "run", str(config), "--out",
         str(tmp_path / "out")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ran.returncode == 2, ran.stderr
    assert "satellite.target 'missing.toml': no such file" in ran.stderr
    assert "Traceback" not in ran.stderr
    (tmp_path / "missing.toml").write_text(
        "[tournament]\nbuy_in = 5000\nfee = 400\n[levels]\nblinds = [[10, 20]]\n"
    )
    with pytest.raises(ConfigError, match=r"satellite\.seat_value 5500 is not the entry"):
        load_target(load_config(config), config)
    assert load_target(_satellite(), config) is None  # no target named: the satellite alone


def test_sat3_the_opening_record_keeps_the_tickets_so_the_log_alone_rebuilds_the_target() -> None:
    cfg = _target()
    holders = {"won1": 5500, "won2": 5500}
    players = (*holders, *(f"p{k}" for k in range(6)))
    opened = TournamentOpened(
        tournament="t",
        config=cfg,
        players=players,
        deposits=funds(cfg, players[2:]) | dict.fromkeys(holders, 0),
        seed=5,
        tickets=holders,
    )
    core, step = open_tournament(opened, now=0.0)
    records = [codec.record(e, seq=k, ts=0.0) for k, e in enumerate(step.events, start=1)]
    assert records[0]["tickets"] == holders
    rebuilt = rebuild_from_log(records)  # raises naming the seq where a step differs
    ledger = rebuilt.play.registration.ledger
    assert ledger.snapshot() == core.play.registration.ledger.snapshot()
    assert ledger.pool == 8 * 5000 and ledger.tickets == 0


def test_sat1_a_satellite_snapshot_keeps_its_seats() -> None:
    cfg = _satellite()
    players = [f"p{k}" for k in range(30)]
    core, _ = Tournament.start(
        cfg, players, deposits=funds(cfg, players), tournament_id="t", now=0.0,
        rng=random.Random(4),
    )  # fmt: skip
    again = load_snapshot(snapshot(core))
    assert again.play.seats == core.play.seats == Seats(5, 5500, 2500)


def test_sat2_crash2_a_satellite_cancelled_while_running_rolls_forward_without_tickets() -> None:
    cfg = _satellite()
    core, log = run(cfg, seed=4, cancel_when=lambda t: t.play.active_players <= 15)
    check_log(cfg, log)
    assert core.cancelled is not None
    assert not [e for e in log if e["type"] in ("ticket_awarded", "satellite_finished")]
    assert core.play.registration.ledger.pool == 0 and core.play.registration.ledger.tickets == 0


def test_sat3_mtt_run_target_names_the_target_file_instead_of_the_config_key(
    tmp_path: Path,
) -> None:
    satellite = tmp_path / "sat.toml"
    satellite.write_text(
        "[tournament]\nplayers = 30\nbuy_in = 1000\n[levels]\nblinds = [[10, 20]]\n"
        "[satellite]\nseat_value = 5500\n"
    )
    target = tmp_path / "elsewhere.toml"
    target.write_text("[tournament]\nbuy_in = 5000\nfee = 500\n[levels]\nblinds = [[10, 20]]\n")
    config = load_config(satellite)
    loaded = load_target(config, satellite, given=target)
    assert loaded is not None and loaded.buy_in == 5000
    with pytest.raises(ConfigError, match=r"--target: no such file"):
        load_target(config, satellite, given=tmp_path / "none.toml")
    with pytest.raises(ConfigError, match=r"--target: .* is not a satellite"):
        load_target(load_config(target), target, given=target)


def test_sat2_the_lobby_shows_the_seats_as_payouts_and_the_tickets_won() -> None:
    cfg = _satellite()
    _, log = run(cfg, seed=2)
    lobby = Lobby(cfg)
    for record in log:
        lobby.apply(record)
    clock = lobby.clock(now=0.0)
    holders = [e["player"] for e in log if e["type"] == "ticket_awarded"]
    assert clock["payouts"] == [5500] * 5 + [2500]
    assert clock["tickets"] == dict.fromkeys(holders, 5500) and clock["status"] == "finished"
    feed = [item.text for item in lobby.take_changes().feed]
    assert sum("wins a seat" in text for text in feed) == 5
