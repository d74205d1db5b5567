"""Bounties (KO-1..KO-5) in the pure core: who eliminated whom from the hand's pots, what each
kind of knockout pays, the mystery list's commitment, and every cent through the ledger, from
hands written by hand and from whole tournaments of engine hands. No Ray here."""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_recovery import drive, names
from test_tournament_core import config, run
from tournament_checks import begin, check_log, funds

from orchestrator.core.bounties import eliminators_pot, mystery_commitment, split_by_pot
from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_toml import load_config, parse_config
from orchestrator.core.events import Event
from orchestrator.core.ledger import Ledger
from orchestrator.core.rankings import Rankings
from orchestrator.core.registration import Registration, RegistrationRules
from orchestrator.core.replay import rebuild
from orchestrator.core.sanctions import SanctionKind
from orchestrator.core.tournament import Tournament
from orchestrator.errors import ConfigError, ReportError
from orchestrator.views.audit import audit_events, audit_results
from orchestrator.views.report.figures import run_figures
from orchestrator.views.report.page import money, render_page
from table_worker.engine import Hand, HandSetup
from table_worker.protocol import HandPlayer, HandPot, HandReport, NextHand

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LEVELS = {"unit": "hands", "length": 50, "blinds": [[10, 20], [20, 40]]}


def ko(kind: str, *, players: int = 4, bounty: int = 500, **knockout: Any) -> TournamentConfig:
    """A one-table knockout of `players` p0, p1, ... with 1,000 chips each and a buy-in of
    1,000 cents (the bounty part of it) plus a fee of 100."""
    return parse_config(
        {
            "tournament": {
                "players": players,
                "max_per_table": players,
                "starting_stack": 1000,
                "buy_in": 1000,
                "fee": 100,
            },
            "levels": LEVELS,
            "knockout": {"kind": kind, "bounty": bounty, **knockout},
        }
    )


class Table:
    """One table of a tournament, its hands written by hand: who ends with what, and the pots
    by player (`(amount, eligible, winners)`)."""

    def __init__(self, cfg: TournamentConfig) -> None:
        players = [f"p{k}" for k in range(cfg.players)]
        self.tournament, step = Tournament.start(
            cfg, players, deposits=funds(cfg, players), tournament_id="t", now=0.0,
            rng=random.Random(7),
        )  # fmt: skip
        self.events: list[Event] = list(step.events)
        (directive,) = begin(self.tournament, step).values()
        assert directive.next_hand is not None
        self.spec: NextHand = directive.next_hand

    def seat(self, player: str) -> int:
        return next(seat for seat, p, _ in self.spec.seats if p == player)

    def hand(
        self, ends: dict[str, int], pots: list[tuple[int, list[str], list[tuple[str, int]]]]
    ) -> list[Event]:
        spec = self.spec
        report = HandReport(
            spec.table,
            spec.hand,
            spec.blinds.button,
            tuple(HandPlayer(p, seat, stack, ends.get(p, stack)) for seat, p, stack in spec.seats),
            pots=tuple(
                HandPot(
                    amount,
                    tuple(self.seat(p) for p in eligible),
                    tuple((self.seat(p), chips) for p, chips in winners),
                )
                for amount, eligible, winners in pots
            ),
        )
        step = self.tournament.apply_hand(report, now=float(spec.hand), rng=random.Random(1))
        self.events += step.events
        if step.reply is not None and step.reply.next_hand is not None:
            self.spec = step.reply.next_hand
        return step.events

    @property
    def ledger(self) -> Any:
        return self.tournament.play.registration.ledger


def won(events: list[Event]) -> list[tuple[str, str, int, int]]:
    return [
        (e.player, e.eliminated, e.cash, e.added)  # type: ignore[attr-defined]
        for e in events
        if e.EVENT_TYPE == "bounty_won"
    ]


def returned(events: list[Event]) -> dict[str, int]:
    return {
        e.player: e.amount  # type: ignore[attr-defined]
        for e in events
        if e.EVENT_TYPE == "bounty_returned"
    }


def two_short_stacks(table: Table) -> None:
    """Hand 1 leaves p1 with 100 and p2 with 300 (nobody busts: no pot decides anything)."""
    table.hand({"p0": 2600, "p1": 100, "p2": 300, "p3": 1000}, [])


def both_short_stacks_bust(table: Table) -> list[Event]:
    """Hand 2: p1 (100) and p2 (300) all in; p3 wins the main pot (p1's smallest), p0 the
    side pot (p2's smallest)."""
    return table.hand(
        {"p0": 2900, "p1": 0, "p2": 0, "p3": 1100},
        [(400, ["p0", "p1", "p2", "p3"], [("p3", 400)]), (600, ["p0", "p2", "p3"], [("p0", 600)])],
    )


# --- KO-3: the eliminator -------------------------------------------------------------------


def test_ko3_the_eliminator_wins_the_smallest_pot_he_was_in() -> None:
    pots = [
        HandPot(400, (1, 2, 3, 4), ((3, 400),)),
        HandPot(600, (1, 3, 4), ((1, 600),)),
        HandPot(200, (1, 4), ((4, 200),)),
    ]
    assert eliminators_pot(2, pots) == pots[0]
    assert eliminators_pot(3, pots) == pots[1]
    assert eliminators_pot(4, pots) == pots[2]
    assert eliminators_pot(5, pots) is None


def test_ko3_winners_share_by_their_shares_of_the_pot_odd_cents_in_he7_order() -> None:
    # Seats 1..9, the button at 6: clockwise from the seat left of it, 8 comes before 2.
    pot = HandPot(901, (2, 5, 8), ((2, 600), (8, 301)))
    assert split_by_pot(1000, pot, button=6, seats_per_table=9) == [(8, 335), (2, 665)]
    tie = HandPot(900, (2, 5, 8), ((2, 450), (8, 450)))
    assert split_by_pot(1001, tie, button=6, seats_per_table=9) == [(8, 501), (2, 500)]
    assert split_by_pot(1001, tie, button=1, seats_per_table=9) == [(2, 501), (8, 500)]


def test_ko3_the_engine_reports_every_pot_its_players_and_its_winners() -> None:
    """Stacks of 1,000, 600 and 300 all in: 400 of seat 1's bet is uncalled and comes back, so
    the hand settles a main pot of 900 for all three and a side pot of 600 for seats 1 and 2;
    every chip of them reaches a winner."""
    deck = list(range(52))
    hand = Hand(
        HandSetup(seats=(1, 2, 3), stacks=(1000, 600, 300), button=3, small_blind_seat=1,
                  big_blind_seat=2, small_blind=10, big_blind=20),
        deck,
    )  # fmt: skip
    while (seat := hand.actor) is not None:
        legal = hand.legal_actions()
        if legal.max_raise_to is not None:
            hand.bet_or_raise(seat, legal.max_raise_to)
        else:
            hand.check_or_call(seat)
    pots = hand.pots()
    assert [p.amount for p in pots] == [900, 600]
    assert [p.eligible for p in pots] == [(1, 2, 3), (1, 2)]
    assert sum(chips for p in pots for _, chips in p.winners) == 1500
    ends = hand.finishing_stacks()
    for pot in pots:  # each winner's chips are in his finishing stack
        for seat, chips in pot.winners:
            assert ends[seat] >= chips


def test_ko3_a_bust_without_a_pot_he_was_in_is_refused() -> None:
    table = Table(ko("knockout"))
    before = pickle.dumps(table.tournament)
    with pytest.raises(ReportError, match=r"KO-3: table 1 hand 1 busted p1, but reports no pot"):
        table.hand({"p0": 2000, "p1": 0}, [])
    with pytest.raises(ReportError, match="a pot of 2000 is not shared among its players"):
        table.hand({"p0": 2000, "p1": 0}, [(2000, ["p0", "p1"], [("p0", 1999)])])
    assert pickle.dumps(table.tournament) == before  # refused before anything changed


# --- KO-1, KO-2: what an elimination pays -----------------------------------------------------


def test_ko1_the_eliminator_wins_the_fixed_bounty_each_bust_judged_on_its_own_pot() -> None:
    table = Table(ko("knockout"))
    two_short_stacks(table)
    events = both_short_stacks_bust(table)
    assert won(events) == [("p3", "p1", 500, 0), ("p0", "p2", 500, 0)]
    assert table.ledger.balance_of("p3") == 500 and table.ledger.balance_of("p0") == 500
    finish = table.hand({"p0": 4000, "p3": 0}, [(2200, ["p0", "p3"], [("p0", 2200)])])
    assert won(finish) == [("p0", "p3", 500, 0)]
    assert returned(finish) == {"p0": 500}  # nobody won the winner's own bounty
    assert table.ledger.bounties == 0 and table.ledger.pool == 0
    table.ledger.check()


def test_ko2_half_in_cash_half_on_the_eliminators_head_and_the_winner_takes_his_own() -> None:
    table = Table(ko("progressive"))
    two_short_stacks(table)
    events = both_short_stacks_bust(table)
    assert won(events) == [("p3", "p1", 250, 250), ("p0", "p2", 250, 250)]
    bounties = table.tournament.structures[-1]
    assert bounties.bounty_of("p0") == bounties.bounty_of("p3") == 750  # type: ignore[attr-defined]
    finish = table.hand({"p0": 4000, "p3": 0}, [(2200, ["p0", "p3"], [("p0", 2200)])])
    assert won(finish) == [("p0", "p3", 375, 375)]
    assert returned(finish) == {"p0": 1125}
    assert table.ledger.bounties == 0
    # Every cent of the 4 bounties of 500 reached a player: 250 + 250 + 375 + 1125.
    paid = {p: table.ledger.balance_of(p) for p in ("p0", "p1", "p2", "p3")}
    prizes = {e.player: e.amount for e in finish if e.EVENT_TYPE == "prize_awarded"}  # type: ignore[attr-defined]
    assert paid["p3"] - prizes.get("p3", 0) == 250 and paid["p0"] - prizes["p0"] == 1750


def test_ko2_a_split_pot_shares_the_bounty_and_its_cash_percent() -> None:
    table = Table(ko("progressive", players=3, bounty=501, cash_percent=40))
    seats = {p: s for s, p, _ in table.spec.seats}
    button = table.spec.blinds.button
    split = [(3000, ["p0", "p1", "p2"], [("p0", 1500), ("p2", 1500)])]
    table.hand({"p0": 1500, "p1": 0, "p2": 1500}, split)
    (first, second) = won(table.events)
    # Clockwise from the first seat after the button: the one reached first gets the odd cent.
    clockwise = sorted(("p0", "p2"), key=lambda p: (seats[p] - button - 1) % 3)
    assert [first[0], second[0]] == clockwise and first[1] == second[1] == "p1"
    assert (first[2] + first[3], second[2] + second[3]) == (251, 250)
    assert (first[2], second[2]) == (251 * 40 // 100, 250 * 40 // 100)  # the cash, rounded down


# --- KO-4: mystery bounties -------------------------------------------------------------------


def test_ko4_draws_in_the_committed_order_from_the_stage_and_reveals_it_at_the_end() -> None:
    amounts = [1000, 600, 300, 100]
    table = Table(ko("mystery", mystery=amounts, mystery_from=3))
    (committed,) = [e for e in table.events if e.EVENT_TYPE == "mystery_bounties_committed"]
    assert committed.amounts == (100, 300, 600, 1000)  # type: ignore[attr-defined]
    before = table.hand({"p0": 2000, "p1": 0}, [(2000, ["p0", "p1"], [("p0", 2000)])])
    assert won(before) == []  # 4 players in before the hand: the stage is 3
    second = table.hand({"p0": 3000, "p2": 0}, [(2000, ["p0", "p2"], [("p0", 2000)])])
    finish = table.hand({"p0": 4000, "p3": 0}, [(2000, ["p0", "p3"], [("p0", 2000)])])
    (revealed,) = [e for e in finish if e.EVENT_TYPE == "mystery_bounties_revealed"]
    order, salt = revealed.order, bytes.fromhex(revealed.salt)  # type: ignore[attr-defined]
    assert mystery_commitment(order, salt) == committed.commitment  # type: ignore[attr-defined]
    assert sorted(order) == sorted(amounts)
    assert won(second) == [("p0", "p2", order[0], 0)]
    assert won(finish) == [("p0", "p3", order[1], 0)]
    assert returned(finish) == {"p0": order[2] + order[3]}  # never drawn: to the winner
    assert table.ledger.bounties == 0


def test_ko4_the_order_is_the_tournaments_rng_and_another_salt_breaks_the_commitment() -> None:
    cfg = ko("mystery", mystery=[1000, 600, 300, 100])
    orders = set()
    for _ in range(2):
        table = Table(cfg)
        (c,) = [e for e in table.events if e.EVENT_TYPE == "mystery_bounties_committed"]
        orders.add(c.commitment)  # type: ignore[attr-defined]
    assert len(orders) == 1  # the same seed, the same order and salt
    assert mystery_commitment([1000, 600], bytes(32)) != mystery_commitment([600, 1000], bytes(32))
    assert mystery_commitment([1000, 600], bytes(32)) != mystery_commitment(
        [1000, 600], bytes(31) + b"\1"
    )


# --- KO-5: cancellations ----------------------------------------------------------------------


def test_ko5_a_cancellation_returns_every_bounty_still_held_to_its_holder() -> None:
    table = Table(ko("progressive"))
    two_short_stacks(table)
    both_short_stacks_bust(table)
    step = table.tournament.cancel("the room lost power", now=10.0)
    assert returned(step.events) == {"p0": 750, "p3": 750}
    assert step.events[0].EVENT_TYPE == "tournament_cancelled"
    assert table.ledger.bounties == 0 and table.ledger.pool == 0
    table.ledger.check()


def test_ko5_a_cancelled_mystery_shares_the_amounts_not_drawn_among_the_players_still_in() -> None:
    table = Table(ko("mystery", mystery=[1000, 600, 300, 100], mystery_from=2))
    split = [(2000, ["p0", "p1", "p2"], [("p0", 1000), ("p2", 1000)])]
    table.hand({"p0": 1500, "p1": 0, "p2": 1500}, split)
    step = table.tournament.cancel("the room lost power", now=10.0)
    assert returned(step.events) == {"p0": 667, "p2": 667, "p3": 666}  # more chips first
    assert any(e.EVENT_TYPE == "mystery_bounties_revealed" for e in step.events)
    assert table.ledger.bounties == 0


# --- configuration ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knockout", "tournament", "message"),
    [
        ({"bounty": 1001}, {}, "knockout.bounty 1001 is larger than the entry's buy_in 1000"),
        ({"bounty": 0}, {}, "knockout.bounty must be >= 1"),
        ({"kind": "progressive", "cash_percent": 101}, {}, "knockout.cash_percent must be 0..100"),
        ({"kind": "progressive", "cash_percent": -1}, {}, "knockout.cash_percent must be 0..100"),
        ({"cash_percent": 50}, {}, 'knockout.cash_percent belongs to kind = "progressive"'),
        ({"kind": "bounty"}, {}, "knockout.kind must be one of knockout, progressive, mystery"),
        ({"kind": "mystery"}, {}, "needs knockout.mystery"),
        ({"kind": "mystery", "mystery": [1000, 999]}, {}, "knockout.mystery adds up to 1999"),
        ({"kind": "mystery", "mystery": [2000], "mystery_from": 1}, {}, "knockout.mystery_from"),
        (
            {"kind": "mystery", "mystery": [2000]},
            {"late_registration_levels": 1},
            "no late_registration_levels",
        ),
        ({"bounty": 500, "prize": 1}, {}, "unknown key prize"),
    ],
)
def test_ko_bad_configs_are_refused_naming_the_key(
    knockout: dict[str, Any], tournament: dict[str, Any], message: str
) -> None:
    knockout = {"bounty": 500, **knockout}
    data = {
        "tournament": {"players": 4, "buy_in": 1000, **tournament},
        "levels": LEVELS,
        "knockout": knockout,
    }
    with pytest.raises(ConfigError, match=message):
        parse_config(data)


def test_ko4_a_field_of_another_size_no_longer_funds_the_mystery_list() -> None:
    cfg = ko("mystery", mystery=[1000, 600, 300, 100])
    with pytest.raises(
        ConfigError, match=r"knockout\.mystery adds up to 2000 cents, but 5 entries"
    ):
        cfg.with_players(5)


def test_ko5_the_bounty_is_part_of_the_buy_in_and_never_of_the_prize_pool() -> None:
    cfg = ko("knockout", bounty=400)
    assert (cfg.prize_buy_in, cfg.bounty) == (600, 400)
    table = Table(cfg)
    assert table.tournament.play.prize_pool == table.ledger.pool == 4 * 600
    assert table.ledger.bounties == 4 * 400 and table.ledger.operator == 4 * 100


# --- whole tournaments ------------------------------------------------------------------------


def money_balances(tournament: Tournament, cfg: TournamentConfig) -> None:
    """KO-5: entries = prize pool + bounties + commission + what was paid out, to the cent."""
    ledger = tournament.play.registration.ledger
    ledger.check()
    entries = len(ledger.entries) * (cfg.buy_in + cfg.fee)
    opened = sum(o.balance for o in ledger.snapshot().openings)
    held_by_players = sum(
        ledger.balance_of(p) for p in {o.player for o in ledger.snapshot().openings}
    )
    paid = held_by_players - (opened - entries)
    assert entries == ledger.pool + ledger.bounties + ledger.operator + paid
    assert ledger.pool == ledger.bounties == 0


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["knockout", "progressive"]),
    players=st.integers(2, 14),
    bounty=st.integers(1, 1000),
    cash_percent=st.integers(0, 100),
    cancel_after=st.none() | st.integers(1, 40),
    late=st.booleans(),
)
def test_ko5_money_balances_to_the_cent_in_any_knockout(
    seed: int,
    kind: str,
    players: int,
    bounty: int,
    cash_percent: int,
    cancel_after: int | None,
    late: bool,
) -> None:
    """Any knockout, late entries and re-entries (each entry a new bounty) or not, played to
    the end or cancelled (CRASH-2) at any hand: every cent of bounty money reaches a player."""
    section: dict[str, Any] = {"kind": kind, "bounty": bounty}
    if kind == "progressive":
        section["cash_percent"] = cash_percent
    entries = {"late_registration_levels": 2, "reentries": 1, "late_entries": 3} if late else {}
    cfg = config(
        players=players, max_per_table=6, buy_in=1000, fee=100, knockout=section, **entries
    )
    cancel = None if cancel_after is None else (lambda t: t.hands >= cancel_after)
    tournament, log = run(cfg, seed, cancel_when=cancel)
    check_log(cfg, log)  # the audit's KO-5 checks among the others
    money_balances(tournament, cfg)
    paid = sum(e["cash"] for e in log if e["type"] == "bounty_won")
    paid += sum(e["amount"] for e in log if e["type"] == "bounty_returned")
    assert paid == sum(e["type"] == "player_registered" for e in log) * bounty


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(3, 12),
    stage=st.none() | st.integers(2, 12),
)
def test_ko4_mystery_money_balances_and_every_draw_follows_the_revealed_order(
    seed: int, players: int, stage: int | None
) -> None:
    amounts = [players * 100 - 10 * (players - 1)] + [10] * (players - 1)
    section: dict[str, Any] = {"kind": "mystery", "bounty": 100, "mystery": amounts}
    if stage is not None:  # else from the money (KO-4's default)
        section["mystery_from"] = stage
    cfg = config(players=players, max_per_table=6, buy_in=1000, fee=100, knockout=section)
    tournament, log = run(cfg, seed)
    check_log(cfg, log)
    money_balances(tournament, cfg)
    (revealed,) = [e for e in log if e["type"] == "mystery_bounties_revealed"]
    drawn = [e["cash"] for e in log if e["type"] == "bounty_won"]
    by_elimination = Counter(e["eliminated"] for e in log if e["type"] == "bounty_won")
    # Each elimination in the stage drew one amount, split among its pot's winners.
    assert sum(drawn) == sum(revealed["order"][: len(by_elimination)])


def test_ko_a_knockout_log_replays_to_the_same_core(tmp_path: Path) -> None:
    """The bounties are decided from the logged pots: a restarted orchestrator rebuilds the
    same core from the log (hand_finished v2 carries them)."""
    knockout = {"kind": "progressive", "bounty": 40}
    records, _ = drive(tmp_path, 14, 3, kill_rate=0.05, knockout=knockout)
    assert any(r["type"] == "bounty_won" for r in records)
    cfg = config(players=14, buy_in=100, knockout=knockout)
    rebuilt = rebuild(
        cfg, names(14), deposits=funds(cfg, names(14)), tournament_id="t", seed=3,
        records=records,
    )  # fmt: skip
    assert rebuilt.finished and rebuilt.play.registration.ledger.bounties == 0


def test_ko2_the_small_progressive_knockout_example_plays_to_the_end_in_process() -> None:
    cfg = load_config(EXAMPLES / "pko-18.toml")
    tournament, log = run(cfg, 18)
    assert tournament.finished
    check_log(cfg, log)
    money_balances(tournament, cfg)
    results = json.loads(json.dumps(tournament.results(seconds=1.0)))
    assert not audit_results(log, results)
    rows = results["places"]
    assert sum(r["bounties"] for r in rows) == 18 * 1000
    assert results["ledger"]["bounties_left"] == 0
    winner = rows[0]
    assert winner["place"] == 1 and winner["bounties"] >= 1000  # at least his own (KO-2)
    assert sum(e["type"] == "bounty_won" for e in log) >= 17


def test_the_1000_player_progressive_knockout_example_loads() -> None:
    cfg = load_config(EXAMPLES / "pko-1000.toml")
    assert cfg.knockout is not None and cfg.knockout.kind == "progressive"
    assert cfg.prize_buy_in == cfg.bounty == 5000


def test_ko5_reg2_and_crash1_give_the_bounty_part_back_with_the_entry() -> None:
    rules = RegistrationRules(tournament="t", buy_in=600, bounty=400, fee=100, cancellation_bp=0)
    registration = Registration(rules, Ledger(), Rankings())
    for player in ("ann", "bob", "cy"):
        registration.ledger.open_account(player, 1100, now=0.0)
        registration.rankings.add_player(player)
    registration.open(now=0.0)
    for player in ("ann", "bob", "cy"):
        registration.register(player, now=1.0)
    ledger = registration.ledger
    assert (ledger.pool, ledger.bounties, ledger.operator) == (1800, 1200, 300)
    registration.unregister("ann", now=2.0)  # REG-2
    assert ledger.balance_of("ann") == 1100 and ledger.bounties == 800
    registration.cancel("no venue", now=3.0)  # CRASH-1
    assert ledger.balance_of("bob") == ledger.balance_of("cy") == 1100
    assert ledger.pool == ledger.bounties == ledger.operator == 0
    ledger.check()


def test_ko3_ko5_the_audit_names_a_bounty_paid_to_the_wrong_player_or_amount() -> None:
    cfg = load_config(EXAMPLES / "pko-18.toml")
    _, log = run(cfg, 5)
    assert not audit_events(log)
    first = next(k for k, e in enumerate(log) if e["type"] == "bounty_won")
    eliminated = log[first]["eliminated"]
    wrong = [{**e, "player": eliminated} if k == first else e for k, e in enumerate(log)]
    assert {x.rule for x in audit_events(wrong)} == {"KO-3"}
    more = [{**e, "cash": e["cash"] + 1} if k == first else e for k, e in enumerate(log)]
    assert {x.rule for x in audit_events(more)} == {"KO-5"}


def test_ko5_a_disqualified_player_gets_back_the_bounty_nobody_won() -> None:
    table = Table(ko("progressive"))
    two_short_stacks(table)
    both_short_stacks_bust(table)  # p3 now holds 750
    for n in range(3):  # SAN-1: the third warning disqualifies at his next boundary
        table.tournament.sanction(
            SanctionKind.WARNING, "p3", judge="floor", reason=f"chat {n}", now=3.0
        )
    events = table.hand({}, [])  # nobody's stack changed; p0 is left alone and wins
    assert won(events) == [] and table.tournament.finished
    assert returned(events) == {"p3": 750, "p0": 750}  # p0's own, as the winner (KO-2)
    assert table.ledger.bounties == 0


def test_ko5_the_report_shows_each_players_bounties_beside_his_prize() -> None:
    cfg = load_config(EXAMPLES / "pko-18.toml")
    tournament, log = run(cfg, 18)
    results = json.loads(json.dumps(tournament.results(seconds=1.0)))
    page = render_page(run_figures(log, [], results), [])
    assert "<h2>Places and prizes and bounties</h2>" in page
    assert "<th>bounties</th>" in page
    winner = results["places"][0]
    row = f"<td>1</td><td>{winner['player']}</td><td>{money(winner['prize'])}</td>"
    assert f"{row}<td>{money(winner['bounties'])}</td>" in page
