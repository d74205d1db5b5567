"""Built-in bot policies. Each is deterministic given its `random.Random`, looks only at what
its own seat may see (`SeatView`: its hole cards, the board, the bets) and always picks a legal
action. The table actor passes its `Hand`; the load-test fleet passes what the front door told
the bot over the network."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

import eval7

from table_worker.cards import EVAL7_CARDS
from table_worker.engine import Decision, DecisionKind, LegalActions, Street

__all__ = [
    "BOT_POLICIES",
    "Bot",
    "CallingStation",
    "HandStrengthBot",
    "RandomLegalBot",
    "SeatView",
    "SittingOut",
    "make_bot",
]

FOLD = Decision(DecisionKind.FOLD)
CHECK_CALL = Decision(DecisionKind.CHECK_CALL)


class Blinds(Protocol):
    @property
    def big_blind(self) -> int: ...


class SeatView(Protocol):
    """What one seat may see of a hand (a `Hand` is one; so is a remote player's view)."""

    @property
    def street(self) -> Street: ...
    @property
    def board(self) -> tuple[int, ...]: ...
    @property
    def pot(self) -> int: ...
    @property
    def setup(self) -> Blinds: ...
    def hole_cards(self, seat: int) -> tuple[int, int]: ...
    def street_bet(self, seat: int) -> int: ...


class Bot(Protocol):
    def decide(self, hand: SeatView, legal: LegalActions) -> Decision: ...


class RandomLegalBot:
    """Uniform over the legal kinds of action; a raise to a uniform legal amount, with a bias
    to small raises and an occasional all-in so side pots come up often."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def decide(self, hand: SeatView, legal: LegalActions) -> Decision:
        rng = self._rng
        roll = rng.random()
        low, high = legal.min_raise_to, legal.max_raise_to
        if low is not None and high is not None and roll < 0.3:
            pick = rng.random()
            if pick < 0.6 or low == high:
                to = low
            elif pick < 0.8:
                to = high
            else:
                to = rng.randint(low, high)
            return Decision(DecisionKind.RAISE_TO, to)
        if legal.can_fold and roll > 0.75:
            return FOLD
        return CHECK_CALL


class CallingStation:
    """Checks or calls, never folds, never raises."""

    def decide(self, hand: SeatView, legal: LegalActions) -> Decision:
        return CHECK_CALL


def preflop_tier(first: int, second: int) -> int:
    """A compact pre-flop chart: 0 premium .. 4 trash, from ranks, pairs, suits and gaps.

    >>> preflop_tier(51, 50), preflop_tier(48, 41), preflop_tier(0, 21)  # AA, AQo, 2s7d
    (0, 1, 4)
    """
    high, low = max(first // 4, second // 4), min(first // 4, second // 4)
    suited = first % 4 == second % 4
    if high == low:
        return 0 if high >= 9 else 1 if high >= 6 else 2
    gap = high - low
    if high == 12 and low >= 10:
        return 0 if suited or low == 11 else 1
    if high >= 10 and low >= 8:
        return 1 if suited else 2
    if high == 12 or (suited and gap <= 2 and low >= 3):
        return 2 if suited else 3
    if gap <= 1 and low >= 4:
        return 3
    return 4


# eval7 hand types from weakest to strongest; the bot's post-flop strength class.
_HAND_CLASS = {
    "High Card": 0,
    "Pair": 1,
    "Two Pair": 2,
    "Trips": 3,
    "Straight": 4,
    "Flush": 4,
    "Full House": 5,
    "Quads": 5,
    "Straight Flush": 5,
}


class HandStrengthBot:
    """A tight-aggressive player: a pre-flop chart, then eval7 hand class post-flop, with
    sizing by pot and some randomness so its frequencies look like a real table's."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def decide(self, hand: SeatView, legal: LegalActions) -> Decision:
        hole = hand.hole_cards(legal.seat)
        big_blind = hand.setup.big_blind
        if hand.street is Street.PREFLOP:
            tier = preflop_tier(*hole)
            price = legal.call_amount / big_blind
            if tier == 0:
                return self._raise(hand, legal, 3) or CHECK_CALL
            if tier == 1:
                return (self._raise(hand, legal, 2.5) if price <= 1 else None) or (
                    CHECK_CALL if price <= 8 else self._fold_or_check(legal)
                )
            if tier == 2:
                return CHECK_CALL if price <= 3 else self._fold_or_check(legal)
            if tier == 3 and price <= 1 and self._rng.random() < 0.5:
                return CHECK_CALL
            return self._fold_or_check(legal)
        cards = [EVAL7_CARDS[c] for c in hole] + [EVAL7_CARDS[c] for c in hand.board]
        strength = _HAND_CLASS[eval7.handtype(eval7.evaluate(cards))]
        pot = hand.pot
        if strength >= 2:
            return self._raise(hand, legal, 0.75 * pot / big_blind) or CHECK_CALL
        if strength == 1:
            if legal.call_amount <= pot // 2 or self._rng.random() < 0.3:
                return CHECK_CALL
            return self._fold_or_check(legal)
        if legal.can_check and self._rng.random() < 0.15:
            return self._raise(hand, legal, 0.5 * pot / big_blind) or CHECK_CALL
        return self._fold_or_check(legal)

    def _raise(self, hand: SeatView, legal: LegalActions, big_blinds: float) -> Decision | None:
        low, high = legal.min_raise_to, legal.max_raise_to
        if low is None or high is None:
            return None
        target = hand.street_bet(legal.seat) + legal.call_amount
        target += int(big_blinds * hand.setup.big_blind)
        return Decision(DecisionKind.RAISE_TO, max(low, min(high, target)))

    @staticmethod
    def _fold_or_check(legal: LegalActions) -> Decision:
        return FOLD if legal.can_fold else CHECK_CALL


class SittingOut:
    """OUT-1: a player who is out (sitting out, timed out, penalised) acts automatically:
    check when checking is possible, otherwise fold."""

    def decide(self, hand: SeatView, legal: LegalActions) -> Decision:
        return CHECK_CALL if legal.can_check else FOLD


BOT_POLICIES: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomLegalBot,
    "station": lambda rng: CallingStation(),
    "strength": HandStrengthBot,
}


def make_bot(policy: str, rng: random.Random) -> Bot:
    try:
        return BOT_POLICIES[policy](rng)
    except KeyError:
        known = ", ".join(sorted(BOT_POLICIES))
        raise ValueError(f"unknown bot policy {policy!r} (known: {known})") from None
