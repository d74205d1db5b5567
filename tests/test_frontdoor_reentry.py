"""Re-entries paid from the players' wallets, without Ray (LATE, REG-1; docs/FRONTDOOR.md
"Every structure"): the core re-enters a busted player only when he asks (`reentry_auto`
false), funded in the step of his re-entry (`player_funded`) and replayed from the log; the
desk offers the re-entry to whoever busted with one left, pays it from his wallet under a key
logged before the debit, and a restart closes the window between the debit and the
orchestrator's record."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path

import grpc
import pytest
from fake_run import FakeRun, FakeRunDesk
from test_frontdoor_desk import WALLET
from test_frontdoor_time_bank import OPERATOR, Stream
from tournament_checks import opened_tables, quiet

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.core import codec, state_codec
from orchestrator.core.config_toml import parse_config
from orchestrator.core.events import (
    Event,
    EventRecord,
    FundingWithdrawn,
    HandFinished,
    PlayerEliminated,
    PlayerFunded,
    PlayerRegistered,
    PlayerSeated,
    TournamentOpened,
)
from orchestrator.core.replay import open_tournament, rebuild_from_log, snapshot, step_rng
from orchestrator.core.tournament import Step
from orchestrator.errors import (
    AlreadyRegisteredError,
    FundingTakenError,
    FundingWithdrawnError,
    InsufficientFundsError,
    ReentryError,
    RegistrationClosedError,
)
from orchestrator.frontdoor.desk import Desk
from orchestrator.frontdoor.errors import NotAvailable, NotFound, WrongState
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.frontdoor.reentry import Offer, Reentries
from orchestrator.frontdoor.server import FrontDoorServer
from table_worker.protocol import HandPlayer, HandReport, NextHand

PRICE = 1100  # buy-in 1000 + fee 100
SEED = 7


class Logged:
    """A tournament whose every step is logged as the orchestrator logs it (each step's RNG
    from the log position it starts at), so the log rebuilds it."""

    def __init__(self, *, auto: bool, players: int = 3, reentries: int = 1) -> None:
        cfg = parse_config(
            {
                "tournament": {
                    "players": players,
                    "max_per_table": players + 3,  # seats open: re-entrants stay here
                    "buy_in": 1000,
                    "fee": 100,
                    "starting_stack": 1000,
                    "late_registration_levels": 2,
                    "reentries": reentries,
                },
                "levels": {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40], [40, 80]]},
            }
        )
        cfg = dataclasses.replace(cfg, reentry_auto=auto)
        names = tuple(f"p{k}" for k in range(players))
        # the front door's start: each player brought exactly one entry (his wallet the rest)
        opened = TournamentOpened(
            tournament="t",
            config=cfg,
            players=names,
            deposits=dict.fromkeys(names, PRICE),
            seed=SEED,
        )
        self.cfg = cfg
        self.tournament, step = open_tournament(opened, now=1.0)
        self.records: list[EventRecord] = []
        self.record(step.events)  # the opening record first
        self.ready = opened_tables(step)
        for table in sorted(self.ready):
            self.take(lambda rng, t=table: self.tournament.table_ready(t, now=1.0))
        for table in sorted(self.ready):
            polled = self.take(lambda rng, t=table: self.tournament.poll(t, now=1.0, rng=rng))
            assert polled.reply is not None
            self.ready[table] = polled.reply

    def record(self, events: list[Event] | tuple[Event, ...]) -> None:
        after = len(self.records)
        self.records += [codec.record(e, seq=after + k, ts=1.0) for k, e in enumerate(events, 1)]

    def take(self, command: object) -> Step:
        assert callable(command)
        step: Step = command(step_rng(SEED, len(self.records)))
        self.record(step.events)
        return step

    def spec(self) -> NextHand:
        """The next hand of the first table, polling it while it waits."""
        table = min(self.ready)
        for _ in range(5):
            spec = self.ready[table].next_hand
            if spec is not None:
                return spec
            polled = self.take(lambda rng: self.tournament.poll(table, now=1.0, rng=rng))
            assert polled.reply is not None
            self.ready[table] = polled.reply
        raise AssertionError(f"table {table} deals no hand")

    def bust(self, player: str = "") -> str:
        """The next hand: `player` (default: the second seat) loses every chip to another
        seat; the busted one."""
        spec = self.spec()
        while player and player not in {p for _, p, _ in spec.seats}:  # dealt in next hand
            played = self.take(
                lambda rng, s=spec: self.tournament.apply_hand(quiet(s), now=1.0, rng=rng)
            )
            assert played.reply is not None
            self.ready[spec.table] = played.reply
            spec = self.spec()
        seats = {p: stack for _, p, stack in spec.seats}
        busted = player or spec.seats[1][1]
        winner = next(p for p in seats if p != busted)
        ends = seats | {busted: 0, winner: seats[winner] + seats[busted]}
        report = HandReport(
            spec.table,
            spec.hand,
            spec.blinds.button,
            tuple(HandPlayer(p, seat, stack, ends[p]) for seat, p, stack in spec.seats),
        )
        step = self.take(lambda rng: self.tournament.apply_hand(report, now=1.0, rng=rng))
        assert step.reply is not None
        self.ready[spec.table] = step.reply
        return busted

    def reenter(self, player: str, deposit: int, key: str = "") -> Step:
        return self.take(
            lambda rng: self.tournament.register_late(
                player, now=1.0, rng=rng, deposit=deposit, key=key
            )
        )

    def types(self) -> list[str]:
        return [str(r["type"]) for r in self.records]


def test_late_with_reentry_auto_a_bust_with_the_money_re_enters_by_himself() -> None:
    """`mtt run`'s way, unchanged: a player whose account holds another entry re-enters."""
    logged = Logged(auto=True)
    player = logged.bust()
    assert "player_reentered" not in logged.types()  # one entry's money only: out
    assert logged.tournament.late is not None and logged.tournament.late.waiting(player)


def test_late_a_bust_re_enters_only_when_he_asks_funded_in_his_step_and_replayed() -> None:
    logged = Logged(auto=False)
    player = logged.bust()
    assert "player_reentered" not in logged.types()
    late = logged.tournament.late
    assert late is not None and late.waiting(player)
    step = logged.reenter(player, PRICE)
    assert step.events[0] == PlayerFunded(player=player, amount=PRICE)
    kinds = [e.EVENT_TYPE for e in step.events]
    assert "player_registered" in kinds and kinds[-1] == "player_reentered"
    registered = next(e for e in step.events if e.EVENT_TYPE == "player_registered")
    assert registered.fields()["entry"] == 2
    assert not late.waiting(player)
    assert logged.tournament.stacks[player] == logged.cfg.starting_stack
    assert logged.tournament.prize_pool == 1000 * 4  # three entries and the re-entry
    rebuilt = rebuild_from_log(logged.records)
    assert snapshot(rebuilt) == snapshot(logged.tournament)


def test_late_a_payment_withdrawn_is_never_taken_and_one_taken_is_never_withdrawn() -> None:
    """LATE: the front door, restarted with a re-entry's payment open, withdraws it from the
    run before crediting it back. The run decides in its own order: a payment withdrawn first
    is refused when the old call arrives; one taken first cannot be withdrawn. A refusal
    changes nothing, and the log (with `funding_withdrawn`) rebuilds the same tournament."""
    logged = Logged(auto=False, players=4)
    player = logged.bust()
    step = logged.take(lambda rng: logged.tournament.withdraw_funding("t/k1", now=1.0))
    assert step.events == [FundingWithdrawn(key="t/k1")]
    before = snapshot(logged.tournament)
    with pytest.raises(FundingWithdrawnError, match="withdrawn by the front door"):
        logged.tournament.register_late(
            player, now=1.0, rng=random.Random(1), deposit=PRICE, key="t/k1"
        )
    assert snapshot(logged.tournament) == before
    late = logged.tournament.late
    assert late is not None and late.waiting(player)  # his offer stands: he may ask again

    step = logged.reenter(player, PRICE, key="t/k2")  # asked again, a new payment
    assert step.events[0] == PlayerFunded(player=player, amount=PRICE, key="t/k2")
    before = snapshot(logged.tournament)
    with pytest.raises(FundingTakenError, match="its entry stands"):
        logged.tournament.withdraw_funding("t/k2", now=1.0)
    with pytest.raises(FundingTakenError, match="taken already"):
        logged.tournament.register_late(
            player, now=1.0, rng=random.Random(1), deposit=PRICE, key="t/k2"
        )
    with pytest.raises(FundingWithdrawnError, match="by its key"):
        logged.tournament.withdraw_funding("", now=1.0)
    assert snapshot(logged.tournament) == before
    assert "funding_withdrawn" in logged.types()
    rebuilt = rebuild_from_log(logged.records)
    assert snapshot(rebuilt) == snapshot(logged.tournament)
    with pytest.raises(FundingWithdrawnError):  # the withdrawal replayed too
        rebuilt.register_late(player, now=1.0, rng=random.Random(1), deposit=PRICE, key="t/k1")


def test_late_a_snapshot_of_version_1_reads_as_a_run_that_took_no_keyed_payment() -> None:
    logged = Logged(auto=False, players=4)
    logged.reenter(logged.bust(), PRICE)  # a re-entry of release 1: no key
    document = state_codec.encode_snapshot(logged.tournament)
    (late,) = state_codec.objects_of(document, "late.LateEntry")
    assert late.pop("_funding") == {}
    old = {**document, "v": 1}
    assert snapshot(state_codec.decode_snapshot(old)) == snapshot(logged.tournament)


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("short", InsufficientFundsError),  # his wallet paid less than the price
        ("in_play", AlreadyRegisteredError),  # he has not busted
        ("twice", ReentryError),  # his one re-entry is used
        ("closed", RegistrationClosedError),  # late registration is over
    ],
)
def test_late_a_re_entry_refused_changes_nothing(case: str, error: type[Exception]) -> None:
    logged = Logged(auto=False, players=4)
    player = logged.bust()
    deposit = PRICE
    if case == "short":
        deposit = PRICE - 1
    elif case == "in_play":
        player = next(p for p in logged.tournament.stacks if p != player)
    elif case == "twice":
        logged.reenter(player, PRICE)
        logged.bust(player)
    elif case == "closed":
        late = logged.tournament.late
        assert late is not None
        # the window over (as its last level ending would leave it), his place still held
        logged.tournament.play.clock.level = logged.cfg.late_registration_levels + 1
    before = snapshot(logged.tournament)
    with pytest.raises(error):
        logged.tournament.register_late(player, now=3.0, rng=random.Random(1), deposit=deposit)
    assert snapshot(logged.tournament) == before


# --- the desk: offers, the wallet's debit, the crash window --------------------------------

DESK_CONFIG = """
[tournament]
name = "re"
buy_in = 1000
fee = 100
late_registration_levels = 2
reentries = 1
[levels]
unit = "hands"
length = 10
blinds = [[25, 50], [50, 100], [100, 200]]
"""
TOURNAMENT = "re"


def desk_log(desk: FakeRunDesk) -> list[str]:
    return [str(r["type"]) for r in desk.store.read(TOURNAMENT + ".frontdoor")]


async def started(tmp_path: Path, *, flaky: bool = False) -> tuple[FakeRunDesk, FakeRun]:
    """ann, bob and cy registered (each wallet WALLET - 1100) and playing; ann busted."""
    desk = FakeRunDesk(tmp_path, flaky=flaky)
    for name in ("ann", "bob", "cy"):
        desk.create_account(name, WALLET)
    desk.create(DESK_CONFIG, TOURNAMENT)
    desk.open_registration(TOURNAMENT)
    for name in ("ann", "bob", "cy"):
        desk.register(TOURNAMENT, name)
    await desk.start(TOURNAMENT)
    assert desk.run is not None
    desk.run.bust("ann", "bob")
    for _ in range(50):  # the desk follows the run's log
        if desk.reentry_offer(TOURNAMENT, "ann") is not None:
            break
        await asyncio.sleep(0.05)
    return desk, desk.run


def test_late_the_desk_offers_a_re_entry_to_whoever_busted_and_pays_it_from_his_wallet(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        desk, run = await started(tmp_path)
        offer = desk.reentry_offer(TOURNAMENT, "ann")
        assert offer is not None
        assert (offer.reentry_offer.entry, offer.reentry_offer.price) == (2, 1100)
        assert (offer.reentry_offer.reentries_left, offer.reentry_offer.until_level) == (0, 2)
        assert desk.reentry_offer(TOURNAMENT, "bob") is None  # still in
        with pytest.raises(WrongState, match="no re-entry offered"):
            await desk.reenter(TOURNAMENT, "bob")
        with pytest.raises(NotFound):
            await desk.reenter(TOURNAMENT, "mallory")  # not in this tournament
        assert desk.balance("bob") == WALLET - 1100 and run.calls == []
        await desk.reenter(TOURNAMENT, "ann")
        assert run.calls == [("ann", 1100)]  # the entry's price, funded into the run
        assert desk.balance("ann") == WALLET - 2 * 1100
        assert desk_log(desk)[-2:] == ["reentry_paying", "reentered"]
        assert desk.get(TOURNAMENT).entries["ann"] == 2
        assert desk.reentry_offer(TOURNAMENT, "ann") is None  # taken: the offer is gone
        with pytest.raises(WrongState):
            await desk.reenter(TOURNAMENT, "ann")
        assert desk.balance("ann") == WALLET - 2 * 1100
        await desk.close()

    asyncio.run(scenario())


def test_late_a_re_entry_the_core_or_the_wallet_refuses_moves_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        desk, run = await started(tmp_path)
        run.mode = "refuse"
        with pytest.raises(WrongState, match="re-entries"):
            await desk.reenter(TOURNAMENT, "ann")
        assert desk.balance("ann") == WALLET - 1100  # debited, then credited back
        assert desk_log(desk)[-2:] == ["reentry_paying", "reentry_refused"]
        run.mode = "take"
        desk.create_account("eve", 500)  # what her late entry left her
        desk.get(TOURNAMENT).late = ("eve",)  # as if she had registered late
        run.log(PlayerRegistered(player="eve", entry=1, buy_in=1000, fee=100))
        run.log(PlayerSeated(player="eve", table=1, seat=3, stack=1000))
        run.bust("eve", "bob")
        for _ in range(50):
            if desk.reentry_offer(TOURNAMENT, "eve") is not None:
                break
            await asyncio.sleep(0.05)
        calls = len(run.calls)
        with pytest.raises(WrongState):  # her wallet holds 500: too little
            await desk.reenter(TOURNAMENT, "eve")
        assert desk.balance("eve") == 500 and len(run.calls) == calls
        assert desk_log(desk)[-1] == "reentry_refused"
        await desk.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(("mode", "kept"), [("lost", 1100), ("lost_after", 2200)])
def test_late_a_restart_closes_the_window_between_the_debit_and_the_run_s_record(
    tmp_path: Path, mode: str, kept: int
) -> None:
    """The orchestrator lost during a re-entry's call: the debit stands and the intent is
    open. A restarted desk finds the entry in the run's log (kept) or not (the debit credited
    back), and a second restart moves nothing."""

    async def scenario() -> None:
        desk, run = await started(tmp_path)
        run.mode = mode
        with pytest.raises(NotAvailable):
            await desk.reenter(TOURNAMENT, "ann")
        assert desk.balance("ann") == WALLET - 2200
        assert desk_log(desk)[-1] == "reentry_paying"
        await desk.close()

    asyncio.run(scenario())
    for _ in range(2):
        again = FakeRunDesk(tmp_path)
        asyncio.run(again.restore())
        assert again.balance("ann") == WALLET - kept
        closed = "reentered" if mode == "lost_after" else "reentry_refused"
        assert desk_log(again)[-1] == closed
        assert desk_log(again).count(closed) == 1


@pytest.mark.parametrize("arrives", ["before", "after"])
def test_late_a_restart_withdraws_an_open_payment_from_a_run_that_outlived_the_front_door(
    tmp_path: Path, arrives: str
) -> None:
    """An external cluster's orchestrator outlived the front door, and the old desk's call for
    a re-entry is still on its way. The restarted desk withdraws the payment from the run
    before crediting it back: if the call arrived first the entry stands and nothing is given
    back; if it arrives after, the run refuses it. Either way ann paid for what she holds."""

    async def crashed() -> FakeRun:
        desk, run = await started(tmp_path)
        run.mode = "in_flight"
        with pytest.raises(NotAvailable):
            await desk.reenter(TOURNAMENT, "ann")
        assert desk.balance("ann") == WALLET - 2200 and desk_log(desk)[-1] == "reentry_paying"
        await desk.close()
        return run

    async def restarted(run: FakeRun) -> None:
        if arrives == "before":
            run.arrive()
        again = FakeRunDesk(tmp_path, outlived=run)
        await again.restore()
        run.arrive()
        entries = [r for r in run.records if r["type"] == "player_registered"]
        if arrives == "before":
            assert desk_log(again)[-1] == "reentered"
            assert again.balance("ann") == WALLET - 2200 and len(entries) == 4
        else:
            assert desk_log(again)[-1] == "reentry_refused"
            assert again.balance("ann") == WALLET - 1100 and len(entries) == 3
            assert [r["type"] for r in run.records].count("funding_withdrawn") == 1
        await again.close()

    run = asyncio.run(crashed())
    asyncio.run(restarted(run))


def test_late_reentries_decide_offers_from_the_run_s_events() -> None:
    """Pure: a bust with a re-entry left is offered once; none for a player topped up in the
    same step, one whose re-entries are used, or once the window closed."""
    cfg = parse_config(
        {
            "tournament": {"late_registration_levels": 2, "reentries": 1},
            "levels": {"length": 3, "blinds": [[10, 20]]},
        }
    )
    seats = (HandPlayer("ann", 1, 500, 0), HandPlayer("bob", 2, 500, 0), HandPlayer("cy", 3, 0, 0))
    reentries = Reentries()
    reentries.saw(HandFinished(table=1, hand=1, button=1, players=seats))
    stacks = {"ann": 0, "bob": 300, "cy": 0}  # bob rebought in the step
    offers = reentries.decide(cfg, level=1, stacks=stacks, entries={"cy": 2}, price=10)
    assert offers == {"ann": Offer(entry=2, price=10, reentries_left=0, until_level=2)}
    reentries.saw(HandFinished(table=1, hand=2, button=1, players=seats))
    assert reentries.decide(cfg, level=1, stacks=stacks, entries={"cy": 2}, price=10) == {}
    reentries.saw(PlayerEliminated(player="ann", place=3, table=1, hand=3, start=500))
    assert reentries.offers == {}
    reentries.saw(HandFinished(table=1, hand=3, button=1, players=seats))
    assert reentries.decide(cfg, level=3, stacks=stacks, entries={}, price=10) == {}


def test_late_the_offer_and_reenter_over_grpc_each_stream_acting_only_for_its_player(
    tmp_path: Path,
) -> None:
    """The Play stream, in-process (no Ray: the run is `FakeRun`): ann's offer reaches her
    stream and again a new one; bob's `reenter` is refused for him (no offer of his) and moves
    nothing of ann's; a wrong token or the operator's credential never opens a stream; ann's
    `reenter` is paid from her wallet and answered with her re-entry's chips."""
    desks: list[FakeRunDesk] = []

    def desk_factory(hub: PlayerHub, gateway: str, secret: str, registry: object) -> Desk:
        desks.append(FakeRunDesk(tmp_path, hub))
        return desks[0]

    async def scenario() -> None:
        server = FrontDoorServer(desk_factory, operator_credential=OPERATOR)
        await server.start()
        try:
            async with grpc.aio.insecure_channel(server.target) as channel:
                await grpc_scenario(channel, desks[0])
        finally:
            await server.stop()

    asyncio.run(scenario())


async def grpc_scenario(channel: grpc.aio.Channel, desk: FakeRunDesk) -> None:
    operator = pb_grpc.OperatorServiceStub(channel)
    op = (("authorization", f"Bearer {OPERATOR}"),)
    await operator.CreateTournament(
        pb.CreateTournamentRequest(config_toml=DESK_CONFIG), metadata=op
    )
    ref = pb.TournamentRef(tournament_id=TOURNAMENT)
    await operator.OpenRegistration(ref, metadata=op)
    tokens = {}
    for name in ("ann", "bob"):
        await operator.CreateAccount(
            pb.CreateAccountRequest(account=name, balance=WALLET), metadata=op
        )
        reply = await operator.RegisterPlayer(
            pb.PlayerRef(tournament_id=TOURNAMENT, player=name), metadata=op
        )
        tokens[name] = reply.token
    ann, bob = Stream(channel, tokens["ann"]), Stream(channel, tokens["bob"])
    await ann.next("welcome")
    await bob.next("welcome")
    await operator.StartTournament(ref, metadata=op)
    assert desk.run is not None
    desk.run.bust("ann", "bob")
    offer = await ann.next("reentry_offer")
    assert (offer.entry, offer.price, offer.reentries_left, offer.until_level) == (2, 1100, 0, 2)
    # bob's stream acts for bob only: he has no offer; ann's stands, nothing moved
    bob.send(reenter=pb.ReentryRequest())
    problem = await bob.next("error")
    assert (
        problem.code == "FAILED_PRECONDITION" and "bob has no re-entry offered" in problem.message
    )
    assert desk.run.calls == [] and desk.balance("ann") == WALLET - 1100
    # no stream without a player's token
    for metadata, code in [
        ((("authorization", "Bearer not-a-token"),), grpc.StatusCode.UNAUTHENTICATED),
        (op, grpc.StatusCode.PERMISSION_DENIED),
    ]:
        call = pb_grpc.PlayerServiceStub(channel).Play(iter(()), metadata=metadata)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call.read()
        assert refused.value.code() == code
    # a new stream of ann's is offered it again; there she takes it
    ann.drop()
    again = Stream(channel, tokens["ann"])
    assert (await again.next("reentry_offer")).entry == 2
    again.send(reenter=pb.ReentryRequest())
    added = await again.next("chips_added")
    assert (added.kind, added.chips) == ("reentry", 1000)
    assert desk.run.calls == [("ann", 1100)] and desk.balance("ann") == WALLET - 2200
    again.drop()
    bob.drop()


def test_late_a_debit_whose_answer_was_lost_is_made_sure_of_and_credited_back(
    tmp_path: Path,
) -> None:
    """The wallet took the re-entry's price but its answer never came: the desk repeats the
    debit under its key (nothing moves again) and credits it back; nothing reached the run."""

    async def scenario() -> None:
        desk, run = await started(tmp_path, flaky=True)
        with pytest.raises(NotAvailable):
            await desk.reenter(TOURNAMENT, "ann")
        assert desk.balance("ann") == WALLET - 1100 and run.calls == []
        assert desk_log(desk)[-2:] == ["reentry_paying", "reentry_refused"]
        await desk.reenter(TOURNAMENT, "ann")  # the offer stands: asked again, it is paid
        assert desk.balance("ann") == WALLET - 2200 and run.calls == [("ann", 1100)]
        await desk.close()

    asyncio.run(scenario())
