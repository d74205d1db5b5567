"""Prize pool and payouts, exact integers in the smallest currency unit (PAY-1).

The default table, for any field size: `paid_percent` of the entries are paid (15 unless the
config says otherwise); every paid place first gets a floor, a min-cash of about 1.5
buy-ins (all the floors together at most a quarter of the pool), and the rest of the pool
follows the smooth curve `1 / (place + 1.7) ** 1.8`. For large fields first place takes
about 20% of the pool and the final table about 60%, close to the tables that large online
rooms publish (checked in `tests/test_payouts.py`). Shares are parts per million, then
cents: `payouts` rounds every prize down and gives the cents left to first place, so the
prizes add up to the pool exactly and never increase from one place to the next.

Ties that ELIM-1 cannot break (PAY-1: equal starting stacks at different tables in one
hand-for-hand round) share the sum of their places' prizes equally (`split_ties`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "DEFAULT_PAID_PERCENT",
    "MILLION",
    "default_shares",
    "paid_places",
    "payouts",
    "prize_table",
    "split_ties",
]

DEFAULT_PAID_PERCENT = 15  # PAY-1
MILLION = 1_000_000  # default shares are parts per million of the pool
_CURVE_OFFSET = 1.7  # the curve's shape, fitted to published tables for 100..1,000 entries
_CURVE_EXPONENT = 1.8
_MIN_CASH_BUY_INS = 1.5  # each paid place's floor, in buy-ins...
_FLOORS_AT_MOST = 0.25  # ...while all the floors together take at most a quarter of the pool


def paid_places(entries: int, paid_percent: int | None = None) -> int:
    """PAY-1: how many places the default table pays: `paid_percent` (default 15) of the
    entries, rounded; one below 10 entries, at least three from 10, never more than entered.

    >>> paid_places(9), paid_places(10), paid_places(1000), paid_places(1000, 10)
    (1, 3, 150, 100)
    """
    percent = DEFAULT_PAID_PERCENT if paid_percent is None else paid_percent
    if entries < 10:
        return 1
    return min(entries, max(3, round(entries * percent / 100)))


def default_shares(entries: int, paid_percent: int | None = None) -> tuple[int, ...]:
    """The default payout table for this many entries, each paid place's share of the pool in
    parts per million (they add up to exactly one million, first place taking the rounding).

    >>> default_shares(6)
    (1000000,)
    >>> [round(s / 10_000, 1) for s in default_shares(1000)[:3]], len(default_shares(1000))
    ([20.6, 11.7, 7.7], 150)
    """
    paid = paid_places(entries, paid_percent)
    floors = min(_MIN_CASH_BUY_INS * paid / entries, _FLOORS_AT_MOST) if paid > 1 else 0.0
    curve = [1 / (place + _CURVE_OFFSET) ** _CURVE_EXPONENT for place in range(1, paid + 1)]
    total = sum(curve)
    shares = [int(MILLION * (floors / paid + (1 - floors) * w / total)) for w in curve]
    shares[0] += MILLION - sum(shares)
    return tuple(shares)


def payouts(prize_pool: int, shares: Sequence[int]) -> list[int]:
    """Each place's prize: floor(pool * share / total); the few units lost to rounding go to
    first place (our documented rule), so the prizes add up to the pool exactly.

    >>> payouts(1001, [5000, 3000, 2000])
    [501, 300, 200]
    """
    total = sum(shares)
    amounts = [prize_pool * share // total for share in shares]
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
    [471, 303, 226]
    """
    if percent:
        shares = [p * 10_000 for p in percent]
    else:
        shares = list(default_shares(entries, paid_percent))
    return payouts(prize_pool, shares[:field_size])


def split_ties(prizes: Sequence[int], ties: Iterable[Sequence[int]]) -> list[int]:
    """PAY-1: each group of tied places (place numbers, best first) shares the sum of those
    places' prizes equally; the cents that do not divide go one each to the group's better
    places, so the total paid is unchanged. Places beyond the table win nothing.

    >>> split_ties([500, 300, 150, 50], [(3, 4, 5)])
    [500, 300, 67, 67, 66]
    """
    tied = [tuple(group) for group in ties]
    last = max([len(prizes), *(max(group) for group in tied if group)])
    amounts = [prizes[k] if k < len(prizes) else 0 for k in range(last)]
    for group in tied:
        pot = sum(amounts[place - 1] for place in group)
        each, extra = divmod(pot, len(group))
        for k, place in enumerate(sorted(group)):
            amounts[place - 1] = each + (1 if k < extra else 0)
    return amounts
