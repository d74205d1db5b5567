"""Prize pool and payouts, exact integers in the smallest currency unit."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["default_percentages", "payouts", "prize_table"]


def default_percentages(entries: int) -> tuple[int, ...]:
    """The default payout table scaled by field size: about one entry in seven is paid (at
    least one, three from 10 entries), weights falling as 1/place**0.9, in whole basis points.

    >>> default_percentages(6), default_percentages(10)
    ((10000,), (5243, 2808, 1949))
    """
    paid = 1 if entries < 10 else max(3, round(entries / 7))
    weights = [1 / (place**0.9) for place in range(1, paid + 1)]
    total = sum(weights)
    points = [int(10_000 * w / total) for w in weights]
    points[0] += 10_000 - sum(points)
    return tuple(points)


def payouts(prize_pool: int, basis_points: Sequence[int]) -> list[int]:
    """Each place's prize: floor(pool * share); the few units lost to rounding go to first place
    (our documented rule), so the prizes add up to the pool exactly.

    >>> payouts(1001, [5000, 3000, 2000])
    [501, 300, 200]
    """
    total = sum(basis_points)
    amounts = [prize_pool * share // total for share in basis_points]
    amounts[0] += prize_pool - sum(amounts)
    return amounts


def prize_table(
    prize_pool: int, *, percent: Sequence[int] | None, entries: int, field_size: int
) -> list[int]:
    """Prize by place (index 0 is first): the configured percentages, or the default table for
    this many entries; never more places than different players.

    >>> prize_table(1000, percent=(50, 30, 20), entries=2, field_size=2)
    [625, 375]
    >>> prize_table(1000, percent=None, entries=10, field_size=10)
    [526, 280, 194]
    """
    points = [p * 100 for p in percent] if percent else list(default_percentages(entries))
    return payouts(prize_pool, points[:field_size])
