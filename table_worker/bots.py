"""Built-in bot policies. Each is deterministic given its `random.Random`, looks only at what
its own seat may see (`SeatView`: its hole cards, the board, the bets) and always picks a legal
action. The table actor passes its `Hand`; the load-test fleet passes what the front door told
the bot over the network.

A field that plays like a real one mixes styles (`StyleBot`, one `Style` each): ``tag``
(tight-aggressive: few hands, raised), ``lag`` (loose-aggressive: more hands, raised, some
bluffs), ``maniac`` (raises most hands, bets most flops) and ``loose-passive`` (calls too many
hands, rarely raises), beside ``strength``, ``station`` and ``random``. A mix such as
``tag=70,lag=15,station=10,random=5`` (`parse_mix`) becomes a pool of policies (`mix_pool`)
from which each player's is drawn by a seeded hash of his name (`policy_for`)."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from table_worker import evaluator
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
    "Style",
    "StyleBot",
    "make_bot",
    "mix_pool",
    "parse_mix",
    "policy_for",
]

FOLD = Decision(DecisionKind.FOLD)
CHECK_CALL = Decision(DecisionKind.CHECK_CALL)
_RAISE_TO = DecisionKind.RAISE_TO  # bound once: a module global reads faster than an enum member


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
            return Decision(_RAISE_TO, to)
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
        strength = _HAND_CLASS[evaluator.handtype(evaluator.evaluate(cards))]
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
        return Decision(_RAISE_TO, max(low, min(high, target)))

    @staticmethod
    def _fold_or_check(legal: LegalActions) -> Decision:
        return FOLD if legal.can_fold else CHECK_CALL


@dataclass(frozen=True, slots=True, kw_only=True)
class Style:
    """How a `StyleBot` plays. Pre-flop by `preflop_tier` (0 premium .. 4 trash, about 3%, 8%,
    23% and 34% of hands at tiers up to 0, 1, 2, 3): it raises first in up to `open_tier`, limps
    up to `limp_tier`, calls a raise up to `call_tier` while it costs at most `call_price` big
    blinds, re-raises up to `reraise_tier`; `loose` is the chance to play a hand one tier worse
    than the chart says. Short of `shove_below` big blinds it moves all in up to `shove_tier`.
    Post-flop by the eval7 hand class its cards make with the board (0 nothing, 1 a pair, 2 two
    pair, 3 trips, 4 straight or flush, 5 better), less what a paired board makes alone (0 when
    the board alone makes as much): checked
    to, it bets from `value_class` (a pair 7 times in 10) and bluffs with `bluff` chance; facing
    a bet it raises from one class above `value_class` (two pair at least), calls two pair or
    better, a pair up to half the pot on the flop and a quarter later, and anything else with
    `stubborn` chance; bets are `bet_pot` of the pot."""

    open_tier: int
    limp_tier: int
    call_tier: int
    reraise_tier: int
    call_price: float
    open_size: float
    loose: float
    shove_below: float
    shove_tier: int
    value_class: int
    bluff: float
    stubborn: float
    bet_pot: float


_RERAISE_PRICE = 20  # big blinds to call beyond which nobody re-raises again, premiums call

STYLES: dict[str, Style] = {
    "tag": Style(open_tier=2, limp_tier=2, call_tier=2, reraise_tier=1, call_price=6,
                 open_size=2.5, loose=0.1, shove_below=12, shove_tier=2, value_class=2,
                 bluff=0.15, stubborn=0.0, bet_pot=0.66),
    "lag": Style(open_tier=3, limp_tier=3, call_tier=2, reraise_tier=1, call_price=15,
                 open_size=2.5, loose=0.2, shove_below=15, shove_tier=3, value_class=1,
                 bluff=0.35, stubborn=0.1, bet_pot=0.75),
    "maniac": Style(open_tier=4, limp_tier=4, call_tier=3, reraise_tier=2, call_price=40,
                    open_size=3.5, loose=0.5, shove_below=25, shove_tier=3, value_class=1,
                    bluff=0.6, stubborn=0.4, bet_pot=1.0),
    "loose-passive": Style(open_tier=0, limp_tier=3, call_tier=3, reraise_tier=-1,
                           call_price=10, open_size=2.0, loose=0.3, shove_below=5,
                           shove_tier=1, value_class=3, bluff=0.0, stubborn=0.3,
                           bet_pot=0.5),
}  # fmt: skip


class StyleBot:
    """A player of one `Style` (see there); every choice is one of `legal`'s."""

    def __init__(self, style: Style, rng: random.Random) -> None:
        self._style = style
        self._rng = rng

    def decide(self, hand: SeatView, legal: LegalActions) -> Decision:
        if hand.street is Street.PREFLOP:
            return self._preflop(hand, legal)
        return self._postflop(hand, legal)

    def _preflop(self, hand: SeatView, legal: LegalActions) -> Decision:
        style, rng, big_blind = self._style, self._rng, hand.setup.big_blind
        tier = preflop_tier(*hand.hole_cards(legal.seat))
        if rng.random() < style.loose:
            tier -= 1  # plays this one as if it were a tier better
        price = legal.call_amount / big_blind
        if legal.max_raise_to is not None and legal.max_raise_to <= style.shove_below * big_blind:
            if tier <= style.shove_tier:  # short: all in or fold
                return Decision(DecisionKind.RAISE_TO, legal.max_raise_to)
            if tier <= style.call_tier and price <= style.call_price:
                return CHECK_CALL
            return _fold_or_check(legal)
        if price <= 1:  # nobody has raised (limpers at most)
            if tier <= style.open_tier:
                return _raise_to(legal, hand.street_bet(legal.seat) + legal.call_amount
                                 + int(style.open_size * big_blind)) or CHECK_CALL  # fmt: skip
            if tier <= style.limp_tier:
                return CHECK_CALL
            return _fold_or_check(legal)
        if tier <= style.reraise_tier and price <= _RERAISE_PRICE:
            facing = hand.street_bet(legal.seat) + legal.call_amount
            return _raise_to(legal, 3 * facing) or CHECK_CALL
        if (tier <= style.call_tier and price <= style.call_price) or tier <= min(
            0, style.reraise_tier
        ):  # a premium calls a re-raise or an all-in of any size
            return CHECK_CALL
        return _fold_or_check(legal)

    def _postflop(self, hand: SeatView, legal: LegalActions) -> Decision:
        style, rng = self._style, self._rng
        made = _hand_class((*hand.hole_cards(legal.seat), *hand.board))
        shared = _hand_class(hand.board)  # what the board makes is everyone's
        strength = made - (shared if shared < 3 else 0) if made > shared else 0
        pot = hand.pot
        bet = hand.street_bet(legal.seat) + legal.call_amount + int(style.bet_pot * pot)
        if legal.can_check:
            valued = strength >= max(1, style.value_class) and (strength >= 2 or rng.random() < 0.7)
            if valued or rng.random() < style.bluff:
                return _raise_to(legal, bet) or CHECK_CALL
            return CHECK_CALL
        if strength >= max(2, style.value_class + 1):  # raised back only with better
            return _raise_to(legal, bet) or CHECK_CALL
        cheap = pot // 2 if hand.street is Street.FLOP else pot // 4
        if strength >= 2 or (strength == 1 and legal.call_amount <= cheap):
            return CHECK_CALL
        return CHECK_CALL if rng.random() < style.stubborn else FOLD


def _hand_class(cards: Sequence[int]) -> int:
    """The eval7 hand class of 3..7 cards (`_HAND_CLASS`)."""
    return _HAND_CLASS[evaluator.handtype(evaluator.evaluate([EVAL7_CARDS[c] for c in cards]))]


def _raise_to(legal: LegalActions, to: int) -> Decision | None:
    """A raise to `to`, kept within the legal range; None when raising is not legal."""
    low, high = legal.min_raise_to, legal.max_raise_to
    if low is None or high is None:
        return None
    return Decision(_RAISE_TO, max(low, min(high, to)))


def _fold_or_check(legal: LegalActions) -> Decision:
    return FOLD if legal.can_fold else CHECK_CALL


class SittingOut:
    """OUT-1: a player who is out (sitting out, timed out, penalised) acts automatically:
    check when checking is possible, otherwise fold."""

    def decide(self, hand: SeatView, legal: LegalActions) -> Decision:
        return CHECK_CALL if legal.can_check else FOLD


def _styled(style: Style) -> Callable[[random.Random], Bot]:
    return lambda rng: StyleBot(style, rng)


BOT_POLICIES: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomLegalBot,
    "station": lambda rng: CallingStation(),
    "strength": HandStrengthBot,
    **{name: _styled(style) for name, style in STYLES.items()},
}


def make_bot(policy: str, rng: random.Random) -> Bot:
    try:
        return BOT_POLICIES[policy](rng)
    except KeyError:
        known = ", ".join(sorted(BOT_POLICIES))
        raise ValueError(f"unknown bot policy {policy!r} (known: {known})") from None


def parse_mix(text: str) -> tuple[tuple[str, int], ...]:
    """A mix of policies with weights, ``tag=70,lag=15,station=10``; a plain list
    ``strength,random`` weighs each policy 1. Raises ValueError naming what is wrong.

    >>> parse_mix("tag=70,lag=15,station=10,random=5")
    (('tag', 70), ('lag', 15), ('station', 10), ('random', 5))
    >>> parse_mix("strength,random")
    (('strength', 1), ('random', 1))
    """
    mix: dict[str, int] = {}
    for part in text.split(","):
        name, _, weight = part.strip().partition("=")
        name = name.strip()
        if name not in BOT_POLICIES:
            known = ", ".join(sorted(BOT_POLICIES))
            raise ValueError(f"unknown bot policy {name!r} (known: {known})")
        if name in mix:
            raise ValueError(f"bot policy {name!r} is named twice")
        try:
            mix[name] = int(weight) if weight else 1
        except ValueError:
            raise ValueError(
                f"bot policy {name}: weight {weight!r} is not a whole number"
            ) from None
        if mix[name] < 0:
            raise ValueError(f"bot policy {name}: weight {mix[name]} is negative")
    if not any(mix.values()):
        raise ValueError("a bot mix needs a policy with a weight above 0")
    return tuple(mix.items())


def mix_pool(mix: Sequence[tuple[str, int]]) -> tuple[str, ...]:
    """The pool of policies a mix draws from: each policy as often as its weight, reduced by
    the weights' common divisor (`policy_for` picks uniformly from it).

    >>> mix_pool([("tag", 70), ("lag", 20), ("random", 10)])
    ('tag', 'tag', 'tag', 'tag', 'tag', 'tag', 'tag', 'lag', 'lag', 'random')
    """
    divisor = math.gcd(*(weight for _, weight in mix))
    return tuple(name for name, weight in mix for _ in range(weight // divisor))


def policy_for(player: str, pool: Sequence[str], seed: int) -> str:
    """The policy of `player` in a run seeded `seed`: drawn uniformly from `pool` by a hash of
    the seed and the name, so every table of the run (and a restarted one) agrees.

    >>> policy_for("p00001", ("tag",), 7)
    'tag'
    """
    digest = hashlib.blake2b(f"{seed}:{player}".encode(), digest_size=8).digest()
    return pool[int.from_bytes(digest, "big") % len(pool)]
