"""Regression tests for the cases other hold'em engines have got wrong, each a hand built by
hand on a fixed deck, with the exact legal actions, amounts and stacks; every finished hand
is also replayed in pokerkit (from its PHH text) and must end the same way."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from table_worker.cards import parse_cards
from table_worker.engine import Hand, HandSetup, LegalActions
from table_worker.errors import IllegalAction, InvalidAmount
from table_worker.events import PotAwarded, UncalledReturned
from table_worker.oracle import replay_in_pokerkit_he7

ACES, KINGS, QUEENS, SEVEN_DEUCE = "AsAd", "KsKd", "QsQd", "7c2h"
DRY_BOARD = "9c8d4sTh3c"  # pairs nobody: the pocket pairs keep their order


def deck(holes: Sequence[str], board: str = DRY_BOARD) -> list[int]:
    """Hole cards by position (HE-3: one at a time from left of the button), then burn,
    flop, burn, turn, burn, river; the rest of the deck in code order."""
    n = len(holes)
    cards: list[int | None] = [None] * 52
    for i, hole in enumerate(holes):
        cards[i], cards[n + i] = parse_cards(hole)
    for offset, card in zip((1, 2, 3, 5, 7), parse_cards(board), strict=True):
        cards[2 * n + offset] = card
    rest = iter(c for c in range(52) if c not in cards)
    return [next(rest) if c is None else c for c in cards]


def hand(
    stacks: Sequence[int],
    holes: Sequence[str],
    *,
    ante: int = 0,
    board: str = DRY_BOARD,
) -> Hand:
    """Seats 1..n, the button on the last seat, blinds 10/20 on seats 1 and 2 (heads-up:
    the button posts the small blind, HE-2)."""
    n = len(stacks)
    seats = tuple(range(1, n + 1))
    small, big = (n, 1) if n == 2 else (1, 2)
    setup = HandSetup(
        seats=seats,
        stacks=tuple(stacks),
        button=n,
        small_blind_seat=small,
        big_blind_seat=big,
        small_blind=10,
        big_blind=20,
        ante=ante,
    )
    return Hand(setup, deck(holes, board))


def legal(h: Hand, seat: int) -> LegalActions:
    assert h.actor == seat
    return h.legal_actions()


def call_only(seat: int, call: int) -> LegalActions:
    return LegalActions(seat, True, False, call, None, None)


def check_down(h: Hand) -> None:
    while (seat := h.actor) is not None:
        h.check_or_call(seat)


def finish(h: Hand) -> list[int]:
    """Stacks by seat; pokerkit, reading the hand's PHH, must agree to the chip."""
    assert h.is_over
    stacks = [h.finishing_stacks()[seat] for seat in h.seats]
    assert list(replay_in_pokerkit_he7(h)) == stacks
    return [h.finishing_stacks()[seat] for seat in sorted(h.seats)]


# --- HE-4: short all-ins and reopening --------------------------------------------------


def test_he4_short_allin_does_not_reopen_for_player_who_acted() -> None:
    h = hand([80, 1000, 1000], [ACES, KINGS, QUEENS])
    h.bet_or_raise(3, 60)  # the button raises by 40
    h.bet_or_raise(1, 80)  # all-in: 20 more, short of a full raise of 40
    assert legal(h, 2).min_raise_to == 120  # the big blind has not acted: it may raise
    h.check_or_call(2)
    assert legal(h, 3) == call_only(3, 20)  # the raiser may only call or fold
    assert not h.can_bet_or_raise(3, 120)
    with pytest.raises(IllegalAction, match="short all-in") as refused:
        h.bet_or_raise(3, 1000)
    assert refused.value.rule == "HE-4"
    assert h.actor == 3 and h.stack(3) == 940  # the refusal changed nothing
    h.check_or_call(3)
    check_down(h)
    assert finish(h) == [240, 920, 920]


def test_he4_short_allin_postflop_does_not_reopen_for_the_bettor() -> None:
    h = hand([1000, 170, 1000], [ACES, KINGS, QUEENS])
    check_down_preflop(h)
    h.bet_or_raise(1, 100)
    h.bet_or_raise(2, 150)  # all-in, 50 over a bet of 100
    h.check_or_call(3)
    assert legal(h, 1) == call_only(1, 50)
    h.check_or_call(1)
    check_down(h)
    assert finish(h) == [1000 - 170 + 510, 0, 830]


def check_down_preflop(h: Hand) -> None:
    while h.actor is not None and not h.board:
        h.check_or_call(h.actor)


def test_he4_several_short_allins_that_make_a_full_raise_reopen() -> None:
    h = hand([1000, 170, 230, 1000], [ACES, KINGS, QUEENS, SEVEN_DEUCE])
    check_down_preflop(h)
    h.bet_or_raise(1, 100)
    h.bet_or_raise(2, 150)  # all-in: +50, short
    assert legal(h, 3).min_raise_to == 210  # its all-in, short of the 250 a full raise needs
    h.bet_or_raise(3, 210)  # all-in: +60, short; but 110 over seat 1's bet: a full raise
    h.check_or_call(4)
    assert legal(h, 1) == LegalActions(1, True, False, 110, 310, 980)
    h.bet_or_raise(1, 310)
    assert legal(h, 4) == LegalActions(4, True, False, 100, 410, 980)
    h.check_or_call(4)
    check_down(h)
    # The main pot (4 x 170) and both side pots (3 x 60, 2 x 100) to the aces.
    assert finish(h) == [1000 - 330 + 680 + 180 + 200, 0, 0, 1000 - 330]


# --- HE-4: minimum raise against a short stack ------------------------------------------


def test_he4_min_raise_capped_by_the_stack_allows_a_short_allin_raise() -> None:
    h = hand([150, 1000, 1000], [ACES, KINGS, QUEENS])
    h.bet_or_raise(3, 100)  # a full raise would take seat 1 to 180: it has 150
    assert legal(h, 1) == LegalActions(1, True, False, 90, 150, 150)
    with pytest.raises(InvalidAmount) as refused:
        h.bet_or_raise(1, 140)  # below the minimum and not all-in
    assert refused.value.rule == "HE-4"
    h.bet_or_raise(1, 150)
    assert legal(h, 2).min_raise_to == 230  # the increment is still the full raise of 80
    h.fold(2)
    assert legal(h, 3) == call_only(3, 50)
    h.check_or_call(3)
    check_down(h)
    assert finish(h) == [320, 980, 850]


def test_he4_bet_below_the_big_blind_only_as_an_allin() -> None:
    h = hand([35, 1000, 1000], [ACES, KINGS, QUEENS])
    check_down_preflop(h)  # seat 1 has 15 left, less than a big blind
    assert legal(h, 1) == LegalActions(1, False, True, 0, 15, 15)
    h.bet_or_raise(1, 15)
    # Nobody had acted on the flop, so a raise is open to both others, by at least a big
    # blind (HE-4: the increment is at least the big blind).
    assert legal(h, 2) == LegalActions(2, True, False, 15, 35, 980)
    h.check_or_call(2)
    assert legal(h, 3) == LegalActions(3, True, False, 15, 35, 980)
    h.bet_or_raise(3, 100)
    assert legal(h, 2) == LegalActions(2, True, False, 85, 185, 980)  # a full raise: reopened
    h.fold(2)
    check_down(h)
    assert finish(h) == [35 * 3, 965, 1000 - 35]


def test_he4_no_raise_when_every_other_player_is_allin() -> None:
    h = hand([300, 1000], [ACES, KINGS])  # heads-up: seat 1 big blind, seat 2 button
    h.bet_or_raise(2, 1000)
    assert legal(h, 1) == call_only(1, 280)  # the call puts it all-in: nothing to raise
    h.check_or_call(1)
    assert [e for e in h.events if isinstance(e, UncalledReturned)] == [
        UncalledReturned(seat=2, amount=700)
    ]
    assert finish(h) == [600, 700]


# --- HE-6 / HE-7: side pots and the uncalled bet ----------------------------------------


def test_he7_short_allin_with_the_best_hand_wins_only_the_main_pot() -> None:
    h = hand([100, 1000, 1000], [ACES, KINGS, SEVEN_DEUCE])
    h.bet_or_raise(3, 300)
    h.check_or_call(1)  # all-in for 100
    h.check_or_call(2)
    h.bet_or_raise(2, 200)  # betting goes on between the two covered players
    h.check_or_call(3)
    check_down(h)
    awards = [e for e in h.events if isinstance(e, PotAwarded)]
    assert awards == [
        PotAwarded(pot=0, amount=300, winners=((1, 300),)),
        PotAwarded(pot=1, amount=800, winners=((2, 800),)),  # not a chip to seat 1
    ]
    assert finish(h) == [300, 1300, 500]


def test_he6_uncalled_part_of_a_raise_goes_back_before_the_pots() -> None:
    h = hand([1000, 1000, 250], [SEVEN_DEUCE, KINGS, ACES])
    h.bet_or_raise(3, 250)  # the button all-in
    h.bet_or_raise(1, 900)
    h.fold(2)
    assert [e for e in h.events if isinstance(e, UncalledReturned)] == [
        UncalledReturned(seat=1, amount=650)
    ]
    assert [e for e in h.events if isinstance(e, PotAwarded)] == [
        PotAwarded(pot=0, amount=520, winners=((3, 520),))
    ]
    assert finish(h) == [750, 980, 520]


def test_he2_allin_for_the_ante_wins_only_its_ante_from_each_player() -> None:
    h = hand([1000, 1000, 10], [KINGS, SEVEN_DEUCE, ACES], ante=10)
    assert h.stack(3) == 0 and h.actor == 1  # all-in from the ante: never asked to act
    h.bet_or_raise(1, 100)
    h.check_or_call(2)
    check_down(h)
    awards = [e for e in h.events if isinstance(e, PotAwarded)]
    assert awards == [
        PotAwarded(pot=0, amount=30, winners=((3, 30),)),  # 10 from each player
        PotAwarded(pot=1, amount=200, winners=((1, 200),)),
    ]
    assert finish(h) == [1090, 890, 30]


def test_he2_allin_for_part_of_the_ante_caps_its_claim() -> None:
    h = hand([1000, 1000, 6], [KINGS, SEVEN_DEUCE, ACES], ante=10)
    h.check_or_call(1)
    h.check_or_call(2)
    check_down(h)
    awards = [e for e in h.events if isinstance(e, PotAwarded)]
    assert awards == [
        PotAwarded(pot=0, amount=18, winners=((3, 18),)),
        PotAwarded(pot=1, amount=8 + 40, winners=((1, 48),)),
    ]
    assert finish(h) == [1000 - 30 + 48, 970, 18]


# --- HE-7: split pots, odd chip by odd chip, pot by pot ---------------------------------


def test_he7_odd_chips_one_at_a_time_not_all_to_the_first_winner() -> None:
    """A three-way split of 200: 67, 67, 66 clockwise from left of the button (pokerkit
    would give both odd chips to the first winner)."""
    royal = "AhKhQhJhTh"  # on the board: every hand still in ties
    h = hand([1000] * 4, ["2c3d", "4c5d", "6c7d", "8c9d"], board=royal)
    h.bet_or_raise(3, 60)
    h.check_or_call(4)
    h.check_or_call(1)
    h.fold(2)  # its big blind stays in the pot: 200, three ways
    check_down(h)
    assert [e for e in h.events if isinstance(e, PotAwarded)] == [
        PotAwarded(pot=0, amount=200, winners=((1, 67), (3, 67), (4, 66)))
    ]
    assert finish(h) == [1007, 980, 1007, 1006]


def test_he7_each_pot_is_split_on_its_own_with_its_odd_chip() -> None:
    """The same two players tie for the main and the side pot, both odd: each pot's odd chip
    goes to the first of them left of the button, so that player gets both (pokerkit, once
    the short stack's hand is out, merges the two pots and splits 534 evenly)."""
    holes = ["7s8s", "Tc3d", "9s9c", "5s6s", "Td4c"]  # seats 2 and 5 both make A-high straights
    h = hand([1000, 1000, 1000, 44, 1000], holes, ante=5, board="AhKhQhJh2c")
    h.bet_or_raise(3, 60)
    h.check_or_call(4)  # all-in: 44 in all with the ante
    h.bet_or_raise(5, 200)
    h.fold(1)  # 15 dead in the main pot
    h.check_or_call(2)
    h.fold(3)  # 65 dead: 44 in the main pot, 21 in the side pot
    check_down(h)
    assert [e for e in h.events if isinstance(e, PotAwarded)] == [
        PotAwarded(pot=0, amount=191, winners=((2, 96), (5, 95))),
        PotAwarded(pot=1, amount=343, winners=((2, 172), (5, 171))),
    ]
    assert finish(h) == [985, 1063, 935, 0, 1061]
