"""TB-1 and OUT-1..OUT-3 through a real front door on 127.0.0.1, without Ray: the table's side
is the tables' own gateway client (`RemoteSeats`, as a table actor uses it) playing one hand
against the server's gateway; the players are real gRPC streams with their tokens. The hub's
clock is injected: a "slow" player is one whose answer comes after the clock was moved on, so
nothing here waits for a time limit to pass."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from fake_run import FakeRunDesk
from prometheus_client import CollectorRegistry
from wallets import fund

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.frontdoor.desk import Desk, DeskSettings
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.frontdoor.server import FrontDoorServer
from orchestrator.shell.store import open_store
from rng_service.commit import commitment
from rng_service.deck import ServedDeck
from table_worker._proto import gateway_pb2 as gw
from table_worker.engine import Decision, DecisionKind, Hand, HandSetup
from table_worker.remote import GatewaySettings, RemoteSeats

OPERATOR = "time-bank-test-operator"
OP = (("authorization", f"Bearer {OPERATOR}"),)
LIMIT = 0.1  # action_seconds: the smallest the config allows
BANK = 20.0
BANK_KEYS = {"time_bank_seconds": BANK, "time_bank_refill": 5, "time_bank_every": 2}


def config(**bank: object) -> str:
    """The tournament's TOML, with the time-bank keys given (values as TOML text)."""
    keys = {k: str(v) for k, v in BANK_KEYS.items()} | {k: str(v) for k, v in bank.items()}
    lines = ["[tournament]", 'name = "tb"', "max_per_table = 2", "starting_stack = 1000"]
    lines += [f"action_seconds = {LIMIT}", *(f"{k} = {v}" for k, v in keys.items())]
    return "\n".join([*lines, "[levels]", "blinds = [[10, 20, 0]]"]) + "\n"


WAIT = 10.0  # for a message that is on its way; never reached when things work


class Clock:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


class Stream:
    """One player's Play stream: every message it received, in order, and what it sends."""

    def __init__(self, channel: grpc.aio.Channel, token: str) -> None:
        self._outgoing: asyncio.Queue[pb.PlayerMessage | None] = asyncio.Queue()
        self.call = pb_grpc.PlayerServiceStub(channel).Play(
            self._requests(), metadata=(("authorization", f"Bearer {token}"),)
        )
        self.received: list[pb.ServerMessage] = []
        self._seen = 0

    async def _requests(self) -> AsyncIterator[pb.PlayerMessage]:
        while (message := await self._outgoing.get()) is not None:
            yield message

    async def next(self, kind: str) -> Any:
        """The next message of `kind` after the last one taken (earlier ones are kept)."""
        while True:
            while self._seen < len(self.received):
                message = self.received[self._seen]
                self._seen += 1
                if message.WhichOneof("kind") == kind:
                    return getattr(message, kind)
            read: object = await asyncio.wait_for(self._read(), WAIT)
            assert isinstance(read, pb.ServerMessage), f"the stream ended before a {kind}"
            self.received.append(read)

    async def _read(self) -> object:
        return await self.call.read()

    def act(self, request_id: int, kind: int = gw.CHECK_CALL, amount: int = 0) -> None:
        action = pb.Action(request_id=request_id, kind=kind, amount=amount)  # type: ignore[arg-type]
        self._outgoing.put_nowait(pb.PlayerMessage(action=action))

    def send(self, **kind: Any) -> None:
        self._outgoing.put_nowait(pb.PlayerMessage(**kind))

    def drop(self) -> None:
        self.call.cancel()


def server_on(tmp_path: Path, clock: Clock, secret: list[str]) -> FrontDoorServer:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")

    def desk(hub: PlayerHub, gateway: str, table_secret: str, registry: CollectorRegistry) -> Desk:
        secret.append(table_secret)
        settings = DeskSettings(
            data_dir=tmp_path,
            deck_target="-",
            gateway_target=gateway,
            gateway_secret=table_secret,
            store_url="-",
        )
        return Desk(store, hub, settings)

    return FrontDoorServer(desk, operator_credential=OPERATOR, clock=clock)


def heads_up() -> Hand:
    """Ann (seat 1) on the button posts the small blind and acts first (HE-2, HE-3)."""
    setup = HandSetup(
        seats=(1, 2),
        stacks=(1000, 1000),
        button=1,
        small_blind_seat=1,
        big_blind_seat=2,
        small_blind=10,
        big_blind=20,
        ante=0,
    )
    return Hand(setup, DECK.cards)


DECK = ServedDeck(bytes(range(52)), 1, commitment(bytes(range(52)), bytes(32)), bytes(32))


def test_tb1_out3_slow_player_uses_his_bank_disconnects_mid_hand_reconnects_and_acts(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        clock, secret = Clock(), list[str]()
        server = server_on(tmp_path, clock, secret)
        await server.start()
        seats: RemoteSeats | None = None
        try:
            async with grpc.aio.insecure_channel(server.target) as channel:
                operator = pb_grpc.OperatorServiceStub(channel)
                info = await operator.CreateTournament(
                    pb.CreateTournamentRequest(config_toml=config()), metadata=OP
                )
                tid = info.tournament_id
                await operator.OpenRegistration(pb.TournamentRef(tournament_id=tid), metadata=OP)
                for name in ("ann", "bob"):
                    await fund(channel, OPERATOR, name)
                tokens = {
                    name: (
                        await operator.RegisterPlayer(
                            pb.PlayerRef(tournament_id=tid, player=name), metadata=OP
                        )
                    ).token
                    for name in ("ann", "bob")
                }
                ann = Stream(channel, tokens["ann"])
                resume = await ann.next("resume")
                assert resume.time_bank_seconds == BANK and not resume.HasField("hand")
                await ann.next("welcome")

                settings = GatewaySettings(
                    server.gateway_target, secret[0], LIMIT, time_bank_seconds=BANK
                )
                seats = RemoteSeats(settings, tournament_id=tid, table=1)
                hand, names = heads_up(), {1: "ann", 2: "bob"}

                def decide() -> Decision | None:
                    assert seats is not None
                    return seats.decide(1, hand, hand.legal_actions(), names)

                def bot_checks() -> None:  # bob never connected: Out (OUT-2), checked for
                    assert hand.actor == 2 and decide() is None
                    hand.act(2, Decision(DecisionKind.CHECK_CALL))

                await asyncio.to_thread(seats.hand_started, 1, hand, names, deck=DECK, level=1)
                view = await ann.next("hand_started")
                assert list(view.hole_cards) == list(hand.hole_cards(1))

                # 1. Slow: ann answers 5 s after her 0.1 s limit ran out; the bank pays.
                asked = asyncio.create_task(asyncio.to_thread(decide))
                first = await ann.next("action_request")
                assert (first.seconds, first.time_bank_seconds) == (LIMIT, BANK)
                clock.now += LIMIT + 5.0
                ann.act(first.request_id)
                assert await asked == Decision(DecisionKind.CHECK_CALL)
                hand.act(1, Decision(DecisionKind.CHECK_CALL))
                await asyncio.to_thread(bot_checks)  # bob checks pre-flop...
                await asyncio.to_thread(bot_checks)  # ...and first on the flop

                # 2. Asked again: the prompt shows what is left of her bank.
                asked = asyncio.create_task(asyncio.to_thread(decide))
                second = await ann.next("action_request")
                assert second.time_bank_seconds == pytest.approx(BANK - 5.0)

                # 3. Another player's token: bob sees his own bank and cards, spends nothing.
                bob = Stream(channel, tokens["bob"])
                bobs = await bob.next("resume")
                assert bobs.time_bank_seconds == BANK
                assert bobs.hand.your_seat == 2
                assert list(bobs.hand.hole_cards) == list(hand.hole_cards(2))
                bob.act(second.request_id)  # answering ann's request
                refused = await bob.next("error")
                assert refused.code == "PERMISSION_DENIED"
                assert not asked.done()
                listing = await operator.ListPlayers(
                    pb.TournamentRef(tournament_id=tid), metadata=OP
                )
                banks = {p.player: p.time_bank_seconds for p in listing.players}
                assert banks == {"ann": pytest.approx(BANK - 5.0), "bob": BANK}  # operators see

                # 4. Ann's stream drops mid-hand; she is away 3 s (the bank runs).
                ann.drop()
                while server.hub.presence(tid, "ann").connected:
                    await asyncio.sleep(0.01)
                assert server.hub.presence(tid, "ann").out == "disconnected"  # OUT-3
                clock.now += 3.0

                # 5. She reconnects with her token: the hand, its state, her bank, her turn.
                ann = Stream(channel, tokens["ann"])
                status = await ann.next("status")
                assert (status.out, status.reason) == (False, "connected")
                resume = await ann.next("resume")
                assert resume.time_bank_seconds == pytest.approx(BANK - 5.0 - (3.0 - LIMIT))
                assert (resume.hand.table, resume.hand.hand, resume.hand.your_seat) == (1, 1, 1)
                assert list(resume.hand.hole_cards) == list(hand.hole_cards(1))
                assert resume.hand.deck_commitment == DECK.commitment  # to check it after
                assert resume.state.street == 1 and list(resume.state.board) == list(hand.board)
                again = await ann.next("action_request")
                assert again.request_id == second.request_id and again.seconds == 0.0
                assert again.time_bank_seconds == pytest.approx(resume.time_bank_seconds)
                raise_to = hand.legal_actions().min_raise_to
                assert raise_to is not None
                ann.act(again.request_id, gw.RAISE_TO, raise_to)
                assert await asked == Decision(DecisionKind.RAISE_TO, raise_to)
                await ann.next("action_accepted")

                # Nothing bob received carries ann's hole cards.
                for message in bob.received:
                    for field in ("hand_started", "resume"):
                        if message.WhichOneof("kind") == field:
                            shown = getattr(message, field)
                            shown = shown.hand if field == "resume" else shown
                            assert list(shown.hole_cards) != list(hand.hole_cards(1))
                ann.drop()
                bob.drop()
        finally:
            if seats is not None:
                seats.close()
            await server.stop(0)

    asyncio.run(go())


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("time_bank_seconds", "-5"),
        ("time_bank_seconds", '"lots"'),
        ("time_bank_seconds", "nan"),
        ("time_bank_refill", "21"),  # more than the bank holds
        ("time_bank_every", "0"),
        ("time_bank_every", "2.5"),
    ],
)
def test_tb1_malformed_bank_config_is_refused_and_creates_nothing(
    tmp_path: Path, key: str, value: str
) -> None:
    async def go() -> None:
        server = server_on(tmp_path, Clock(), [])
        await server.start()
        try:
            async with grpc.aio.insecure_channel(server.target) as channel:
                operator = pb_grpc.OperatorServiceStub(channel)
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await operator.CreateTournament(
                        pb.CreateTournamentRequest(config_toml=config(**{key: value})),
                        metadata=OP,
                    )
                assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert key in str(refused.value.details())
                listing = await operator.ListTournaments(pb.ListTournamentsRequest(), metadata=OP)
                assert list(listing.tournaments) == []
        finally:
            await server.stop(0)

    asyncio.run(go())


def test_tb1_a_bank_spent_is_kept_in_the_store_and_given_back_by_a_restarted_desk(
    tmp_path: Path,
) -> None:
    """No Ray, no gRPC (the run is `FakeRun`): the hub asks ann, its clock moved on 3 s into
    her bank; the desk writes the change at its next poll of the run, and a new desk on the
    same store, with a new hub, gives her the bank she had, not a full one; a second restart
    keeps it too."""
    clock = Clock()

    async def asked() -> None:
        desk = FakeRunDesk(tmp_path, PlayerHub(clock=clock))
        hub = desk.hub
        for name in ("ann", "bob"):
            desk.create_account(name, 10_000)
        tournament = desk.create(config(), "tb").tournament_id
        desk.open_registration(tournament)
        for name in ("ann", "bob"):
            desk.register(tournament, name)
        await desk.start(tournament)
        connection = hub.connect(tournament, "ann")
        legal = gw.Legal(can_fold=True, can_check=True)
        request = gw.SeatActionRequest(
            tournament_id=tournament, table=1, hand=1, seat=1, player="ann", legal=legal
        )
        answer = asyncio.create_task(hub.request_action(request, LIMIT))
        while True:  # her prompt
            message = await asyncio.wait_for(connection.outbox.get(), WAIT)
            assert message is not None
            if message.WhichOneof("kind") == "action_request":
                break
        clock.now += LIMIT + 3.0  # she thinks 3 s beyond the limit
        action = pb.Action(request_id=message.action_request.request_id, kind=gw.CHECK_CALL)
        hub.receive(connection, pb.PlayerMessage(action=action))
        assert (await asyncio.wait_for(answer, WAIT)).kind == gw.CHECK_CALL
        assert hub.presence(tournament, "ann").time_bank_seconds == pytest.approx(BANK - 3.0)
        for _ in range(50):  # the desk's next poll of the run writes it
            if any(r["type"] == "time_bank" for r in desk.store.read("tb.frontdoor")):
                break
            await asyncio.sleep(0.05)
        await desk.close()

    asyncio.run(asked())
    for _ in range(2):
        again = FakeRunDesk(tmp_path, PlayerHub(clock=clock))
        asyncio.run(again.restore())
        assert again.hub.presence("tb", "ann").time_bank_seconds == pytest.approx(BANK - 3.0)
        assert again.hub.presence("tb", "bob").time_bank_seconds == BANK  # untouched
    kept = [r for r in again.store.read("tb.frontdoor") if r["type"] == "time_bank"]
    assert [(r["player"], r["level"]) for r in kept] == [("ann", 1)]  # once: the change only
