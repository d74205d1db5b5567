"""Deck digests (RNG-3) and commitments (provably fair decks, DESIGN.md "Decks"). Pure.

A commitment is SHA-256(salt || cards) with a fresh 32-byte random salt per deck: published
before the deal, it fixes the deck without revealing it (the salt is secret and random, so the
52! possible decks cannot be tried against it); revealing the salt after the hand lets anyone
check that the dealt deck is the committed one with `verify_commitment`.

>>> cards = bytes(range(52))
>>> salt = bytes(32)
>>> verify_commitment(cards, salt, commitment(cards, salt))
True
>>> verify_commitment(cards[::-1], salt, commitment(cards, salt))
False
>>> deck_text(cards[:4]), card_text(51)
('2s 2c 2d 2h', 'Ah')
"""

from __future__ import annotations

import hashlib
import hmac

__all__ = [
    "DIGEST_BYTES",
    "SALT_BYTES",
    "card_text",
    "commitment",
    "deck_digest",
    "deck_text",
    "verify_commitment",
]

DIGEST_BYTES = 16  # 128 bits: the used-deck store's exact key (RNG-3)
SALT_BYTES = 32
_RANKS = "23456789TJQKA"
_SUITS = "scdh"  # DESIGN.md: suit = code % 4, 0 spades, 1 clubs, 2 diamonds, 3 hearts
_DIGEST_PERSON = b"mtt-deck-v1"


def deck_digest(cards: bytes) -> bytes:
    """The 128-bit digest under which a deck is recorded in the used-deck store (RNG-3).

    Two different decks share a digest with probability 2**-128 per pair: at 2**40 stored decks
    a false "already used" stays below 2**-49, and a false one only discards a fresh deck.
    """
    return hashlib.blake2b(cards, digest_size=DIGEST_BYTES, person=_DIGEST_PERSON).digest()


def commitment(cards: bytes, salt: bytes) -> bytes:
    """SHA-256(salt || cards): the value published before the deal."""
    return hashlib.sha256(salt + cards).digest()


def verify_commitment(cards: bytes, salt: bytes, committed: bytes) -> bool:
    """True when `committed` is the commitment of exactly this deck under this salt."""
    return hmac.compare_digest(commitment(cards, salt), committed)


def card_text(code: int) -> str:
    """'As', 'Td', '2c' ... for a card code 0..51 (rank = code // 4, suit = code % 4)."""
    if not 0 <= code < 52:
        raise ValueError(f"card code must be 0..51, got {code}")
    return _RANKS[code // 4] + _SUITS[code % 4]


def deck_text(cards: bytes) -> str:
    """A deck (or part of one) as space-separated card text, in dealing order."""
    return " ".join(card_text(code) for code in cards)
