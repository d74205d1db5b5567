"""ELIM-1: players busted in the same hand are placed by their chips at the start of that
hand (more chips, better place); on equal chips the player nearer the button clockwise, the
button first, places better."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Busted", "button_distances", "place_eliminated"]


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


def button_distances(
    tables: Mapping[int, Mapping[int, str]], buttons: Mapping[int, int], seats_per_table: int
) -> dict[str, int]:
    """Each seated player's seats clockwise from his table's button (the button 0): "nearer the
    button clockwise" of ELIM-1 and of CRASH-2's leftover cents. Tables without a button yet
    are left out (their players tie).

    >>> button_distances({1: {2: "a", 5: "b", 9: "c"}, 2: {1: "d"}}, {1: 5}, 9)
    {'a': 6, 'b': 0, 'c': 4}
    """
    return {
        player: (seat - buttons[table]) % seats_per_table
        for table, seats in tables.items()
        if table in buttons
        for seat, player in seats.items()
    }
