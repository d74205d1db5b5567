"""Provably fair decks at the players' end (DESIGN.md "Decks"): a table sends the deck's
commitment with the hand's start and its deck and salt only once the hand is over; the front
door's hub passes the commitment on in each player's HandView and the reveal in HandResult.
No Ray: a real gRPC gateway on 127.0.0.1 for the table's side, the hub alone for the other."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest

from orchestrator._proto import frontdoor_pb2 as fd
from orchestrator.frontdoor.hub import Connection, PlayerHub
from rng_service.commit import commitment, verify_commitment
from rng_service.deck import ServedDeck
from table_worker._proto import gateway_pb2 as pb
from table_worker._proto import gateway_pb2_grpc as pb_grpc
from table_worker.engine import Decision, DecisionKind, Hand, HandSetup
from table_worker.errors import IllegalAction
from table_worker.remote import GatewaySettings, RemoteSeats

SALT = bytes(range(32))
CARDS = bytes(reversed(range(52)))
DECK = ServedDeck(CARDS, 7, commitment(CARDS, SALT), SALT)


class Recorder(pb_grpc.TableGatewayServicer):
    def __init__(self) -> None:
        self.started: list[pb.HandStart] = []
        self.ended: list[pb.HandEnd] = []

    def HandStarted(self, request: pb.HandStart, context: Any) -> pb.GatewayAck:
        self.started.append(request)
        return pb.GatewayAck()

    def HandEnded(self, request: pb.HandEnd, context: Any) -> pb.GatewayAck:
        self.ended.append(request)
        return pb.GatewayAck()


@pytest.fixture
def seats() -> Iterator[tuple[RemoteSeats, Recorder]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    recorder = Recorder()
    pb_grpc.add_TableGatewayServicer_to_server(recorder, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    remote = RemoteSeats(GatewaySettings(f"127.0.0.1:{port}", "s", 1.0), tournament_id="t", table=1)
    yield remote, recorder
    remote.close()
    server.stop(0)


def heads_up() -> Hand:
    setup = HandSetup(
        seats=(1, 2),
        stacks=(1000, 1000),
        button=1,
        small_blind_seat=1,
        big_blind_seat=2,
        small_blind=10,
        big_blind=20,
    )
    return Hand(setup, CARDS)


def test_the_commitment_goes_before_the_deal_the_deck_and_salt_only_after_the_hand(
    seats: tuple[RemoteSeats, Recorder],
) -> None:
    remote, recorder = seats
    hand, names = heads_up(), {1: "ann", 2: "bob"}
    remote.hand_started(1, hand, names, deck=DECK)
    (start,) = recorder.started
    assert start.deck_commitment == DECK.commitment
    assert SALT not in start.SerializeToString()  # the salt stays at the table
    with pytest.raises(IllegalAction, match="still being played"):
        remote.hand_ended(1, hand, names, deck=DECK)
    assert recorder.ended == []
    hand.act(1, Decision(DecisionKind.FOLD))
    remote.hand_ended(1, hand, names, deck=DECK)
    (end,) = recorder.ended
    assert verify_commitment(end.deck_cards, end.deck_salt, start.deck_commitment)


def drained(connection: Connection) -> list[fd.ServerMessage]:
    out = []
    while not connection.outbox.empty():
        message = connection.outbox.get_nowait()
        if message is not None:
            out.append(message)
    return out


def test_the_hub_shows_each_player_the_commitment_and_the_reveal_after_the_hand() -> None:
    async def go() -> None:
        hub = PlayerHub()
        for name in ("ann", "bob"):
            hub.add("t", name)
        ann, bob = hub.connect("t", "ann"), hub.connect("t", "bob")
        seats = [pb.SeatInfo(seat=1, player="ann", stack=1000)]
        seats.append(pb.SeatInfo(seat=2, player="bob", stack=1000))
        hole = [pb.SeatCards(seat=1, cards=[51, 49]), pb.SeatCards(seat=2, cards=[50, 48])]
        hub.hand_started(
            pb.HandStart(
                tournament_id="t",
                table=1,
                hand=1,
                seats=seats,
                hole=hole,
                deck_commitment=DECK.commitment,
            )
        )
        for connection, own in ((ann, [51, 49]), (bob, [50, 48])):
            (view,) = [m.hand_started for m in drained(connection) if m.HasField("hand_started")]
            assert view.deck_commitment == DECK.commitment and list(view.hole_cards) == own
        state = pb.PublicState(seats=[pb.SeatState(seat=s.seat, player=s.player) for s in seats])
        end = pb.HandEnd(tournament_id="t", table=1, hand=1, state=state)
        end.deck_cards, end.deck_salt = DECK.cards, DECK.salt
        hub.hand_ended(end)
        for connection in (ann, bob):
            (result,) = [m.hand_result for m in drained(connection) if m.HasField("hand_result")]
            assert (result.deck_cards, result.deck_salt) == (DECK.cards, DECK.salt)

    asyncio.run(go())
