"""A restarted `mtt serve` re-attaches its running tournaments (DESIGN.md "Failure model",
issue 15): the front door, its Ray and every actor are killed with SIGKILL mid-tournament; a new
`mtt serve` on the same store launches the tournament's orchestrator again from its run's log
(every table restarted with its hand in progress voided, its tables given the new gateway)
and the tournament plays to its winner; the log before the crash is unchanged and the run
exported from the store audits clean."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from test_resume_ray import kill_the_whole_run
from wallets import fund

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.shell.store import open_store
from table_worker._proto import gateway_pb2 as gw

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

OPERATOR = "test-operator-credential-0123456789"
OP = (("authorization", f"Bearer {OPERATOR}"),)
CONFIG = """
[tournament]
name = "night"
max_per_table = 3
starting_stack = 1000
action_seconds = 2
[levels]
unit = "hands"
length = 3
blinds = [[25, 50, 0], [50, 100, 10], [100, 200, 25], [200, 400, 50], [400, 800, 100]]
"""


@contextmanager
def front_door(folder: Path, store: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`mtt serve` in a session of its own (so it can be killed whole); yields it and its
    address."""
    env = os.environ | {"MTT_OPERATOR_TOKEN": OPERATOR}
    command = [sys.executable, "-m", "orchestrator.cli.main", "serve", "--port", "0"]
    command += ["--store", store, "--data-dir", str(folder / "data")]
    with open(folder / "serve.log", "a") as log:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=log, text=True, env=env, start_new_session=True
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("front door on "), (folder / "serve.log").read_text()[-3000:]
        yield process, line.split()[3]
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                kill_the_whole_run(process)
        if process.stdout is not None:
            process.stdout.close()


async def start(target: str, players: list[str]) -> str:
    """A tournament of players who never connect (Out: their seats check or fold at once)."""
    async with grpc.aio.insecure_channel(target) as channel:
        operator = pb_grpc.OperatorServiceStub(channel)
        info = await operator.CreateTournament(
            pb.CreateTournamentRequest(config_toml=CONFIG), metadata=OP
        )
        ref = pb.TournamentRef(tournament_id=info.tournament_id)
        await operator.OpenRegistration(ref, metadata=OP)
        for player in players:
            await fund(channel, OPERATOR, player)
            await operator.RegisterPlayer(
                pb.PlayerRef(tournament_id=info.tournament_id, player=player), metadata=OP
            )
        await operator.StartTournament(ref, metadata=OP)
        return str(info.tournament_id)


def run_log(store_url: str, tournament: str) -> tuple[str, list[dict[str, Any]]]:
    store = open_store(store_url)
    try:
        runs = [s for s in store.tournaments() if s.startswith(f"{tournament}/")]
        return (runs[0], store.read(runs[0])) if runs else ("", [])
    finally:
        store.close()


def wait_for(store_url: str, tournament: str, kind: str, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 300
    while True:
        _, log = run_log(store_url, tournament)
        if sum(r["type"] == kind for r in log) >= count:
            return log
        assert time.monotonic() < deadline, f"no {count} {kind} in the store"
        time.sleep(0.2)


def test_a_restarted_front_door_relaunches_a_tournament_whose_cluster_died_with_it(
    tmp_path: Path,
) -> None:
    store = f"sqlite:///{tmp_path / 'store.db'}"
    with front_door(tmp_path, store) as (first, target):
        tournament = asyncio.run(start(target, [f"out{k}" for k in range(9)]))
        wait_for(store, tournament, "hand_finished", 4)
        kill_the_whole_run(first)
    stream, before = run_log(store, tournament)
    assert not any(r["type"] == "tournament_finished" for r in before)
    with front_door(tmp_path, store):
        after = wait_for(store, tournament, "tournament_finished", 1)
    assert after[: len(before)] == before
    assert any(r["type"] == "table_restarted" for r in after[len(before) :])
    assert "launched again from" in (tmp_path / "serve.log").read_text()
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "replay", "--store", store, tournament],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert stream in done.stdout


BANKED = CONFIG.replace(
    "action_seconds = 2", "action_seconds = 1\ntime_bank_seconds = 10\ntime_bank_refill = 0"
)


async def bank_spent(target: str) -> tuple[str, str, float]:
    """A tournament of `slow` and two players who never connect: slow thinks 3 s on his first
    prompt (2 s into his bank), then sits out. The tournament, his token and his bank."""
    from test_frontdoor_ray import RawPlayer

    async with grpc.aio.insecure_channel(target) as channel:
        operator = pb_grpc.OperatorServiceStub(channel)
        info = await operator.CreateTournament(
            pb.CreateTournamentRequest(config_toml=BANKED), metadata=OP
        )
        tournament = str(info.tournament_id)
        ref = pb.TournamentRef(tournament_id=tournament)
        await operator.OpenRegistration(ref, metadata=OP)
        tokens = {}
        for player in ("slow", "away1", "away2"):
            await fund(channel, OPERATOR, player)
            reply = await operator.RegisterPlayer(
                pb.PlayerRef(tournament_id=tournament, player=player), metadata=OP
            )
            tokens[player] = reply.token
        slow = RawPlayer(channel, tokens["slow"])
        await slow.next("welcome")
        await operator.StartTournament(ref, metadata=OP)
        prompt = await slow.next("action_request", timeout=120)
        assert prompt.time_bank_seconds == pytest.approx(10.0)
        await asyncio.sleep(3.0)
        slow.act(prompt.request_id, gw.CHECK_CALL)
        await slow.next("action_accepted")
        slow.send(sit_out=pb.SitOut())  # asked no more: his bank stays as it is
        await slow.next("status")
        listed = await operator.ListPlayers(ref, metadata=OP)
        bank = next(p.time_bank_seconds for p in listed.players if p.player == "slow")
        slow.call.cancel()
        return tournament, tokens["slow"], bank


async def bank_after_restart(target: str, tournament: str, token: str) -> tuple[float, float]:
    """What slow is told on his new stream (`resume`), and what the operator sees."""
    from test_frontdoor_ray import RawPlayer

    async with grpc.aio.insecure_channel(target) as channel:
        slow = RawPlayer(channel, token)
        resume = await slow.next("resume", timeout=60)
        ref = pb.TournamentRef(tournament_id=tournament)
        listed = await pb_grpc.OperatorServiceStub(channel).ListPlayers(ref, metadata=OP)
        slow.call.cancel()
        listed_bank = next(p.time_bank_seconds for p in listed.players if p.player == "slow")
        return resume.time_bank_seconds, listed_bank


def bank_kept(store_url: str, tournament: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        store = open_store(store_url)
        try:
            records = store.read(f"{tournament}.frontdoor")
        finally:
            store.close()
        if any(r["type"] == "time_bank" and r["player"] == "slow" for r in records):
            return
        assert time.monotonic() < deadline, "slow's time bank never reached the store"
        time.sleep(0.2)


def test_tb1_every_time_bank_is_what_it_was_after_a_restart_of_the_front_door(
    tmp_path: Path,
) -> None:
    """TB-1 (OUT-1..OUT-3): a player spends 2 s of his 10 s bank, the front door and its Ray
    are killed with SIGKILL; the restarted `mtt serve` on the same store gives his new stream
    the bank he had (its `resume`, and `ListPlayers`), not a full one."""
    store = f"sqlite:///{tmp_path / 'store.db'}"
    with front_door(tmp_path, store) as (first, target):
        tournament, token, before = asyncio.run(bank_spent(target))
        bank_kept(store, tournament)  # written at the desk's next poll of the run
        kill_the_whole_run(first)
    assert 6.5 < before < 9.5  # about 2 s spent (the prompt's trip and the clocks aside)
    with front_door(tmp_path, store) as (_, target):
        resumed, listed = asyncio.run(bank_after_restart(target, tournament, token))
    assert resumed == pytest.approx(before, abs=1e-6)
    assert listed == pytest.approx(before, abs=1e-6)


def test_the_gateway_book_tells_the_tables_where_the_newest_front_door_listens() -> None:
    """What tables that outlived their front door read (`GatewaySettings.book`): each front
    door publishes its gateway at its start, the last one wins."""
    from orchestrator.shell.driver import local_ray
    from orchestrator.shell.tables import publish_gateway
    from table_worker.actor import gateway_lookup
    from table_worker.remote import GatewaySettings

    settings = GatewaySettings("127.0.0.1:1", "first", 2.0, book="test-gateway-book")
    with local_ray(None, namespace="test-gateway-book"):
        lookup = gateway_lookup(settings)
        assert lookup() is None  # no front door published one yet
        publish_gateway("test-gateway-book", "127.0.0.1:2", "second")
        publish_gateway("test-gateway-book", "127.0.0.1:3", "third")
        assert lookup() == GatewaySettings("127.0.0.1:3", "third", 2.0, "test-gateway-book")
