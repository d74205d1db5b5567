"""Amounts of money as people read them (the ledger keeps integer cents), for every view:
the report, `mtt ctl`'s tables."""

from __future__ import annotations

__all__ = ["money"]


def money(cents: int) -> str:
    """Cents as an amount.

    >>> money(123456), money(5), money(-250)
    ('1,234.56', '0.05', '-2.50')
    """
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{part:02d}"
