"""A served deck, as the table actors see it: light to import (no numpy, no store), since
every table actor process loads it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DECK_SIZE", "ServedDeck", "is_deck"]

DECK_SIZE = 52


@dataclass(frozen=True, slots=True)
class ServedDeck:
    cards: bytes  # 52 card codes in dealing order
    serial: int  # position in the used-deck store
    commitment: bytes  # SHA-256(salt || cards)
    salt: bytes  # revealed after the hand


def is_deck(cards: bytes) -> bool:
    """True when `cards` is 52 distinct codes 0..51 (what a table checks before dealing)."""
    return len(cards) == DECK_SIZE and set(cards) == set(range(DECK_SIZE))
