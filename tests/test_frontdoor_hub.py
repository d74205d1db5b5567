"""The players' hub without servers: Out states (OUT-1..OUT-3), time limits, checks on actions,
floods. The hub runs on an event loop; these drive it directly."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.frontdoor.errors import InvalidRequest
from orchestrator.frontdoor.hub import BURST, Connection, PlayerHub, check_action
from table_worker._proto import gateway_pb2 as gw

T = "t1"
LEGAL = gw.Legal(can_fold=True, call_amount=50, can_raise=True, min_raise_to=100, max_raise_to=900)


def request(player: str = "ann") -> gw.SeatActionRequest:
    return gw.SeatActionRequest(
        tournament_id=T, table=1, hand=1, seat=1, player=player, legal=LEGAL
    )


def drained(connection: Connection) -> list[pb.ServerMessage]:
    out = []
    while not connection.outbox.empty():
        message = connection.outbox.get_nowait()
        if message is not None:
            out.append(message)
    return out


def kinds(connection: Connection) -> list[str]:
    return [str(m.WhichOneof("kind")) for m in drained(connection)]


async def ask(hub: PlayerHub, seconds: float, player: str = "ann") -> Any:
    task = asyncio.create_task(hub.request_action(request(player), seconds))
    await asyncio.sleep(0)  # the request reaches the player
    return task


def prompt_of(connection: Connection) -> pb.ActionPrompt:
    prompts = [m.action_request for m in drained(connection) if m.HasField("action_request")]
    assert len(prompts) == 1
    return prompts[0]


def test_out2_a_player_never_connected_is_out_at_once() -> None:
    async def go() -> None:
        hub = PlayerHub()
        hub.add(T, "ann")
        assert hub.is_out(T, "ann") == "not_connected"
        reply = await hub.request_action(request(), 5.0)  # no wait for the time limit
        assert reply.kind == gw.ACTION_KIND_UNSPECIFIED

    asyncio.run(asyncio.wait_for(go(), 1.0))


def test_a_connected_player_answers_and_gets_it_acknowledged() -> None:
    async def go() -> None:
        hub = PlayerHub()
        hub.add(T, "ann")
        ann = hub.connect(T, "ann")
        assert hub.is_out(T, "ann") is None
        drained(ann)
        task = await ask(hub, 5.0)
        prompt = prompt_of(ann)
        assert prompt.legal == LEGAL and prompt.seconds == 5.0
        hub.receive(
            ann,
            pb.PlayerMessage(
                action=pb.Action(request_id=prompt.request_id, kind=gw.RAISE_TO, amount=300)
            ),
        )
        reply = await task
        assert (reply.kind, reply.amount) == (gw.RAISE_TO, 300)
        assert kinds(ann) == ["action_accepted"]

    asyncio.run(go())


def test_out1_timeout_puts_the_player_out_until_back() -> None:
    async def go() -> None:
        timeouts: list[int] = []
        hub = PlayerHub(on_timeout=lambda: timeouts.append(1))
        hub.add(T, "ann")
        ann = hub.connect(T, "ann")
        drained(ann)
        reply = await hub.request_action(request(), 0.05)
        assert reply.kind == gw.ACTION_KIND_UNSPECIFIED and timeouts == [1]
        statuses = [m.status for m in drained(ann) if m.HasField("status")]
        assert [(s.out, s.reason) for s in statuses] == [(True, "timeout")]
        assert (await hub.request_action(request(), 5.0)).kind == gw.ACTION_KIND_UNSPECIFIED
        assert kinds(ann) == []  # Out: not asked
        hub.receive(ann, pb.PlayerMessage(back=pb.Back()))
        assert hub.is_out(T, "ann") is None
        drained(ann)
        task = await ask(hub, 5.0)
        prompt = prompt_of(ann)
        hub.receive(
            ann,
            pb.PlayerMessage(action=pb.Action(request_id=prompt.request_id, kind=gw.CHECK_CALL)),
        )
        assert (await task).kind == gw.CHECK_CALL

    asyncio.run(go())


def test_out1_sitting_out_answers_a_pending_request_at_once() -> None:
    async def go() -> None:
        hub = PlayerHub()
        hub.add(T, "ann")
        ann = hub.connect(T, "ann")
        task = await ask(hub, 5.0)
        hub.receive(ann, pb.PlayerMessage(sit_out=pb.SitOut()))
        assert (await asyncio.wait_for(task, 0.5)).kind == gw.ACTION_KIND_UNSPECIFIED
        assert hub.is_out(T, "ann") == "sit_out"
        hub.disconnect(ann)
        hub.connect(T, "ann")  # reconnecting does not undo a sit-out: "I'm back" does
        assert hub.is_out(T, "ann") == "sit_out"

    asyncio.run(go())


def test_out3_a_dropped_stream_is_out_until_reconnected() -> None:
    async def go() -> None:
        connected: list[int] = []
        hub = PlayerHub(on_connected=connected.append)
        hub.add(T, "ann")
        ann = hub.connect(T, "ann")
        task = await ask(hub, 0.05)
        hub.disconnect(ann)  # TB-1: the request stands while his clock runs, then Out
        assert (await asyncio.wait_for(task, 0.5)).kind == gw.ACTION_KIND_UNSPECIFIED
        assert hub.is_out(T, "ann") == "disconnected" and connected[-1] == 0
        hub.connect(T, "ann")
        assert hub.is_out(T, "ann") is None and connected[-1] == 1

    asyncio.run(go())


def test_a_newer_stream_replaces_the_older_one() -> None:
    async def go() -> None:
        hub = PlayerHub()
        hub.add(T, "ann")
        streams = [hub.connect(T, "ann") for _ in range(30)]  # a reconnect storm
        assert all(s.closed for s in streams[:-1]) and not streams[-1].closed
        assert hub.connected(T) == 1
        told = [m.error.code for m in drained(streams[0]) if m.HasField("error")]
        assert told == ["FAILED_PRECONDITION"]  # "replaced by a newer connection"
        hub.disconnect(streams[0])  # the end of an old stream changes nothing
        assert hub.is_out(T, "ann") is None

    asyncio.run(go())


def test_wrong_answers_are_refused_and_change_nothing() -> None:
    async def go() -> None:
        hub = PlayerHub()
        for name in ("ann", "bob"):
            hub.add(T, name)
        ann, bob = hub.connect(T, "ann"), hub.connect(T, "bob")
        drained(ann), drained(bob)
        task = await ask(hub, 5.0)
        prompt = prompt_of(ann)
        problems = []
        for who, action in (
            (bob, pb.Action(request_id=prompt.request_id, kind=gw.FOLD)),  # another's
            (ann, pb.Action(request_id=prompt.request_id + 1, kind=gw.FOLD)),  # out of turn
            (ann, pb.Action(request_id=prompt.request_id, kind=gw.RAISE_TO, amount=901)),
            (ann, pb.Action(request_id=prompt.request_id)),  # no kind
        ):
            hub.receive(who, pb.PlayerMessage(action=action))
            problems += [m.error.code for m in drained(who) if m.HasField("error")]
        hub.receive(ann, pb.PlayerMessage())
        problems += [m.error.code for m in drained(ann) if m.HasField("error")]
        assert problems == [
            "PERMISSION_DENIED",
            "FAILED_PRECONDITION",
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
            "INVALID_ARGUMENT",
        ]
        assert not task.done()  # the request still stands
        hub.receive(
            ann, pb.PlayerMessage(action=pb.Action(request_id=prompt.request_id, kind=gw.FOLD))
        )
        assert (await task).kind == gw.FOLD

    asyncio.run(go())


def test_a_flood_is_refused_beyond_the_allowance_and_answers_still_count() -> None:
    async def go() -> None:
        now = [0.0]
        hub = PlayerHub(clock=lambda: now[0])
        hub.add(T, "ann")
        ann = hub.connect(T, "ann")
        drained(ann)
        for _ in range(BURST + 10):
            hub.receive(ann, pb.PlayerMessage(back=pb.Back()))
        codes = [m.error.code for m in drained(ann) if m.HasField("error")]
        assert codes == ["RESOURCE_EXHAUSTED"] * 10
        task = await ask(hub, 5.0)
        prompt = prompt_of(ann)  # the allowance is spent, yet an answer goes through
        hub.receive(
            ann,
            pb.PlayerMessage(action=pb.Action(request_id=prompt.request_id, kind=gw.CHECK_CALL)),
        )
        assert (await task).kind == gw.CHECK_CALL

    asyncio.run(go())


@pytest.mark.parametrize(
    ("action", "legal", "ok"),
    [
        (pb.Action(kind=gw.FOLD), gw.Legal(can_check=True), False),  # HE-4: check instead
        (pb.Action(kind=gw.CHECK_CALL), gw.Legal(can_check=True), True),
        (pb.Action(kind=gw.RAISE_TO, amount=100), LEGAL, True),
        (pb.Action(kind=gw.RAISE_TO, amount=99), LEGAL, False),
        (pb.Action(kind=gw.RAISE_TO, amount=100), gw.Legal(can_check=True), False),
    ],
)
def test_check_action_follows_the_legal_actions(
    action: pb.Action, legal: gw.Legal, ok: bool
) -> None:
    if ok:
        check_action(action, legal)
    else:
        with pytest.raises(InvalidRequest):
            check_action(action, legal)


def test_a_request_stands_on_the_stream_that_replaces_the_one_asked() -> None:
    async def go() -> None:
        hub = PlayerHub()
        hub.add(T, "ann")
        first = hub.connect(T, "ann")
        task = await ask(hub, 5.0)
        asked = prompt_of(first)
        second = hub.connect(T, "ann")  # before answering: a new stream
        again = prompt_of(second)
        assert again.request_id == asked.request_id
        hub.receive(
            second,
            pb.PlayerMessage(action=pb.Action(request_id=again.request_id, kind=gw.CHECK_CALL)),
        )
        assert (await task).kind == gw.CHECK_CALL

    asyncio.run(go())
