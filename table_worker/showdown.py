"""Pots, showdown order and awards (HE-6, HE-7), over positions 0..n-1 clockwise from the
first seat left of the button."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple

from table_worker import evaluator
from table_worker.cards import EVAL7_CARDS


def hand_strengths(holes: Sequence[Sequence[int]], board: Sequence[int]) -> list[int]:
    """HE-7: eval7's value of the best five of each hole's seven cards with the board; higher
    wins, equal splits."""
    card = EVAL7_CARDS.__getitem__
    shared = [*map(card, board)]
    evaluate = evaluator.evaluate  # returns an int
    return [evaluate([*map(card, hole), *shared]) for hole in holes]


def hand_strength(hole: Sequence[int], board: Sequence[int]) -> int:
    """One hand's `hand_strengths`."""
    return hand_strengths([hole], board)[0]


class Pot(NamedTuple):  # a named tuple: built for every pot of every hand
    amount: int
    eligible: tuple[int, ...]  # positions still in the hand with a claim on this pot


def build_pots(total: Sequence[int], folded: Sequence[bool], dead: int = 0) -> list[Pot]:
    """Main pot first, then side pots, cut at each live player's total commitment. `dead`
    chips (a big blind ante, BBA-1) are nobody's commitment and go in the main pot.

    >>> build_pots([100, 300, 300, 50], [False, False, False, True])
    [Pot(amount=350, eligible=(0, 1, 2)), Pot(amount=400, eligible=(1, 2))]
    >>> build_pots([100, 300, 300, 50], [False, False, False, True], dead=100)
    [Pot(amount=450, eligible=(0, 1, 2)), Pot(amount=400, eligible=(1, 2))]
    """
    by_commitment = sorted([i for i, out in enumerate(folded) if not out], key=total.__getitem__)
    everyone = sorted(total)  # every commitment, folded ones too, to measure the levels
    seated = len(everyone)
    pots: list[Pot] = []
    below = -dead  # everyone's chips up to the previous level; the dead join the first pot
    # One walk up the levels: `under` holds the chips of the `reached` players committed
    # below the current level; everyone else gives the level itself.
    reached = under = 0
    for k, i in enumerate(by_commitment):
        level = total[i]
        while everyone[reached] < level:  # stops at this player's own commitment at the latest
            under += everyone[reached]
            reached += 1
        up_to_level = under + level * (seated - reached)  # everyone's chips up to this level
        if up_to_level > below:  # players level with the previous one add no pot
            pots.append(Pot(up_to_level - below, tuple(sorted(by_commitment[k:]))))
        below = up_to_level
    leftover = sum(total) - below
    if leftover:  # folded chips above every live player's total: cannot arise after HE-6's
        last = pots[-1]  # uncalled-bet return, but no chip may ever vanish
        pots[-1] = Pot(last.amount + leftover, last.eligible)
    return pots


def showdown_order(*, live: Sequence[int], last_aggressor: int | None) -> list[int]:
    """HE-6: the last player whose bet or raise was called shows first, then clockwise; with
    no bet on the last street, the first live player left of the button starts."""
    start = 0 if last_aggressor is None else last_aggressor
    ordered = sorted(live)
    first = bisect_left(ordered, start)  # positions from `start` round the table
    return ordered[first:] + ordered[:first]


class Award(NamedTuple):  # a named tuple: built for every pot of every hand
    pot: int
    amount: int
    shares: tuple[tuple[int, int], ...]  # (position, chips)


def split_evenly(amount: int, winners: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """HE-7 decision: odd chips go one at a time to the tied winners clockwise from the
    first seat left of the button (lowest position first).

    >>> split_evenly(101, [4, 1, 2])
    ((1, 34), (2, 34), (4, 33))
    """
    if len(winners) == 1:
        return ((winners[0], amount),)
    ordered = sorted(winners)
    share, odd = divmod(amount, len(ordered))
    return tuple((i, share + (1 if k < odd else 0)) for k, i in enumerate(ordered))


def award_pots(
    pots: Sequence[Pot], shown: Mapping[int, int], live: Sequence[int]
) -> Iterator[Award]:
    """Each pot to the best shown hand among its eligible players; uncontested to the last
    player in. `shown` maps position -> hand strength of every hand tabled."""
    for index, pot in enumerate(pots):
        if len(live) == 1:
            yield Award(index, pot.amount, ((live[0], pot.amount),))
            continue
        best = max([shown[i] for i in pot.eligible if i in shown])
        winners = [i for i in pot.eligible if shown.get(i) == best]
        yield Award(index, pot.amount, split_evenly(pot.amount, winners))
