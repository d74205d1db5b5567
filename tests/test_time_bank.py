"""TB-1, pure: the time bank runs after the action's time limit (OUT-1), empties, refills by
levels, never above its size, and lives with the player (the hub's part: the same bank at the
next table). Config keys refused with the key named. No servers, no real waiting."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.core.config_toml import config_from_text
from orchestrator.core.time_bank import TimeBank, TimeBankRules
from orchestrator.errors import ConfigError
from orchestrator.frontdoor.hub import Connection, PlayerHub
from table_worker._proto import gateway_pb2 as gw

RULES = TimeBankRules(seconds=30.0, refill=10.0, every=2)
T = "t1"
LEGAL = gw.Legal(can_fold=True, call_amount=50, can_raise=True, min_raise_to=100, max_raise_to=900)


def test_tb1_the_bank_runs_only_after_the_time_limit() -> None:
    bank = TimeBank.full(RULES)
    assert bank.after(elapsed=14.9, limit=15.0) == bank  # within the limit: untouched
    assert bank.after(elapsed=20.0, limit=15.0).seconds == 25.0
    assert bank.allowance(15.0) == 45.0  # the most one action may take


def test_tb1_the_bank_empties_and_never_goes_below_zero() -> None:
    bank = TimeBank.full(RULES).after(elapsed=100.0, limit=15.0)
    assert bank.seconds == 0.0 and bank.empty
    assert bank.allowance(15.0) == 15.0  # an empty bank: the time limit alone (OUT-1)
    assert TimeBank(7.5, 3).emptied() == TimeBank(0.0, 3)


def test_tb1_refills_every_n_levels_capped_at_its_size() -> None:
    bank = TimeBank.full(RULES).after(elapsed=45.0, limit=15.0)  # 30 s used: empty
    assert bank.at_level(2, RULES).seconds == 0.0  # every 2 levels: not yet
    at3 = bank.at_level(3, RULES)
    assert at3 == TimeBank(10.0, 3)
    assert at3.at_level(3, RULES) == at3  # the same level again refills nothing
    assert at3.at_level(5, RULES).seconds == 20.0
    assert at3.at_level(99, RULES).seconds == 30.0  # never above time_bank_seconds


def test_tb1_skipped_levels_bring_each_refill_once_and_earlier_levels_nothing() -> None:
    bank = TimeBank(0.0, 1)
    assert bank.at_level(7, RULES).seconds == 30.0  # levels 3, 5, 7: three refills of 10
    assert TimeBank(0.0, 4).at_level(7, RULES).seconds == 20.0  # 5 and 7 only
    assert TimeBank(5.0, 6).at_level(2, RULES) == TimeBank(5.0, 6)  # a late, older report


def test_tb1_no_bank_by_default() -> None:
    rules = TimeBankRules()
    assert TimeBank.full(rules).allowance(30.0) == 30.0
    assert TimeBank.full(rules).at_level(50, rules).seconds == 0.0


@given(
    st.lists(
        st.tuples(st.floats(0, 200), st.integers(0, 3)),
        max_size=30,
    )
)
def test_tb1_the_bank_stays_within_zero_and_its_size(steps: list[tuple[float, int]]) -> None:
    bank, level = TimeBank.full(RULES), 1
    for elapsed, levels_on in steps:
        level += levels_on
        bank = bank.at_level(level, RULES).after(elapsed=elapsed, limit=15.0)
        assert 0.0 <= bank.seconds <= RULES.seconds and bank.level == level


def test_tb1_a_negative_time_is_refused() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        TimeBank.full(RULES).after(elapsed=-1.0, limit=15.0)


def config(**keys: Any) -> str:
    lines = ["[tournament]", 'name = "tb"']
    lines += [f"{k} = {v}" for k, v in keys.items()]
    return "\n".join([*lines, "[levels]", "blinds = [[25, 50, 0]]"]) + "\n"


def test_tb1_config_keys_are_read() -> None:
    read = config_from_text(config(time_bank_seconds=60, time_bank_refill=7.5, time_bank_every=3))
    assert read.time_bank == TimeBankRules(seconds=60.0, refill=7.5, every=3)
    assert config_from_text(config()).time_bank == TimeBankRules()  # default: no bank


@pytest.mark.parametrize(
    ("keys", "named"),
    [
        ({"time_bank_seconds": -1}, "time_bank_seconds"),
        ({"time_bank_seconds": '"lots"'}, "time_bank_seconds"),
        ({"time_bank_seconds": "true"}, "time_bank_seconds"),
        ({"time_bank_seconds": "inf"}, "time_bank_seconds"),
        ({"time_bank_seconds": "nan"}, "time_bank_seconds"),
        ({"time_bank_seconds": 3601}, "time_bank_seconds"),
        ({"time_bank_seconds": 10, "time_bank_refill": 11}, "time_bank_refill"),
        ({"time_bank_seconds": 10, "time_bank_refill": -2}, "time_bank_refill"),
        ({"time_bank_every": 0}, "time_bank_every"),
        ({"time_bank_every": 1.5}, "time_bank_every"),
        ({"time_bank_every": 1001}, "time_bank_every"),
    ],
)
def test_tb1_malformed_config_is_refused_naming_the_key(keys: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        config_from_text(config(**keys))


# --- the bank with the player: the hub keeps one per player, whatever his table ----------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def drained(connection: Connection) -> list[pb.ServerMessage]:
    out = []
    while not connection.outbox.empty():
        message = connection.outbox.get_nowait()
        if message is not None:
            out.append(message)
    return out


def start(table: int, hand: int, level: int) -> gw.HandStart:
    return gw.HandStart(
        tournament_id=T,
        table=table,
        hand=hand,
        level=level,
        seats=[gw.SeatInfo(seat=4, player="ann", stack=1000)],
        hole=[gw.SeatCards(seat=4, cards=[50, 51])],
    )


def ask(table: int, hand: int) -> gw.SeatActionRequest:
    return gw.SeatActionRequest(
        tournament_id=T, table=table, hand=hand, seat=4, player="ann", legal=LEGAL
    )


async def answer_after(
    hub: PlayerHub, ann: Connection, clock: Clock, table: int, took: float
) -> Any:
    """Ann is asked at `table`, takes `took` seconds (the injected clock) and calls."""
    task = asyncio.create_task(hub.request_action(ask(table, 1), 15.0))
    await asyncio.sleep(0)
    prompts = [m.action_request for m in drained(ann) if m.HasField("action_request")]
    clock.now += took
    hub.receive(
        ann,
        pb.PlayerMessage(action=pb.Action(request_id=prompts[-1].request_id, kind=gw.CHECK_CALL)),
    )
    assert (await task).kind == gw.CHECK_CALL
    return prompts[-1]


def test_tb1_the_bank_moves_with_the_player_to_another_table_and_refills_there() -> None:
    async def go() -> None:
        clock = Clock()
        hub = PlayerHub(clock=clock)
        hub.add(T, "ann", RULES)
        ann = hub.connect(T, "ann")
        hub.hand_started(start(table=1, hand=1, level=1))
        first = await answer_after(hub, ann, clock, table=1, took=40.0)  # 25 s of bank
        assert (first.seconds, first.time_bank_seconds) == (15.0, 30.0)
        hub.hand_started(start(table=2, hand=1, level=2))  # moved: the bank comes along
        second = await answer_after(hub, ann, clock, table=2, took=1.0)
        assert second.time_bank_seconds == 5.0
        hub.hand_started(start(table=2, hand=2, level=3))  # level 3: one refill of 10
        third = await answer_after(hub, ann, clock, table=2, took=1.0)
        assert third.time_bank_seconds == 15.0

    asyncio.run(go())


def resume_of(connection: Connection) -> pb.Resume:
    (resume,) = [m.resume for m in drained(connection) if m.HasField("resume")]
    return resume


def test_tb1_out_only_once_the_limit_and_then_the_bank_have_run_out() -> None:
    async def go() -> None:
        hub = PlayerHub()
        hub.add(T, "ann", TimeBankRules(seconds=0.04))
        ann = hub.connect(T, "ann")
        drained(ann)
        reply = await hub.request_action(ask(1, 1), 0.02)  # nobody answers
        assert reply.kind == gw.ACTION_KIND_UNSPECIFIED
        messages = drained(ann)
        (prompt,) = [m.action_request for m in messages if m.HasField("action_request")]
        assert (prompt.seconds, prompt.time_bank_seconds) == (0.02, 0.04)
        statuses = [(m.status.out, m.status.reason) for m in messages if m.HasField("status")]
        assert statuses == [(True, "timeout")] and hub.is_out(T, "ann") == "timeout"
        hub.receive(ann, pb.PlayerMessage(back=pb.Back()))
        assert resume_of(hub.connect(T, "ann")).time_bank_seconds == 0.0  # spent, all of it

    asyncio.run(go())


def test_tb1_out3_away_when_the_clock_runs_out_out_until_he_reconnects_bank_spent() -> None:
    async def go() -> None:
        hub = PlayerHub()
        hub.add(T, "ann", TimeBankRules(seconds=0.03))
        ann = hub.connect(T, "ann")
        task = asyncio.create_task(hub.request_action(ask(1, 1), 0.02))
        await asyncio.sleep(0)
        hub.disconnect(ann)
        assert not task.done()  # the request stands while his clock runs
        assert (await asyncio.wait_for(task, 1.0)).kind == gw.ACTION_KIND_UNSPECIFIED
        assert hub.is_out(T, "ann") == "disconnected"  # OUT-3, not a timeout: no "I'm back"
        again = hub.connect(T, "ann")
        assert hub.is_out(T, "ann") is None
        assert resume_of(again).time_bank_seconds == 0.0

    asyncio.run(go())


def test_tb1_an_out_player_is_not_asked_and_keeps_his_bank() -> None:
    async def go() -> None:
        clock = Clock()
        hub = PlayerHub(clock=clock)
        hub.add(T, "ann", RULES)
        ann = hub.connect(T, "ann")
        hub.receive(ann, pb.PlayerMessage(sit_out=pb.SitOut()))
        clock.now += 100.0
        assert (await hub.request_action(ask(1, 1), 15.0)).kind == gw.ACTION_KIND_UNSPECIFIED
        assert resume_of(hub.connect(T, "ann")).time_bank_seconds == RULES.seconds

    asyncio.run(go())


def test_tb1_a_reconnect_between_hands_gets_the_bank_and_no_hand() -> None:
    async def go() -> None:
        clock = Clock()
        hub = PlayerHub(clock=clock)
        hub.add(T, "ann", RULES)
        ann = hub.connect(T, "ann")
        hub.hand_started(start(table=1, hand=1, level=1))
        await answer_after(hub, ann, clock, table=1, took=20.0)  # 5 s of bank
        mid = resume_of(hub.connect(T, "ann"))
        assert mid.hand.hole_cards == [50, 51] and mid.time_bank_seconds == 25.0
        seats = [gw.SeatState(seat=4, player="ann", stack=1000)]
        hub.hand_ended(
            gw.HandEnd(tournament_id=T, table=1, hand=1, state=gw.PublicState(seats=seats))
        )
        after = resume_of(hub.connect(T, "ann"))
        assert not after.HasField("hand") and after.time_bank_seconds == 25.0

    asyncio.run(go())
