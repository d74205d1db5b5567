"""Satellite tickets through the front door (SAT-3), before Ray is involved: the desk and its
cashier on a real SQLite store. A satellite created here names a tournament created here; its
seats become tickets kept in the winners' wallets; a ticket pays its holder's entry to that
target (no cash moves), REG-2 gives it back, CRASH-1 refunds it at face value in cash, and it
is spent once. Bad input (a target not here, a ticket to another tournament, a spent ticket) is
refused with nothing moved."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from orchestrator.core import codec
from orchestrator.core.events import EventRecord, PlayerRegistered, TicketAwarded
from orchestrator.core.ledger import Ledger
from orchestrator.core.play import open_registration
from orchestrator.core.rankings import Rankings
from orchestrator.core.registration import Registration
from orchestrator.errors import InsufficientFundsError
from orchestrator.frontdoor.desk import Desk, DeskSettings, _rules
from orchestrator.frontdoor.errors import InvalidRequest, WrongState
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.shell.store import open_store

TARGET = """
[tournament]
name = "Main Event"
buy_in = 10000
fee = 1000
cancellation_percent = 10
[levels]
blinds = [[25, 50]]
"""
PRICE = 11_000  # the target's entry: one seat


def satellite(target: str, seat_value: int = PRICE) -> str:
    return f"""
[tournament]
name = "Sat"
buy_in = 1000
fee = 100
[levels]
blinds = [[25, 50]]
[satellite]
seat_value = {seat_value}
target = "{target}"
"""


PLAYERS = ("ann", "bob", "cy")
WALLET = 50_000


def desk_on(tmp_path: Path) -> tuple[Desk, dict[str, str]]:
    """A desk on the store in tmp_path and each player's wallet credential (opened once)."""
    settings = DeskSettings(
        data_dir=tmp_path / "data",
        deck_target="-",
        gateway_target="-",
        gateway_secret="s",
        store_url="-",
    )
    desk = Desk(open_store(f"sqlite:///{tmp_path / 'store.db'}"), PlayerHub(), settings)
    credentials = {}
    for name in PLAYERS:
        with contextlib.suppress(WrongState):  # opened by an earlier desk on this store
            credentials[name] = desk.create_account(name, WALLET)
    return desk, credentials


def seats_won(satellite_id: str, target: str, *players: str) -> list[EventRecord]:
    """The satellite's run log as the desk follows it: a `ticket_awarded` per seat."""
    return [
        codec.record(
            TicketAwarded(player=p, place=k, value=PRICE, chips=1_000, target=target),
            seq=k,
            ts=5.0,
        )
        for k, p in enumerate(players, start=1)
    ]


def award(desk: Desk, satellite_id: str, target: str, *players: str) -> None:
    """The satellite's end: its run log in the store, credited twice (a follower reading the
    log again after a restart): the second moves nothing."""
    records = seats_won(satellite_id, target, *players)
    run = f"{satellite_id}/run-1"  # the satellite's run log, as its orchestrator wrote it
    desk._store.register(run, {"tournament": satellite_id})
    desk._store.append(run, records)
    for _ in range(2):
        desk._cashier.settle(satellite_id, records)


def wallets(desk: Desk) -> dict[str, tuple[int, dict[str, int]]]:
    return {p: (desk.balance(p), desk.tickets(p)) for p in PLAYERS}


def test_sat3_satellite_target_is_a_tournament_of_this_front_door(tmp_path: Path) -> None:
    desk, _ = desk_on(tmp_path)
    with pytest.raises(InvalidRequest, match=r"satellite.target 'main'.*no such tournament"):
        desk.create(satellite("main"))
    desk.create(TARGET, "main")
    with pytest.raises(InvalidRequest, match=r"satellite.seat_value 9000 is not the entry"):
        desk.create(satellite("main", seat_value=9_000))
    assert [e.tournament_id for e in desk.all()] == ["main"]  # nothing created
    sat = desk.create(satellite("main"), "sat")
    assert sat.config.satellite is not None and sat.config.satellite.target == "main"
    with pytest.raises(InvalidRequest, match="itself a satellite"):
        desk.create(satellite("sat", seat_value=1_100))


def test_sat3_ticket_pays_the_entry_reg2_gives_it_back(tmp_path: Path) -> None:
    desk, credentials = desk_on(tmp_path)
    main = desk.create(TARGET, "main")
    desk.create(satellite("main"), "sat")
    award(desk, "sat", "main", "ann", "bob")
    assert desk.tickets("ann") == {"main": PRICE} and desk.balance("ann") == WALLET
    desk.open_registration("main")
    desk.register("main", "ann", credential=credentials["ann"], ticket=True)
    assert desk.balance("ann") == WALLET and desk.tickets("ann") == {"main": 0}  # spent
    ledger = main.registration.ledger
    assert main.registration.prize_pool == 10_000 and ledger.operator == 1_000
    assert ledger.ticket_of("ann") == 0 and ledger.balance_of("ann") == 0
    desk.unregister("main", "ann")  # REG-2: the ticket back whole, no charge
    assert desk.balance("ann") == WALLET and desk.tickets("ann") == {"main": PRICE}
    assert main.registration.prize_pool == 0 and ledger.operator == 0
    ledger.check()
    desk.register("main", "ann", credential=credentials["ann"], ticket=True)  # spent again
    desk.register("main", "cy", credential=credentials["cy"])  # cash, beside the ticket
    assert wallets(desk) == {
        "ann": (WALLET, {"main": 0}),
        "bob": (WALLET, {"main": PRICE}),
        "cy": (WALLET - PRICE, {}),
    }
    # The orchestrator is launched with the entries taken: the ticket apart, no cash for it.
    deposits, tickets = desk._cashier.handover(ledger)
    assert deposits == {"ann": 0, "cy": PRICE} and tickets == {"ann": PRICE}
    run, events = open_registration(main.config, ["ann", "cy"], deposits, "main", 9.0, tickets)
    assert run.prize_pool == 20_000 and run.ledger.operator == 2_000
    assert [e.player for e in events if isinstance(e, PlayerRegistered)] == ["ann", "cy"]
    run.ledger.check()


def test_sat3_wrong_or_spent_ticket_is_refused_and_nothing_moves(tmp_path: Path) -> None:
    desk, credentials = desk_on(tmp_path)
    main = desk.create(TARGET, "main")
    other = desk.create(TARGET, "other")
    desk.create(satellite("main"), "sat")
    award(desk, "sat", "main", "ann")
    for tournament in ("main", "other"):
        desk.open_registration(tournament)
    before = wallets(desk)
    with pytest.raises(WrongState, match=r"ann holds no ticket to other .*to: main"):
        desk.register("other", "ann", credential=credentials["ann"], ticket=True)
    with pytest.raises(WrongState, match=r"bob holds no ticket to main .*to: none"):
        desk.register("main", "bob", credential=credentials["bob"], ticket=True)
    assert wallets(desk) == before
    assert not other.registration.in_play() and not main.registration.in_play()
    desk.register("main", "ann", credential=credentials["ann"], ticket=True)
    # Spent once: the ticket cannot pay a later entry into "main" (here one after a cash
    # entry he unregistered, REG-2: his second entry, under a key of its own).
    again = Registration(_rules(main.config, "main"), Ledger(), Rankings())
    again.open(now=1.0)
    desk._cashier.pay_entry("main", again, "cy", now=1.0)
    again.unregister("cy", now=1.5)
    desk._cashier.cash_out("main", again, now=1.5, players=["cy"])
    desk._cashier.pay_entry("main", again, "ann", now=1.6)
    again.unregister("ann", now=1.7)
    desk._cashier.cash_out("main", again, now=1.7, players=["ann"])
    held = again.ledger.total()
    with pytest.raises(InsufficientFundsError, match="ann's ticket to main is spent"):
        desk._cashier.pay_entry_by_ticket("main", again, "ann", now=2.0)
    assert not again.in_play() and again.ledger.total() == held
    assert desk.tickets("ann") == {"main": 0}


def test_crash1_target_cancelled_in_registration_refunds_the_ticket_in_cash(
    tmp_path: Path,
) -> None:
    desk, credentials = desk_on(tmp_path)
    desk.create(TARGET, "main")
    desk.create(satellite("main"), "sat")
    award(desk, "sat", "main", "ann", "cy")
    desk.open_registration("main")
    desk.register("main", "ann", credential=credentials["ann"], ticket=True)
    desk.register("main", "bob", credential=credentials["bob"])
    asyncio.run(desk.cancel("main", "venue closed"))
    # CRASH-1: every entry in full; the ticket's at its face value, in cash; and the ticket
    # cy won but never spent is paid in cash too (a ticket to a cancelled tournament)
    assert wallets(desk) == {
        "ann": (WALLET + PRICE, {"main": 0}),
        "bob": (WALLET, {}),
        "cy": (WALLET + PRICE, {"main": 0}),
    }
    # A restart repeats every refund by its key: nothing moves twice
    again, _ = desk_on(tmp_path)
    asyncio.run(again.restore())
    assert wallets(again) == wallets(desk)


def test_sat3_restart_replays_a_ticket_entry_without_spending_twice(tmp_path: Path) -> None:
    desk, credentials = desk_on(tmp_path)
    desk.create(TARGET, "main")
    desk.create(satellite("main"), "sat")
    award(desk, "sat", "main", "ann", "bob")
    desk.open_registration("main")
    desk.register("main", "ann", credential=credentials["ann"], ticket=True)
    desk.register("main", "bob", credential=credentials["bob"], ticket=True)
    desk.unregister("main", "bob")
    before = wallets(desk)
    again, _ = desk_on(tmp_path)
    asyncio.run(again.restore())  # CRASH-1: rescheduled, its log replayed
    assert wallets(again) == before
    main = again.get("main")
    assert list(main.registration.in_play()) == ["ann"]
    assert main.registration.ledger.ticket_of("ann") == 0  # spent on his entry
    deposits, tickets = again._cashier.handover(main.registration.ledger)
    assert deposits == {"ann": 0} and tickets == {"ann": PRICE}


def test_sat1_a_satellite_whose_pool_pays_no_seat_does_not_start(tmp_path: Path) -> None:
    desk, credentials = desk_on(tmp_path)
    desk.create(TARGET, "main")
    sat = desk.create(satellite("main"), "sat")
    desk.open_registration("sat")
    for name in ("ann", "bob"):  # 2 x 1000 in the pool: not one seat of 11000
        desk.register("sat", name, credential=credentials[name])
    with pytest.raises(WrongState, match=r"SAT-1: the prize pool 2000 is smaller than one seat"):
        asyncio.run(desk.start("sat"))
    assert sat.state == "registering" and sat.registration.is_open()


def test_sat3_a_target_starts_only_once_its_satellites_have_ended(tmp_path: Path) -> None:
    desk, credentials = desk_on(tmp_path)
    main = desk.create(TARGET, "main")
    desk.create(satellite("main"), "sat")
    desk.open_registration("main")
    for name in ("ann", "bob"):
        desk.register("main", name, credential=credentials[name])
    with pytest.raises(WrongState, match=r"SAT-3: the satellites sat to main have not ended"):
        asyncio.run(desk.start("main"))
    assert main.state == "registering" and main.registration.is_open()
    asyncio.run(desk.cancel("sat", "no field"))  # the satellite over: the target may start
    desk._check_satellites_over(main)
