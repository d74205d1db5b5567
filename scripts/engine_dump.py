"""Dump everything observable of many varied seeded hands, to compare two trees' hand engines.

Run it once in each tree (the tree's own `table_worker` on PYTHONPATH) and compare the files:
they must be identical whenever a change claims to leave the engine's behaviour alone
(docs/BENCHMARKS.md, "Hand engine").

    git archive main | tar -x -C /tmp/old
    (cd /tmp/old && PYTHONPATH=$PWD python $OLDPWD/scripts/engine_dump.py 20000 /tmp/old.txt)
    PYTHONPATH=$PWD python scripts/engine_dump.py 20000 /tmp/new.txt
    cmp /tmp/old.txt /tmp/new.txt

Part 1, the engine on the same decks: 2..10 players with gaps in the seat numbers, dead buttons
and missing small blinds, antes and big blind antes, fixed and no limit, stacks from 1 chip to
600 big blinds, a bot of every policy; at every turn the legal actions, the `can_*` answers and
the messages and rules of two refused actions, then every event, the finishing stacks and the
pots. Part 2, `play_table` over varied tables with the decks shuffled by `random.shuffle` in
both trees (the bench's `shuffle_deck` is newer than some trees).
Usage: python scripts/engine_dump.py HANDS OUT
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import TextIO

import table_worker.session as session
from table_worker.bots import BOT_POLICIES, make_bot
from table_worker.engine import Betting, Hand, HandSetup
from table_worker.errors import IllegalAction
from table_worker.session import TableConfig, play_table

POLICIES = sorted(BOT_POLICIES)


def random_setup(rng: random.Random) -> HandSetup:
    n = rng.randint(2, 10)
    seats = sorted(rng.sample(range(1, 11), n))
    empty = [s for s in range(12) if s not in seats]
    button = rng.choice(seats) if rng.random() < 0.9 else rng.choice(empty)
    big = rng.choice([2, 20, 100])
    deep = rng.choice([3, 20, 100, 300])
    stacks = [rng.randint(1, 2 * deep * big) for _ in seats]
    fixed = rng.random() < 0.25
    ante = rng.choice([0, 0, big // 10, big])
    order = sorted(seats, key=lambda s: (s <= button, s))
    small_seat: int | None
    if n == 2:
        if button not in seats:
            button = order[1]
            order = sorted(seats, key=lambda s: (s <= button, s))
        small_seat, big_seat = button, order[0]
    elif rng.random() < 0.15:
        small_seat, big_seat = None, order[0]  # HE-9: no small blind this hand
    else:
        small_seat, big_seat = order[0], order[1]
    return HandSetup(
        seats=tuple(seats),
        stacks=tuple(stacks),
        button=button,
        small_blind_seat=small_seat,
        big_blind_seat=big_seat,
        small_blind=big // 2,
        big_blind=big,
        ante=ante,
        big_blind_ante=ante > 0 and rng.random() < 0.4,
        betting=Betting.FIXED_LIMIT if fixed else Betting.NO_LIMIT,
    )


def refused(attempt: Callable[[], object]) -> str:
    try:
        attempt()
    except IllegalAction as exc:
        return f"refused {type(exc).__name__} {exc} {exc.rule}"
    return "verified"


def dump_engine(k: int, out: TextIO) -> None:
    rng = random.Random(k)
    setup = random_setup(rng)
    deck = list(range(52))
    rng.shuffle(deck)
    bots = {s: make_bot(rng.choice(POLICIES), random.Random(rng.random())) for s in setup.seats}
    hand = Hand(setup, deck)
    while (seat := hand.actor) is not None:
        legal = hand.legal_actions()
        probe = rng.choice(setup.seats)
        low, high = legal.min_raise_to or 0, legal.max_raise_to or 10**9
        print(k, "legal", tuple(legal), hand.can_fold(seat), hand.can_check_or_call(probe),
              hand.can_bet_or_raise(seat, low - 1), hand.pot, hand.street, hand.board,
              refused(lambda: hand.verify_fold(probe)),  # noqa: B023 (called at once)
              refused(lambda: hand.verify_bet_or_raise(seat, high + 1)),  # noqa: B023
              file=out)  # fmt: skip
        print(k, "act", repr(hand.act(seat, bots[seat].decide(hand, legal))), file=out)
    print(k, "events", repr(hand.events), file=out)
    print(k, "end", hand.finishing_stacks(), repr(hand.pots()), hand.big_blind_ante_posted,
          hand.board, hand.hole, file=out)  # fmt: skip


def dump_tables(tables: int, out: TextIO) -> None:
    if hasattr(session, "shuffle_deck"):
        session.shuffle_deck = lambda deck, rng: rng.shuffle(deck)
    for k in range(tables):
        rng = random.Random(1000 + k)
        config = TableConfig(
            players=rng.randint(2, 10),
            starting_stack=rng.choice([300, 2000, 10000]),
            ante=rng.choice([0, 10, 100]),
            big_blind_ante=rng.random() < 0.3,
            betting=Betting.FIXED_LIMIT if rng.random() < 0.2 else Betting.NO_LIMIT,
            policies=tuple(rng.sample(POLICIES, rng.randint(1, 4))),
        )
        for played in play_table(config, 60, random.Random(k)):
            hand = played.hand
            print(k, played.number, hand.setup, repr(hand.events), hand.finishing_stacks(),
                  file=out)  # fmt: skip


def main() -> None:
    hands, path = int(sys.argv[1]), sys.argv[2]
    with open(path, "w", encoding="utf-8") as out:
        for k in range(hands):
            dump_engine(k, out)
        dump_tables(max(1, hands // 60), out)


if __name__ == "__main__":
    main()
