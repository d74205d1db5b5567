"""Pre-paid rebuys (RB-2..RB-4): when a player may or must rebuy, and what unused rebuys turn
into at the end of the rebuy period. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.core.config import RebuyRules

__all__ = ["ChipsAdded", "boundary_rebuy", "conversion_chips", "rebuy_open"]


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    player: str
    kind: str  # "rebuy" or "addon" (the RB-4 conversion), as the event log names them
    chips: int


def rebuy_open(rules: RebuyRules, level: int) -> bool:
    """RB-3/RB-4: rebuys are taken during the first `rules.levels` levels (the first hour)."""
    return level <= rules.levels


def boundary_rebuy(
    rules: RebuyRules, *, player: str, stack: int, left: int, level: int, asked: bool
) -> ChipsAdded | None:
    """At a player's hand boundary: a busted player must rebuy if any remain (RB-3); one at or
    below the threshold may (asked, or bots under `auto`), one at a time.

    >>> rules = RebuyRules()
    >>> boundary_rebuy(rules, player="a", stack=0, left=1, level=2, asked=False)
    ChipsAdded(player='a', kind='rebuy', chips=1500)
    >>> boundary_rebuy(rules, player="a", stack=1501, left=3, level=2, asked=True) is None
    True
    """
    if left <= 0 or not rebuy_open(rules, level) or stack > rules.threshold:
        return None
    if stack == 0 or asked or rules.auto:
        return ChipsAdded(player, "rebuy", rules.chips)
    return None


def conversion_chips(rules: RebuyRules, *, stack: int, unused: int) -> int:
    """RB-4: at the first-hour break, unused rebuys become chips: with a stack of 1,500 or
    less one is worth 1,500 and each other 2,500; above 1,500 each is worth 2,500.

    >>> rules = RebuyRules()
    >>> conversion_chips(rules, stack=1200, unused=3), conversion_chips(rules, stack=4000, unused=2)
    (6500, 5000)
    """
    if unused <= 0:
        return 0
    if stack <= rules.threshold:
        return rules.first_conversion + (unused - 1) * rules.conversion
    return unused * rules.conversion
