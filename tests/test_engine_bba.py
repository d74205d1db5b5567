"""BBA-1, the big blind ante: one ante for the whole table, posted by the big blind after the
blind, dead money in the main pot (no part of the bet to call). pokerkit agrees on every
such hand (tests/test_pokerkit_oracle.py); these pin the rule on decks fixed by hand."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from test_engine_rules import setup, stacked_deck

from table_worker.engine import Hand, HandSetup
from table_worker.events import Posted, PotAwarded


def bba(stacks: Sequence[int], *, ante: int = 100, button: int | None = None) -> HandSetup:
    return replace(setup(stacks, button=button, ante=ante), big_blind_ante=True)


def posts(hand: Hand) -> list[tuple[int, str, int]]:
    return [(e.seat, e.kind, e.amount) for e in hand.events if isinstance(e, Posted)]


def test_bba1_the_big_blind_posts_one_ante_for_the_table_after_the_blind() -> None:
    hand = Hand(bba([1000] * 4, button=4), range(52))
    assert posts(hand) == [(1, "small_blind", 50), (2, "big_blind", 100), (2, "ante", 100)]
    assert [hand.stack(s) for s in hand.seats] == [950, 800, 1000, 1000]
    assert hand.pot == 50 + 100 + 100
    assert hand.big_blind_ante_posted == 100


def test_bba1_the_ante_is_dead_not_part_of_the_bet_to_call() -> None:
    hand = Hand(bba([1000] * 3, button=3), range(52))
    assert hand.street_bet(2) == 100  # the blind only
    legal = hand.legal_actions()
    assert (legal.seat, legal.call_amount, legal.min_raise_to) == (3, 100, 200)
    hand.fold(3)
    hand.fold(1)
    # Uncalled: the big blind gets back what the small blind did not match, and takes the
    # small blind and his own ante.
    assert hand.finishing_stacks() == {1: 950, 2: 1050, 3: 1000}


def test_bba1_a_big_blind_short_of_both_posts_the_blind_before_the_ante() -> None:
    hand = Hand(bba([1000, 130, 1000], button=3), range(52))
    assert posts(hand) == [(1, "small_blind", 50), (2, "big_blind", 100), (2, "ante", 30)]
    assert hand.stack(2) == 0 and hand.big_blind_ante_posted == 30

    only_the_blind = Hand(bba([1000, 80, 1000], button=3), range(52))
    assert posts(only_the_blind) == [(1, "small_blind", 50), (2, "big_blind", 80)]
    assert only_the_blind.big_blind_ante_posted == 0


def test_bba1_the_ante_goes_in_the_main_pot_that_a_short_all_in_can_win() -> None:
    # Seat 2 (big blind) holds aces and is all-in for the blind and part of the ante; the
    # others play on. The main pot holds every player's first 100 and the whole dead ante.
    deck = stacked_deck(["7c2h", "AsAd", "KsKd"], "9c8d4sTh3c")
    hand = Hand(bba([1000, 130, 1000], button=3), deck)
    hand.bet_or_raise(3, 300)
    hand.check_or_call(1)
    while (seat := hand.actor) is not None:
        hand.check_or_call(seat)
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert [(a.amount, a.winners) for a in awards] == [(330, ((2, 330),)), (400, ((3, 400),))]
    assert sum(hand.finishing_stacks().values()) == 2130  # every chip accounted for
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(330, (1, 2, 3)), (400, (1, 3))]


def test_bba1_heads_up_the_big_blind_is_the_player_off_the_button() -> None:
    hand = Hand(bba([1000, 1000], button=2), range(52))
    assert posts(hand) == [(2, "small_blind", 50), (1, "big_blind", 100), (1, "ante", 100)]
