"""Pre-paid rebuys (RB-2..RB-4): when a player may or must rebuy, and what unused rebuys turn
into at the end of the rebuy period; and the rebuy tournament's structure, which takes them
at each player's hand boundary. Pure.

`auto = true` (the default) is the room's auto-rebuy setting, a tournament option as online
rooms offer it: every player takes each rebuy he may, at his boundary (the bots play with it
on). With `auto = false` a player rebuys when he asks (`Tournament.request_rebuy`, a logged
command) or when he must (no chips, RB-3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestrator.core.config import RebuyRules
from orchestrator.core.events import Addon, Event, Rebuy, RebuyRequested
from orchestrator.core.play import Play
from orchestrator.core.structures import Structure
from orchestrator.errors import ReportError

__all__ = ["ChipsAdded", "Rebuys", "boundary_rebuy", "conversion_chips", "rebuy_open"]


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


@dataclass(slots=True)
class Rebuys(Structure):
    """RB-2..RB-4 in play: the rebuys each player has left (every entry pre-pays
    `rules.rebuys`), and the requests waiting for the players' next boundaries."""

    rules: RebuyRules
    left: dict[str, int] = field(default_factory=dict)  # players not in it have them all
    asked: set[str] = field(default_factory=set)

    def verify_request(self, play: Play, player: str) -> None:
        """Raise the `ReportError` that `request` would raise, or nothing (RB-3)."""
        rules = self.rules
        if player not in play.stacks:
            raise ReportError(f"{player!r} is not playing in this tournament")
        if not rebuy_open(rules, play.clock.level):
            raise ReportError(f"the rebuy period ended with level {rules.levels} (RB-4)")
        if not self._left(player):
            raise ReportError(f"{player} has no rebuys left (RB-2)")
        if play.stacks[player] > rules.threshold:
            raise ReportError(
                f"{player} holds {play.stacks[player]} chips: rebuys only at or below "
                f"{rules.threshold} (RB-3)"
            )

    def request(self, play: Play, player: str) -> list[Event]:
        """A player asks for a rebuy (RB-3); it is taken at his next hand boundary."""
        self.verify_request(play, player)
        self.asked.add(player)
        return [RebuyRequested(player=player)]

    def chips_added(self, play: Play, player: str) -> list[Event]:
        """At the player's boundary: a rebuy (RB-3), or after the period the conversion of
        the rebuys left (RB-4)."""
        left = self._left(player)
        if not left:
            return []
        stack = play.stacks[player]
        if not rebuy_open(self.rules, play.clock.level):
            chips = conversion_chips(self.rules, stack=stack, unused=left)  # RB-4
            self.left[player] = 0
            play.stacks[player] = stack + chips
            return [Addon(player=player, chips=chips)]
        added = boundary_rebuy(
            self.rules,
            player=player,
            stack=stack,
            left=left,
            level=play.clock.level,
            asked=player in self.asked,
        )
        self.asked.discard(player)
        if added is None:
            return []
        self.left[player] = left - 1
        play.stacks[player] = stack + added.chips
        return [Rebuy(player=player, chips=added.chips)]

    def _left(self, player: str) -> int:
        return self.left.get(player, self.rules.rebuys)
