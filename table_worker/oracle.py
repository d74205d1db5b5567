"""pokerkit as an independent oracle (for `mtt replay`, `mtt bench` and the tests).

Two ways in:
- `replay_in_pokerkit(hand)`: the engine hand's cards and actions through pokerkit's State
  API, pokerkit's own finishing stacks (the benchmark's workload).
- `replay_phhs(text)`: our PHH text through pokerkit's own `HandHistory` loader, which
  checks that our hand histories are real PHH; `replay_in_pokerkit_he7(hand)` does it for
  one engine hand. Both give the stacks under OUR odd-chip rule as well as pokerkit's.

Why a rule of our own: pokerkit gives a split pot's whole remainder to the first winner,
HE-7's decision hands odd chips out one at a time clockwise from left of the button. They
differ when 3+ players split a pot with a remainder of 2 or more, and when pokerkit merges
pots (see `he7_stacks`). So each pot is re-split among pokerkit's own winners with
`split_evenly`, and the comparison with the engine stays exact for every hand.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from table_worker.cards import cards_text
from table_worker.engine import Betting, Hand
from table_worker.events import BetOrRaised, BoardDealt, Called, Checked, Folded
from table_worker.phh import antes_by_position, blinds_by_position, hand_to_phh
from table_worker.session import PlayedHand
from table_worker.showdown import split_evenly

try:
    from pokerkit import (
        Automation,
        BoardDealing,
        CheckingOrCalling,
        ChipsPushing,
        CompletionBettingOrRaisingTo,
        FixedLimitTexasHoldem,
        Folding,
        HandHistory,
        HoleCardsShowingOrMucking,
        HoleDealing,
        NoLimitTexasHoldem,
    )
except ImportError as exc:  # pragma: no cover - only without pokerkit installed
    raise ImportError("the pokerkit oracle needs pokerkit: pip install -e .") from exc

__all__ = [
    "AUTOMATIONS",
    "ReplayedHistory",
    "blinds_by_position",
    "he7_stacks",
    "pokerkit_state",
    "replay_in_pokerkit",
    "replay_in_pokerkit_he7",
    "replay_phhs",
]

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

# What a hand history must spell out: the loader may fill in forced bets, burns, bet
# collection and awards by itself, but never a card, a decision or a show/muck of ours.
_WRITTEN_OPERATIONS = (
    HoleDealing,
    BoardDealing,
    Folding,
    CheckingOrCalling,
    CompletionBettingOrRaisingTo,
    HoleCardsShowingOrMucking,
)


def pokerkit_state(hand: Hand) -> Any:
    """A fresh pokerkit state for the same seats, stacks, forced bets and structure.
    Uniform antes trim (an all-in ante caps its claim); a big blind ante does not (BBA-1:
    dead money in the main pot), as the PHH writer says."""
    setup, n = hand.setup, len(hand.seats)
    blinds = tuple(blinds_by_position(hand))
    antes = tuple(antes_by_position(hand))
    trimming = not setup.big_blind_ante
    if setup.betting is Betting.NO_LIMIT:
        return NoLimitTexasHoldem.create_state(
            AUTOMATIONS, trimming, antes, blinds, setup.big_blind, hand.starting_stacks, n
        )
    return FixedLimitTexasHoldem.create_state(
        AUTOMATIONS,
        trimming,
        antes,
        blinds,
        setup.big_blind,
        2 * setup.big_blind,
        hand.starting_stacks,
        n,
    )


def _replay_state(hand: Hand) -> Any:
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
    return state


def replay_in_pokerkit(hand: Hand) -> tuple[int, ...]:
    """Play the finished hand's cards and actions through pokerkit; its finishing stacks by
    position. Raises ValueError (pokerkit's) if pokerkit refuses an action."""
    return tuple(_replay_state(hand).stacks)


def he7_stacks(state: Any, showdown_pots: Sequence[Any] | None) -> tuple[int, ...]:
    """A finished pokerkit state's stacks by position, with the pots contested at showdown
    split among pokerkit's winners by HE-7's odd-chip rule (`split_evenly`).

    `showdown_pots` are pokerkit's pots as the showdown began (None: no showdown). They are
    taken then because pokerkit merges pots once losing hands are mucked or killed (a main
    and a side pot both won by the same two players become one pot, split once), while HE-7
    splits each pot on its own, odd chip by odd chip. The winners are pokerkit's: the best
    hand pokerkit sees tabled among each pot's players, as in its own `push_chips`.
    """
    stacks = list(state.stacks)
    if showdown_pots is None:
        return tuple(stacks)
    paid: set[int] = set()
    for push in state.operations:
        if isinstance(push, ChipsPushing):
            for i, amount in enumerate(push.amounts):
                stacks[i] -= amount
                if amount:
                    paid.add(i)
    hands = list(state.get_up_hands(0, 0))  # None: folded, mucked or killed
    winners_of_all: set[int] = set()
    for pot in showdown_pots:
        best = max(hands[i] for i in pot.player_indices if hands[i] is not None)
        winners = [i for i in pot.player_indices if hands[i] == best]
        winners_of_all.update(winners)
        for i, amount in split_evenly(pot.unraked_amount, winners):
            stacks[i] += amount
    if not paid <= winners_of_all or sum(stacks) != sum(state.stacks):
        raise AssertionError(
            f"pokerkit paid {sorted(paid)}, its pots' winners are {winners_of_all}"
        )
    return tuple(stacks)


def replay_in_pokerkit_he7(hand: Hand) -> tuple[int, ...]:
    """Replay a finished engine hand in pokerkit from its PHH text (as `replay_phhs` does);
    the finishing stacks by position that pokerkit's pots and winners give under HE-7."""
    names = {seat: f"seat {seat}" for seat in hand.seats}
    text = hand_to_phh(PlayedHand(table=0, number=0, names=names, hand=hand))
    (replayed,) = replay_phhs(f"[1]\n{text}\n")
    return replayed.he7_stacks


@dataclass(frozen=True, slots=True)
class ReplayedHistory:
    """One hand history as pokerkit's loader read and replayed it."""

    history: Any  # pokerkit.HandHistory
    stacks: tuple[int, ...]  # pokerkit's own finishing stacks, by position
    he7_stacks: tuple[int, ...]  # the same with HE-7's odd chips


def replay_phhs(text: str) -> Iterator[ReplayedHistory]:
    """Load a `.phhs` document with pokerkit's `HandHistory.loads_all` and replay each hand.

    Strict: every action line must apply where it stands. pokerkit's loader otherwise
    "repairs" a history by inserting checks, folds or show/mucks of its own, which would hide
    a wrong history; a hand that needed such help raises ValueError."""
    for history in HandHistory.loads_all(text):
        applied: list[str] = []
        state: Any = None
        showdown_pots: list[Any] | None = None
        for state, action in history.state_actions:
            if action is not None:
                applied.append(action)
            if showdown_pots is None and state.showdown_index is not None:
                showdown_pots = list(state.pots)  # before anyone shows or mucks
        if applied != list(history.actions):
            raise ValueError(f"pokerkit could not apply the actions as written: {applied}")
        written = sum(isinstance(op, _WRITTEN_OPERATIONS) for op in state.operations)
        if written != len(applied) or state.status:
            raise ValueError(
                f"pokerkit needed {written - len(applied)} operations not in the history "
                f"(or the hand did not finish): {history.actions}"
            )
        yield ReplayedHistory(history, tuple(state.stacks), he7_stacks(state, showdown_pots))
