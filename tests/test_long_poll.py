"""Long polls (`orchestrator.shell.long_poll`): a waiting table's poll is held until a step may
have let it deal (START-2's slowest, its seats, a change of the wake mark), never lost; and the
core's queries the shells hold them by (`wake_mark`, `release_at`)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from test_lockstep import config, start
from tournament_checks import begin, quiet

from orchestrator.core.directives import Step
from orchestrator.core.events import Event, HandFinished, NodeLost, PlayerMoved
from orchestrator.shell.long_poll import LongPolls
from table_worker.protocol import TableDirective

MARK = (True, False, 0, False, False)


def hand(table: int) -> HandFinished:
    return HandFinished(table=table, hand=1, button=1, players=())


def moved(to_table: int) -> PlayerMoved:
    return PlayerMoved(
        player="p", from_table=9, from_seat=1, to_table=to_table, to_seat=1, stack=1, reason="x"
    )


def released(polls: LongPolls, holds: dict[int, int | None], *steps: list[Event]) -> set[int]:
    """The tables among `holds` (table -> release_at) that the steps release, the slowest table
    at 3 hands throughout."""

    async def run() -> set[int]:
        polls.stepped([], MARK, 3)  # the mark as it stands before the holds
        tasks = {t: asyncio.ensure_future(polls.hold(t, at, 0.3)) for t, at in holds.items()}
        await asyncio.sleep(0)
        for events in steps:
            polls.stepped(events, MARK, 3)
        await asyncio.gather(*tasks.values())  # the rest end when their hold is over
        return {t for t, task in tasks.items() if task.result()}  # True: released

    return asyncio.run(run())


def test_a_table_held_by_the_lead_is_released_when_the_slowest_reaches_its_hands() -> None:
    polls = LongPolls()
    # release_at 3: the slowest (at 3) releases it; 4 and 5 stay held
    assert released(polls, {1: 3, 2: 4, 3: 5}, [hand(7)]) == {1}
    assert len(polls) == 0  # every hold ended (the others when held their time)


def test_a_hand_elsewhere_releases_neither_a_short_table_nor_one_further_ahead() -> None:
    assert released(LongPolls(), {1: None, 2: 9}, [hand(7)], [hand(8)]) == set()


def test_a_step_with_more_than_a_hand_releases_every_table_held_for_its_seats() -> None:
    assert released(LongPolls(), {1: None, 2: None, 3: 9}, [hand(7), moved(8)]) == {1, 2}
    assert released(LongPolls(), {1: None, 3: 9}, [NodeLost(node="n", tables=(5,))]) == {1}


def test_where_the_floor_names_its_idle_wakes_only_those_short_tables_are_released() -> None:
    """TDA: of the tables held short of players, only the one due to break can be let go by a
    step that does not name it; the others wait for a player sent to them."""

    async def run(idle_wakes: tuple[int, ...] | None) -> set[int]:
        polls = LongPolls()
        polls.stepped([], MARK, 3)
        holds = {t: asyncio.ensure_future(polls.hold(t, None, 0.3)) for t in (1, 2, 3)}
        await asyncio.sleep(0)
        polls.stepped([hand(7), moved(8)], MARK, 3, idle_wakes)
        await asyncio.gather(*holds.values())
        return {t for t, task in holds.items() if task.result()}

    assert asyncio.run(run((2,))) == {2}
    assert asyncio.run(run(())) == set()
    assert asyncio.run(run(None)) == {1, 2, 3}  # the other policies: every short table


def test_a_table_a_step_names_is_released_whatever_it_waits_for() -> None:
    assert released(LongPolls(), {1: 9, 2: 9, 3: None}, [hand(1)], [moved(2)]) == {1, 2, 3}


def test_a_change_of_the_wake_mark_releases_every_held_table() -> None:
    async def run() -> bool:
        polls = LongPolls()
        polls.stepped([], MARK, 0)
        held = asyncio.ensure_future(polls.hold(1, 9, 0.3))
        await asyncio.sleep(0)
        polls.stepped([], (False, *MARK[1:]), 0)  # play stopped (a pause, a break)
        return await held

    assert asyncio.run(run())


def test_a_step_staged_while_the_poll_waits_for_its_own_to_be_durable_still_releases_it() -> None:
    """The hold is taken when the poll's step is staged, before its commit: a release staged
    during the commit is not missed (it would cost the table its whole hold)."""
    polls = LongPolls(hold_seconds=0.3)
    answers = iter([TableDirective(1, None), TableDirective(1, None, close=True)])
    decided: list[float] = []

    def decide() -> Step:
        decided.append(asyncio.get_running_loop().time())
        return Step(events=[], reply=next(answers))

    def durable_while(release: Callable[[], None]) -> Callable[[Step], Awaitable[None]]:
        async def durable(step: Step) -> None:
            release()  # another table's report staged while this commit is written
            await asyncio.sleep(0)

        return durable

    async def run() -> Step:
        polls.stepped([], MARK, 0)
        release = lambda: polls.stepped([hand(2)], MARK, 1)  # noqa: E731
        return await polls.poll(1, decide, durable_while(release), lambda: 1)

    step = asyncio.run(run())
    assert step.reply == TableDirective(1, None, close=True)
    assert len(decided) == 2  # released and decided again (held out, it answers "wait")


def test_a_held_poll_nothing_releases_answers_wait_after_its_hold_without_asking_again() -> None:
    """Only a release makes a held poll ask the core again: a timer that did cost the waiting
    tables of a big field most of the orchestrator's time."""
    polls = LongPolls(hold_seconds=0.2)
    decided: list[int] = []

    def decide() -> Step:
        decided.append(1)
        return Step(events=[], reply=TableDirective(1, None))

    async def durable(step: Step) -> None:
        await asyncio.sleep(0)

    async def run() -> Step:
        polls.stepped([], MARK, 0)
        return await polls.poll(1, decide, durable, lambda: 5)

    assert asyncio.run(run()).reply == TableDirective(1, None)
    assert decided == [1] and len(polls) == 0


def test_release_at_is_the_slowest_hands_that_let_a_table_held_by_the_lead_deal() -> None:
    tournament, opening = start(config(20, length=50, levels={"lead": 2}))
    ready = begin(tournament, opening)
    rng = random.Random(0)
    spec = ready[1].next_hand
    while spec is not None:  # table 1 plays until the lead holds it
        step = tournament.apply_hand(quiet(spec), now=1.0, rng=rng)
        assert step.reply is not None
        spec = step.reply.next_hand
    assert tournament.poll(1, now=2.0, rng=rng).reply == TableDirective(1, None)
    assert (tournament.release_at(1), tournament.slowest()) == (1, 0)  # 3 played, lead 2
    assert tournament.release_at(2) is None  # table 2 may deal: nothing holds it
    mark = tournament.wake_mark()
    table_2 = ready[2].next_hand
    assert table_2 is not None
    tournament.apply_hand(quiet(table_2), now=3.0, rng=rng)
    assert tournament.slowest() == 1 and tournament.wake_mark() == mark
    dealt = tournament.poll(1, now=4.0, rng=rng)
    assert dealt.reply is not None and dealt.reply.next_hand is not None
    tournament.pause(now=5.0)
    assert tournament.wake_mark() != mark  # a pause changes every waiting table's answer
