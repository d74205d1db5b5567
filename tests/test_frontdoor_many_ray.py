"""Ten small tournaments at once on one `mtt serve` (local Ray, its store and the wallets in a
real Redis, the cluster default: ten orchestrators starting at once on one SQLite file of a
loaded machine wait on its lock past their timeout; all on 127.0.0.1),
each of four remote bots playing over gRPC with wallets behind the Accounts port: nine started
together by the operator and one by its own schedule (`registration_opens_at`, `starts_at` on
the front door's clock), one cancelled mid-way (CRASH-2), the nine others finish clean, each on
its own record; and no cent is created or lost between the wallets and the ten tournaments (REG-1,
PAY-1, CRASH-2: what the wallets lost is what the operator kept as commission)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from conftest import RedisServer
from test_frontdoor_ray import OP, OPERATOR, Server, config
from wallets import BALANCE, bearer, wallet

from loadtest.fleet import BotPlayer, FleetStats
from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from table_worker.bots import make_bot

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

TOURNAMENTS = 10
PLAYERS = 4
BUY_IN, FEE = 1_000, 100
CANCELLED = 3  # the tournament cancelled mid-way (its index)
SCHEDULED = 9  # the one that opens and starts by itself
SCHEDULE_SECONDS = 20.0  # from its creation to its start: time enough to register its players


@pytest.fixture
def front_door(tmp_path: Path, redis_server: RedisServer) -> Iterator[Server]:
    """`mtt serve` on the Redis store, as the module test_frontdoor_ray's fixture on SQLite."""
    env = os.environ | {"MTT_OPERATOR_TOKEN": OPERATOR}
    command = [sys.executable, "-m", "orchestrator.cli.main", "serve", "--port", "0"]
    command += ["--store", redis_server.url, "--data-dir", str(tmp_path / "data")]
    with (
        open(tmp_path / "serve.log", "w") as log,
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env) as proc,
    ):
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("front door on "), (tmp_path / "serve.log").read_text()[-3000:]
            words = line.split()
            yield Server(words[3], words[5].rstrip(","), "", tmp_path / "data", proc)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def operator_net(events: list[dict[str, Any]]) -> int:
    """What a tournament's ledger left with the operator: commission, less any given back."""
    net = 0
    for e in events:
        if e["type"] == "ledger_posted":
            net += e["amount"] * ((e["target"] == "operator") - (e["source"] == "operator"))
    return net


async def play(front_door: Server) -> dict[str, Any]:
    async with grpc.aio.insecure_channel(front_door.target) as channel:
        operator = pb_grpc.OperatorServiceStub(channel)
        players = pb_grpc.PlayerServiceStub(channel)
        stats = FleetStats()
        text = config(
            "many",
            max_per_table=PLAYERS,
            starting_stack=1_000,
            action_seconds=10,
            buy_in=BUY_IN,
            fee=FEE,
            length=3,
            levels="[[25, 50, 0], [50, 100, 0], [100, 200, 0], [200, 400, 0], [400, 800, 0]]",
        )
        now = time.time()  # the clock of `mtt serve`'s desk: this machine's
        scheduled = text.replace(
            "[levels]",
            f"registration_opens_at = {now}\nstarts_at = {now + SCHEDULE_SECONDS}\n[levels]",
        )
        ids, bots = [f"many-{t}" for t in range(TOURNAMENTS)], []
        for t in (SCHEDULED, *(t for t in range(TOURNAMENTS) if t != SCHEDULED)):
            ref = pb.TournamentRef(tournament_id=ids[t])
            await operator.CreateTournament(
                pb.CreateTournamentRequest(
                    config_toml=scheduled if t == SCHEDULED else text, tournament_id=ids[t]
                ),
                metadata=OP,
            )
            if t == SCHEDULED:  # its registration opens by itself, at once
                while (await operator.GetTournament(ref, metadata=OP)).state != "registering":
                    await asyncio.sleep(0.2)
            else:
                await operator.OpenRegistration(ref, metadata=OP)
            for k in range(PLAYERS):
                name = f"m{t}p{k}"
                credential = await wallet(channel, front_door.target, OPERATOR, name)
                reply = await players.Register(
                    pb.RegisterRequest(tournament_id=ids[t], player=name),
                    metadata=bearer(credential),
                )
                policy = make_bot("strength", random.Random(name))
                bots.append(BotPlayer(name, reply.token, policy, channel, stats))
        tasks = [asyncio.create_task(b.run()) for b in bots]
        await asyncio.wait_for(asyncio.gather(*(b.welcomed.wait() for b in bots)), 60)
        by_hand = [t for k, t in enumerate(ids) if k != SCHEDULED]
        started = await asyncio.gather(
            *(
                operator.StartTournament(pb.TournamentRef(tournament_id=t), metadata=OP)
                for t in by_hand
            )
        )
        assert [s.state for s in started] == ["running"] * (TOURNAMENTS - 1)

        async def watch(tournament: str) -> list[dict[str, Any]]:
            events = []
            request = pb.WatchRequest(tournament_id=tournament)
            async for record in operator.WatchEvents(request, metadata=OP):
                events.append(json.loads(record.json))
                hands = sum(e["type"] == "hand_finished" for e in events)
                if tournament == ids[CANCELLED] and record.type == "hand_finished" and hands == 1:
                    await operator.CancelTournament(
                        pb.CancelRequest(tournament_id=tournament, reason="table broke"),
                        metadata=OP,
                    )
            return events

        logs = await asyncio.wait_for(asyncio.gather(*(watch(t) for t in ids)), 900)
        standings = [
            await operator.GetStandings(pb.TournamentRef(tournament_id=t), metadata=OP) for t in ids
        ]
        balances = {
            b.name: (await operator.GetAccount(pb.AccountRef(account=b.name), metadata=OP)).balance
            for b in bots
        }
        for b in bots:
            b.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        return {
            "ids": ids,
            "logs": logs,
            "standings": standings,
            "balances": balances,
            "stats": stats,
        }


def test_ten_concurrent_tournaments_finish_clean_and_isolated(front_door: Server) -> None:
    played = asyncio.run(play(front_door))
    ids, logs, standings = played["ids"], played["logs"], played["standings"]
    balances: dict[str, int] = played["balances"]
    assert played["stats"].errors == 0, played["stats"].problems
    for t, (tournament, events, table) in enumerate(zip(ids, logs, standings, strict=True)):
        kinds = [e["type"] for e in events]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # its own log
        names = {f"m{t}p{k}" for k in range(PLAYERS)}
        seated = {e["player"] for e in events if e["type"] == "player_seated"}
        assert seated == names  # nobody of another tournament
        registered = [e for e in events if e["type"] == "player_registered"]
        assert len(registered) == PLAYERS  # the entries the desk took, no more
        if t == CANCELLED:
            assert "tournament_cancelled" in kinds and "tournament_finished" not in kinds
            assert table.state == "cancelled"
            continue
        assert "tournament_finished" in kinds and "tournament_cancelled" not in kinds
        assert "tournament_started" in kinds  # the scheduled one too: nobody started it by hand
        assert table.state == "finished" and table.players_left == 0
        assert sorted(s.place for s in table.standings) == list(range(1, PLAYERS + 1))
        prizes = sum(e["amount"] for e in events if e["type"] == "prize_awarded")
        assert prizes == PLAYERS * BUY_IN  # the pool paid out, to the cent
        results = json.loads((front_door.data / tournament / "results.json").read_text())
        assert {p["player"] for p in results["places"]} == names
    # No cent created or lost: what the wallets lost is what the operator kept.
    kept = sum(operator_net(events) for events in logs)
    assert sum(balances.values()) + kept == TOURNAMENTS * PLAYERS * BALANCE
    for t in range(TOURNAMENTS):
        if t != CANCELLED:
            assert operator_net(logs[t]) == PLAYERS * FEE
    paid = {name: 0 for name in balances}
    for events in logs:
        for e in events:
            if e["type"] == "ledger_posted" and e["target"].startswith("player:"):
                paid[e["target"].removeprefix("player:")] += e["amount"]
    for name, balance in balances.items():  # each wallet: less its entry, plus what it won
        assert balance == BALANCE - (BUY_IN + FEE) + paid[name], name
