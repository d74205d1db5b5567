"""One table of bots: the button (HE-1, HE-8), buy-backs, and the bot policies."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from table_worker.bots import BOT_POLICIES, HandStrengthBot, make_bot, preflop_tier
from table_worker.cards import parse_card, permute_by_rank, shuffle_deck, validate_deck
from table_worker.engine import Betting, DecisionKind
from table_worker.events import BetOrRaised, Called, Checked, Folded
from table_worker.protocol import draw_for_button
from table_worker.session import TableConfig, blinds_for, play_table


def test_he1_highest_card_takes_the_button_suits_break_ties() -> None:
    seats = [1, 2, 3, 4]
    cards = [parse_card(c) for c in ("Kd", "Ah", "As", "Ac")]
    assert draw_for_button(seats, cards) == 2  # ace of hearts beats the other aces


def test_he8_button_moves_one_seat_left_each_hand() -> None:
    buttons = [p.hand.setup.button for p in play_table(TableConfig(players=4), 9, random.Random(5))]
    for before, after in itertools.pairwise(buttons):
        assert after == before % 4 + 1


def test_he2_heads_up_blinds_at_the_table() -> None:
    assert blinds_for([3, 7], button=7) == (7, 3)
    assert blinds_for([3, 7, 9], button=9) == (3, 7)


def test_busted_bots_buy_back_in_so_the_table_stays_full() -> None:
    config = TableConfig(players=6, starting_stack=500, policies=("random",))
    for played in play_table(config, 200, random.Random(11)):
        assert len(played.hand.seats) == 6
        assert all(stack > 0 for stack in played.hand.starting_stacks)


@pytest.mark.parametrize("policy", sorted(BOT_POLICIES))
@pytest.mark.parametrize("betting", list(Betting))
def test_bots_only_take_legal_actions_and_are_deterministic(policy: str, betting: Betting) -> None:
    config = TableConfig(players=5, starting_stack=2000, betting=betting, policies=(policy,))

    def run() -> list[object]:
        return [p.hand.events for p in play_table(config, 150, random.Random(3))]

    assert run() == run()  # same seed, same hands; every action passed the engine's checks


def test_unknown_policy_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown bot policy 'shark'"):
        make_bot("shark", random.Random(1))


def test_preflop_chart_ranks_premiums_over_trash() -> None:
    aces = preflop_tier(parse_card("As"), parse_card("Ah"))
    ace_king = preflop_tier(parse_card("As"), parse_card("Ks"))
    seven_deuce = preflop_tier(parse_card("7s"), parse_card("2h"))
    assert aces == 0 and ace_king == 0 and seven_deuce == 4


def test_hand_strength_bot_plays_like_a_table_of_real_players() -> None:
    """Realistic frequencies: it folds most hands pre-flop, raises some, calls some."""
    config = TableConfig(players=9, policies=("strength",))
    counts: Counter[str] = Counter()
    preflop_voluntary = 0  # players who put chips in pre-flop of their own accord, per hand
    hands = 600
    for played in play_table(config, hands, random.Random(8)):
        seen_flop = False
        voluntary: set[int] = set()
        for event in played.hand.events:
            kind = type(event).__name__
            counts[kind] += 1
            if isinstance(event, Called | BetOrRaised) and not seen_flop:
                voluntary.add(event.seat)
            if type(event).__name__ == "BoardDealt":
                seen_flop = True
        preflop_voluntary += len(voluntary)
    actions = sum(counts[k] for k in ("Folded", "Checked", "Called", "BetOrRaised"))
    fold_share = counts["Folded"] / actions
    raise_share = counts["BetOrRaised"] / actions
    assert 0.35 < fold_share < 0.8, counts
    assert 0.05 < raise_share < 0.35, counts
    vpip = preflop_voluntary / (hands * 9)  # 0.22 to 0.24 over seeds 0..8
    assert 0.15 < vpip < 0.35, vpip
    assert counts["Checked"] > 0 and counts["Called"] > 0


def test_hand_strength_bot_raises_aces_and_folds_trash_to_a_raise() -> None:
    from table_worker.engine import Hand, HandSetup

    deck = list(range(52))
    # position 0 (seat 1, small blind) gets 7s2h, position 2 (seat 3, button) gets AsAh
    deck[0], deck[3] = parse_card("7s"), parse_card("2h")
    deck[2], deck[5] = parse_card("As"), parse_card("Ah")
    rest = [c for c in range(52) if c not in deck[:6]]
    deck = deck[:6] + rest
    hand = Hand(
        HandSetup(
            seats=(1, 2, 3),
            stacks=(5000, 5000, 5000),
            button=3,
            small_blind_seat=1,
            big_blind_seat=2,
            small_blind=50,
            big_blind=100,
        ),
        deck,
    )
    bot = HandStrengthBot(random.Random(1))
    decision = bot.decide(hand, hand.legal_actions())
    assert decision.kind is DecisionKind.RAISE_TO
    hand.act(3, decision)
    assert bot.decide(hand, hand.legal_actions()).kind is DecisionKind.FOLD
    assert not isinstance(hand.events[-1], Folded | Checked)


def test_permute_by_rank_gives_every_order_once() -> None:
    # A uniform rank below n! then gives a uniform order: the shuffle is unbiased.
    for n in (2, 3, 4, 5):
        orders = set()
        for rank in range(math.factorial(n)):
            cards = list(range(n))
            permute_by_rank(cards, rank)
            orders.add(tuple(cards))
        assert len(orders) == math.factorial(n)


class _ScriptedBits(random.Random):
    """Answers getrandbits from a script, to see which draws the shuffle keeps."""

    def __init__(self, draws: list[int]) -> None:
        super().__init__(0)
        self.draws, self.asked = draws, list[int]()

    def getrandbits(self, k: int, /) -> int:
        self.asked.append(k)
        return self.draws.pop(0)


def test_shuffle_deck_throws_away_draws_at_or_above_n_factorial() -> None:
    rng = _ScriptedBits([7, 6, 0])  # 3 cards: 6 orders, drawn on 3 bits
    cards = [0, 1, 2]
    shuffle_deck(cards, rng)
    assert rng.asked == [3, 3, 3] and not rng.draws
    assert cards == [1, 2, 0]  # rank 0's order


def test_shuffle_deck_shuffles_a_whole_deck() -> None:
    rng = random.Random(4)
    decks = set()
    for _ in range(50):
        deck = list(range(52))
        shuffle_deck(deck, rng)
        validate_deck(deck)
        decks.add(tuple(deck))
    assert len(decks) == 50
    first_cards = [0] * 52
    for _ in range(5200):
        deck = list(range(52))
        shuffle_deck(deck, rng)
        first_cards[deck[0]] += 1
    assert min(first_cards) > 50 and max(first_cards) < 160  # every card leads, about 100 times
