"""Hands back to back at one table of bots: the button moves one seat left each hand (HE-8),
busted players buy back in so the table stays full. Used by `mtt play` and `mtt bench engine`;
randomness (seats' bots, decks) comes from the `random.Random` passed in. The decks stand in
for the deck service's (a table actor's come from it): uniformly shuffled (`shuffle_deck`)."""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from rng_service.deck import ServedDeck
from table_worker.bots import Bot, make_bot
from table_worker.cards import shuffle_deck
from table_worker.engine import Betting, Hand, HandSetup
from table_worker.protocol import DECK_SIZE, draw_for_button


@dataclass(frozen=True, slots=True, kw_only=True)
class TableConfig:
    players: int = 9
    starting_stack: int = 10_000
    small_blind: int = 50
    big_blind: int = 100
    ante: int = 0
    big_blind_ante: bool = False  # BBA-1
    betting: Betting = Betting.NO_LIMIT
    policies: Sequence[str] = field(default=("random",))
    table: int = 1

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 10:
            raise ValueError(f"a table seats 2..10 players (FO-1), not {self.players}")
        if not self.policies:
            raise ValueError("name at least one bot policy")


@dataclass(frozen=True, slots=True)
class PlayedHand:
    table: int
    number: int
    names: dict[int, str]  # seat -> player name
    hand: Hand
    deck: ServedDeck | None = None  # from the deck service: revealed in the hand history


def blinds_for(seats: Sequence[int], button: int) -> tuple[int, int]:
    """HE-2: small and big blind seats for a full table; heads-up the button posts the small.

    >>> blinds_for([1, 2, 3], 3), blinds_for([1, 2], 2)
    ((1, 2), (2, 1))
    """
    ordered = sorted(seats)
    left_of_button = bisect_right(ordered, button)  # seats numbered past the button come first
    ordered = ordered[left_of_button:] + ordered[:left_of_button]
    if len(ordered) == 2:
        return button, ordered[0]
    return ordered[0], ordered[1]


def play_table(config: TableConfig, hands: int, rng: random.Random) -> Iterator[PlayedHand]:
    seats = list(range(1, config.players + 1))
    names = {seat: f"p{seat}" for seat in seats}
    bots: dict[int, Bot] = {
        seat: make_bot(config.policies[k % len(config.policies)], random.Random(rng.random()))
        for k, seat in enumerate(seats)
    }
    stacks = dict.fromkeys(seats, config.starting_stack)
    deck = list(range(DECK_SIZE))
    shuffle_deck(deck, rng)
    button = draw_for_button(seats, deck)
    for number in range(1, hands + 1):
        small, big = blinds_for(seats, button)
        shuffle_deck(deck, rng)
        hand = Hand(
            HandSetup(
                seats=tuple(seats),
                stacks=tuple([stacks[s] for s in seats]),
                button=button,
                small_blind_seat=small,
                big_blind_seat=big,
                small_blind=config.small_blind,
                big_blind=config.big_blind,
                ante=config.ante,
                big_blind_ante=config.big_blind_ante,
                betting=config.betting,
            ),
            deck,
        )
        while (seat := hand.actor) is not None:
            hand.act(seat, bots[seat].decide(hand, hand.legal_actions()))
        yield PlayedHand(config.table, number, names, hand)
        for seat, stack in hand.finishing_stacks().items():
            stacks[seat] = stack or config.starting_stack  # a busted bot buys back in
        button = seats[(seats.index(button) + 1) % len(seats)]  # HE-8
