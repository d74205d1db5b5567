"""The hand engine, rule by rule (RULES.md HE-2..HE-9), on decks fixed by hand."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_worker.cards import parse_card, parse_cards
from table_worker.engine import Betting, Decision, DecisionKind, Hand, HandSetup, Street
from table_worker.errors import IllegalAction, InvalidAmount, InvalidDeck, InvalidSetup, NotYourTurn
from table_worker.events import Mucked, PotAwarded, Showed, UncalledReturned
from table_worker.showdown import hand_strength


def stacked_deck(holes: Sequence[str], board: str = "") -> list[int]:
    """A deck dealing `holes[i]` to position i (HE-3: one card at a time from left of the
    button) and `board` as flop, turn, river after the burns; the rest in code order."""
    n = len(holes)
    wanted = [parse_cards(h) for h in holes]
    deck: list[int | None] = [None] * 52
    for i, (first, second) in enumerate(wanted):
        deck[i], deck[n + i] = first, second
    for offset, card in zip((1, 2, 3, 5, 7), parse_cards(board), strict=False):
        deck[2 * n + offset] = card
    rest = iter(c for c in range(52) if c not in set(deck))
    return [next(rest) if c is None else c for c in deck]


def setup(
    stacks: Sequence[int],
    *,
    button: int | None = None,
    sb: int | str | None = "auto",
    bb: int | None = None,
    blinds: tuple[int, int] = (50, 100),
    ante: int = 0,
    betting: Betting = Betting.NO_LIMIT,
    seats: Sequence[int] | None = None,
) -> HandSetup:
    seats = tuple(seats or range(1, len(stacks) + 1))
    button = seats[-1] if button is None else button
    order = sorted(seats, key=lambda s: (s <= button, s))
    if len(seats) == 2:
        default_sb, default_bb = button, order[0]
    else:
        default_sb, default_bb = order[0], order[1]
    return HandSetup(
        seats=seats,
        stacks=tuple(stacks),
        button=button,
        small_blind_seat=default_sb if sb == "auto" else sb,  # type: ignore[arg-type]
        big_blind_seat=default_bb if bb is None else bb,
        small_blind=blinds[0],
        big_blind=blinds[1],
        ante=ante,
        betting=betting,
    )


def snapshot(hand: Hand) -> tuple[object, ...]:
    return (
        len(hand.events),
        hand.actor,
        hand.street,
        tuple(hand.stack(s) for s in hand.seats),
        tuple(hand.street_bet(s) for s in hand.seats),
    )


# --- HE-2 blinds and antes -----------------------------------------------------------------


def test_he2_blinds_left_of_button_and_antes_from_everyone() -> None:
    hand = Hand(setup([1000] * 4, button=4, ante=10), range(52))
    assert hand.seats == (1, 2, 3, 4)
    assert (hand.stack(1), hand.stack(2), hand.stack(3), hand.stack(4)) == (940, 890, 990, 990)
    assert hand.pot == 4 * 10 + 50 + 100
    assert hand.actor == 3  # HE-3: first to act pre-flop is left of the big blind


def test_he2_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    hand = Hand(setup([1000, 1000], button=2), stacked_deck(["2c3d", "AsAh"], "KdQh7s2d3h"))
    assert hand.street_bet(2) == 50 and hand.street_bet(1) == 100
    assert hand.actor == 2
    hand.check_or_call(2)
    hand.check_or_call(1)
    assert hand.street is Street.FLOP and hand.actor == 1  # big blind first after the flop


def test_he2_short_stack_posts_what_it_has() -> None:
    hand = Hand(setup([30, 1000, 1000], button=3), range(52))
    assert hand.stack(1) == 0 and hand.street_bet(1) == 30


@pytest.mark.parametrize(
    ("sb", "bb", "button"),
    [(2, 3, 3), (1, 3, 3), (1, 2, 2), (None, 2, 3)],
)
def test_he2_he9_blind_seats_must_follow_the_button(sb: int | None, bb: int, button: int) -> None:
    with pytest.raises(InvalidSetup) as error:
        Hand(setup([1000] * 3, button=button, sb=sb, bb=bb), range(52))
    assert error.value.rule in {"HE-2", "HE-9"}


# --- HE-3 dealing and order of action ----------------------------------------------------


def test_he3_cards_dealt_one_at_a_time_from_left_of_button_with_burns() -> None:
    deck = list(range(51, -1, -1))
    hand = Hand(setup([1000] * 3, button=3), deck)
    assert hand.hole_cards(1) == (51, 48) and hand.hole_cards(3) == (49, 46)
    for seat in (3, 1):
        hand.check_or_call(seat)
    hand.check_or_call(2)
    assert hand.board == (44, 43, 42)  # 45 was burnt
    for seat in (1, 2, 3):
        hand.check_or_call(seat)
    for seat in (1, 2, 3):
        hand.check_or_call(seat)
    assert hand.board == (44, 43, 42, 40, 38)


def test_he3_postflop_first_active_left_of_button() -> None:
    hand = Hand(setup([1000] * 4, button=4), range(52))
    hand.check_or_call(3)
    hand.check_or_call(4)
    hand.fold(1)
    hand.check_or_call(2)
    assert hand.street is Street.FLOP and hand.actor == 2  # seat 1 folded


# --- HE-4 no-limit betting ---------------------------------------------------------------


def test_he4_minimum_bet_is_the_big_blind_and_raise_at_least_doubles() -> None:
    hand = Hand(setup([5000] * 3, button=3), range(52))
    legal = hand.legal_actions()
    assert (legal.call_amount, legal.min_raise_to, legal.max_raise_to) == (100, 200, 5000)
    hand.bet_or_raise(3, 350)  # a raise of 250
    assert hand.legal_actions().min_raise_to == 600  # the next raise is at least 250 more
    hand.check_or_call(1)
    hand.check_or_call(2)
    assert hand.street is Street.FLOP
    assert hand.legal_actions().min_raise_to == 100  # post-flop bet: at least the big blind
    with pytest.raises(InvalidAmount, match="HE-4"):
        hand.bet_or_raise(1, 99)


def test_he4_allin_below_minimum_is_allowed() -> None:
    hand = Hand(setup([5000, 5000, 150], button=3), range(52))
    legal = hand.legal_actions()
    assert legal.seat == 3 and legal.min_raise_to == 150 == legal.max_raise_to
    hand.bet_or_raise(3, 150)
    assert hand.stack(3) == 0


def test_he4_short_allin_does_not_reopen_betting() -> None:
    hand = Hand(setup([5000, 5000, 5000, 250], button=4), range(52))
    hand.bet_or_raise(3, 200)  # full raise
    hand.bet_or_raise(4, 250)  # all-in, 50 more: short
    hand.check_or_call(1)
    hand.check_or_call(2)
    assert hand.actor == 3
    legal = hand.legal_actions()
    assert legal.call_amount == 50 and not legal.can_raise
    with pytest.raises(IllegalAction, match="short all-in"):
        hand.bet_or_raise(3, 600)


def test_he4_several_short_allins_together_reopen() -> None:
    stacks = [5000, 5000, 100 + 160, 100 + 220, 5000]
    hand = Hand(setup(stacks, button=5), range(52))
    for seat in (3, 4, 5, 1, 2):
        hand.check_or_call(seat)
    assert hand.street is Street.FLOP
    hand.bet_or_raise(1, 100)
    hand.check_or_call(2)
    hand.bet_or_raise(3, 160)  # all-in +60: short
    hand.bet_or_raise(4, 220)  # all-in +60: 120 over seat 1's bet, a full raise in all
    hand.check_or_call(5)
    assert hand.actor == 1 and hand.legal_actions().can_raise
    assert hand.legal_actions().min_raise_to == 320


# --- HE-5 fixed limit --------------------------------------------------------------------


def test_he5_fixed_limit_small_bet_then_big_bet_and_cap() -> None:
    hand = Hand(setup([10_000] * 3, button=3, betting=Betting.FIXED_LIMIT), range(52))
    legal = hand.legal_actions()
    assert legal.min_raise_to == legal.max_raise_to == 200
    with pytest.raises(InvalidAmount, match="HE-5"):
        hand.bet_or_raise(3, 300)
    hand.bet_or_raise(3, 200)
    hand.bet_or_raise(1, 300)
    hand.bet_or_raise(2, 400)
    hand.bet_or_raise(3, 500)
    assert not hand.legal_actions().can_raise  # a bet and three raises: capped
    with pytest.raises(IllegalAction, match="capped"):
        hand.bet_or_raise(1, 600)
    for seat in (1, 2):
        hand.check_or_call(seat)
    for seat in (1, 2, 3):
        hand.check_or_call(seat)
    assert hand.street is Street.TURN
    assert hand.legal_actions().min_raise_to == 200  # the big bet, twice the big blind


# --- HE-6 showdown -----------------------------------------------------------------------


def test_he6_uncalled_bet_returned_and_no_cards_shown() -> None:
    hand = Hand(setup([1000] * 3, button=3), range(52))
    hand.bet_or_raise(3, 600)
    hand.fold(1)
    hand.fold(2)
    assert hand.finishing_stacks() == {1: 950, 2: 900, 3: 1150}
    assert UncalledReturned(seat=3, amount=500) in hand.events
    assert not any(isinstance(e, Showed | Mucked) for e in hand.events)


def test_he6_last_aggressor_shows_first_and_losers_may_muck() -> None:
    deck = stacked_deck(["AsAd", "KsKd", "2c7h"], "AhKh9c4d3s")
    hand = Hand(setup([1000] * 3, button=3), deck)
    for seat in (3, 1, 2):
        hand.check_or_call(seat)
    for _ in range(2):
        for seat in (1, 2, 3):
            hand.check_or_call(seat)
    hand.check_or_call(1)
    hand.bet_or_raise(2, 100)
    hand.check_or_call(3)
    hand.check_or_call(1)
    showdown = [e for e in hand.events if isinstance(e, Showed | Mucked)]
    assert showdown == [
        Showed(seat=2, cards=(parse_card("Ks"), parse_card("Kd"))),  # the aggressor first
        Mucked(seat=3),  # loses to the kings: may muck
        Showed(seat=1, cards=(parse_card("As"), parse_card("Ad"))),  # beats them: shows
    ]
    assert hand.finishing_stacks() == {1: 1400, 2: 800, 3: 800}


def test_he6_allin_showdown_tables_every_hand() -> None:
    deck = stacked_deck(["AsAd", "2c7h"], "KhQh9c4d3s")
    hand = Hand(setup([1000, 1000], button=2), deck)
    hand.bet_or_raise(2, 1000)
    hand.check_or_call(1)
    assert sum(isinstance(e, Showed) for e in hand.events) == 2
    assert hand.finishing_stacks() == {1: 2000, 2: 0}


# --- HE-7 hand strength, split pots, odd chips ---------------------------------------------


def test_he7_wheel_is_a_five_high_straight() -> None:
    board = parse_cards("3c4d5hKsKd")
    wheel = hand_strength(parse_cards("As2d"), board)
    six_high = hand_strength(parse_cards("6s2c"), board)
    assert wheel < six_high


def test_he7_odd_chips_go_clockwise_from_left_of_button() -> None:
    # three players tie with the board; the pot of 3 * 101 + 50 dead = 353 splits 118/118/117
    deck = stacked_deck(["2c3d", "2d3c", "2h3s", "4c5d"], "AsKsQsJsTs")
    hand = Hand(setup([1000, 1000, 1000, 1000], button=4, blinds=(50, 101)), deck)
    hand.check_or_call(3)
    hand.fold(4)
    hand.check_or_call(1)
    hand.check_or_call(2)
    for _ in range(3):
        for seat in (1, 2, 3):
            hand.check_or_call(seat)
    award = next(e for e in hand.events if isinstance(e, PotAwarded))
    assert award.amount == 303
    assert award.winners == ((1, 101), (2, 101), (3, 101))
    deck = stacked_deck(["2c3d", "2d3c", "2h3s", "4c5d"], "AsKsQsJsTs")
    hand = Hand(setup([1000] * 4, button=4, blinds=(50, 100), ante=1), deck)
    for seat in (3, 4, 1, 2):
        hand.fold(seat) if seat == 4 else hand.check_or_call(seat)
    for _ in range(3):
        for seat in (1, 2, 3):
            hand.check_or_call(seat)
    award = next(e for e in hand.events if isinstance(e, PotAwarded))
    assert award.amount == 304
    assert award.winners == ((1, 102), (2, 101), (3, 101))


def test_he7_side_pot_goes_to_best_hand_among_its_players() -> None:
    deck = stacked_deck(["AsAd", "KsKd", "QsQd"], "2c7h9d4s3h")
    hand = Hand(setup([300, 1000, 1000], button=3), deck)
    hand.bet_or_raise(3, 600)
    hand.check_or_call(1)  # all-in for less: a call
    while (seat := hand.actor) is not None:
        hand.check_or_call(seat)
    assert [e for e in hand.events if isinstance(e, PotAwarded)] == [
        PotAwarded(pot=0, amount=900, winners=((1, 900),)),
        PotAwarded(pot=1, amount=600, winners=((2, 600),)),
    ]


# --- HE-9 dead button ----------------------------------------------------------------------


def test_he9_dead_button_on_an_empty_seat() -> None:
    hand = Hand(setup([1000] * 3, seats=(1, 3, 5), button=4, sb=5, bb=1), range(52))
    assert hand.seats == (5, 1, 3) and hand.actor == 3


def test_he9_no_small_blind_posted() -> None:
    hand = Hand(setup([1000] * 3, seats=(1, 3, 5), button=1, sb=None, bb=3), range(52))
    assert hand.pot == 100 and hand.actor == 5
    hand.check_or_call(5)
    hand.check_or_call(1)
    hand.check_or_call(3)
    assert hand.street is Street.FLOP and hand.actor == 3


# --- Bad input: a typed error naming the rule, the hand unchanged -------------------------


@pytest.mark.parametrize(
    ("attempt", "error"),
    [
        (lambda h: h.check_or_call(1), NotYourTurn),
        (lambda h: h.fold(9), NotYourTurn),
        (lambda h: h.bet_or_raise(3, 150), InvalidAmount),
        (lambda h: h.bet_or_raise(3, 10**9), InvalidAmount),
        (lambda h: h.bet_or_raise(3, -200), InvalidAmount),
        (lambda h: h.bet_or_raise(3, 250.0), InvalidAmount),
        (lambda h: h.bet_or_raise(3, "300"), InvalidAmount),
        (lambda h: h.act(3, Decision("shove", 5)), IllegalAction),  # type: ignore[arg-type]
    ],
)
def test_illegal_input_is_refused_and_changes_nothing(attempt: object, error: type) -> None:
    hand = Hand(setup([1000] * 3, button=3), range(52))
    before = snapshot(hand)
    with pytest.raises(error) as raised:
        attempt(hand)  # type: ignore[operator]
    assert raised.value.rule
    assert snapshot(hand) == before
    hand.bet_or_raise(3, 300)  # still serving
    assert hand.actor == 1


def test_fold_when_check_is_free_is_refused() -> None:
    hand = Hand(setup([1000] * 3, button=3), range(52))
    for seat in (3, 1):
        hand.check_or_call(seat)
    assert not hand.can_fold(2)
    with pytest.raises(IllegalAction, match="check instead"):
        hand.fold(2)


def test_actions_after_the_hand_are_refused() -> None:
    hand = Hand(setup([1000, 1000], button=2), range(52))
    hand.fold(2)
    with pytest.raises(NotYourTurn):
        hand.check_or_call(1)


@pytest.mark.parametrize(
    "deck",
    [list(range(51)), [*range(51), 0], [*range(51), 52], [*range(51), 51.0]],
    ids=["missing", "repeated", "out-of-range", "not-int"],
)
def test_fouled_deck_is_refused(deck: list[int]) -> None:
    with pytest.raises(InvalidDeck):
        Hand(setup([1000] * 3), deck)


@pytest.mark.parametrize(
    "bad",
    [
        {"stacks": (1000, 0, 1000)},
        {"stacks": (1000, -5, 1000)},
        {"small_blind": 200},
        {"big_blind": 0},
        {"ante": -1},
        {"seats": (1, 1, 2)},
    ],
)
def test_impossible_setup_is_refused(bad: dict[str, object]) -> None:
    fields = {
        "seats": (1, 2, 3),
        "stacks": (1000, 1000, 1000),
        "button": 3,
        "small_blind_seat": 1,
        "big_blind_seat": 2,
        "small_blind": 50,
        "big_blind": 100,
    }
    fields.update(bad)
    with pytest.raises(InvalidSetup):
        Hand(HandSetup(**fields), range(52))  # type: ignore[arg-type]


# --- Invariants over random play ----------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    stacks=st.lists(st.integers(1, 3000), min_size=2, max_size=10),
    ante=st.integers(0, 30),
    fixed=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_random_legal_play_conserves_chips_and_refuses_outside_the_range(
    stacks: list[int], ante: int, fixed: bool, seed: int
) -> None:
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    betting = Betting.FIXED_LIMIT if fixed else Betting.NO_LIMIT
    hand = Hand(setup(stacks, ante=ante, betting=betting), deck)
    while (seat := hand.actor) is not None:
        legal = hand.legal_actions()
        if legal.min_raise_to is not None and legal.max_raise_to is not None:
            assert not hand.can_bet_or_raise(seat, legal.min_raise_to - 1)
            assert not hand.can_bet_or_raise(seat, legal.max_raise_to + 1)
        choices = [Decision(DecisionKind.CHECK_CALL)]
        if legal.can_fold:
            choices.append(Decision(DecisionKind.FOLD))
        if legal.min_raise_to is not None and legal.max_raise_to is not None:
            to = rng.randint(legal.min_raise_to, legal.max_raise_to)
            choices.append(Decision(DecisionKind.RAISE_TO, to))
        hand.act(seat, rng.choice(choices))
    finishing = hand.finishing_stacks()
    assert sum(finishing.values()) == sum(stacks)
    assert all(chips >= 0 for chips in finishing.values())
    awarded = sum(e.amount for e in hand.events if isinstance(e, PotAwarded))
    assert awarded == sum(hand.total_committed(seat) for seat in hand.seats)


def test_he6_after_an_allin_runout_the_called_aggressor_shows_first() -> None:
    deck = stacked_deck(["2c7h", "AsAd", "KsKd"], "QhJh9c4d3s")
    hand = Hand(setup([1000] * 3, button=3), deck)
    hand.bet_or_raise(3, 1000)  # the button shoves pre-flop
    hand.check_or_call(1)
    hand.check_or_call(2)
    shown = [e.seat for e in hand.events if isinstance(e, Showed)]
    assert shown == [3, 1, 2]  # every hand tabled, the aggressor's first
