"""The bot fleet's players: each a remote player on its own gRPC Play stream, playing the
engine's bot policies on what the front door tells them (`RemoteView`), thinking before each
answer as its `ThinkTimes` says, and able to drop its stream and reconnect at once (a reconnect
storm, OUT-3). A whole run (generators, ramp, storms, the merged report) is
`loadtest.coordinator`.

The action round trip, the one latency this package measures: from the moment a bot sends its
action (after thinking) to its receiving the server's ActionAccepted (the front door has checked
it and handed it to the table). Think time is not in it. Timeouts are OUT-1 notices received;
errors are Problem messages (by their code, a gRPC status name) and failed calls (by status).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import grpc

from loadtest.histogram import LatencyHistogram
from loadtest.think import ThinkTimes, action_type
from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from table_worker._proto import gateway_pb2 as gw
from table_worker.bots import Bot
from table_worker.engine import DecisionKind, LegalActions, Street

__all__ = [
    "BOTS_PER_CHANNEL",
    "DEFAULT_CONFIG",
    "BotPlayer",
    "FleetStats",
    "RemoteView",
    "channel",
]

# Deep stacks and one long level: the tournament outlasts the run. A time bank (TB-1) for the
# think times' tail to run into.
DEFAULT_CONFIG = """
[tournament]
name = "loadtest"
max_per_table = 10
starting_stack = 1000000
action_seconds = 10
time_bank_seconds = 30
time_bank_refill = 5
time_bank_every = 1

[levels]
unit = "hands"
length = 1000000
blinds = [[50, 100, 0]]
"""
BOTS_PER_CHANNEL = 100

_KINDS = {
    DecisionKind.FOLD: gw.FOLD,
    DecisionKind.CHECK_CALL: gw.CHECK_CALL,
    DecisionKind.RAISE_TO: gw.RAISE_TO,
}


@dataclass
class FleetStats:
    """What a generator's bots saw. Round trips, accepted actions and hands count only while
    `measuring`; `measure_epoch` (wall clock, shared by every generator) numbers the seconds of
    `per_second`. Errors count always."""

    measuring: bool = False
    measure_epoch: float = 0.0
    latency: LatencyHistogram = field(default_factory=LatencyHistogram)
    per_second: dict[int, int] = field(default_factory=dict)
    actions: int = 0
    hands: set[tuple[int, int]] = field(default_factory=set)
    timeouts: int = 0
    errors: int = 0
    reconnects: int = 0  # streams opened again: after a failure or a storm's drop
    resumes: int = 0  # Resume messages received on a stream opened again (OUT-3)
    bank_decisions: int = 0  # answers thought past the time limit, into the bank (TB-1)
    problems: dict[str, int] = field(default_factory=dict)

    def problem(self, what: str) -> None:
        """One error, counted under `what` (a gRPC status name, or `client <exception>`)."""
        self.errors += 1
        self.problems[what] = self.problems.get(what, 0) + 1

    def accepted(self, round_trip: float) -> None:
        if not self.measuring:
            return
        self.latency.record(round_trip)
        self.actions += 1
        second = max(0, int(time.time() - self.measure_epoch))
        self.per_second[second] = self.per_second.get(second, 0) + 1


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


class BotPlayer:
    """One remote player playing a bot policy over its own Play stream; `observer` sees every
    message the server sent it (a recorder, a verbose log). With `think` (and its `rng`) it
    waits a drawn think time before each answer; without, it answers at once."""

    def __init__(
        self,
        name: str,
        token: str,
        bot: Bot,
        channel: grpc.aio.Channel,
        stats: FleetStats,
        observer: Callable[[pb.ServerMessage], None] | None = None,
        *,
        think: ThinkTimes | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.name = name
        self._observer = observer
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._bot = bot
        self._stub = pb_grpc.PlayerServiceStub(channel)
        self._stats = stats
        self._think = think or ThinkTimes.flat_out()
        self._rng = rng or random.Random(name)
        self._view = RemoteView()
        self._sent: dict[int, float] = {}
        self._thinking: dict[int, asyncio.TimerHandle] = {}
        self._outbox: asyncio.Queue[pb.PlayerMessage | None] = asyncio.Queue()
        self._call: grpc.aio.StreamStreamCall[pb.PlayerMessage, pb.ServerMessage] | None = None
        self._dropping = False
        self._streams = 0
        self.welcomed = asyncio.Event()
        self.dealt = asyncio.Event()  # a first hand reached this bot: its table is dealing
        self.stopping = False

    async def _messages(self) -> AsyncIterator[pb.PlayerMessage]:
        while (message := await self._outbox.get()) is not None:
            yield message

    async def run(self) -> None:
        """Play until stopped, reconnecting after a dropped stream (at once after `drop`)."""
        backoff = 0.1
        while not self.stopping:
            self._outbox = asyncio.Queue()
            self._streams += 1
            if self._streams > 1:
                self._stats.reconnects += 1
            self._call = call = self._stub.Play(self._messages(), metadata=self._metadata)
            try:
                async for message in call:
                    if self._observer is not None:
                        self._observer(message)
                    try:
                        self._on(message)
                    except Exception as exc:  # a bug of ours: counted and shown, play goes on
                        self._stats.problem(f"client {type(exc).__name__}: {exc}")
                    backoff = 0.1
            except asyncio.CancelledError:
                if not self._dropping:
                    raise  # the task is cancelled, not the stream
            except grpc.aio.AioRpcError as exc:
                if not self._dropping:
                    if self.stopping or exc.code() == grpc.StatusCode.CANCELLED:
                        return
                    self._stats.problem(exc.code().name)
                    await asyncio.sleep(backoff * (1 + self._rng.random()))
                    backoff = min(2.0, backoff * 2)
                    continue
            if not self._dropping:
                return  # the server ended the stream (tournament over)
            # A storm's drop, whichever way the cancelled call ended (CancelledError, a
            # CANCELLED status, or a quiet end): the same token again, at once.
            self._dropping = False

    def drop(self) -> bool:
        """Cut the current stream, forgetting the answers in flight; `run` reconnects at once.
        False when there was no open stream to cut."""
        if self._call is None or self._call.done() or self.stopping:
            return False
        self._forget_answers()
        self._dropping = True
        return self._call.cancel()

    def stop(self) -> None:
        self.stopping = True
        self._forget_answers()
        self._outbox.put_nowait(None)

    def _forget_answers(self) -> None:
        for handle in self._thinking.values():
            handle.cancel()
        self._thinking.clear()
        self._sent.clear()

    def _on(self, message: pb.ServerMessage) -> None:
        kind = message.WhichOneof("kind")
        stats = self._stats
        if kind == "welcome":
            self.welcomed.set()
        elif kind == "hand_started":
            self._view.new_hand(message.hand_started)
            self.dealt.set()
        elif kind == "resume":
            stats.resumes += 1 if self._streams > 1 else 0
            if message.resume.HasField("hand"):
                self._view.new_hand(message.resume.hand)
        elif kind == "action_request":
            self._act(message.action_request)
        elif kind == "action_accepted":
            sent = self._sent.pop(message.action_accepted.request_id, None)
            if sent is not None:
                stats.accepted(time.perf_counter() - sent)
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
        answer = pb.PlayerMessage(
            action=pb.Action(
                request_id=prompt.request_id, kind=_KINDS[decision.kind], amount=decision.amount
            )
        )
        think = self._think.sample(
            action_type(decision.kind, legal.call_amount),
            limit_seconds=prompt.seconds,
            bank_seconds=prompt.time_bank_seconds,
            rng=self._rng,
        )
        if think > prompt.seconds:
            self._stats.bank_decisions += 1
        stale = self._thinking.pop(prompt.request_id, None)  # asked again after a reconnect
        if stale is not None:
            stale.cancel()
        if think <= 0.0:
            self._send(prompt.request_id, answer)
            return
        loop = asyncio.get_running_loop()
        self._thinking[prompt.request_id] = loop.call_later(
            think, self._send, prompt.request_id, answer
        )

    def _send(self, request_id: int, answer: pb.PlayerMessage) -> None:
        self._thinking.pop(request_id, None)
        self._sent[request_id] = time.perf_counter()
        self._outbox.put_nowait(answer)


# Each channel its own HTTP/2 connection, as each player's client is: by default the channels
# of one process share one connection to a target, and the server admits 2,000 streams on a
# connection (`frontdoor.server`), so 2,000 bots' Play streams left the operator's
# StartTournament waiting forever and a registration storm's calls cancelled.
OWN_CONNECTION = (("grpc.use_local_subchannel_pool", 1),)


def channel(target: str, tls_ca: bytes | None) -> grpc.aio.Channel:
    """A channel to `mtt serve` on a connection of its own: TLS when a CA is given."""
    if tls_ca is None:
        return grpc.aio.insecure_channel(target, options=OWN_CONNECTION)
    return grpc.aio.secure_channel(
        target, grpc.ssl_channel_credentials(tls_ca), options=OWN_CONNECTION
    )
