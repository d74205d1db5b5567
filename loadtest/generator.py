"""One generator: a share of the fleet's bots, driven through the coordinator's phases, in its
own process (`--processes K`) or in the coordinator's (K = 1). The link carries plain tuples:

    coordinator -> generator      generator -> coordinator
                                  ("ready",)                     imported, loop running
    ("go", epoch)                 ("connected", registered, welcomed)
    ("started",)                  ("warm", dealing)              its bots' tables deal
    ("measure", epoch)            ("result", record)             after the measured window
    ("stop",)                     (ends)

Every epoch is wall-clock time (`time.time()`) chosen by the coordinator, so the ramp, the
registration storm, the reconnect storms and the measured window are one schedule across the
processes; each generator plays its own bots' part of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing.connection
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import grpc

from loadtest.errors import GeneratorError
from loadtest.fleet import BOTS_PER_CHANNEL, BotPlayer, FleetStats, channel
from loadtest.profile import LoadProfile
from loadtest.schedule import arrivals, victims
from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from table_worker.bots import make_bot

__all__ = [
    "BOTS_PER_GENERATOR",
    "WARM_SHARE",
    "GeneratorPlan",
    "Link",
    "Metadata",
    "PipeLink",
    "QueueLink",
    "bearer",
    "bot_name",
    "drive",
    "generators_for",
    "main",
]

Metadata = tuple[tuple[str, str], ...]

WARM_SHARE = 0.9
# Bots one generator process plays unless told otherwise: 1,000 in one process made its own
# event loop a queue every round trip waited in (a player's own client has one player), and
# its lag was counted as the front door's (docs/BENCHMARKS.md).
BOTS_PER_GENERATOR = 500
WARMUP_LIMIT_SECONDS = 600.0
CONNECT_LIMIT_SECONDS = 60.0  # beyond the ramp, for every bot's Welcome


@dataclass(frozen=True, slots=True, kw_only=True)
class GeneratorPlan:
    """Everything a generator needs (it pickles: it crosses to a process)."""

    target: str
    tls_ca: bytes | None
    tournament: str
    bots: int  # the whole fleet's
    mine: tuple[int, ...]  # the bot numbers this generator plays
    wallets: tuple[str, ...]  # their wallets' credentials, by `mine` ("": the operator's turn)
    operator_credential: str
    duration: float
    policy: str
    seed: int
    profile: LoadProfile


def bot_name(k: int) -> str:
    return f"bot{k:05d}"


def bearer(credential: str) -> Metadata:
    return (("authorization", f"Bearer {credential}"),)


class Link(Protocol):
    async def send(self, message: tuple[Any, ...]) -> None: ...
    async def recv(self) -> tuple[Any, ...]: ...


class QueueLink:
    """One end of an in-process link: two asyncio queues."""

    def __init__(
        self, inbox: asyncio.Queue[tuple[Any, ...]], outbox: asyncio.Queue[tuple[Any, ...]]
    ) -> None:
        self._inbox, self._outbox = inbox, outbox

    async def send(self, message: tuple[Any, ...]) -> None:
        await self._outbox.put(message)

    async def recv(self) -> tuple[Any, ...]:
        return await self._inbox.get()


class PipeLink:
    """One end of a multiprocessing pipe; `alive` (the other end's process) is checked while
    waiting, so a dead generator is an error, not a hang."""

    def __init__(
        self, connection: multiprocessing.connection.Connection, alive: Any = None
    ) -> None:
        self._connection = connection
        self._alive = alive

    async def send(self, message: tuple[Any, ...]) -> None:
        self._connection.send(message)

    async def recv(self) -> tuple[Any, ...]:
        while not await asyncio.to_thread(self._connection.poll, 0.2):
            if self._alive is not None and not self._alive():
                raise GeneratorError("a generator process ended before its report")
        message = self._connection.recv()
        if not isinstance(message, tuple):
            raise GeneratorError(f"a generator sent {message!r}")
        return message


async def _expect(link: Link, kind: str) -> tuple[Any, ...]:
    message = await link.recv()
    if message[0] != kind:
        raise GeneratorError(f"expected {kind!r} on the link, got {message[0]!r}")
    return message


async def _until(epoch: float) -> None:
    await asyncio.sleep(max(0.0, epoch - time.time()))


async def drive(plan: GeneratorPlan, link: Link) -> None:
    """Play this generator's bots through every phase; the last message sent is its record."""
    profile = plan.profile
    schedule = arrivals(
        plan.bots,
        ramp_seconds=profile.ramp_for(plan.bots),
        registration=profile.registration,
        storm_seconds=profile.storm_seconds,
    )
    channels = [
        channel(plan.target, plan.tls_ca)
        for _ in range(max(1, (len(plan.mine) + BOTS_PER_CHANNEL - 1) // BOTS_PER_CHANNEL))
    ]
    stats = FleetStats()
    players: dict[int, BotPlayer] = {}
    tasks: list[asyncio.Task[None]] = []
    registered = 0

    wallets = dict(zip(plan.mine, plan.wallets, strict=True))

    async def register(k: int, lane: grpc.aio.Channel) -> pb.Registration:
        """As a player does, with his wallet's credential; a wallet of an earlier fleet (its
        credential shown only when it opened) through the operator."""
        name = bot_name(k)
        if wallets[k]:
            return await pb_grpc.PlayerServiceStub(lane).Register(
                pb.RegisterRequest(tournament_id=plan.tournament, player=name),
                metadata=bearer(wallets[k]),
            )
        return await pb_grpc.OperatorServiceStub(lane).RegisterPlayer(
            pb.PlayerRef(tournament_id=plan.tournament, player=name),
            metadata=bearer(plan.operator_credential),
        )

    async def arrive(k: int, start: float) -> None:
        nonlocal registered
        name = bot_name(k)
        lane = channels[k % len(channels)]
        await _until(start + schedule[k].register_at)
        try:
            reply = await register(k, lane)
        except grpc.aio.AioRpcError as exc:
            stats.problem(exc.code().name)
            return
        registered += 1
        await _until(start + schedule[k].connect_at)
        player = BotPlayer(
            name,
            reply.token,
            make_bot(plan.policy, random.Random(f"{plan.seed}:{name}")),
            lane,
            stats,
            think=profile.think,
            rng=random.Random(f"{plan.seed}:think:{name}"),
        )
        players[k] = player
        tasks.append(asyncio.create_task(player.run()))
        await player.welcomed.wait()

    try:
        await link.send(("ready",))
        (_, start) = await _expect(link, "go")
        limit = profile.ramp_for(plan.bots) + profile.storm_seconds + CONNECT_LIMIT_SECONDS
        arriving = asyncio.gather(*(arrive(k, start) for k in plan.mine))
        with contextlib.suppress(TimeoutError):  # the report shows who did not get in
            await asyncio.wait_for(arriving, timeout=limit + max(0.0, start - time.time()))
        welcomed = sum(p.welcomed.is_set() for p in players.values())
        await link.send(("connected", registered, welcomed))
        await _expect(link, "started")
        # Tables start one Ray worker process each (about a CPU-second apiece): measure once
        # nearly every bot's table deals, not while the cluster is still starting them.
        warm = time.monotonic()
        while sum(p.dealt.is_set() for p in players.values()) < WARM_SHARE * len(players):
            if time.monotonic() - warm > WARMUP_LIMIT_SECONDS:
                break
            await asyncio.sleep(0.5)
        await link.send(("warm", sum(p.dealt.is_set() for p in players.values())))
        # The bots, their streams and this process's imports live to the end: out of the
        # collector's sight, so a full collection over hundreds of players' objects does not
        # stall the loop and count as round trips no player's own client would wait.
        gc.freeze()
        (_, epoch) = await _expect(link, "measure")
        await _until(epoch)
        stats.measure_epoch, stats.measuring = epoch, True
        storms = [
            asyncio.create_task(_storm(plan, players, n, epoch))
            for n in range(len(profile.reconnect_storms))
        ]
        await _until(epoch + plan.duration)
        stats.measuring = False
        drops = sum(await asyncio.gather(*storms))
        await link.send(("result", _record(plan, stats, registered, welcomed, drops)))
        await _expect(link, "stop")
    finally:
        for player in players.values():
            player.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for lane in channels:
            await lane.close()


async def _storm(plan: GeneratorPlan, players: dict[int, BotPlayer], n: int, epoch: float) -> int:
    """Reconnect storm `n`: this generator's share of its victims drop at once; how many did."""
    storm = plan.profile.reconnect_storms[n]
    hit = [
        k
        for k in victims(plan.bots, storm, random.Random(f"{plan.seed}:storm:{n}"))
        if k in players
    ]
    await _until(epoch + storm.at)
    return sum(players[k].drop() for k in hit)


def _record(
    plan: GeneratorPlan, stats: FleetStats, registered: int, welcomed: int, drops: int
) -> dict[str, Any]:
    return {
        "bots": len(plan.mine),
        "registered": registered,
        "welcomed": welcomed,
        "histogram": stats.latency.to_json(),
        "per_second": {str(s): n for s, n in sorted(stats.per_second.items())},
        "actions": stats.actions,
        "hands": sorted(stats.hands),
        "timeouts": stats.timeouts,
        "errors": stats.errors,
        "problems": dict(stats.problems),
        "reconnects": stats.reconnects,
        "resumes": stats.resumes,
        "storm_drops": drops,
        "bank_decisions": stats.bank_decisions,
    }


def main(plan: GeneratorPlan, connection: multiprocessing.connection.Connection) -> None:
    """A generator process's body (multiprocessing's target)."""
    asyncio.run(drive(plan, PipeLink(connection)))


def generators_for(bots: int) -> int:
    """The generator processes a fleet of `bots` uses by default (`BOTS_PER_GENERATOR`)."""
    return max(1, -(-bots // BOTS_PER_GENERATOR))


def shares(bots: int, processes: int) -> Sequence[tuple[int, ...]]:
    """The bots of each generator: every K-th, so each one's part of the ramp is even."""
    return [tuple(range(first, bots, processes)) for first in range(processes)]
