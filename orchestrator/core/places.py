"""ELIM-1: players busted in the same hand are placed by their chips at the start of that
hand (more chips, better place); on equal chips the player nearer the button clockwise, the
button first, places better."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Busted", "place_eliminated"]


@dataclass(frozen=True, slots=True)
class Busted:
    player: str
    seat: int
    start: int  # chips at the start of the hand


def place_eliminated(
    busted: Sequence[Busted], *, button: int, seats_per_table: int, remaining_before: int
) -> list[tuple[Busted, int]]:
    """Places for everyone busted in one hand, best first. `remaining_before` counts players in
    the tournament before this hand's eliminations: they share the places below it.

    >>> out = place_eliminated([Busted("a", 3, 500), Busted("b", 5, 900), Busted("c", 1, 500)],
    ...                        button=1, seats_per_table=9, remaining_before=10)
    >>> [(b.player, place) for b, place in out]
    [('b', 8), ('c', 9), ('a', 10)]
    """
    ranked = sorted(busted, key=lambda b: (-b.start, (b.seat - button) % seats_per_table))
    best = remaining_before - len(ranked) + 1
    return [(b, best + k) for k, b in enumerate(ranked)]
