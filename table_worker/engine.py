"""One hand of Texas hold'em as a state machine (HE-2..HE-7): pure, deterministic, no I/O.

The table tells the engine who sits where, with what, who posts which blind (HE-9 is the
table's business) and which deck to deal. The engine then accepts only legal actions from
the seat whose turn it is, and at the end reports every chip's destination.

Every action comes in three forms, as in pokerkit: ``verify_*`` raises an
:class:`~table_worker.errors.IllegalAction` naming the rule, ``can_*`` answers with a bool,
and the action itself returns the frozen record of what happened. A refused action leaves
the hand unchanged.

Players are held in *positions*: 0 is the first seat left of the button, the last is the
button (or the seat before an empty, dead button). That is the clockwise order of dealing
and of post-flop action, and the order odd chips are handed out in (HE-7 decision).

>>> hand = Hand(HandSetup(seats=(1, 2, 3), stacks=(1000, 1000, 1000), button=3,
...                       small_blind_seat=1, big_blind_seat=2, small_blind=10, big_blind=20),
...             deck=range(52))
>>> hand.actor, hand.legal_actions().call_amount, hand.legal_actions().min_raise_to
(3, 20, 40)
>>> hand.fold(3); hand.fold(1)
Folded(seat=3)
Folded(seat=1)
>>> hand.is_over, hand.finishing_stacks()
(True, {1: 990, 2: 1010, 3: 1000})
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import NamedTuple

from table_worker.cards import validate_deck
from table_worker.errors import IllegalAction, InvalidAmount, InvalidSetup, NotYourTurn
from table_worker.events import (
    BetOrRaised,
    BoardDealt,
    Called,
    Checked,
    Folded,
    HandEvent,
    HoleDealt,
    Mucked,
    Posted,
    PotAwarded,
    Showed,
    UncalledReturned,
)
from table_worker.protocol import HandPot, NextHand
from table_worker.showdown import Pot, award_pots, build_pots, hand_strengths, showdown_order

__all__ = [
    "FIXED_LIMIT_RAISE_CAP",
    "Betting",
    "Decision",
    "DecisionKind",
    "Hand",
    "HandSetup",
    "LegalActions",
    "Street",
    "dealing_order",
    "dealt_cards",
]

# HE-5: a bet and three raises per street, as in common fixed-limit rules (and pokerkit).
FIXED_LIMIT_RAISE_CAP = 4


class Betting(StrEnum):
    NO_LIMIT = "no"
    FIXED_LIMIT = "fixed"


class Street(IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3
    OVER = 4


_STREET_AFTER = {street: Street(street + 1) for street in list(Street)[:-1]}
# Members read on every turn or street, bound once: on CPython 3.11 reading an enum member
# off its class costs ten times reading a module global.
_PREFLOP, _TURN, _RIVER, _OVER = Street.PREFLOP, Street.TURN, Street.RIVER, Street.OVER
# HE-3: how many board cards are out once each street is dealt.
_BOARD_SIZE = {Street.PREFLOP: 0, Street.FLOP: 3, Street.TURN: 4, Street.RIVER: 5}


class DecisionKind(StrEnum):
    FOLD = "fold"
    CHECK_CALL = "check_call"
    RAISE_TO = "raise_to"


_FOLD, _CHECK_CALL, _RAISE_TO = DecisionKind.FOLD, DecisionKind.CHECK_CALL, DecisionKind.RAISE_TO


class Decision(NamedTuple):
    """What a seat's controller (bot or remote player) chose; `amount` is the raise-to total.
    A named tuple, as `LegalActions`: one is made for most raises."""

    kind: DecisionKind
    amount: int = 0


class LegalActions(NamedTuple):
    """What the seat to act may do now. A raise is legal for every `to` in
    `[min_raise_to, max_raise_to]` (a single amount in fixed-limit).

    A named tuple rather than a frozen dataclass: the engine answers this once a turn, and
    on CPython 3.11 building a tuple costs a third of a frozen dataclass. It is as immutable."""

    seat: int
    can_fold: bool
    can_check: bool
    call_amount: int
    min_raise_to: int | None
    max_raise_to: int | None

    @property
    def can_raise(self) -> bool:
        return self.min_raise_to is not None


def dealing_order(seats: Sequence[int], button: int) -> list[int]:
    """Indexes into `seats` in seat order, turned to start with the first seat left of the
    button (HE-3: the first card goes there), which may be an empty seat (HE-9).

    >>> dealing_order([5, 1, 3], button=3)
    [0, 1, 2]
    >>> dealing_order([5, 1, 3], button=5)
    [1, 2, 0]
    """
    by_seat = sorted(range(len(seats)), key=seats.__getitem__)
    up_to_button = bisect_right(sorted(seats), button)  # seats numbered up to the button's
    return by_seat[up_to_button:] + by_seat[:up_to_button]


def dealt_cards(
    cards: Sequence[int], players: int
) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """What a deck deals to `players` seats in dealing order (HE-3): each one's two hole cards,
    one card at a time round the table, and the five board cards (burn, flop, burn, turn,
    burn, river). Anyone holding the deck can check the hand's cards with it.

    >>> dealt_cards(range(52), 2)
    (((0, 2), (1, 3)), (5, 6, 7, 9, 11))
    """
    base = 2 * players
    hole = tuple(zip(cards[:players], cards[players:base], strict=True))
    return hole, (*cards[base + 1 : base + 4], cards[base + 5], cards[base + 7])


def _is_chips(value: object) -> bool:
    return type(value) is int


_INT_ONLY = frozenset({int})


def _all_chips(values: Sequence[object]) -> bool:
    """Every value an int (a bool or a float is not a number of chips)."""
    return set(map(type, values)) <= _INT_ONLY


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSetup:
    """Who plays this hand and how.

    `seats` and `stacks` go together (any order); `button` is a seat number, possibly an
    empty seat (dead button, HE-9). `small_blind_seat` is None when no small blind is
    posted (HE-9). Heads-up, the button posts the small blind (HE-2).
    """

    seats: tuple[int, ...]
    stacks: tuple[int, ...]
    button: int
    small_blind_seat: int | None
    big_blind_seat: int
    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = False  # BBA-1: `ante` is one ante for the table, from the big blind
    betting: Betting = Betting.NO_LIMIT

    @classmethod
    def of(cls, spec: NextHand) -> HandSetup:
        """The hand the orchestrator described."""
        return cls(
            seats=tuple(seat for seat, _, _ in spec.seats),
            stacks=tuple(stack for _, _, stack in spec.seats),
            button=spec.blinds.button,
            small_blind_seat=spec.blinds.small_blind,
            big_blind_seat=spec.blinds.big_blind,
            small_blind=spec.small_blind,
            big_blind=spec.big_blind,
            ante=spec.ante,
            big_blind_ante=spec.big_blind_ante,
            betting=Betting(spec.betting),
        )

    def positions(self) -> list[int]:
        """Indexes into `seats`, clockwise from the first seat left of the button; checked."""
        seats, stacks = self.seats, self.stacks
        if not 2 <= len(seats) <= 10 or len(stacks) != len(seats):
            raise InvalidSetup(
                f"a hand needs 2..10 seated players with one stack each, got {len(seats)} "
                f"seats and {len(stacks)} stacks",
                rule="FO-1",
            )
        if len(set(seats)) != len(seats) or not _all_chips(seats) or min(seats) < 0:
            raise InvalidSetup(f"seats must be distinct seat numbers, got {seats}", rule="FO-1")
        if not _all_chips(stacks) or min(stacks) <= 0:
            raise InvalidSetup(f"every stack must be a positive integer, got {stacks}", rule="HE-2")
        if not _is_chips(self.small_blind) or self.small_blind < 0:
            raise InvalidSetup("the small blind must be a whole number >= 0", rule="HE-2")
        if not _is_chips(self.ante) or self.ante < 0:
            raise InvalidSetup("the ante must be a whole number >= 0", rule="HE-2")
        if not _is_chips(self.big_blind) or self.big_blind <= 0:
            raise InvalidSetup("the big blind must be a positive whole number", rule="HE-2")
        if self.small_blind > self.big_blind:
            raise InvalidSetup("the small blind cannot exceed the big blind", rule="HE-2")
        if not _is_chips(self.button):
            raise InvalidSetup("the button is a seat number", rule="HE-8")
        order = dealing_order(seats, self.button)
        ordered_seats = [seats[k] for k in order]
        if len(seats) == 2:
            expected = (ordered_seats[1], ordered_seats[0])
            if ordered_seats[1] != self.button or (self.small_blind_seat, self.big_blind_seat) != (
                expected
            ):
                raise InvalidSetup(
                    f"heads-up the button posts the small blind: button {self.button}, "
                    f"small blind {self.small_blind_seat}, big blind {self.big_blind_seat}",
                    rule="HE-2",
                )
        elif self.small_blind_seat is None:
            if self.big_blind_seat != ordered_seats[0]:
                raise InvalidSetup(
                    f"with no small blind the big blind is the first seat left of the button "
                    f"({ordered_seats[0]}), not {self.big_blind_seat}",
                    rule="HE-9",
                )
        elif (self.small_blind_seat, self.big_blind_seat) != tuple(ordered_seats[:2]):
            raise InvalidSetup(
                f"the blinds are the two seats left of the button {self.button}: expected "
                f"{tuple(ordered_seats[:2])}, got ({self.small_blind_seat}, {self.big_blind_seat})",
                rule="HE-2",
            )
        return order


class Hand:
    """The state of one hand. Construct it, then feed actions until `is_over`.

    Per position: `_stack` behind, `_bet` this street, `_total` this hand (antes, blinds,
    bets), `_folded`; `_live` lists the positions still in the hand, clockwise. A big blind
    ante is in no one's `_total`: it is `_dead` money in the main pot (BBA-1). Within a
    street a player's stack plus street bet never changes (betting moves chips from one to
    the other), which is what `_second_deepest` relies on.
    """

    def __init__(self, setup: HandSetup, deck: Iterable[int]) -> None:
        order = setup.positions()
        cards = validate_deck(deck)
        self.setup = setup
        n = self._n = len(order)
        self.seats: tuple[int, ...] = tuple([setup.seats[k] for k in order])
        self._position_of_seat = dict(zip(self.seats, range(n), strict=True))
        self.starting_stacks: tuple[int, ...] = tuple([setup.stacks[k] for k in order])
        self._fixed = setup.betting is Betting.FIXED_LIMIT
        self._stack = list(self.starting_stacks)
        self._bet = [0] * n
        self._total = [0] * n
        self._dead = 0  # BBA-1: the big blind's ante, in the main pot, no part of any bet
        self._folded = [False] * n
        self._live = list(range(n))
        self._needs_action = [False] * n
        # The bet level each player last acted at this street (-1: not yet), for HE-4 reopening.
        self._acted_level = [-1] * n
        self.hole, self._board_cards = dealt_cards(cards, n)  # HE-3
        self.board: tuple[int, ...] = ()
        self.events: list[HandEvent] = []
        self.street = _PREFLOP
        self._street_minimum = setup.big_blind  # HE-4/HE-5: the smallest full bet this street
        self.actor_position: int | None = None
        self._legal: LegalActions | None = None  # the actor's, once asked (legal_actions)
        self._current = 0
        self._increment = 0  # largest bet/raise increment this street (pokerkit's notion)
        self._raises = 0
        self._last_aggressor: int | None = None
        self._second_deepest = 0  # set as each street begins (_measure_second_deepest)
        self._post_forced_bets()
        self.events += map(HoleDealt, self.seats, self.hole)  # (seat, cards) each
        if not self._begin_street():
            self._end_street()

    # --- public queries -----------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.street is _OVER

    @property
    def actor(self) -> int | None:
        """The seat to act, or None when no decision is pending."""
        i = self.actor_position
        return None if i is None else self.seats[i]

    @property
    def pot(self) -> int:
        """Chips committed so far (antes, blinds and bets of every street)."""
        return sum(self._total) + self._dead

    def stack(self, seat: int) -> int:
        return self._stack[self._position(seat)]

    def street_bet(self, seat: int) -> int:
        return self._bet[self._position(seat)]

    def total_committed(self, seat: int) -> int:
        return self._total[self._position(seat)]

    def is_folded(self, seat: int) -> bool:
        return self._folded[self._position(seat)]

    def hole_cards(self, seat: int) -> tuple[int, int]:
        return self.hole[self._position(seat)]

    def legal_actions(self) -> LegalActions:
        """What the seat to act may do. Worked out once per turn: the controller asks, then
        the action checks its amount against the same answer."""
        legal = self._legal
        if legal is None:
            i = self.actor_position
            if i is None:
                i = self._require_actor_position()  # raises: nobody is to act
            to_call, stack = self._current - self._bet[i], self._stack[i]
            low, high = self._raise_range(i)
            # Positional, in field order: this runs once a turn, and keywords cost a dict.
            legal = self._legal = LegalActions(
                self.seats[i],
                to_call > 0,  # can_fold
                to_call == 0,  # can_check
                to_call if to_call < stack else stack,  # call_amount: all-in when short
                low,
                high,
            )
        return legal

    @property
    def big_blind_ante_posted(self) -> int:
        """BBA-1: what the big blind posted as the table's ante (less than the ante when the
        blind took most of its stack; 0 without a big blind ante)."""
        return self._dead

    def finishing_stacks(self) -> dict[int, int]:
        """Seat -> stack once the hand is over."""
        if not self.is_over:
            raise IllegalAction("the hand is not over yet", rule="HE-7")
        return dict(zip(self.seats, self._stack, strict=True))

    def pots(self) -> tuple[HandPot, ...]:
        """Every pot as settled (main pot first) once the hand is over: its chips, the seats
        with a claim on it and each winner's chips (the report carries them: KO-3)."""
        if not self.is_over:
            raise IllegalAction("the hand is not over yet", rule="HE-7")
        built = build_pots(self._total, self._folded, self._dead)  # as `_finish` settled them
        return tuple(
            HandPot(e.amount, tuple(self.seats[i] for i in built[e.pot].eligible), e.winners)
            for e in self.events
            if isinstance(e, PotAwarded)
        )

    # --- actions, each in three forms ---------------------------------------------------

    def verify_fold(self, seat: int) -> int:
        i = self._verify_turn(seat)
        if self._current == self._bet[i]:
            raise IllegalAction(f"seat {seat} faces no bet: check instead of folding", rule="HE-4")
        return i

    def can_fold(self, seat: int) -> bool:
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int) -> Folded:
        i = self.verify_fold(seat)
        self._folded[i] = True
        self._live.remove(i)
        self._needs_action[i] = False
        if len(self._live) > 1 and self._stack[i] + self._bet[i] >= self._second_deepest:
            self._measure_second_deepest()  # the folder was one of the two deepest
        event = Folded(seat)
        self.events.append(event)
        self._advance(i)
        return event

    def verify_check_or_call(self, seat: int) -> int:
        return self._verify_turn(seat)

    def can_check_or_call(self, seat: int) -> bool:
        return self._can(self.verify_check_or_call, seat)

    def check_or_call(self, seat: int) -> Checked | Called:
        i = self.actor_position  # the turn checked inline: this runs for most actions
        if i is None or self.seats[i] != seat:
            i = self._verify_turn(seat)  # raises
        stack = self._stack
        amount = self._current - self._bet[i]
        event: Checked | Called
        if amount:
            if amount > stack[i]:
                amount = stack[i]  # all-in for less
            stack[i] -= amount
            self._bet[i] += amount
            self._total[i] += amount
            event = Called(seat, amount, stack[i] == 0)  # seat, amount, all_in
        else:
            event = Checked(seat)
        self._acted_level[i] = self._current
        self._needs_action[i] = False
        self.events.append(event)
        self._advance(i)
        return event

    def verify_bet_or_raise(self, seat: int, to: int) -> int:
        i = self._verify_turn(seat)
        if not _is_chips(to):
            raise InvalidAmount(f"a bet is a whole number of chips, not {to!r}", rule="HE-4")
        legal = self.legal_actions()
        low, high = legal.min_raise_to, legal.max_raise_to
        if low is None or high is None:
            raise IllegalAction(self._why_no_raise(i), rule="HE-5" if self._fixed else "HE-4")
        if not low <= to <= high:
            what = "bet" if self._current == 0 else "raise"
            if self._fixed:
                raise InvalidAmount(f"in fixed-limit the {what} is to exactly {low}", rule="HE-5")
            raise InvalidAmount(
                f"a {what} by seat {seat} must be to between {low} and {high} (all-in), not {to}",
                rule="HE-4",
            )
        return i

    def can_bet_or_raise(self, seat: int, to: int) -> bool:
        try:
            self.verify_bet_or_raise(seat, to)
        except IllegalAction:
            return False
        return True

    def bet_or_raise(self, seat: int, to: int) -> BetOrRaised:
        i = self.verify_bet_or_raise(seat, to)
        increment = to - self._current
        delta = to - self._bet[i]
        self._stack[i] -= delta
        self._bet[i] = to
        self._total[i] += delta
        if increment > self._increment:
            self._increment = increment
        self._raises += 1
        self._current = to
        self._acted_level[i] = to
        self._last_aggressor = i
        # Everyone else still in with chips behind acts again (HE-4).
        needs, stack = [False] * self._n, self._stack
        for j in self._live:
            needs[j] = j != i and stack[j] > 0
        self._needs_action = needs
        event = BetOrRaised(seat, to, self._stack[i] == 0)  # seat, to, all_in
        self.events.append(event)
        self._advance(i)
        return event

    def act(self, seat: int, decision: Decision) -> HandEvent:
        """Apply a controller's decision (the form bots and remote players use)."""
        kind = decision.kind
        if kind is _CHECK_CALL:  # the commonest first
            return self.check_or_call(seat)
        if kind is _FOLD:
            return self.fold(seat)
        if kind is _RAISE_TO:
            return self.bet_or_raise(seat, decision.amount)
        raise IllegalAction(f"unknown action {kind!r}", rule="HE-4")

    # --- internals ------------------------------------------------------------------------

    def _position(self, seat: int) -> int:
        try:
            return self._position_of_seat[seat]
        except (KeyError, TypeError):
            raise NotYourTurn(f"seat {seat!r} is not in this hand", rule="HE-3") from None

    def _require_actor_position(self) -> int:
        if self.actor_position is None:
            raise NotYourTurn("no action is pending: the hand is over", rule="HE-3")
        return self.actor_position

    def _verify_turn(self, seat: int) -> int:
        i = self.actor_position
        if i is None or self.seats[i] != seat:
            self._position(seat)  # an unknown seat says so first
            actor = self._require_actor_position()
            raise NotYourTurn(
                f"seat {seat} acted out of turn: seat {self.seats[actor]} is to act", rule="HE-3"
            )
        return i

    @staticmethod
    def _can(verify: object, seat: int) -> bool:
        try:
            verify(seat)  # type: ignore[operator]
        except IllegalAction:
            return False
        return True

    def _raise_range(self, i: int) -> tuple[int, int] | tuple[None, None]:
        """Raise-to bounds for position i, or (None, None) when it may not raise (HE-4, HE-5)."""
        stack, bet, current = self._stack[i], self._bet[i], self._current
        if stack <= current - bet:  # covered: calling is all it can do
            return None, None
        if current - bet < self._increment:  # facing only a short all-in
            return None, None
        full = self._increment  # HE-4: a full raise, at least the big blind
        if full < self._street_minimum:
            full = self._street_minimum
        acted = self._acted_level[i]
        if acted >= 0 and current - acted < full:  # HE-4: short all-ins do not reopen
            return None, None
        if self._fixed and self._raises >= FIXED_LIMIT_RAISE_CAP:
            return None, None
        # Position i covers more than the current bet; so must one more player in the hand,
        # or nobody could call a raise.
        if self._second_deepest <= current:
            return None, None
        all_in = stack + bet
        low = full + current if full + current < all_in else all_in
        return low, (low if self._fixed else all_in)

    def _why_no_raise(self, i: int) -> str:
        seat = self.seats[i]
        if self._stack[i] <= self._current - self._bet[i]:
            return f"seat {seat} can only call: its stack does not cover a raise"
        if self._fixed and self._raises >= FIXED_LIMIT_RAISE_CAP:
            return f"betting is capped at {FIXED_LIMIT_RAISE_CAP} bets this street"
        if self._acted_level[i] >= 0 or self._current - self._bet[i] < self._increment:
            return (
                f"seat {seat} already acted and faces only a short all-in, which does not "
                "reopen the betting"
            )
        return "every other player is all-in: there is nobody to raise against"

    def _post_forced_bets(self) -> None:
        """HE-2: antes from everyone, then the blinds; a short stack posts what it has.
        BBA-1: with a big blind ante, the big blind is posted first and the ante from what
        is left, so a player short of both posts the blind before the ante."""
        setup = self.setup
        stack, bet, total = self._stack, self._bet, self._total
        if setup.ante and not setup.big_blind_ante:
            for i in range(self._n):
                amount = min(setup.ante, stack[i])
                stack[i] -= amount
                total[i] += amount
                self.events.append(Posted(self.seats[i], "ante", amount))
        posters: list[int] = []
        for kind, seat, size in (
            ("small_blind", setup.small_blind_seat, setup.small_blind),
            ("big_blind", setup.big_blind_seat, setup.big_blind),
        ):
            if seat is None or not size:
                continue
            i = self._position_of_seat[seat]
            amount = min(size, stack[i])
            stack[i] -= amount
            bet[i] += amount
            total[i] += amount
            posters.append(i)
            self.events.append(Posted(seat, kind, amount))
        if setup.ante and setup.big_blind_ante:
            i = self._position_of_seat[setup.big_blind_seat]
            self._dead = min(setup.ante, stack[i])
            stack[i] -= self._dead
            if self._dead:
                self.events.append(Posted(setup.big_blind_seat, "ante", self._dead))
        self._current = max(bet)
        # HE-3: pre-flop action starts left of the largest blind posted.
        biggest = max(posters, key=lambda i: (bet[i], i))
        self._opener = (biggest + 1) % self._n

    def _begin_street(self) -> bool:
        """Seat the street's actors; False when nobody acts (the street is dealt straight out)."""
        second = self._measure_second_deepest()
        # pokerkit's rule, kept so both engines ask for the same actions: a player who
        # cannot lose more than already bet (everyone else all-in) is not asked to act.
        needs, stack, bet = [False] * self._n, self._stack, self._bet
        for i in self._live:
            needs[i] = stack[i] > 0 and bet[i] < second
        self._needs_action = needs
        self.actor_position = self._first_to_act(self._opener)
        return self.actor_position is not None

    def _measure_second_deepest(self) -> int:
        """The second largest stack-plus-street-bet of the players still in: as much as the
        deepest player can win from anyone this street. A player's stack plus street bet
        stays the same while the street lasts (betting only moves chips from one to the
        other), so this changes only when a player folds."""
        stack, bet = self._stack, self._bet
        self._second_deepest = sorted([stack[i] + bet[i] for i in self._live])[-2]
        return self._second_deepest

    def _first_to_act(self, start: int) -> int | None:
        """The first position from `start` clockwise that still has to act, if any."""
        needs = self._needs_action
        if True in needs[start:]:
            return needs.index(True, start)
        if True in needs:
            return needs.index(True)
        return None

    def _advance(self, i: int) -> None:
        self._legal = None  # the turn moves on
        if len(self._live) == 1:
            self._finish()
            return
        # _first_to_act from the next position, inline: this runs after every action.
        needs, start = self._needs_action, (i + 1) % self._n
        if True in needs[start:]:
            self.actor_position = needs.index(True, start)
        elif True in needs:
            self.actor_position = needs.index(True)
        else:
            self.actor_position = None
            self._end_street()

    def _end_street(self) -> None:
        # HE-6: the last aggressor shows first; streets run out without betting keep the one
        # whose bet was called before them.
        aggressor = self._last_aggressor
        while True:
            if self.street is _RIVER:
                self._finish()
                return
            self.street = street = _STREET_AFTER[self.street]
            dealt = self._board_cards[len(self.board) : _BOARD_SIZE[street]]
            self.board += dealt
            self.events.append(BoardDealt(int(street), dealt))
            self._bet = [0] * self._n
            self._current = 0
            self._increment = 0
            self._raises = 0
            self._last_aggressor = None
            self._acted_level = [-1] * self._n
            self._opener = 0
            if self._fixed and street is _TURN:
                self._street_minimum = 2 * self.setup.big_blind  # HE-5: the big bet
            if self._begin_street():
                return
            self._last_aggressor = aggressor

    def _finish(self) -> None:
        """HE-6/HE-7: return the uncalled bet, show down in order, award every pot."""
        total, live, stack, seats = self._total, self._live, self._stack, self.seats
        self.actor_position = None
        highest = max(total)
        refund = highest - sorted(total)[-2]
        if refund:
            top = total.index(highest)
            total[top] -= refund
            stack[top] += refund
            self.events.append(UncalledReturned(seats[top], refund))
        pots = build_pots(total, self._folded, self._dead)
        shown: dict[int, int] = {}
        if len(live) > 1:
            order = showdown_order(live=live, last_aggressor=self._last_aggressor)
            shown = self._show_down(order, pots)
        for award in award_pots(pots, shown, live):
            for i, amount in award.shares:
                stack[i] += amount
            winners = tuple([(seats[i], amount) for i, amount in award.shares])
            self.events.append(PotAwarded(award.pot, award.amount, winners))
        self.street = _OVER

    def _show_down(self, order: Sequence[int], pots: Sequence[Pot]) -> dict[int, int]:
        """HE-6: pot by pot from the last side pot, in showdown order, a player shows when the
        hand beats or ties the best shown for that pot, else mucks. When at most one player
        could still bet (an all-in showdown) every hand is tabled. Returns position ->
        strength of the hands shown."""
        hole, stack, seats, events = self.hole, self._stack, self.seats, self.events
        strengths = hand_strengths([hole[i] for i in order], self.board)
        strength_of = dict(zip(order, strengths, strict=True))
        table_all = [stack[i] > 0 for i in order].count(True) <= 1
        shown: dict[int, int] = {}
        undecided = list(order)  # in showdown order
        for pot in reversed(pots):
            if not undecided:
                break  # everyone has shown or mucked: the rest of the pots change nothing
            eligible = pot.eligible
            best = max([shown[i] for i in eligible if i in shown], default=-1)
            for i in [i for i in undecided if i in eligible]:
                undecided.remove(i)
                strength = strength_of[i]
                if table_all or strength >= best:
                    shown[i] = strength
                    if strength > best:
                        best = strength
                    events.append(Showed(seats[i], hole[i]))
                else:
                    events.append(Mucked(seats[i]))
        return shown
