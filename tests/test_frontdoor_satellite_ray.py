"""A satellite and its target through a real `mtt serve` (its own local Ray, deck service and
SQLite store, all on 127.0.0.1), played by bots over gRPC (SAT-1..SAT-3): the satellite's seat
winners hold tickets in their wallets (`mtt ctl account`) and enter the target by their tickets
(no cash moves), one registering himself with his credential and the other registered by the
operator (`mtt ctl register --ticket`), the target plays to its end, both exported
runs audit clean, and every cent of the wallets and the two ledgers balances. Refused with
nothing moved: a satellite whose target is not at this front door, a ticket to another
tournament, a ticket spent."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from typing import Any

import grpc
import pytest
from test_frontdoor_ray import OP, OPERATOR, Server, create, server, status_of
from wallets import BALANCE, bearer, wallet

from loadtest.fleet import BotPlayer, FleetStats
from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.views.audit import audit_run
from table_worker.bots import make_bot

__all__ = ["server"]  # the module's `mtt serve` (a fixture of test_frontdoor_ray)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

BLINDS = "[[25, 50], [50, 100], [100, 200], [200, 400], [400, 800], [800, 1600], [1600, 3200]]"
SEAT = 2_200  # the target's entry: buy-in 2000 + fee 200


def config_text(name: str, *, buy_in: int, fee: int, extra: str = "") -> str:
    return (
        f'[tournament]\nname = "{name}"\nbuy_in = {buy_in}\nfee = {fee}\nmax_per_table = 3\n'
        "starting_stack = 1000\naction_seconds = 5\n"
        f'[levels]\nunit = "hands"\nlength = 3\nblinds = {BLINDS}\n{extra}'
    )


def satellite_text(target: str) -> str:
    # 6 entries of 1000 pay floor(6000 / 2200) = 2 seats; 1600 in cash to place 3 (SAT-1)
    return config_text(
        "sat-feeder",
        buy_in=1_000,
        fee=100,
        extra=f'[satellite]\nseat_value = {SEAT}\ntarget = "{target}"\n',
    )


def operator_cents(events: list[dict[str, Any]]) -> int:
    """What a run's ledger left with the operator (commissions kept), from its postings."""
    posted = [e for e in events if e["type"] == "ledger_posted"]
    taken = sum(int(e["amount"]) for e in posted if e["target"] == "operator")
    return taken - sum(int(e["amount"]) for e in posted if e["source"] == "operator")


async def watch_to_end(operator: Any, tournament: str) -> list[dict[str, Any]]:
    request = pb.WatchRequest(tournament_id=tournament)
    return [json.loads(r.json) async for r in operator.WatchEvents(request, metadata=OP)]


async def fleet_of(
    channel: grpc.aio.Channel,
    server: Server,
    tournament: str,
    names: list[str],
    *,
    ticket: bool,
    stats: FleetStats,
) -> list[BotPlayer]:
    """Each bot registers himself with his wallet's credential (SAT-3 `ticket`: paid by it)."""
    players = pb_grpc.PlayerServiceStub(channel)
    fleet = []
    for name in names:
        credential = await wallet(channel, server.target, OPERATOR, name)
        reply = await players.Register(
            pb.RegisterRequest(tournament_id=tournament, player=name, ticket=ticket),
            metadata=bearer(credential),
        )
        bot = make_bot("strength", random.Random(name))
        fleet.append(BotPlayer(name, reply.token, bot, channel, stats, lambda _: None))
    return fleet


async def play_to_end(
    operator: Any, tournament: str, fleet: list[BotPlayer]
) -> list[dict[str, Any]]:
    tasks = [asyncio.create_task(p.run()) for p in fleet]
    await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in fleet)), 30)
    await operator.StartTournament(pb.TournamentRef(tournament_id=tournament), metadata=OP)
    events = await watch_to_end(operator, tournament)
    for p in fleet:
        p.stop()
    await asyncio.gather(*tasks, return_exceptions=True)
    return events


def ctl(server: Server, *words: str) -> subprocess.CompletedProcess[str]:
    """`mtt ctl WORDS --json` against the server, as an operator types it."""
    env = os.environ | {"MTT_OPERATOR_TOKEN": OPERATOR}
    command = [sys.executable, "-m", "orchestrator.cli.main", "ctl", *words]
    command += ["--target", server.target, "--json"]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def ctl_account(server: Server, player: str) -> dict[str, Any]:
    done = ctl(server, "account", player)
    assert done.returncode == 0, done.stderr
    shown: dict[str, Any] = json.loads(done.stdout)
    return shown


def test_sat3_satellite_winners_enter_the_target_by_ticket_through_the_front_door(
    server: Server,
) -> None:
    feeders = [f"sf{k}" for k in range(6)]
    cash = ["tc1", "tc2"]  # the target's own entrants, paying from their wallets

    async def play() -> dict[str, Any]:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            players = pb_grpc.PlayerServiceStub(channel)
            main = await create(channel, config_text("sat-main", buy_in=2_000, fee=200))
            nowhere = pb.CreateTournamentRequest(config_toml=satellite_text("no-such-main"))
            refused = {"target": await status_of(operator.CreateTournament(nowhere, metadata=OP))}
            sat = await create(channel, satellite_text(main))
            stats = FleetStats()
            fleet = await fleet_of(channel, server, sat, feeders, ticket=False, stats=stats)
            sat_events = await play_to_end(operator, sat, fleet)
            winners = [e["player"] for e in sat_events if e["type"] == "ticket_awarded"]
            held = {
                p: await operator.GetAccount(pb.AccountRef(account=p), metadata=OP) for p in feeders
            }
            # a ticket to another tournament: refused, nothing moved
            other = await create(channel, config_text("sat-other", buy_in=2_000, fee=200))
            loser = next(p for p in feeders if p not in winners)
            for who, where in ((winners[0], other), (loser, main)):
                credential = await wallet(channel, server.target, OPERATOR, who)
                request = pb.RegisterRequest(tournament_id=where, player=who, ticket=True)
                call = players.Register(request, metadata=bearer(credential))
                refused[f"{who}->{where}"] = await status_of(call)
            fleet = await fleet_of(channel, server, main, winners[:1], ticket=True, stats=stats)
            # the operator registers the other winner by his ticket; a loser has none to use
            for who in (loser, winners[1]):
                done = await asyncio.to_thread(ctl, server, "register", main, who, "--ticket")
                refused[f"ctl {who}"] = (done.returncode, done.stderr.count("\n"))
            token = json.loads(done.stdout)["registered"][0]["token"]
            bot = make_bot("strength", random.Random(winners[1]))
            fleet.append(BotPlayer(winners[1], token, bot, channel, stats, lambda _: None))
            # spent once: registering again by the same ticket is refused
            credential = await wallet(channel, server.target, OPERATOR, winners[0])
            again = pb.RegisterRequest(tournament_id=main, player=winners[0], ticket=True)
            refused["again"] = await status_of(players.Register(again, metadata=bearer(credential)))
            fleet += await fleet_of(channel, server, main, cash, ticket=False, stats=stats)
            main_events = await play_to_end(operator, main, fleet)
            await operator.CancelTournament(
                pb.CancelRequest(tournament_id=other, reason="unused"), metadata=OP
            )
            accounts = {}
            for p in [*feeders, *cash]:
                accounts[p] = await operator.GetAccount(pb.AccountRef(account=p), metadata=OP)
            assert stats.errors == 0, stats.problems
            return {
                "main": main,
                "sat": sat,
                "sat_events": sat_events,
                "main_events": main_events,
                "winners": winners,
                "held": held,
                "refused": refused,
                "accounts": accounts,
                "loser": loser,
                "other": other,
            }

    run = asyncio.run(play())
    main, sat, winners = run["main"], run["sat"], run["winners"]
    assert run["refused"] == {
        "target": grpc.StatusCode.INVALID_ARGUMENT,
        f"{winners[0]}->{run['other']}": grpc.StatusCode.FAILED_PRECONDITION,
        f"{run['loser']}->{main}": grpc.StatusCode.FAILED_PRECONDITION,
        "again": grpc.StatusCode.FAILED_PRECONDITION,
        f"ctl {run['loser']}": (2, 1),  # one line, exit 2
        f"ctl {winners[1]}": (0, 0),
    }
    # SAT-1/SAT-2: two seats, a ticket each, held in the wallet after the satellite
    assert len(winners) == 2
    for player, info in run["held"].items():
        tickets = {t.target: t.value for t in info.tickets}
        assert tickets == ({main: SEAT} if player in winners else {}), player
    # SAT-3: each winner's ticket paid his entry; the run's ledger took it from his ticket
    registered = [e for e in run["main_events"] if e["type"] == "ledger_posted"]
    by_ticket = {e["source"] for e in registered if e["reason"] == "ticket_entry"}
    assert by_ticket == {f"ticket:{p}" for p in winners}
    assert any(e["type"] == "tournament_finished" for e in run["main_events"])
    for player in winners:
        assert ctl_account(server, player)["tickets"] == {main: 0}  # spent
    # Both runs as exported audit clean
    for tournament in (sat, main):
        report = audit_run(server.data / tournament)
        assert not report.violations, (tournament, report.verdict(), report.violations)
        assert report.hands > 0
    # Every cent: the wallets' cash, the tickets they still hold and what the operator kept of
    # both ledgers make the wallets' opening balances (the pools paid out in full).
    wallets = sum(info.balance for info in run["accounts"].values())
    tickets = sum(t.value for info in run["accounts"].values() for t in info.tickets)
    kept = operator_cents(run["sat_events"]) + operator_cents(run["main_events"])
    assert tickets == 0
    assert kept == 6 * 100 + 4 * 200
    assert wallets + tickets + kept == 8 * BALANCE
