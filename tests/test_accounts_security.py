"""The accounts calls tried as an attacker would, over real gRPC on 127.0.0.1 (no Ray: nothing
here starts a tournament): opening and reading wallets is the operator's alone; registering
oneself needs one's own account credential; wrong, missing or another player's credential,
bad names and amounts out of range are refused with a status, and nothing moves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import CollectorRegistry

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.frontdoor.desk import Desk, DeskSettings
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.frontdoor.server import FrontDoorServer
from orchestrator.shell.store import open_store
from orchestrator.shell.store.accounts import MAX_CENTS

OPERATOR = "accounts-test-operator-credential"
OP = (("authorization", f"Bearer {OPERATOR}"),)
CONFIG = """
[tournament]
name = "fri"
buy_in = 1000
fee = 100
[levels]
blinds = [[25, 50]]
"""
Code = grpc.StatusCode


def bearer(secret: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {secret}"),)


async def status_of(call: Awaitable[Any]) -> Code:
    try:
        await call
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return Code.OK


@asynccontextmanager
async def front_door(
    tmp_path: Path,
) -> AsyncIterator[tuple[pb_grpc.OperatorServiceStub, pb_grpc.PlayerServiceStub]]:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")

    def desk(hub: PlayerHub, gateway: str, secret: str, registry: CollectorRegistry) -> Desk:
        settings = DeskSettings(
            data_dir=tmp_path,
            deck_target="-",
            gateway_target=gateway,
            gateway_secret=secret,
            store_url="-",
        )
        return Desk(store, hub, settings)

    server = FrontDoorServer(desk, operator_credential=OPERATOR)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            await operator.CreateTournament(
                pb.CreateTournamentRequest(config_toml=CONFIG, tournament_id="fri"), metadata=OP
            )
            await operator.OpenRegistration(pb.TournamentRef(tournament_id="fri"), metadata=OP)
            yield operator, pb_grpc.PlayerServiceStub(channel)
    finally:
        await server.stop(0)
        store.close()


async def balance(operator: pb_grpc.OperatorServiceStub, account: str) -> int:
    reply = await operator.GetAccount(pb.AccountRef(account=account), metadata=OP)
    return int(reply.balance)


def test_only_the_operator_opens_and_reads_wallets_with_amounts_in_range(tmp_path: Path) -> None:
    async def go() -> None:
        async with front_door(tmp_path) as (operator, players):
            ann = await operator.CreateAccount(
                pb.CreateAccountRequest(account="ann", balance=5_000), metadata=OP
            )
            assert ann.credential and ann.balance == 5_000
            token = (
                await players.Register(
                    pb.RegisterRequest(tournament_id="fri", player="ann"),
                    metadata=bearer(ann.credential),
                )
            ).token
            opening = pb.CreateAccountRequest(account="eve", balance=10**9)
            for metadata, code in (
                ((), Code.UNAUTHENTICATED),
                (bearer("a-guess-at-the-operator-credential"), Code.UNAUTHENTICATED),
                (bearer(ann.credential), Code.UNAUTHENTICATED),  # a wallet's is no operator's
                (bearer(token), Code.PERMISSION_DENIED),  # nor is a player token
            ):
                assert await status_of(operator.CreateAccount(opening, metadata=metadata)) == code
                ref = pb.AccountRef(account="ann")
                assert await status_of(operator.GetAccount(ref, metadata=metadata)) == code
            for bad in (
                pb.CreateAccountRequest(account="bob", balance=-1),
                pb.CreateAccountRequest(account="bob", balance=MAX_CENTS + 1),
                pb.CreateAccountRequest(account="bob", balance=2**63 - 1),
                pb.CreateAccountRequest(account="../bob", balance=1),
                pb.CreateAccountRequest(account="b" * 33, balance=1),
                pb.CreateAccountRequest(account="", balance=1),
            ):
                assert await status_of(operator.CreateAccount(bad, metadata=OP)) == (
                    Code.INVALID_ARGUMENT
                )
            again = pb.CreateAccountRequest(account="ann", balance=10**9)
            assert await status_of(operator.CreateAccount(again, metadata=OP)) == (
                Code.FAILED_PRECONDITION
            )
            assert await balance(operator, "ann") == 5_000 - 1_100  # only her entry moved
            unknown = operator.GetAccount(pb.AccountRef(account="eve"), metadata=OP)
            assert await status_of(unknown) == Code.NOT_FOUND

    asyncio.run(go())


def test_self_registration_needs_the_players_own_account_credential(tmp_path: Path) -> None:
    async def go() -> None:
        async with front_door(tmp_path) as (operator, players):
            ann = await operator.CreateAccount(
                pb.CreateAccountRequest(account="ann", balance=5_000), metadata=OP
            )
            bob = await operator.CreateAccount(
                pb.CreateAccountRequest(account="bob", balance=500), metadata=OP
            )
            as_ann = pb.RegisterRequest(tournament_id="fri", player="ann")
            for metadata in (
                (),  # missing
                bearer("not-the-credential"),  # wrong
                bearer(bob.credential),  # another player's
                bearer(OPERATOR),  # the operator's is not a player's account credential
                (("authorization", f"Basic {ann.credential}"),),  # not a bearer credential
            ):
                assert await status_of(players.Register(as_ann, metadata=metadata)) == (
                    Code.UNAUTHENTICATED
                )
            # an account nobody opened answers as a wrong credential does: names are not probed
            ghost = pb.RegisterRequest(tournament_id="fri", player="ghost")
            assert await status_of(players.Register(ghost, metadata=bearer(ann.credential))) == (
                Code.UNAUTHENTICATED
            )
            assert await balance(operator, "ann") == 5_000  # nothing moved
            as_bob = pb.RegisterRequest(tournament_id="fri", player="bob")
            poor = players.Register(as_bob, metadata=bearer(bob.credential))
            assert await status_of(poor) == Code.FAILED_PRECONDITION  # 500 < 1,100
            assert await balance(operator, "bob") == 500
            reply = await players.Register(as_ann, metadata=bearer(ann.credential))
            assert await balance(operator, "ann") == 3_900  # REG-1: buy-in and fee
            info = await operator.GetTournament(pb.TournamentRef(tournament_id="fri"), metadata=OP)
            assert list(info.players) == ["ann"] and info.prize_pool == 1_000
            # the account credential is not a player token, nor the other way round
            wrong = players.Unregister(pb.UnregisterRequest(), metadata=bearer(ann.credential))
            assert await status_of(wrong) == Code.UNAUTHENTICATED
            twice = players.Register(as_ann, metadata=bearer(reply.token))
            assert await status_of(twice) == Code.UNAUTHENTICATED
            await players.Unregister(pb.UnregisterRequest(), metadata=bearer(reply.token))
            assert await balance(operator, "ann") == 5_000  # REG-2, no cancellation charge

    asyncio.run(go())


def test_the_operator_registers_only_players_with_a_wallet_that_can_pay(tmp_path: Path) -> None:
    """Anonymous names no longer get an entry for free (issue 18: 50 made-up names inflated a
    prize pool with money nobody paid)."""

    async def go() -> None:
        async with front_door(tmp_path) as (operator, _):
            made_up = pb.PlayerRef(tournament_id="fri", player="made-up-name")
            assert await status_of(operator.RegisterPlayer(made_up, metadata=OP)) == (
                Code.NOT_FOUND
            )
            info = await operator.GetTournament(pb.TournamentRef(tournament_id="fri"), metadata=OP)
            assert list(info.players) == [] and info.prize_pool == 0

    asyncio.run(go())


def test_entries_priced_at_nothing_or_beyond_any_wallet(tmp_path: Path) -> None:
    """A freeroll moves no money for the entry (the fee alone here); a price above what any
    wallet call may carry is refused with nothing moved; a negative price is no config."""

    async def go() -> None:
        async with front_door(tmp_path) as (operator, _):
            for tournament, buy_in in (("free", 0), ("huge", MAX_CENTS)):
                text = CONFIG.replace("buy_in = 1000", f"buy_in = {buy_in}")
                await operator.CreateTournament(
                    pb.CreateTournamentRequest(config_toml=text, tournament_id=tournament),
                    metadata=OP,
                )
                await operator.OpenRegistration(
                    pb.TournamentRef(tournament_id=tournament), metadata=OP
                )
            await operator.CreateAccount(
                pb.CreateAccountRequest(account="ann", balance=MAX_CENTS), metadata=OP
            )
            huge = operator.RegisterPlayer(
                pb.PlayerRef(tournament_id="huge", player="ann"), metadata=OP
            )
            assert await status_of(huge) == Code.INVALID_ARGUMENT  # MAX_CENTS + the fee
            assert await balance(operator, "ann") == MAX_CENTS
            await operator.RegisterPlayer(
                pb.PlayerRef(tournament_id="free", player="ann"), metadata=OP
            )
            assert await balance(operator, "ann") == MAX_CENTS - 100  # the fee only
            negative = CONFIG.replace("buy_in = 1000", "buy_in = -5")
            create = operator.CreateTournament(
                pb.CreateTournamentRequest(config_toml=negative, tournament_id="neg"), metadata=OP
            )
            assert await status_of(create) == Code.INVALID_ARGUMENT

    asyncio.run(go())


def test_schedules_are_checked_at_the_front_door(tmp_path: Path) -> None:
    """A start time without an offset, out of range or before registration opens is refused
    when the tournament is created, naming the key."""

    async def go() -> None:
        async with front_door(tmp_path) as (operator, _):
            for line, key in (
                ("starts_at = 2027-01-15T08:00:00", "starts_at"),
                ("starts_at = 1e300", "starts_at"),
                ("registration_opens_at = 20\nstarts_at = 10", "registration_opens_at"),
            ):
                text = CONFIG.replace("[levels]", f"{line}\n[levels]")
                request = pb.CreateTournamentRequest(config_toml=text, tournament_id="sched")
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await operator.CreateTournament(request, metadata=OP)
                assert refused.value.code() == Code.INVALID_ARGUMENT
                assert key in str(refused.value.details())

    asyncio.run(go())
