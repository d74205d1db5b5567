"""CRASH-2's split of the pool not yet awarded among the players still in, to the cent (the
remainder rule of `orchestrator.core.ledger`'s docstring). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["roll_forward_split"]


def roll_forward_split(
    equal_half: int, chip_half: int, weights: Mapping[str, int], order: Sequence[str]
) -> tuple[dict[str, int], dict[str, int]]:
    """CRASH-2: each player's equal and chip shares. His total is his exact share (`equal_half /
    n + chip_half * weight / total`) rounded down, plus one of the leftover cents for the
    largest fractional remainders, equal remainders in `order` (the remainder rule). The total
    is then split into its two parts so that each half pays out exactly.

    >>> roll_forward_split(4, 3, {"a": 1, "b": 1, "c": 1}, ["a", "b", "c"])
    ({'a': 2, 'b': 1, 'c': 1}, {'a': 1, 'b': 1, 'c': 1})
    >>> # bob's .67 beats ann's .33:
    >>> roll_forward_split(10_500, 10_499, {"ann": 2, "bob": 1}, ["ann", "bob"])
    ({'ann': 5250, 'bob': 5250}, {'ann': 6999, 'bob': 3500})
    """
    n, total = len(order), sum(weights.values())
    denominator = n * total
    exact = {p: equal_half * total + chip_half * weights[p] * n for p in order}  # / denominator
    shares = {p: exact[p] // denominator for p in order}
    leftover = equal_half + chip_half - sum(shares.values())
    rank = {p: k for k, p in enumerate(order)}
    for player in sorted(order, key=lambda p: (-(exact[p] % denominator), rank[p]))[:leftover]:
        shares[player] += 1
    # The two parts: each at least its own share rounded down; the cents above that go to the
    # equal half first, while it still owes some, the rest to the chip half.
    equal = {p: equal_half // n for p in order}
    by_chips = {p: chip_half * weights[p] // total for p in order}
    owed = equal_half - sum(equal.values())
    for player in order:
        extra = shares[player] - equal[player] - by_chips[player]
        to_equal = min(extra, owed)
        equal[player] += to_equal
        by_chips[player] += extra - to_equal
        owed -= to_equal
    return equal, by_chips
