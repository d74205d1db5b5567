"""Card codes of DESIGN.md: an int 0..51, rank = code // 4 (0 = deuce .. 12 = ace),
suit = code % 4 (0 spades, 1 clubs, 2 diamonds, 3 hearts); text form `As`, `Td`, `2c`.
`DECK_SIZE` and the HE-1 button draw live in `protocol`, which the orchestrator imports too."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, MutableSequence

from table_worker import evaluator
from table_worker.errors import InvalidDeck
from table_worker.protocol import DECK_SIZE

RANKS = "23456789TJQKA"
SUITS = "scdh"
CARD_TEXT: tuple[str, ...] = tuple(RANKS[code // 4] + SUITS[code % 4] for code in range(DECK_SIZE))
_FULL_DECK = frozenset(range(DECK_SIZE))
_ORDERS_OF_A_DECK = math.factorial(DECK_SIZE)
_CODE_OF_TEXT = {text: code for code, text in enumerate(CARD_TEXT)}
# eval7's own card objects, built once: the engine hands them to evaluator.evaluate (HE-7).
EVAL7_CARDS: tuple[evaluator.Card, ...] = tuple(evaluator.Card(text) for text in CARD_TEXT)


def card_text(code: int) -> str:
    """
    >>> card_text(51), card_text(0), card_text(34)
    ('Ah', '2s', 'Td')
    """
    return CARD_TEXT[code]


def cards_text(codes: Iterable[int]) -> str:
    """
    >>> cards_text([51, 50])
    'AhAd'
    """
    return "".join(CARD_TEXT[code] for code in codes)


def parse_card(text: str) -> int:
    """
    >>> parse_card("Kh")
    47
    """
    try:
        return _CODE_OF_TEXT[text]
    except KeyError:
        raise ValueError(f"not a card: {text!r} (expected rank 2-9TJQKA and suit scdh)") from None


def parse_cards(text: str) -> list[int]:
    """Cards written together, as in hand histories: `"AsKd"` -> [48, 46]."""
    if len(text) % 2:
        raise ValueError(f"not a run of cards: {text!r}")
    return [parse_card(text[i : i + 2]) for i in range(0, len(text), 2)]


def validate_deck(deck: Iterable[int]) -> tuple[int, ...]:
    """A deck is exactly the 52 codes, each once; anything else is a fouled deck, never dealt."""
    cards = tuple(deck)
    if len(cards) != DECK_SIZE:
        raise InvalidDeck(f"a deck has {DECK_SIZE} cards, this one has {len(cards)}")
    if set(map(type, cards)) != {int}:
        raise InvalidDeck("a deck holds integer card codes 0..51")
    seen = set(cards)
    if seen != _FULL_DECK:
        missing = sorted(set(range(DECK_SIZE)) - seen)
        repeated = sorted({card for card in cards if cards.count(card) > 1})
        raise InvalidDeck(
            f"fouled deck: repeated {repeated or 'none'}, missing {missing or 'none'}, "
            f"out of range {sorted(c for c in seen if not 0 <= c < DECK_SIZE) or 'none'}"
        )
    return cards


def shuffle_deck(cards: MutableSequence[int], rng: random.Random) -> None:
    """Shuffle in place, each of the n! orders of the n cards equally likely: a Fisher-Yates
    shuffle whose n - 1 draws are the digits of one number drawn uniformly below n!
    (`permute_by_rank`), itself drawn by rejection from `rng.getrandbits` (a draw at or above
    n! is thrown away; for a deck three in four are kept). The same distribution as
    `random.shuffle`, for about half its cost: one call to the generator instead of one per
    card. Where decks do not come from the deck service (`mtt play`, `mtt bench engine`)."""
    orders = _ORDERS_OF_A_DECK if len(cards) == DECK_SIZE else math.factorial(len(cards))
    bits = orders.bit_length()
    rank = rng.getrandbits(bits)
    while rank >= orders:
        rank = rng.getrandbits(bits)
    permute_by_rank(cards, rank)


def permute_by_rank(cards: MutableSequence[int], rank: int) -> None:
    """Fisher-Yates with the draws read off `rank` (0 <= rank < n!) in the mixed radix n, n-1,
    ..., 2: position i swaps with position `rank mod (i + 1)`, then rank //= i + 1. Each rank
    gives a different order, so a uniform rank gives a uniform order.

    >>> cards = [0, 1, 2]
    >>> permute_by_rank(cards, 0); cards
    [1, 2, 0]
    """
    for i in range(len(cards) - 1, 0, -1):
        rank, j = divmod(rank, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
