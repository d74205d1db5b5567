"""The bot fleet: N remote players, each its own gRPC Play stream, playing the engine's bot
policies on what the front door tells them (`RemoteView`), with a report.

A run: create a tournament (or join `--tournament`), open registration, register the bots,
connect them gradually (the ramp), start, play `duration` seconds, cancel the tournament it
created, disconnect. The action round trip is measured by each bot from sending its action to
receiving the server's ActionAccepted (the front door has checked it and handed it to the
table); timeouts are OUT-1 notices received; errors are Problem messages and failed calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from table_worker._proto import gateway_pb2 as gw
from table_worker.bots import Bot, make_bot
from table_worker.engine import DecisionKind, LegalActions, Street

__all__ = [
    "DEFAULT_CONFIG",
    "BotPlayer",
    "FleetOptions",
    "FleetStats",
    "RemoteView",
    "format_report",
    "percentile",
    "run_fleet",
]

# Deep stacks and one long level: the tournament outlasts the run.
DEFAULT_CONFIG = """
[tournament]
name = "loadtest"
max_per_table = 10
starting_stack = 1000000
action_seconds = 10

[levels]
unit = "hands"
length = 1000000
blinds = [[50, 100, 0]]
"""
BOTS_PER_CHANNEL = 100
WARM_SHARE = 0.9
WARMUP_LIMIT_SECONDS = 600.0
REGISTER_CONCURRENCY = 32
BOT_WALLET_CENTS = 10**9  # each bot's wallet: far more than any entry it may take

_KINDS = {
    DecisionKind.FOLD: gw.FOLD,
    DecisionKind.CHECK_CALL: gw.CHECK_CALL,
    DecisionKind.RAISE_TO: gw.RAISE_TO,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetOptions:
    target: str
    bots: int
    duration: float
    operator_credential: str
    policy: str = "strength"
    tournament: str = ""  # join this one (created, registration open) instead of creating one
    config: str = DEFAULT_CONFIG
    ramp_seconds: float | None = None  # default: 1 s per 200 bots, at least 2 s
    tls_ca: bytes | None = None
    seed: int = 1


@dataclass
class FleetStats:
    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    hands: set[tuple[int, int]] = field(default_factory=set)
    timeouts: int = 0
    errors: int = 0
    reconnects: int = 0
    problems: dict[str, int] = field(default_factory=dict)

    def problem(self, what: str) -> None:
        self.errors += 1
        self.problems[what] = self.problems.get(what, 0) + 1


class RemoteView:
    """A bot's view of its current hand, from HandView and the ActionPrompt's public state."""

    def __init__(self) -> None:
        self.setup = pb.HandView()
        self.street = Street.PREFLOP
        self.board: tuple[int, ...] = ()
        self.pot = 0
        self._hole: tuple[int, int] = (0, 0)
        self._bets: dict[int, int] = {}

    def new_hand(self, view: pb.HandView) -> None:
        self.setup = view
        first, second = view.hole_cards
        self._hole = (first, second)

    def update(self, state: gw.PublicState) -> None:
        self.street = Street(state.street)
        self.board = tuple(state.board)
        self.pot = state.pot
        self._bets = {s.seat: s.street_bet for s in state.seats}

    def hole_cards(self, seat: int) -> tuple[int, int]:
        if seat != self.setup.your_seat:
            raise LookupError("a player sees only their own hole cards")
        return self._hole

    def street_bet(self, seat: int) -> int:
        return self._bets.get(seat, 0)


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


class BotPlayer:
    """One remote player playing a bot policy over its own Play stream; `observer` sees every
    message the server sent it (a recorder, a verbose log)."""

    def __init__(
        self,
        name: str,
        token: str,
        bot: Bot,
        channel: grpc.aio.Channel,
        stats: FleetStats,
        observer: Callable[[pb.ServerMessage], None] | None = None,
    ) -> None:
        self.name = name
        self._observer = observer
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._bot = bot
        self._stub = pb_grpc.PlayerServiceStub(channel)
        self._stats = stats
        self._view = RemoteView()
        self._sent: dict[int, float] = {}
        self._outbox: asyncio.Queue[pb.PlayerMessage | None] = asyncio.Queue()
        self.welcomed = asyncio.Event()
        self.dealt = asyncio.Event()  # a first hand reached this bot: its table is dealing
        self.stopping = False

    async def _messages(self) -> AsyncIterator[pb.PlayerMessage]:
        while (message := await self._outbox.get()) is not None:
            yield message

    async def run(self) -> None:
        """Play until stopped, reconnecting after a dropped stream."""
        backoff = 0.1
        while not self.stopping:
            self._outbox = asyncio.Queue()
            call = self._stub.Play(self._messages(), metadata=self._metadata)
            try:
                async for message in call:
                    if self._observer is not None:
                        self._observer(message)
                    try:
                        self._on(message)
                    except Exception as exc:  # a bug of ours: counted and shown, play goes on
                        self._stats.problem(f"client {type(exc).__name__}: {exc}")
                    backoff = 0.1
                return  # the server ended the stream (tournament over)
            except grpc.aio.AioRpcError as exc:
                if self.stopping or exc.code() == grpc.StatusCode.CANCELLED:
                    return
                self._stats.problem(f"stream {exc.code().name}")
                self._stats.reconnects += 1
                await asyncio.sleep(backoff * (1 + random.random()))
                backoff = min(2.0, backoff * 2)

    def stop(self) -> None:
        self.stopping = True
        self._outbox.put_nowait(None)

    def _on(self, message: pb.ServerMessage) -> None:
        kind = message.WhichOneof("kind")
        stats = self._stats
        if kind == "welcome":
            self.welcomed.set()
        elif kind == "hand_started":
            self._view.new_hand(message.hand_started)
            self.dealt.set()
        elif kind == "action_request":
            self._act(message.action_request)
        elif kind == "action_accepted":
            sent = self._sent.pop(message.action_accepted.request_id, None)
            if sent is not None and stats.measuring:
                stats.latencies.append(time.perf_counter() - sent)
                stats.actions += 1
        elif kind == "hand_result":
            if stats.measuring:
                stats.hands.add((message.hand_result.table, message.hand_result.hand))
        elif kind == "status":
            if message.status.reason == "timeout":
                stats.timeouts += 1 if stats.measuring else 0
            if message.status.out and message.status.reason in ("timeout", "sit_out"):
                self._outbox.put_nowait(pb.PlayerMessage(back=pb.Back()))
        elif kind == "error":
            stats.problem(message.error.code)
        elif kind == "finished":
            self.stopping = True

    def _act(self, prompt: pb.ActionPrompt) -> None:
        self._view.update(prompt.state)
        legal = prompt.legal
        decision = self._bot.decide(
            self._view,
            LegalActions(
                seat=prompt.seat,
                can_fold=legal.can_fold,
                can_check=legal.can_check,
                call_amount=legal.call_amount,
                min_raise_to=legal.min_raise_to if legal.can_raise else None,
                max_raise_to=legal.max_raise_to if legal.can_raise else None,
            ),
        )
        self._sent[prompt.request_id] = time.perf_counter()
        self._outbox.put_nowait(
            pb.PlayerMessage(
                action=pb.Action(
                    request_id=prompt.request_id,
                    kind=_KINDS[decision.kind],
                    amount=decision.amount,
                )
            )
        )


def _channel(target: str, tls_ca: bytes | None) -> grpc.aio.Channel:
    if tls_ca is None:
        return grpc.aio.insecure_channel(target)
    return grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(tls_ca))


async def run_fleet(options: FleetOptions, *, say: Any = print) -> dict[str, Any]:
    """Run the fleet; the report (the issue's JSON keys, and a few more)."""
    channels = [
        _channel(options.target, options.tls_ca)
        for _ in range((options.bots + BOTS_PER_CHANNEL - 1) // BOTS_PER_CHANNEL)
    ]
    operator = pb_grpc.OperatorServiceStub(channels[0])
    credential = (("authorization", f"Bearer {options.operator_credential}"),)
    stats = FleetStats()
    tasks: list[asyncio.Task[None]] = []
    players: list[BotPlayer] = []
    try:
        tournament = options.tournament
        if not tournament:
            info = await operator.CreateTournament(
                pb.CreateTournamentRequest(config_toml=options.config), metadata=credential
            )
            tournament = info.tournament_id
            await operator.OpenRegistration(
                pb.TournamentRef(tournament_id=tournament), metadata=credential
            )
        say(f"tournament {tournament}: registering {options.bots} bots")
        limit = asyncio.Semaphore(REGISTER_CONCURRENCY)

        async def register(k: int) -> BotPlayer:
            """As a player does: a wallet opened by the operator, then Register with its
            credential (REG-1: the entry comes out of the wallet)."""
            name = f"bot{k:05d}"
            async with limit:
                try:
                    wallet = await operator.CreateAccount(
                        pb.CreateAccountRequest(account=name, balance=BOT_WALLET_CENTS),
                        metadata=credential,
                    )
                except grpc.aio.AioRpcError as exc:
                    if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    # an earlier fleet's wallet (its credential shown only then): the operator
                    # registers the bot on its behalf
                    reply = await operator.RegisterPlayer(
                        pb.PlayerRef(tournament_id=tournament, player=name), metadata=credential
                    )
                else:
                    stub = pb_grpc.PlayerServiceStub(channels[k % len(channels)])
                    reply = await stub.Register(
                        pb.RegisterRequest(tournament_id=tournament, player=name),
                        metadata=(("authorization", f"Bearer {wallet.credential}"),),
                    )
            bot = make_bot(options.policy, random.Random(f"{options.seed}:{name}"))
            return BotPlayer(name, reply.token, bot, channels[k % len(channels)], stats)

        players = list(await asyncio.gather(*(register(k) for k in range(options.bots))))
        ramp = options.ramp_seconds
        ramp = max(2.0, options.bots / 200) if ramp is None else ramp
        say(f"connecting over {ramp:.0f} s")
        step = ramp / max(1, len(players))
        for player in players:
            tasks.append(asyncio.create_task(player.run()))
            await asyncio.sleep(step)
        await asyncio.wait_for(
            asyncio.gather(*(p.welcomed.wait() for p in players)), timeout=60 + ramp
        )
        say("all connected; starting")
        await operator.StartTournament(
            pb.TournamentRef(tournament_id=tournament), metadata=credential
        )
        # Tables start one Ray worker process each (about a CPU-second apiece): measure once
        # nearly every bot's table deals, not while the cluster is still starting them.
        warm = time.perf_counter()
        while sum(p.dealt.is_set() for p in players) < WARM_SHARE * len(players):
            if time.perf_counter() - warm > WARMUP_LIMIT_SECONDS:
                break
            await asyncio.sleep(0.5)
        say(f"tables dealing after {time.perf_counter() - warm:.0f} s; measuring")
        stats.measuring = True
        started = time.perf_counter()
        await asyncio.sleep(options.duration)
        stats.measuring = False
        seconds = time.perf_counter() - started
        if not options.tournament:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await operator.CancelTournament(
                    pb.CancelRequest(tournament_id=tournament, reason="load test over"),
                    metadata=credential,
                )
    finally:
        for player in players:
            player.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()
    lat = stats.latencies
    return {
        "bots": options.bots,
        "seconds": round(seconds, 3),
        "actions_per_s": round(stats.actions / seconds, 1),
        "hands_per_s": round(len(stats.hands) / seconds, 2),
        "p50_ms": round(1000 * percentile(lat, 0.50), 3),
        "p95_ms": round(1000 * percentile(lat, 0.95), 3),
        "p99_ms": round(1000 * percentile(lat, 0.99), 3),
        "timeouts": stats.timeouts,
        "errors": stats.errors,
        "reconnects": stats.reconnects,
        "actions": stats.actions,
        "hands": len(stats.hands),
        "problems": stats.problems,
        "tournament": tournament,
    }


def format_report(report: dict[str, Any]) -> str:
    return (
        f"{report['bots']} bots for {report['seconds']:.1f} s on {report['tournament']}\n"
        f"  actions/s {report['actions_per_s']:>9,.1f}   hands/s {report['hands_per_s']:>7,.2f}\n"
        f"  action round trip p50 {report['p50_ms']:.2f} ms  p95 {report['p95_ms']:.2f} ms"
        f"  p99 {report['p99_ms']:.2f} ms\n"
        f"  timeouts {report['timeouts']}  errors {report['errors']}"
        f"  reconnects {report['reconnects']}"
        + (f"  ({report['problems']})" if report["problems"] else "")
    )
