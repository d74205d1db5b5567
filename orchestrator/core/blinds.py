"""Who deals and who posts at one table, hand after hand (HE-1, HE-2, HE-8, HE-9).

We read HE-9 as the moving big blind of tournament rules: the big blind always moves to the
next player clockwise, so nobody skips or repeats it. The small blind is the player who had the
big blind; if that player was just eliminated, no small blind is posted this hand and the
button goes to the designated dealer, the last player before the big blind. The button goes to
the seat of the previous small blind, even when that player was just eliminated (a dead button
on the empty seat, blinds proceeding normally). Heads-up, the button posts the small blind.
"""

from __future__ import annotations

from collections.abc import Collection

from table_worker.protocol import Blinds

__all__ = ["blind_gap", "first_blinds", "next_blinds"]


def _after(seat: int, occupied: list[int]) -> int:
    return next((s for s in occupied if s > seat), occupied[0])


def _before(seat: int, occupied: list[int]) -> int:
    return next((s for s in reversed(occupied) if s < seat), occupied[-1])


def first_blinds(button: int, occupied: Collection[int]) -> Blinds:
    """The first hand after the button draw (HE-1): blinds left of the button.

    >>> first_blinds(4, [1, 4, 6])
    Blinds(button=4, small_blind=6, big_blind=1)
    """
    seats = sorted(occupied)
    if len(seats) == 2:
        return Blinds(button, button, _after(button, seats))
    small = _after(button, seats)
    return Blinds(button, small, _after(small, seats))


def next_blinds(previous: Blinds, occupied: Collection[int]) -> Blinds:
    """The next hand's button and blinds given the seats occupied now.

    >>> next_blinds(Blinds(1, 2, 3), [1, 2, 3, 4])
    Blinds(button=2, small_blind=3, big_blind=4)
    >>> next_blinds(Blinds(1, 2, 3), [1, 2, 4])   # the next small blind busted: none posted
    Blinds(button=2, small_blind=None, big_blind=4)
    >>> next_blinds(Blinds(1, 2, 3), [1, 3, 4])   # the next dealer busted: dead button
    Blinds(button=2, small_blind=3, big_blind=4)
    """
    seats = sorted(occupied)
    big = _after(previous.big_blind, seats)
    if len(seats) == 2:
        other = seats[0] if big == seats[1] else seats[1]
        return Blinds(other, other, big)
    small = (
        previous.big_blind if previous.big_blind in seats and previous.big_blind != big else None
    )
    if small is None:
        return Blinds(_before(big, seats), None, big)
    button = previous.small_blind if previous.small_blind is not None else previous.button
    # A player seated since (a move) between that seat and the small blind would sit out of
    # position: then the button is the player just before the small blind.
    if button == small or _after(button, seats) != small:
        button = _before(small, seats)
    return Blinds(button, small, big)


def blind_gap(previous: Blinds, occupied: Collection[int], seats_per_table: int) -> set[int]:
    """The seats strictly between the next hand's button and its first blind (the small
    blind, or the big blind when none is posted): a player who joins the table there would get
    the button before posting a blind, so entrants never sit there (LATE, TDA-3).

    >>> sorted(blind_gap(Blinds(2, 5, 7), [2, 5, 7, 9], 9))   # next: button 5, blinds 7, 9
    [6]
    >>> sorted(blind_gap(Blinds(8, 9, 2), [2, 4, 8, 9], 9))   # next: button 9, blinds 2, 4
    [1]
    """
    upcoming = next_blinds(previous, occupied)
    first = upcoming.small_blind or upcoming.big_blind
    span = (first - upcoming.button) % seats_per_table
    return {(upcoming.button + k - 1) % seats_per_table + 1 for k in range(1, span)}
