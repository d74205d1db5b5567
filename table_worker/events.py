"""What happened in a hand: immutable records, in the order the engine produced them.

Seats are the table's seat numbers; amounts are chips. Hand histories (PHH) are written from
these records alone.

The records are named tuples, not frozen dataclasses: a hand records about 40 of them, and on
CPython 3.11 a frozen dataclass's `__init__` (one `object.__setattr__` per field) made them
about 6% of the instructions a bench hand takes (docs/BENCHMARKS.md, "Hand engine"). They keep
a record's interface: named fields, keyword and positional class patterns in `match`,
`isinstance`, immutability, the same `repr`. Equality is by kind of record as well as fields
(`_same_record`): a `Folded(3)` equals neither a `Checked(3)` nor the plain tuple `(3,)`.
"""

from __future__ import annotations

from typing import NamedTuple, get_args


class Posted(NamedTuple):
    seat: int
    kind: str  # "ante", "small_blind" or "big_blind"
    amount: int


class HoleDealt(NamedTuple):
    seat: int
    cards: tuple[int, int]


class BoardDealt(NamedTuple):
    street: int  # 1 flop, 2 turn, 3 river
    cards: tuple[int, ...]


class Folded(NamedTuple):
    seat: int


class Checked(NamedTuple):
    seat: int


class Called(NamedTuple):
    seat: int
    amount: int
    all_in: bool


class BetOrRaised(NamedTuple):
    seat: int
    to: int
    all_in: bool


class UncalledReturned(NamedTuple):
    seat: int
    amount: int


class Showed(NamedTuple):
    seat: int
    cards: tuple[int, int]


class Mucked(NamedTuple):
    seat: int


class PotAwarded(NamedTuple):
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


def _same_record(self: tuple[object, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other) is True


def _different_record(self: tuple[object, ...], other: object) -> bool:
    return not _same_record(self, other)


# A tuple's == and != compare the fields alone; a record's compare its kind too. (Set here,
# not in the class bodies, where a NamedTuple admits only fields and methods; the hash stays
# the tuple's, which equal records share.)
for _kind in get_args(HandEvent):
    _kind.__eq__ = _same_record
    _kind.__ne__ = _different_record
