"""What happened in a hand: frozen records, in the order the engine produced them.

Seats are the table's seat numbers; amounts are chips. Hand histories (PHH) are written from
these records alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Posted:
    seat: int
    kind: str  # "ante", "small_blind" or "big_blind"
    amount: int


@dataclass(frozen=True, slots=True)
class HoleDealt:
    seat: int
    cards: tuple[int, int]


@dataclass(frozen=True, slots=True)
class BoardDealt:
    street: int  # 1 flop, 2 turn, 3 river
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Folded:
    seat: int


@dataclass(frozen=True, slots=True)
class Checked:
    seat: int


@dataclass(frozen=True, slots=True)
class Called:
    seat: int
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class BetOrRaised:
    seat: int
    to: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class UncalledReturned:
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Showed:
    seat: int
    cards: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Mucked:
    seat: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    pot: int  # 0 is the main pot
    amount: int
    winners: tuple[tuple[int, int], ...]  # (seat, chips won)


HandEvent = (
    Posted
    | HoleDealt
    | BoardDealt
    | Folded
    | Checked
    | Called
    | BetOrRaised
    | UncalledReturned
    | Showed
    | Mucked
    | PotAwarded
)
