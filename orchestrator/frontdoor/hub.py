"""The players' side: one stream per player, action requests with the time limit, Out states.

A table's gateway call (`request_action`) waits here for the player's answer. The player is
asked only when connected and not Out; otherwise the reply says "Out" at once and the table
checks or folds for them (OUT-1). The states:

- never connected by the start: Out, reason `not_connected` (OUT-2); connecting brings them in;
- stream dropped: Out, `disconnected` (OUT-3), until they reconnect (no time limit);
- no action within the tournament's time limit and then the time bank: Out, `timeout` (OUT-1,
  TB-1), until "I'm back";
- asked to sit out: Out, `sit_out`, until "I'm back".

The time bank (TB-1, `orchestrator.core.time_bank`) is kept here, one per player of a
tournament: the hub sees every table, so the bank follows the player when he moves. A stream
that drops while the player is asked leaves the request standing while his clock runs (the
limit, then the bank): a player who reconnects in time, with the same token, gets a `Resume`
(the hand in progress, its public state, his bank) and the request again with the time left,
and acts where he left off; if the clock runs out first, the table acts for him (OUT-3).
Every change of a bank (spent beyond a limit, emptied, refilled) is handed to the keeper
(`keep_banks`: the desk writes it to the store), and a restarted front door puts each bank
back as it was (`restore_bank`): a bank survives a restart of `mtt serve` (TB-1).

What a player receives is built from what the table sent for everyone (public state) and the
hole cards addressed to that player's seat alone (`hand_started`): nothing else reaches them.
The deck's commitment comes with the hand's start; the deck and its salt only with its result.
Everything runs on the server's event loop; no locks.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.core.time_bank import TimeBank, TimeBankRules
from orchestrator.frontdoor.errors import (
    FrontDoorError,
    InvalidRequest,
    PermissionDenied,
    RateLimited,
    WrongState,
)
from table_worker._proto import gateway_pb2 as gw

__all__ = ["Connection", "PlayerHub", "Presence", "check_action"]

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256  # messages waiting for a slow player; beyond it the stream is dropped
BURST = 20  # messages a player may send at once...
PER_SECOND = 20.0  # ...and on average: more is a flood, answered RESOURCE_EXHAUSTED


@dataclass(eq=False)
class Connection:
    """One open Play stream: what the server sends waits in `outbox`."""

    tournament: str
    player: str
    refilled: float  # when the flood allowance was last topped up (the hub's clock)
    outbox: asyncio.Queue[pb.ServerMessage | None] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_LIMIT)
    )
    tokens: float = BURST
    closed: bool = False

    def send(self, message: pb.ServerMessage) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(message)
        except asyncio.QueueFull:  # a player who does not read: drop them (OUT-3)
            log.warning("%s/%s: outbox full, stream dropped", self.tournament, self.player)
            self.close()

    def close(self) -> None:
        """End the stream once what is queued has been sent (all dropped if it overflowed)."""
        if not self.closed:
            self.closed = True
            if self.outbox.full():
                while not self.outbox.empty():
                    self.outbox.get_nowait()
            self.outbox.put_nowait(None)

    def take_token(self, now: float) -> bool:
        self.tokens = min(BURST, self.tokens + (now - self.refilled) * PER_SECOND)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(frozen=True, slots=True)
class Presence:
    """A player as the hub sees them (the operators' `ListPlayers`)."""

    connected: bool
    out: str | None  # None: in play; else why Out (OUT-1..OUT-3)
    table: int  # the table of their latest hand; 0 before the first
    time_bank_seconds: float = 0.0  # TB-1: what is left of the bank now


@dataclass(eq=False)
class _Pending:
    request_id: int
    request: gw.SeatActionRequest  # asked again of a stream that replaces the one asked
    sent_at: float  # the hub's clock
    limit: float  # OUT-1: the action's time limit...
    bank: TimeBank  # ...then this bank (TB-1)
    answer: asyncio.Future[gw.SeatActionReply]

    @property
    def legal(self) -> gw.Legal:
        return self.request.legal

    def bank_at(self, now: float) -> TimeBank:
        """What is left of the bank at `now`, as it runs once the limit has gone."""
        return self.bank.after(elapsed=max(0.0, now - self.sent_at), limit=self.limit)

    def prompt(self, now: float) -> pb.ServerMessage:
        """The request as the player sees it at `now`: the limit and the bank still left."""
        left = max(0.0, self.limit - (now - self.sent_at))
        request = self.request
        return pb.ServerMessage(
            action_request=pb.ActionPrompt(
                request_id=self.request_id,
                table=request.table,
                hand=request.hand,
                seat=request.seat,
                state=request.state,
                legal=request.legal,
                deadline_unix_ms=int((time.time() + left) * 1000),
                seconds=left,
                time_bank_seconds=self.bank_at(now).seconds,
            )
        )


@dataclass(eq=False)
class _Player:
    rules: TimeBankRules
    bank: TimeBank  # TB-1: with the player, whichever table he plays at
    connection: Connection | None = None
    out: str | None = "not_connected"  # None: in; else why the player is Out
    table: int = 0
    pending: _Pending | None = None
    hand: pb.HandView | None = None  # the hand in progress at his table, as he was shown it


def check_action(action: pb.Action, legal: gw.Legal) -> None:
    """InvalidRequest unless `legal` allows the action (the table's engine checks again)."""
    if action.kind == gw.FOLD:
        if not legal.can_fold:
            raise InvalidRequest("nothing to fold against: check instead (HE-4)")
    elif action.kind == gw.RAISE_TO:
        if not legal.can_raise:
            raise InvalidRequest("no raise is possible now")
        if not legal.min_raise_to <= action.amount <= legal.max_raise_to:
            raise InvalidRequest(
                f"raise to {action.amount} is outside {legal.min_raise_to}..{legal.max_raise_to}"
            )
    elif action.kind != gw.CHECK_CALL:
        raise InvalidRequest("an action is FOLD, CHECK_CALL or RAISE_TO")


class PlayerHub:
    """Every registered player of every tournament the front door runs."""

    def __init__(
        self,
        *,
        on_connected: Callable[[int], None] = lambda n: None,
        on_timeout: Callable[[], None] = lambda: None,
        on_roundtrip: Callable[[float], None] = lambda s: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._players: dict[tuple[str, str], _Player] = {}
        self._requests: dict[int, tuple[str, str]] = {}  # pending request -> its player
        self._boards: dict[tuple[str, int], gw.PublicState] = {}  # hand in progress, by table
        self._ids = itertools.count(1)
        self._on_connected = on_connected
        self._on_timeout = on_timeout
        self._on_roundtrip = on_roundtrip
        self._clock = clock
        self._keep_bank: Callable[[str, str, TimeBank], None] = lambda t, p, b: None

    def keep_banks(self, keeper: Callable[[str, str, TimeBank], None]) -> None:
        """TB-1: `keeper(tournament, player, bank)` is called with every bank that changed
        (the desk keeps them in the store, so a restart finds them)."""
        self._keep_bank = keeper

    def restore_bank(self, tournament: str, player: str, bank: TimeBank) -> None:
        """TB-1 after a restart: the player's bank as it was kept (not kept again)."""
        state = self._players.get((tournament, player))
        if state is not None:
            state.bank = bank

    # --- players and streams ------------------------------------------------------------

    def add(self, tournament: str, player: str, time_bank: TimeBankRules | None = None) -> None:
        """A registered player, his bank full (TB-1); a player already held keeps his."""
        rules = time_bank or TimeBankRules()
        self._players.setdefault((tournament, player), _Player(rules, TimeBank.full(rules)))

    def remove(self, tournament: str, player: str) -> None:
        state = self._players.pop((tournament, player), None)
        if state is not None and state.connection is not None:
            state.connection.close()
            self._count()

    def connected(self, tournament: str) -> int:
        return sum(
            1 for (t, _), p in self._players.items() if t == tournament and p.connection is not None
        )

    def is_out(self, tournament: str, player: str) -> str | None:
        return self._players[(tournament, player)].out

    def presence(self, tournament: str, player: str) -> Presence:
        """Whether the player's stream is open, why they are Out (None: in) and their table;
        a player the hub does not hold (unregistered) is not connected, Out `not_connected`."""
        state = self._players.get((tournament, player))
        if state is None:
            return Presence(connected=False, out="not_connected", table=0)
        return Presence(
            connected=state.connection is not None,
            out=state.out,
            table=state.table,
            time_bank_seconds=self._bank_now(state).seconds,
        )

    def connect(self, tournament: str, player: str) -> Connection:
        """A new stream for the player; an older one is closed (one stream per player)."""
        state = self._players[(tournament, player)]
        old = state.connection
        if old is not None:
            old.send(_problem(WrongState("replaced by a newer connection of the same player")))
            old.close()
        connection = Connection(tournament, player, self._clock())
        state.connection = connection
        if state.out in (None, "not_connected", "disconnected"):  # OUT-2, OUT-3: back in
            state.out = None
        connection.send(
            pb.ServerMessage(
                status=pb.OutStatus(out=state.out is not None, reason=state.out or "connected")
            )
        )
        now = self._clock()
        pending = state.pending
        resume = pb.Resume(time_bank_seconds=self._bank_now(state).seconds)  # TB-1
        if state.hand is not None:
            resume.hand.CopyFrom(state.hand)
            board = self._boards.get((tournament, state.hand.table))
            if board is not None:
                resume.state.CopyFrom(board)
        connection.send(pb.ServerMessage(resume=resume))
        if pending is not None:  # the request still stands, on the new stream, time left
            connection.send(pending.prompt(now))
        self._count()
        return connection

    def disconnect(self, connection: Connection) -> None:
        connection.close()
        state = self._players.get((connection.tournament, connection.player))
        if state is None or state.connection is not connection:
            return  # replaced meanwhile, or unregistered
        state.connection = None
        if state.out is None:
            state.out = "disconnected"  # OUT-3
        # TB-1: a pending request stands while the player's clock runs (he may reconnect).
        self._count()

    def receive(self, connection: Connection, message: pb.PlayerMessage) -> None:
        """One message from a player's stream. A refusal is sent back to that player as a
        Problem (the stream stays open, nothing changes)."""
        try:
            # Answers to the server's own requests come at the server's pace; anything else
            # (wrong answers, sit-out/back toggles, noise) spends from the flood allowance.
            if not self._answers_pending(connection, message) and not connection.take_token(
                self._clock()
            ):
                raise RateLimited(f"more than {PER_SECOND:g} messages a second: slow down")
            self._receive(connection, message)
        except FrontDoorError as exc:
            log.info("%s/%s refused: %s", connection.tournament, connection.player, exc)
            connection.send(_problem(exc))

    def _answers_pending(self, connection: Connection, message: pb.PlayerMessage) -> bool:
        state = self._players.get((connection.tournament, connection.player))
        return (
            state is not None
            and state.pending is not None
            and message.WhichOneof("kind") == "action"
            and message.action.request_id == state.pending.request_id
        )

    def _receive(self, connection: Connection, message: pb.PlayerMessage) -> None:
        key = (connection.tournament, connection.player)
        state = self._players.get(key)
        if state is None or state.connection is not connection:
            raise WrongState("this stream was replaced or the player unregistered")
        which = message.WhichOneof("kind")
        if which == "action":
            self._act(key, state, message.action)
        elif which == "sit_out":
            state.out = "sit_out"
            self._release(state)
            connection.send(pb.ServerMessage(status=pb.OutStatus(out=True, reason="sit_out")))
        elif which == "back":
            state.out = None
            connection.send(pb.ServerMessage(status=pb.OutStatus(out=False, reason="back")))
        else:
            raise InvalidRequest("empty message: send an action, sit_out or back")

    def _act(self, key: tuple[str, str], state: _Player, action: pb.Action) -> None:
        owner = self._requests.get(action.request_id)
        if owner is not None and owner != key:
            raise PermissionDenied(f"request {action.request_id} is another player's")
        pending = state.pending
        if pending is None or pending.request_id != action.request_id:
            raise WrongState(f"not your turn (no pending request {action.request_id})")
        check_action(action, pending.legal)  # (an Out player has no pending request)
        self._on_roundtrip(self._clock() - pending.sent_at)
        self._finish(state, gw.SeatActionReply(kind=action.kind, amount=action.amount))
        assert state.connection is not None
        state.connection.send(
            pb.ServerMessage(action_accepted=pb.ActionAccepted(request_id=action.request_id))
        )

    # --- the tables' side ---------------------------------------------------------------

    def hand_started(self, start: gw.HandStart) -> None:
        holes = {h.seat: h.cards for h in start.hole}
        self._boards.pop((start.tournament_id, start.table), None)
        for seat in start.seats:
            state = self._players.get((start.tournament_id, seat.player))
            if state is None:
                continue
            moved_from, state.table = state.table, start.table
            self._set_bank(
                start.tournament_id,
                seat.player,
                state,
                state.bank.at_level(start.level, state.rules),
            )  # TB-1 refills
            state.hand = pb.HandView(
                table=start.table,
                hand=start.hand,
                button=start.button,
                small_blind=start.small_blind,
                big_blind=start.big_blind,
                ante=start.ante,
                seats=start.seats,
                your_seat=seat.seat,
                hole_cards=holes.get(seat.seat, ()),  # this seat's own, no other
                deck_commitment=start.deck_commitment,  # the deck fixed before the deal
            )
            if state.connection is None:
                continue
            if moved_from and moved_from != start.table:
                state.connection.send(
                    pb.ServerMessage(
                        moved=pb.Moved(from_table=moved_from, to_table=start.table, seat=seat.seat)
                    )
                )
            state.connection.send(pb.ServerMessage(hand_started=state.hand))

    async def request_action(
        self, request: gw.SeatActionRequest, seconds: float
    ) -> gw.SeatActionReply:
        """The player's action, or an empty reply (Out) at once, or once `seconds` (OUT-1)
        and then his time bank (TB-1) have run out."""
        key = (request.tournament_id, request.player)
        self._boards[(request.tournament_id, request.table)] = request.state
        state = self._players.get(key)
        if state is None or state.out is not None or state.connection is None:
            return gw.SeatActionReply()
        self._release(state)  # a table asks again only after the last answer
        request_id = next(self._ids)
        now = self._clock()
        loop = asyncio.get_running_loop()
        pending = _Pending(request_id, request, now, seconds, state.bank, loop.create_future())
        state.pending = pending
        self._requests[request_id] = key
        state.connection.send(pending.prompt(now))
        try:
            return await asyncio.wait_for(
                asyncio.shield(pending.answer), pending.bank.allowance(seconds)
            )
        except TimeoutError:
            if state.pending is pending:  # OUT-1, TB-1: limit and bank gone; OUT-3 if away
                log.info("%s/%s timed out: Out (OUT-1)", request.tournament_id, request.player)
                self._finish(state, gw.SeatActionReply())
                self._set_bank(*key, state, state.bank.emptied())
                self._on_timeout()
                if state.connection is not None:
                    state.out = "timeout"  # until "I'm back"
                    state.connection.send(
                        pb.ServerMessage(status=pb.OutStatus(out=True, reason="timeout"))
                    )
            return gw.SeatActionReply()
        finally:
            if state.pending is pending:
                self._finish(state, gw.SeatActionReply())

    def hand_ended(self, end: gw.HandEnd) -> None:
        result = pb.ServerMessage(
            hand_result=pb.HandResult(
                table=end.table,
                hand=end.hand,
                board=end.state.board,
                actions=end.state.actions,
                stacks=[
                    gw.SeatInfo(seat=s.seat, player=s.player, stack=s.stack)
                    for s in end.state.seats
                ],
                deck_cards=end.deck_cards,  # the hand is over: its deck can be checked
                deck_salt=end.deck_salt,
            )
        )
        self._boards.pop((end.tournament_id, end.table), None)
        for seat in end.state.seats:
            state = self._players.get((end.tournament_id, seat.player))
            if state is None:
                continue
            if state.hand is not None and state.hand.table == end.table:
                state.hand = None
            if state.connection is not None:
                state.connection.send(result)

    # --- what the desk tells players, and asks for them -------------------------------

    def admit(self, connection: Connection) -> None:
        """A player's request for the desk (a rebuy, a deal answer) from this stream: refused
        (typed, nothing changed) from a replaced stream or beyond the flood allowance."""
        state = self._players.get((connection.tournament, connection.player))
        if state is None or state.connection is not connection:
            raise WrongState("this stream was replaced or the player unregistered")
        if not connection.take_token(self._clock()):
            raise RateLimited(f"more than {PER_SECOND:g} messages a second: slow down")

    def refuse(self, connection: Connection, exc: FrontDoorError) -> None:
        """The desk refused the player's request: he is told; the stream stays open."""
        log.info("%s/%s refused: %s", connection.tournament, connection.player, exc)
        connection.send(_problem(exc))

    def tell(self, tournament: str, player: str, message: pb.ServerMessage) -> None:
        """A message for one player of the tournament, if he is connected."""
        state = self._players.get((tournament, player))
        if state is not None and state.connection is not None:
            state.connection.send(message)

    def finished(self, tournament: str, player: str, place: int, reason: str) -> None:
        state = self._players.get((tournament, player))
        if state is not None and state.connection is not None:
            state.connection.send(
                pb.ServerMessage(finished=pb.Finished(place=place, reason=reason))
            )

    # --- internals ----------------------------------------------------------------------

    def _finish(self, state: _Player, reply: gw.SeatActionReply) -> None:
        """The pending request answered: what it took beyond the limit leaves the bank."""
        pending, state.pending = state.pending, None
        if pending is None:
            return
        request = pending.request
        self._set_bank(
            request.tournament_id, request.player, state, pending.bank_at(self._clock())
        )  # TB-1
        self._requests.pop(pending.request_id, None)
        if not pending.answer.done():
            pending.answer.set_result(reply)

    def _set_bank(self, tournament: str, player: str, state: _Player, bank: TimeBank) -> None:
        """The player's bank is now `bank`; a change goes to the keeper (TB-1)."""
        if bank == state.bank:
            return
        state.bank = bank
        self._keep_bank(tournament, player, bank)

    def _bank_now(self, state: _Player) -> TimeBank:
        """The player's bank as it stands now: running, while he is being asked."""
        pending = state.pending
        return state.bank if pending is None else pending.bank_at(self._clock())

    def _release(self, state: _Player) -> None:
        """An Out player's pending request is answered "Out" now, not at its deadline."""
        self._finish(state, gw.SeatActionReply())

    def _count(self) -> None:
        self._on_connected(sum(1 for p in self._players.values() if p.connection is not None))


def _problem(exc: FrontDoorError) -> pb.ServerMessage:
    return pb.ServerMessage(error=pb.Problem(code=exc.code.name, message=str(exc)))
