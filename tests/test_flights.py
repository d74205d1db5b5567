"""Flights and Day 2 (FL-1..FL-3) in the pure core: the event's plan, flights that bag, the best
bag going forward, Day 2 with the bagged stacks, the places and the money over the event."""

from __future__ import annotations

import random
import re
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tournament_core import run
from tournament_checks import check_log

from orchestrator.core.config_event import EventPlan, parse_event
from orchestrator.core.flights import (
    FlightResult,
    day2_start,
    event_places,
    event_results,
    flight_result,
)
from orchestrator.errors import ConfigError
from orchestrator.shell.event_run import event_players
from orchestrator.views.audit import audit_results
from orchestrator.views.read_model import ReadModel

BUY_IN, FEE = 1000, 100


def plan_data(**event: Any) -> dict[str, Any]:
    event.setdefault("bag_at_share", 0.25)
    return {
        "event": {"name": "main", **event},
        "flights": [{"name": "1A", "players": 18}, {"name": "1B", "players": 18}],
        "tournament": {"max_per_table": 6, "starting_stack": 1000, "buy_in": BUY_IN, "fee": FEE},
        "levels": {
            "unit": "hands",
            "length": 3,
            "blinds": [[10, 20], [20, 40], [40, 80, 10], [100, 200, 25]],
        },
        "payouts": {"percent": [50, 30, 20]},
    }


def plan(**event: Any) -> EventPlan:
    return parse_event(plan_data(**event))


# --- the plan ------------------------------------------------------------------------------


def test_fl1_a_plan_names_its_flights_and_bag_rule() -> None:
    event = plan(multi_entries=2)
    assert [f.name for f in event.flights] == ["1A", "1B"]
    assert event.bag_at_share == Fraction(1, 4) and event.entries == 36
    flight = event.flight_config(event.flights[0])
    assert flight.name == "main-1A" and flight.players == 18
    assert flight.bag is not None and flight.bag.players == 4  # floor(0.25 x 18)
    assert flight.hand_for_hand == 0  # FL-3: no money, no bubble on Day 1


def test_fl1_bag_at_share_is_exact_for_decimals() -> None:
    data = plan_data(bag_at_share=0.29)
    data["flights"] = [{"name": "1A", "players": 100}]
    data["payouts"] = {"percent": [100]}
    event = parse_event(data)
    assert event.bag_target(event.flights[0]) == 29  # 0.29 x 100 in floats is 28.999...


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("flights"), "needs [[flights]]"),
        (lambda d: d.update(flights=[]), "needs [[flights]]"),
        (lambda d: d["event"].update(bag_at_share=1.0), "event.bag_at_share must be a share"),
        (lambda d: d["event"].update(bag_at_share=0), "event.bag_at_share must be a share"),
        (lambda d: d["event"].update(bag_at_level=3), "one of bag_at_share"),
        (lambda d: d["event"].pop("bag_at_share"), "one of bag_at_share"),
        (lambda d: d["event"].update(bag_at_share=0.05), "bags nobody: Day 2 cannot seat it"),
        (
            lambda d: d.update(flights=[{"name": "1A", "players": 5}]),
            "leaves Day 2 1 player(s) at most: it cannot be seated",
        ),
        (
            lambda d: d["payouts"].update(percent=[20, 15, 15, 10, 10, 10, 10, 5, 5]),
            "payouts.percent pays 9 places, but Day 2 may seat only 8",
        ),
        (lambda d: d["event"].update(multi_entries=19), "event.multi_entries 19"),
        (lambda d: d["tournament"].update(players=10), "tournament.players"),
        (
            lambda d: d["tournament"].update(late_registration_levels=2, reentries=1),
            "tournament.reentries: a multi-flight event",
        ),
        (
            lambda d: (
                d["event"].pop("bag_at_share"),
                d["event"].update(bag_at_level=2),
                d["tournament"].update(late_registration_levels=3),
            ),
            "tournament.late_registration_levels 3 outlasts event.bag_at_level 2",
        ),
        (lambda d: d["flights"].append({"name": "1A", "players": 9}), "'1A' is taken"),
        (lambda d: d["event"].update(bag_after=3), "unknown key bag_after"),
    ],
)
def test_fl_bad_plans_are_refused_naming_the_key(change: Any, message: str) -> None:
    data = plan_data()
    change(data)
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_event(data)


# --- a flight in the core -----------------------------------------------------------------


def play_flight(event: EventPlan, k: int, names: list[str], seed: int) -> tuple[Any, list[Any]]:
    cfg = event.flight_config(event.flights[k])
    tournament, log = run(cfg, seed, players=names)
    return tournament, log


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fl1_a_flight_bags_at_its_share_and_carries_its_pool(seed: int) -> None:
    event = plan()
    names = [f"a{k}" for k in range(18)]
    tournament, log = play_flight(event, 0, names, seed)
    check_log(tournament.config, log)
    bags = {e["player"]: e["chips"] for e in log if e["type"] == "stack_bagged"}
    assert 1 <= len(bags) <= 4  # FL-1: at most the share is left
    assert sum(bags.values()) == 18 * 1000  # every chip is in a bag
    (done,) = [e for e in log if e["type"] == "flight_bagged"]
    assert done["pool"] == 18 * BUY_IN and done["players"] == len(bags)
    (due,) = [e for e in log if e["type"] == "flight_bagging"]  # logged once, when due
    assert len(bags) <= due["players"] <= 4 and due["seq"] < done["seq"]
    after = [e["table"] for e in log if e["type"] == "hand_finished" and e["seq"] > due["seq"]]
    assert len(after) == len(set(after))  # each table plays out one hand at most, then closes
    assert not [e for e in log if e["type"] in ("prize_awarded", "tournament_finished")]
    results = tournament.results(seconds=0.0)
    assert not audit_results(log, results)
    model = ReadModel()
    for record in log:
        model.apply_record(record)
    assert model.status == "bagged" and model.bagged == len(bags)  # the lobby's state
    flight = flight_result("1A", results)
    assert dict(flight.bags) == bags and sorted(flight.entries) == sorted(names)
    assert sorted(p for _, p in flight.places) == list(range(len(bags) + 1, 19))


def test_fl1_a_bagging_flight_wakes_every_waiting_table() -> None:
    """The shell holds waiting tables' polls until the wake mark changes: bagging changes it,
    so a table waiting on the others is asked again, and closes."""
    seen: list[tuple[bool, bool, object]] = []

    def watch(tournament: Any) -> bool:
        seen.append((tournament.play.bagging, tournament.finished, tournament.wake_mark()[-1]))
        return False  # never cancel: only look

    event = plan(bag_at_share=0.5)  # 9 left: two tables still play when it bags
    run(
        event.flight_config(event.flights[0]),
        4,
        players=[f"a{k}" for k in range(18)],
        cancel_when=watch,
    )
    assert any(bagging and not finished for bagging, finished, _ in seen)
    assert all(over == (bagging or finished) for bagging, finished, over in seen)


def test_fl1_a_flight_bags_when_its_level_is_over() -> None:
    data = plan_data(bag_at_level=2)
    del data["event"]["bag_at_share"]
    event = parse_event(data)
    tournament, log = play_flight(event, 0, [f"a{k}" for k in range(18)], 5)
    check_log(tournament.config, log)
    (done,) = [e for e in log if e["type"] == "flight_bagged"]
    assert done["level"] == 3  # level 2 is over; Day 2 plays on from level 3
    levels = [e["level"] for e in log if e["type"] == "level_started"]
    assert max(levels) == 3
    third = next(e["seq"] for e in log if e["type"] == "level_started" and e["level"] == 3)
    # no table deals a new hand at level 3: each reports at most the hand it was playing
    later = [e for e in log if e["type"] == "hand_finished" and e["seq"] > third]
    assert len(later) <= len({e["table"] for e in log if e["type"] == "table_opened"})


# --- the whole event through the core ------------------------------------------------------


def play_event(event: EventPlan, seed: int) -> dict[str, Any]:
    """Every flight, then Day 2, as `mtt run` of an event does (its bots, `event_players`),
    without Ray."""
    results: list[FlightResult] = []
    hands = 0
    paid_in = commission = 0
    for k, (flight, players) in enumerate(zip(event.flights, event_players(event), strict=True)):
        tournament, log = play_flight(event, k, players, seed + k)
        check_log(tournament.config, log)
        hands += tournament.hands
        entries = [e for e in log if e["type"] == "player_registered"]
        paid_in += sum(e["buy_in"] + e["fee"] for e in entries)
        commission += sum(e["fee"] for e in entries)
        results.append(flight_result(flight.name, tournament.results(seconds=0.0)))
    start, void = day2_start(results)
    cfg = event.day2_config(start)
    tournament, log = run(cfg, seed, players=[p for p, _ in start.stacks])
    check_log(cfg, log)
    day2 = tournament.results(seconds=0.0)
    assert not audit_results(log, day2)
    seated = {e["player"]: e["stack"] for e in log if e["type"] == "player_seated"}
    assert seated == dict(start.stacks)  # FL-3: Day 2 chips are the bags that went forward
    paid_out = sum(e["amount"] for e in log if e["type"] == "prize_awarded")
    overlay = sum(e["overlay"] for e in log if e["type"] == "overlay_paid")  # GTD-1
    assert paid_in + overlay == commission + paid_out  # entries + overlay = commission + paid
    return event_results(
        event.name, results, day2, void=void, hands=hands + tournament.hands, seconds=0.0
    )


@pytest.mark.parametrize("seed", [7, 8])
def test_fl3_an_event_places_every_player_once_and_pays_its_pool_on_day2(seed: int) -> None:
    data = plan_data(multi_entries=3)
    data["flights"].append({"name": "1C", "players": 18})
    event = parse_event(data)
    results = play_event(event, seed)
    places = [row["place"] for row in results["places"]]
    players = [row["player"] for row in results["places"]]
    assert len(set(players)) == len(players)
    assert sorted(places) == list(range(1, 18 * 3 - 2 * 3 + 1))  # 48 different players
    assert results["players"] == 54 and results["prize_pool"] == 54 * BUY_IN
    assert sum(row["prize"] for row in results["places"]) == 54 * BUY_IN  # FL-3: all of it
    day2 = results["day2"]["players"]
    assert all(row["prize"] == 0 for row in results["places"] if row["place"] > day2)


@settings(max_examples=6, deadline=None)
@given(
    st.lists(st.integers(6, 20), min_size=1, max_size=3),
    st.sampled_from([0.25, 0.4, 0.5]),
    st.integers(0, 3),
    st.integers(0, 1000),
)
def test_fl_random_events_balance_their_money_and_place_every_player(
    sizes: list[int], share: float, multi: int, seed: int
) -> None:
    """Any plan the config accepts: the money balances over the event and the places are a
    permutation of the different players (`play_event` checks each day on the way)."""
    data = plan_data(bag_at_share=share, multi_entries=multi if len(sizes) > 1 else 0)
    data["flights"] = [{"name": f"1{'ABC'[k]}", "players": n} for k, n in enumerate(sizes)]
    data["payouts"] = {"percent": [100]}
    try:
        event = parse_event(data)
    except ConfigError:
        return  # a plan refused (a Day 2 that cannot be seated) is not played
    results = play_event(event, seed)
    players = len({p for rows in event_players(event) for p in rows})
    assert sorted(row["place"] for row in results["places"]) == list(range(1, players + 1))
    assert sum(row["prize"] for row in results["places"]) == event.entries * BUY_IN


# --- late registration (REG-1) and a guarantee (GTD-1) over the event ----------------------

LATE = {"late_registration_levels": 2, "late_entries": 4}  # 4 late bots enter every flight


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reg1_a_flight_takes_late_entries_and_bags_only_once_they_close(seed: int) -> None:
    data = plan_data(bag_at_share=0.9)  # due after a few busts: it must wait for the close
    data["tournament"].update(LATE)
    data["payouts"] = {"percent": [100]}
    event = parse_event(data)
    assert event.entries == 2 * (18 + 4)
    flight = event.flight_config(event.flights[0])
    assert flight.late_registration_levels == 2 and flight.late_entries == 4
    assert flight.bag is not None and flight.bag.players == 19  # floor(0.9 x (18 + 4))
    tournament, log = play_flight(event, 0, [f"a{k}" for k in range(18)], seed)
    check_log(tournament.config, log)
    started = next(e["seq"] for e in log if e["type"] == "tournament_started")
    late = [e["player"] for e in log if e["type"] == "player_registered" and e["seq"] > started]
    assert sorted(late) == [f"late{k:05d}" for k in range(1, 5)]  # REG-1, while it was open
    (closed,) = [e for e in log if e["type"] == "registration_closed"]
    (due,) = [e for e in log if e["type"] == "flight_bagging"]
    assert closed["seq"] < due["seq"]  # FL-1 waits for late registration to end
    assert closed["entries"] == 22 and not [e for e in log if e["type"] == "overlay_paid"]
    bags = {e["player"]: e["chips"] for e in log if e["type"] == "stack_bagged"}
    assert sum(bags.values()) == 22 * 1000  # every late entry's chips are in the bags too
    (done,) = [e for e in log if e["type"] == "flight_bagged"]
    assert done["pool"] == 22 * BUY_IN
    assert not audit_results(log, tournament.results(seconds=0.0))


@pytest.mark.parametrize(
    ("guarantee", "late", "seed"),
    [(50_000, False, 3), (50_000, True, 4), (30_000, False, 5)],  # the last: no overlay
)
def test_gtd1_an_events_guarantee_is_paid_on_day2_over_every_flights_entries(
    guarantee: int, late: bool, seed: int
) -> None:
    data = plan_data(multi_entries=2)
    data["payouts"]["guarantee"] = guarantee
    if late:
        data["tournament"].update(LATE)
    event = parse_event(data)
    assert all(event.flight_config(f).guarantee == 0 for f in event.flights)  # none on Day 1
    results = play_event(event, seed)
    entries = results["players"]
    assert entries == (44 if late else 36)
    overlay = max(0, guarantee - entries * BUY_IN)  # the shortfall of every entry's pool
    assert results["overlay"] == overlay
    assert results["prize_pool"] == entries * BUY_IN + overlay
    assert sum(row["prize"] for row in results["places"]) == results["prize_pool"]
    day2 = results["day2"]["players"]
    assert all(row["prize"] == 0 for row in results["places"] if row["place"] > day2)


# --- FL-2, FL-3 as properties ---------------------------------------------------------------


@st.composite
def flights(draw: st.DrawFn) -> list[FlightResult]:
    """Flights drawn from one pool of players: each enters some, bags some of them."""
    pool = [f"p{k}" for k in range(draw(st.integers(3, 14)))]
    results = []
    for k in range(draw(st.integers(1, 4))):
        entries = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=8, unique=True))
        bagged = draw(st.integers(1, len(entries) - 1))
        chips = draw(st.lists(st.integers(1, 5000), min_size=bagged, max_size=bagged))
        order = draw(st.permutations(entries))
        bags = tuple(zip(order[:bagged], chips, strict=True))
        places = tuple((p, bagged + 1 + n) for n, p in enumerate(order[bagged:]))
        level = draw(st.integers(1, 9))
        results.append(
            FlightResult(
                flight=f"1{'ABCD'[k]}",
                entries=tuple(entries),
                bags=bags,
                places=places,
                level=level,
                pool=len(entries) * BUY_IN,
            )
        )
    return results


@settings(max_examples=200, deadline=None)
@given(flights(), st.randoms(use_true_random=False))
def test_fl2_only_the_best_bag_goes_forward_and_places_are_a_permutation(
    results: list[FlightResult], rng: random.Random
) -> None:
    start, void = day2_start(results)
    stacks = dict(start.stacks)
    every_bag: dict[str, list[int]] = {}
    for r in results:
        for player, chips in r.bags:
            every_bag.setdefault(player, []).append(chips)
    assert stacks == {p: max(c) for p, c in every_bag.items()}  # FL-2: the largest only
    assert sum(stacks.values()) + sum(b.chips for b in void) == sum(
        c for r in results for _, c in r.bags
    )  # every bagged chip goes forward or is void, none made up
    assert Counter(b.player for b in void) == Counter(
        {p: len(c) - 1 for p, c in every_bag.items() if len(c) > 1}
    )
    assert start.pool == sum(r.pool for r in results) == start.entries * BUY_IN
    assert start.level == max(r.level for r in results)
    day2 = list(stacks)
    rng.shuffle(day2)
    places = event_places(results, {p: n for n, p in enumerate(day2, start=1)})
    everyone = {p for r in results for p in r.entries}
    assert sorted(p.place for p in places) == list(range(1, len(everyone) + 1))
    assert sorted(p.player for p in places) == sorted(everyone)
    assert all(p.place <= len(day2) for p in places if p.player in stacks)  # Day 2 places above
