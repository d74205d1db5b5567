"""Remote seats: a table asks the front door's table gateway for a remote player's actions.

The table stays synchronous: each call blocks the table's loop, which plays one decision at a
time anyway. What leaves the table is only what every seat may see (`public_state`), plus each
player's own hole cards at the start of a hand, addressed to that player alone, and the deck's
commitment; the deck, its salt and the cards still to come leave only once the hand is over
(`hand_ended`), so each player can check the deck against the commitment (DESIGN.md "Decks").
When the gateway cannot be reached the seat acts as a player who is Out (OUT-1, OUT-3: check,
else fold) and the hand goes on.

A player's time bank (TB-1) is kept by the front door, which sees him at every table; the table
only tells it the hand's level (banks refill by levels) and waits long enough for a full bank.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

import grpc

from rng_service.deck import ServedDeck
from table_worker._proto import gateway_pb2 as pb
from table_worker._proto import gateway_pb2_grpc as pb_grpc
from table_worker.engine import Decision, DecisionKind, Hand, LegalActions
from table_worker.errors import IllegalAction
from table_worker.events import (
    BetOrRaised,
    BoardDealt,
    Called,
    Checked,
    Folded,
    HandEvent,
    Mucked,
    Posted,
    PotAwarded,
    Showed,
    UncalledReturned,
)

__all__ = ["GatewaySettings", "Lookup", "RemoteSeats", "public_actions", "public_state"]

log = logging.getLogger(__name__)

GATEWAY_MARGIN_SECONDS = 5.0  # beyond the action time limit, before the table gives up


@dataclass(frozen=True, slots=True)
class GatewaySettings:
    """Where the front door's table gateway listens, and the secret it expects. `book` names
    where the front door publishes its gateway (a Ray actor, `table_worker.actor.GatewayBook`):
    a front door restarted on the same cluster listens elsewhere with another secret, and a
    table whose gateway stops answering looks the current one up there ("" : it does not)."""

    target: str
    secret: str
    action_seconds: float
    book: str = ""
    time_bank_seconds: float = 0.0  # TB-1: the largest bank, run after `action_seconds`


Lookup = Callable[[], "GatewaySettings | None"]  # the gateway as published now, if known

# What a gateway that moved answers: nobody there, or another front door's secret.
_MOVED = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
)


def public_actions(events: list[HandEvent]) -> list[pb.PublicAction]:
    """The hand's events every seat may see: never a HoleDealt (hole cards are private until
    a Showed event tables them at showdown, HE-6)."""
    out: list[pb.PublicAction] = []
    for event in events:
        match event:
            case Posted(seat=seat, amount=amount):
                out.append(pb.PublicAction(seat=seat, kind="post", amount=amount))
            case Folded(seat=seat):
                out.append(pb.PublicAction(seat=seat, kind="fold"))
            case Checked(seat=seat):
                out.append(pb.PublicAction(seat=seat, kind="check"))
            case Called(seat=seat, amount=amount):
                out.append(pb.PublicAction(seat=seat, kind="call", amount=amount))
            case BetOrRaised(seat=seat, to=to):
                out.append(pb.PublicAction(seat=seat, kind="raise", amount=to))
            case BoardDealt(cards=cards):
                out.append(pb.PublicAction(kind="board", cards=cards))
            case UncalledReturned(seat=seat, amount=amount):
                out.append(pb.PublicAction(seat=seat, kind="return", amount=amount))
            case Showed(seat=seat, cards=cards):
                out.append(pb.PublicAction(seat=seat, kind="show", cards=cards))
            case Mucked(seat=seat):
                out.append(pb.PublicAction(seat=seat, kind="muck"))
            case PotAwarded(winners=winners):
                out += [pb.PublicAction(seat=s, kind="award", amount=a) for s, a in winners]
    return out


def public_state(hand: Hand, names: dict[int, str]) -> pb.PublicState:
    return pb.PublicState(
        street=int(hand.street),
        board=hand.board,
        pot=hand.pot,
        seats=[
            pb.SeatState(
                seat=seat,
                player=names[seat],
                stack=hand.stack(seat),
                street_bet=hand.street_bet(seat),
                folded=hand.is_folded(seat),
            )
            for seat in hand.seats
        ],
        actions=public_actions(hand.events),
    )


def _legal(legal: LegalActions) -> pb.Legal:
    return pb.Legal(
        can_fold=legal.can_fold,
        can_check=legal.can_check,
        call_amount=legal.call_amount,
        can_raise=legal.can_raise,
        min_raise_to=legal.min_raise_to or 0,
        max_raise_to=legal.max_raise_to or 0,
    )


_KINDS = {
    pb.FOLD: DecisionKind.FOLD,
    pb.CHECK_CALL: DecisionKind.CHECK_CALL,
    pb.RAISE_TO: DecisionKind.RAISE_TO,
}


class RemoteSeats:
    """One table's client of the gateway (a blocking gRPC channel, kept while the gateway
    answers). With `lookup`, a call the gateway refuses as unreachable or unauthenticated asks
    where the gateway is now and, if it moved (a restarted front door), is made again there."""

    def __init__(
        self,
        settings: GatewaySettings,
        *,
        tournament_id: str,
        table: int,
        lookup: Lookup | None = None,
    ) -> None:
        self._tournament = tournament_id
        self._table = table
        self._lookup = lookup
        self._connect(settings)

    def _connect(self, settings: GatewaySettings) -> None:
        self._settings = settings
        self._channel = grpc.insecure_channel(settings.target)
        self._stub = pb_grpc.TableGatewayStub(self._channel)
        self._metadata = (("authorization", f"Bearer {settings.secret}"),)

    def _moved(self) -> bool:
        """Whether the gateway is published elsewhere now; if so, connect there."""
        found = self._lookup() if self._lookup is not None else None
        if found is None:
            return False
        current = self._settings
        if (found.target, found.secret) == (current.target, current.secret):
            return False
        log.warning("table %s: the gateway moved to %s", self._table, found.target)
        self._channel.close()
        self._connect(replace(current, target=found.target, secret=found.secret))
        return True

    def hand_started(
        self,
        hand_number: int,
        hand: Hand,
        names: dict[int, str],
        *,
        deck: ServedDeck,
        level: int = 0,
    ) -> None:
        """Tell the gateway a hand starts: its seats, each seat's own hole cards, the deck's
        commitment (not the deck), and its blind level (`level`; 0: not known, the players'
        banks do not refill, TB-1)."""
        setup = hand.setup
        request = pb.HandStart(
            tournament_id=self._tournament,
            table=self._table,
            hand=hand_number,
            level=level,
            button=setup.button,
            small_blind=setup.small_blind,
            big_blind=setup.big_blind,
            ante=setup.ante,
            seats=[
                pb.SeatInfo(seat=s, player=names[s], stack=stack)
                for s, stack in zip(hand.seats, hand.starting_stacks, strict=True)
            ],
            hole=[pb.SeatCards(seat=s, cards=hand.hole_cards(s)) for s in hand.seats],
            deck_commitment=deck.commitment,
        )
        self._call("HandStarted", request, 5.0)

    def decide(
        self, hand_number: int, hand: Hand, legal: LegalActions, names: dict[int, str]
    ) -> Decision | None:
        """The player's decision, or None when they are Out (the caller acts for them)."""
        request = pb.SeatActionRequest(
            tournament_id=self._tournament,
            table=self._table,
            hand=hand_number,
            seat=legal.seat,
            player=names[legal.seat],
            state=public_state(hand, names),
            legal=_legal(legal),
        )
        # The front door answers by the limit and the player's bank (TB-1), never above the
        # largest bank: waiting for both is waiting for the player, not a lost gateway.
        settings = self._settings
        timeout = settings.action_seconds + settings.time_bank_seconds + GATEWAY_MARGIN_SECONDS
        reply = self._call("RequestAction", request, timeout)
        if reply is None or reply.kind not in _KINDS:
            return None
        return Decision(_KINDS[reply.kind], reply.amount)

    def hand_ended(
        self, hand_number: int, hand: Hand, names: dict[int, str], *, deck: ServedDeck
    ) -> None:
        """Tell the gateway the hand is over, revealing its deck and the commitment's salt."""
        if hand.actor is not None:
            raise IllegalAction(f"hand {hand_number} is still being played: its deck stays secret")
        request = pb.HandEnd(
            tournament_id=self._tournament,
            table=self._table,
            hand=hand_number,
            state=public_state(hand, names),
            deck_cards=deck.cards,
            deck_salt=deck.salt,
        )
        self._call("HandEnded", request, 5.0)

    def _call(self, method: str, request: object, timeout: float) -> pb.SeatActionReply | None:
        """One call by the method's name (the stub changes when the gateway moves); None when
        it fails, after one more try where the gateway moved to."""
        for attempt in (1, 2):
            try:
                reply: pb.SeatActionReply = getattr(self._stub, method)(
                    request, timeout=timeout, metadata=self._metadata
                )
            except grpc.RpcError as exc:
                code = exc.code() if isinstance(exc, grpc.Call) else None
                if attempt == 1 and code in _MOVED and self._moved():
                    continue
                log.warning("table %s: gateway call failed: %s", self._table, exc)
                return None
            return reply
        return None

    def close(self) -> None:
        self._channel.close()
