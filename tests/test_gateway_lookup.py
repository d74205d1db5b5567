"""A table's remote seats follow the front door's gateway when it moves (a restarted `mtt serve`
listens elsewhere with another secret): a call the old address refuses is made again where the
gateway book says it is now. No Ray: the book is a function here (the Ray actor behind it is
in `tests/test_frontdoor_restart_ray.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from conftest import free_port

from rng_service.deck import ServedDeck
from table_worker._proto import gateway_pb2 as pb
from table_worker._proto import gateway_pb2_grpc as pb_grpc
from table_worker.engine import Hand, HandSetup
from table_worker.remote import GatewaySettings, RemoteSeats


class Gateway(pb_grpc.TableGatewayServicer):
    """A front door's gateway: answers a table that shows its secret, raises everyone."""

    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.calls: list[str] = []

    def _check(self, context: Any) -> None:
        if dict(context.invocation_metadata()).get("authorization") != f"Bearer {self.secret}":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "not this front door's tables")

    def HandStarted(self, request: Any, context: Any) -> pb.GatewayAck:
        self._check(context)
        self.calls.append("started")
        return pb.GatewayAck()

    def RequestAction(self, request: Any, context: Any) -> pb.SeatActionReply:
        self._check(context)
        self.calls.append("action")
        return pb.SeatActionReply(kind=pb.CHECK_CALL)


@pytest.fixture
def gateway() -> Iterator[tuple[str, Gateway]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = Gateway("new-secret")
    pb_grpc.add_TableGatewayServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}", servicer
    server.stop(0)


def a_hand() -> Hand:
    setup = HandSetup(
        seats=(1, 2),
        stacks=(1000, 1000),
        button=1,
        small_blind_seat=1,
        big_blind_seat=2,
        small_blind=10,
        big_blind=20,
        ante=0,
    )
    return Hand(setup, list(range(52)))


@pytest.mark.parametrize("old", ["gone", "other secret"])
def test_a_table_finds_the_gateway_where_a_restarted_front_door_published_it(
    old: str, gateway: tuple[str, Gateway]
) -> None:
    target, servicer = gateway
    before = GatewaySettings(
        target=f"127.0.0.1:{free_port()}" if old == "gone" else target,
        secret="old-secret",
        action_seconds=1.0,
        book="book",
    )
    looked: list[int] = []

    def lookup() -> GatewaySettings:
        looked.append(1)
        return GatewaySettings(target, "new-secret", 1.0, "book")

    seats = RemoteSeats(before, tournament_id="t", table=3, lookup=lookup)
    hand = a_hand()
    names = {1: "ann", 2: "bob"}
    deck = ServedDeck(bytes(range(52)), 1, bytes(32), bytes(32))
    seats.hand_started(1, hand, names, deck=deck)
    decision = seats.decide(1, hand, hand.legal_actions(), names)
    seats.close()
    assert servicer.calls == ["started", "action"] and decision is not None
    assert looked == [1]  # once: then the table keeps the new address


def test_without_a_book_a_gateway_that_is_gone_leaves_the_seat_out() -> None:
    settings = GatewaySettings(f"127.0.0.1:{free_port()}", "s", 1.0)
    seats = RemoteSeats(settings, tournament_id="t", table=3)
    hand = a_hand()
    assert seats.decide(1, hand, hand.legal_actions(), {1: "ann", 2: "bob"}) is None
    seats.close()
