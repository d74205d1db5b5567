"""pokerkit as an independent oracle: replay an engine hand's exact cards and actions in
pokerkit and read its finishing stacks. pokerkit is a dev dependency (tests, `mtt bench`)."""

from __future__ import annotations

from typing import Any

from table_worker.cards import cards_text
from table_worker.engine import Betting, Hand
from table_worker.events import BetOrRaised, BoardDealt, Called, Checked, Folded

try:
    from pokerkit import Automation, FixedLimitTexasHoldem, NoLimitTexasHoldem
except ImportError as exc:  # pragma: no cover - exercised only without the dev extras
    raise ImportError("the pokerkit oracle needs the dev extras: pip install -e '.[dev]'") from exc

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def blinds_by_position(hand: Hand) -> list[int]:
    """pokerkit's blinds list: by position, reversed heads-up (pokerkit reverses it back)."""
    setup, n = hand.setup, len(hand.seats)
    blinds = [0] * n
    if setup.small_blind_seat is not None:
        blinds[hand.seats.index(setup.small_blind_seat)] = setup.small_blind
    blinds[hand.seats.index(setup.big_blind_seat)] = setup.big_blind
    return blinds[::-1] if n == 2 else blinds


def pokerkit_state(hand: Hand) -> Any:
    """A fresh pokerkit state for the same seats, stacks, forced bets and structure.
    Antes are uniform, so pokerkit's ante trimming is on (an all-in ante caps its claim)."""
    setup, n = hand.setup, len(hand.seats)
    blinds = tuple(blinds_by_position(hand))
    if setup.betting is Betting.NO_LIMIT:
        return NoLimitTexasHoldem.create_state(
            AUTOMATIONS, True, setup.ante, blinds, setup.big_blind, hand.starting_stacks, n
        )
    return FixedLimitTexasHoldem.create_state(
        AUTOMATIONS,
        True,
        setup.ante,
        blinds,
        setup.big_blind,
        2 * setup.big_blind,
        hand.starting_stacks,
        n,
    )


def replay_in_pokerkit(hand: Hand) -> tuple[int, ...]:
    """Play the finished hand's cards and actions through pokerkit; its finishing stacks by
    position. Raises ValueError (pokerkit's) if pokerkit refuses an action."""
    state = pokerkit_state(hand)
    for round_ in range(2):
        for cards in hand.hole:
            state.deal_hole(cards_text(cards[round_ : round_ + 1]))
    for event in hand.events:
        if isinstance(event, BoardDealt):
            state.deal_board(cards_text(event.cards))
        elif isinstance(event, Folded):
            state.fold()
        elif isinstance(event, Checked | Called):
            state.check_or_call()
        elif isinstance(event, BetOrRaised):
            state.complete_bet_or_raise_to(event.to)
    if state.status:
        raise ValueError("pokerkit expected more actions than the engine recorded")
    return tuple(state.stacks)
