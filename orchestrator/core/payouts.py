"""Prize pool and payouts, exact integers in the smallest currency unit."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["default_percentages", "payouts", "prize_table"]


def default_percentages(entries: int, paid_percent: int | None = None) -> tuple[int, ...]:
    """The default payout table scaled by field size, in whole basis points, weights falling as
    1/place**0.9. Paid: `paid_percent` of the entries when given (PAY-1), else about one entry
    in seven; at least one, three from 10 entries.

    >>> default_percentages(6), default_percentages(10)
    ((10000,), (5243, 2808, 1949))
    >>> len(default_percentages(1000)), len(default_percentages(1000, paid_percent=15))
    (143, 150)
    """
    share = entries / 7 if paid_percent is None else entries * paid_percent / 100
    paid = 1 if entries < 10 else max(3, round(share))
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
    prize_pool: int,
    *,
    percent: Sequence[int] | None,
    entries: int,
    field_size: int,
    paid_percent: int | None = None,
) -> list[int]:
    """Prize by place (index 0 is first): the configured percentages, or the default table for
    this many entries (`paid_percent` of them paid, PAY-1); never more places than different
    players.

    >>> prize_table(1000, percent=(50, 30, 20), entries=2, field_size=2)
    [625, 375]
    >>> prize_table(1000, percent=None, entries=10, field_size=10)
    [526, 280, 194]
    """
    if percent:
        points = [p * 100 for p in percent]
    else:
        points = list(default_percentages(entries, paid_percent))
    return payouts(prize_pool, points[:field_size])
