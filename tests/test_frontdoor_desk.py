"""Tournaments at the front door before Ray is involved: creation from config text, REG-1 and
REG-2 through the registration core, tokens, refusals, and a restart rebuilt from the store."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import RedisServer

from orchestrator.errors import RemoteUnavailable
from orchestrator.frontdoor.desk import Desk, DeskSettings, Entry
from orchestrator.frontdoor.errors import InvalidRequest, NotAvailable, NotFound, WrongState
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.frontdoor.views import LiveViews, view_server
from orchestrator.shell.orchestrators import OrchestratorHandle
from orchestrator.shell.store import open_store

CONFIG = """
[tournament]
name = "Friday Night"
buy_in = 1000
fee = 100
cancellation_percent = 10
action_seconds = 12.5
[levels]
blinds = [[25, 50]]
"""


PLAYERS = ("ann", "bob", "cy", "dee")
WALLET = 5_000  # cents in each player's wallet to begin with


def desk_on(tmp_path: Path) -> Desk:
    """A desk on the store in tmp_path, every one of PLAYERS holding a wallet (opened once)."""
    settings = DeskSettings(
        data_dir=tmp_path / "data",
        deck_target="-",
        gateway_target="-",
        gateway_secret="s",
        store_url="-",
    )
    desk = Desk(open_store(f"sqlite:///{tmp_path / 'store.db'}"), PlayerHub(), settings)
    for name in PLAYERS:
        with contextlib.suppress(WrongState):  # opened by an earlier desk on this store
            desk.create_account(name, WALLET)
    return desk


def test_reg1_reg2_registration_through_the_core_with_tokens(tmp_path: Path) -> None:
    desk = desk_on(tmp_path)
    entry = desk.create(CONFIG)
    assert entry.tournament_id == "Friday-Night" and entry.config.action_seconds == 12.5
    with pytest.raises(WrongState):  # registration not open yet
        desk.register("Friday-Night", "ann")
    desk.open_registration("Friday-Night")
    tokens = {name: desk.register("Friday-Night", name) for name in ("ann", "bob", "cy")}
    assert desk.player_of(tokens["ann"]) == ("Friday-Night", "ann")
    assert entry.registration.prize_pool == 3 * 1000  # REG-1: the fee to the operator
    with pytest.raises(WrongState, match="already"):
        desk.register("Friday-Night", "ann")
    desk.unregister("Friday-Night", "cy")  # REG-2: refunded less 10% of the entry
    assert desk.player_of(tokens["cy"]) is None
    assert desk.balance("cy") == WALLET - 110  # back in his wallet
    assert desk.balance("ann") == WALLET - 1100
    assert sorted(desk.players(entry)) == ["ann", "bob"]
    with pytest.raises(NotFound):
        desk.unregister("Friday-Night", "cy")
    for bad in ("", "../x", "a" * 40):
        with pytest.raises(InvalidRequest):
            desk.register("Friday-Night", bad)
    with pytest.raises(NotFound):
        desk.get("nope")
    assert sorted(desk.players(entry)) == ["ann", "bob"]  # the refusals changed nothing


def test_create_refuses_bad_config_text_and_duplicate_ids(tmp_path: Path) -> None:
    desk = desk_on(tmp_path)
    for text in ("[tournament", "[tournament]\nname='x'\nbogus=1\n[levels]\nblinds=[[1,2]]"):
        with pytest.raises(InvalidRequest):
            desk.create(text)
    with pytest.raises(InvalidRequest, match="action_seconds"):
        desk.create(CONFIG.replace("12.5", "0"))
    desk.create(CONFIG, "fri")
    with pytest.raises(WrongState):
        desk.create(CONFIG, "fri")
    assert desk.create(CONFIG).tournament_id == "Friday-Night"
    assert desk.create(CONFIG).tournament_id == "Friday-Night-2"
    assert [e.tournament_id for e in desk.all()] == ["Friday-Night", "Friday-Night-2", "fri"]


def test_a_restarted_front_door_rebuilds_registrations_from_the_store(tmp_path: Path) -> None:
    first = desk_on(tmp_path)
    first.create(CONFIG, "fri")
    first.open_registration("fri")
    tokens = {name: first.register("fri", name) for name in ("ann", "bob", "cy")}
    first.unregister("fri", "bob")
    again = desk_on(tmp_path)
    asyncio.run(again.restore())
    entry = again.get("fri")
    assert entry.state == "registering" and sorted(again.players(entry)) == ["ann", "cy"]
    assert again.player_of(tokens["ann"]) == ("fri", "ann")
    assert again.player_of(tokens["bob"]) is None
    assert entry.registration.prize_pool == 2 * 1000
    # the replay repeated each wallet call by its key: nothing moved twice
    assert [again.balance(p) for p in ("ann", "bob", "cy")] == [WALLET - 1100, WALLET - 110, 3900]
    again.register("fri", "dee")  # and it goes on from there


def test_crash1_cancelling_in_registration_refunds_every_entry(tmp_path: Path) -> None:
    desk = desk_on(tmp_path)
    desk.create(CONFIG, "fri")
    desk.open_registration("fri")
    for name in ("ann", "bob"):
        desk.register("fri", name)
    with pytest.raises(InvalidRequest):
        asyncio.run(desk.cancel("fri", " "))
    entry = asyncio.run(desk.cancel("fri", "venue closed"))
    assert entry.state == "cancelled"
    assert [e["type"] for e in entry.events if e["type"] == "refund"] == ["refund", "refund"]
    assert desk.balance("ann") == desk.balance("bob") == WALLET  # fee and commission back
    with pytest.raises(WrongState):
        asyncio.run(desk.cancel("fri", "again"))


def test_crash1_a_tournament_in_registration_is_rescheduled_on_the_next_front_door(
    tmp_path: Path,
) -> None:
    lost_host = desk_on(tmp_path)
    lost_host.create(CONFIG, "fri")
    lost_host.open_registration("fri")
    token = lost_host.register("fri", "ann")
    # the host dies; another front door on the same store takes the tournament over
    elsewhere = desk_on(tmp_path)
    asyncio.run(elsewhere.restore())
    entry = elsewhere.get("fri")
    assert entry.state == "registering" and elsewhere.player_of(token) == ("fri", "ann")
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    assert store.read("fri.frontdoor")[-1]["type"] == "rescheduled"
    elsewhere.register("fri", "bob")


def test_crash1_one_that_cannot_be_rescheduled_is_cancelled_with_full_refunds(
    tmp_path: Path,
) -> None:
    lost_host = desk_on(tmp_path)
    lost_host.create(CONFIG, "fri")
    lost_host.open_registration("fri")
    lost_host.register("fri", "ann")
    lost_host.register("fri", "bob")
    lost_host.create(CONFIG, "sat")  # a healthy one beside it
    lost_host.open_registration("sat")
    lost_host.register("sat", "cy")
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    ann = next(r for r in store.read("fri.frontdoor") if r.get("player") == "ann")
    # a registration the core now refuses (ann twice): the log no longer replays
    store.append("fri.frontdoor", [{**ann, "seq": store.last_seq("fri.frontdoor") + 1}])
    elsewhere = desk_on(tmp_path)
    asyncio.run(elsewhere.restore())
    fri = elsewhere.get("fri")
    assert fri.state == "cancelled" and not fri.tokens
    refunds = {e["player"]: e["amount"] for e in fri.events if e["type"] == "refund"}
    assert refunds == {"ann": 1100, "bob": 1100}  # CRASH-1: buy-in and fee, in full
    assert elsewhere.balance("ann") == elsewhere.balance("bob") == WALLET
    assert store.read("fri.frontdoor")[-1]["type"] == "cancelled"
    assert elsewhere.get("sat").state == "registering"  # the other one went on
    logged = len(store.read("fri.frontdoor"))
    again = desk_on(tmp_path)  # and the cancellation stands, settled once
    asyncio.run(again.restore())
    assert again.get("fri").state == "cancelled"
    assert len(store.read("fri.frontdoor")) == logged
    assert again.balance("ann") == again.balance("bob") == WALLET  # refunded once only


def test_mtt_serve_live_views_show_each_tournament_with_operator_actions(
    tmp_path: Path,
) -> None:
    """`mtt serve --ui-port`: the list, a tournament's clock and lobby under /t/{id}/ (links
    relative to it), its state, and operator actions through the desk behind the credential."""
    desk = desk_on(tmp_path)
    desk.create(CONFIG, "fri")
    desk.open_registration("fri")
    desk.register("fri", "ann")
    token = "operator-secret-0123"

    def http(url: str, *, post: bool = False, auth: str = "") -> tuple[int, str]:
        request = urllib.request.Request(url, method="POST" if post else "GET")
        if auth:
            request.add_header("Authorization", f"Bearer {auth}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    async def scenario() -> None:
        server = view_server(LiveViews(desk, operator_token=token), host="127.0.0.1", port=0)
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.02)
        base = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
        try:
            status, page = await asyncio.to_thread(http, base + "/")
            assert status == 200 and 'href="t/fri/"' in page and "registering" in page
            status, page = await asyncio.to_thread(http, base + "/t/fri/lobby")
            assert status == 200 and 'src="static/ui.js"' in page
            status, script = await asyncio.to_thread(http, base + "/t/fri/static/ui.js")
            assert status == 200 and 'EventSource("api/events")' in script
            status, state = await asyncio.to_thread(http, base + "/t/fri/api/state")
            assert status == 200 and json.loads(state)
            assert (await asyncio.to_thread(http, base + "/t/nope/"))[0] == 404
            pause = base + "/t/fri/api/control/pause"
            assert (await asyncio.to_thread(http, pause, post=True))[0] == 401
            status, body = await asyncio.to_thread(http, pause, post=True, auth=token)
            assert status == 409 and "registering" in json.loads(body)["error"]
            status, body = await asyncio.to_thread(
                http, base + "/t/fri/api/control/cancel", post=True, auth=token
            )
            assert status == 200, body
            assert desk.get("fri").state == "cancelled"  # CRASH-1 through the view
        finally:
            server.should_exit = True
            await serving

    asyncio.run(scenario())


class RayRefuses(Desk):
    """A desk whose cluster refuses every tournament's orchestrator (Ray down), so a start is
    `lost` at its launch without starting Ray here: the launch is the desk's one Ray call."""

    async def _launch(self, entry: Entry, players: list[str], **_: Any) -> OrchestratorHandle:
        raise RemoteUnavailable("no Ray cluster here")


def test_a_tournament_lost_at_its_launch_gives_every_entry_back_when_cancelled(
    tmp_path: Path,
) -> None:
    """Started, but its orchestrator never ran (no hand played): a cancellation gives every
    entry back in full, through the roll-forward at the starting stacks; a restarted front
    door repeats none of it."""
    settings = DeskSettings(
        data_dir=tmp_path / "data",
        deck_target="-",
        gateway_target="-",
        gateway_secret="s",
        store_url="-",
    )
    desk = RayRefuses(open_store(f"sqlite:///{tmp_path / 'store.db'}"), PlayerHub(), settings)
    for name in ("ann", "bob", "cy"):
        desk.create_account(name, WALLET)
    desk.create(CONFIG, "fri")
    desk.open_registration("fri")
    for name in ("ann", "bob", "cy"):
        desk.register("fri", name)
    with pytest.raises(NotAvailable):
        asyncio.run(desk.start("fri"))
    assert desk.get("fri").state == "lost" and desk.balance("ann") == WALLET - 1100
    entry = asyncio.run(desk.cancel("fri", "the cluster is gone"))
    assert entry.state == "cancelled"
    assert [desk.balance(p) for p in ("ann", "bob", "cy")] == [WALLET] * 3  # in full
    again = desk_on(tmp_path)
    asyncio.run(again.restore())
    assert again.get("fri").state == "cancelled"
    assert [again.balance(p) for p in ("ann", "bob", "cy")] == [WALLET] * 3  # not twice


def test_wallets_on_redis_survive_a_restart_and_are_never_charged_twice(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """The same registration record on the built-in wallet in Redis: REG-1 debits, REG-2
    credits the refund less the charge, a restarted desk repeating every call by its key moves
    nothing, and CRASH-1 gives the rest back."""
    settings = DeskSettings(
        data_dir=tmp_path / "data",
        deck_target="-",
        gateway_target="-",
        gateway_secret="s",
        store_url="-",
    )
    first = Desk(open_store(redis_server.url), PlayerHub(), settings)
    credentials = {name: first.create_account(name, WALLET) for name in ("ann", "bob")}
    first.create(CONFIG, "fri")
    first.open_registration("fri")
    first.register("fri", "ann", credential=credentials["ann"])
    first.register("fri", "bob")
    first.unregister("fri", "bob")
    assert (first.balance("ann"), first.balance("bob")) == (WALLET - 1100, WALLET - 110)
    again = Desk(open_store(redis_server.url), PlayerHub(), settings)
    asyncio.run(again.restore())
    assert (again.balance("ann"), again.balance("bob")) == (WALLET - 1100, WALLET - 110)
    asyncio.run(again.cancel("fri", "rain"))
    assert (again.balance("ann"), again.balance("bob")) == (WALLET, WALLET - 110)
