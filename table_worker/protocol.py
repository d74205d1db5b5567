"""What crosses between the orchestrator and a table, and nothing else. Stdlib only.

Both sides import this module and nothing of each other: the orchestrator's core describes a
hand (`NextHand`) inside a `TableDirective`; the table plays it and answers with a
`HandReport` (its players as `HandPlayer`, what it measured as `HandTiming`). Every type is
frozen and pickles by value, so Ray can carry it and a report can be retried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DECK_SIZE",
    "Blinds",
    "HandPlayer",
    "HandPot",
    "HandReport",
    "HandTiming",
    "NextHand",
    "TableDirective",
    "draw_for_button",
]

# DESIGN.md "Cards": a card is an int 0..51, rank = code // 4, suit = code % 4.
DECK_SIZE = 52


def draw_for_button(seats: Sequence[int], deck: Sequence[int]) -> int:
    """HE-1: each seat in turn gets one card face up; the highest card takes the button.
    Card codes already order rank first, then hearts > diamonds > clubs > spades.

    >>> draw_for_button([1, 2, 3], [10, 51, 50])
    2
    """
    return max(zip(deck, seats, strict=False))[1]


@dataclass(frozen=True, slots=True)
class Blinds:
    """Who has the button and who posts (HE-1, HE-2): seat numbers; no small blind is posted
    when the player who owed it was just eliminated (HE-9)."""

    button: int
    small_blind: int | None
    big_blind: int


@dataclass(frozen=True, slots=True)
class NextHand:
    """Everything a table needs to deal its next hand."""

    table: int
    hand: int
    seats: tuple[tuple[int, str, int], ...]  # (seat, player, stack), by seat
    blinds: Blinds
    level: int
    small_blind: int
    big_blind: int
    ante: int
    betting: str  # "no" or "fixed" (the engine's `Betting`)
    sitting_out: tuple[int, ...] = ()  # seats that act automatically: check, else fold (OUT-1)
    big_blind_ante: bool = False  # BBA-1: `ante` is one ante for the table, from the big blind


@dataclass(frozen=True, slots=True)
class TableDirective:
    """What a table does at a hand boundary: deal `next_hand`, wait for players, or close."""

    table: int
    next_hand: NextHand | None
    close: bool = False

    @property
    def wait(self) -> bool:
        return self.next_hand is None and not self.close


@dataclass(frozen=True, slots=True)
class HandPlayer:
    """One player of a finished hand: the seat played from, the stack at the start and end."""

    player: str
    seat: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class HandPot:
    """One pot of a finished hand as the engine settled it (main pot first, then the side
    pots): its chips, the seats with a claim on it (in the hand, not folded, in for its whole
    level) and each winner's chips, `(seat, chips)`. A busted player's bounty goes to the
    winners of the smallest pot he was in (KO-3)."""

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class HandTiming:
    """What a table measured while playing a hand; read by the metrics, never by decisions.
    `seconds`: deck taken to report sent; `deck_wait_seconds`: waiting for that deck;
    `fouled_decks`: decks refused as fouled since the table's previous report."""

    seconds: float = 0.0
    deck_wait_seconds: float = 0.0
    fouled_decks: int = 0

    def fields(self) -> dict[str, Any]:
        return {
            "seconds": round(self.seconds, 6),
            "deck_wait_seconds": round(self.deck_wait_seconds, 6),
            "fouled_decks": self.fouled_decks,
        }


@dataclass(frozen=True, slots=True)
class HandReport:
    """A table's finished hand: who played from which seat, with what, ending with what, and
    its `history`: the hand as a PHH section (`table_worker.phh.phhs_section`), which the
    orchestrator stores with the hand's events (the table keeps no copy; "" for none)."""

    table: int
    hand: int
    button: int
    players: tuple[HandPlayer, ...]
    timing: HandTiming = field(default_factory=HandTiming)  # measured by the table: metrics
    history: str = ""
    pots: tuple[HandPot, ...] = ()  # every pot and its winners (KO-3 reads them)
