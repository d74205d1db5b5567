"""How a run's bots played, from its hand histories (`hands/*.phhs`, DESIGN.md's PHH): by bot
policy and for the whole field, the share of hands each group put money in voluntarily before
the flop (VPIP: a call or a raise, not a blind or the big blind's check), raised before the flop
(PFR), and went to showdown (showed or mucked at the end), and the hands dealt per player.

`play_styles` is pure: it takes the hands as PHH fields (what `tomllib` reads from a section)
and a function giving each player's policy (`table_worker.bots.policy_for` in a run).
`read_hands` reads a run's folder of `.phhs` files, each once.

>>> hand = {
...     "players": ["a", "b", "c"], "blinds_or_straddles": [50, 100, 0],
...     "starting_stacks": [1000, 1000, 1000], "antes": [0, 0, 0],
...     "actions": ["d dh p1 AsAh", "d dh p2 7c2d", "d dh p3 KsKd", "p3 cbr 300", "p1 cc",
...                 "p2 f", "d db 2s3s4s", "p1 cc", "p3 cc", "d db 5h", "p1 cc", "p3 cc",
...                 "d db 9c", "p1 cc", "p3 cc", "p1 sm AsAh", "p3 sm"],
... }
>>> for r in play_styles([hand], {"a": "x", "c": "x"}.get):
...     print(r.policy, r.players, round(r.vpip, 2), round(r.pfr, 2), round(r.showdown, 2))
x 2 1.0 0.5 1.0
? 1 0.0 0.0 0.0
all 3 0.67 0.33 0.67
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.views.audit import read_hand_files

__all__ = ["PlayStyle", "format_play_styles", "play_styles", "read_hands"]


@dataclass(frozen=True, slots=True)
class PlayStyle:
    """One group of players (a bot policy, or ``all``) and how it played; shares are of the
    hands dealt to its players."""

    policy: str
    players: int
    hands: int  # hands dealt, counted once per player dealt in
    vpip: float
    pfr: float
    showdown: float

    @property
    def hands_per_player(self) -> float:
        return self.hands / self.players if self.players else 0.0


@dataclass(slots=True)
class _Tally:
    players: set[str]
    hands: int = 0
    vpip: int = 0
    pfr: int = 0
    showdown: int = 0

    def figures(self, policy: str) -> PlayStyle:
        n = max(1, self.hands)
        return PlayStyle(
            policy, len(self.players), self.hands, self.vpip / n, self.pfr / n, self.showdown / n
        )


def play_styles(
    hands: Iterable[Mapping[str, Any]], policy_of: Callable[[str], str | None]
) -> list[PlayStyle]:
    """VPIP, PFR, showdown share and hands per player by policy (a player `policy_of` knows
    nothing of counts as ``?``), the most numerous policy first, then the field as ``all``."""
    tallies: dict[str, _Tally] = {}
    field = _Tally(set())
    for hand in hands:
        for player, (vpip, pfr, showdown) in _hand_figures(hand).items():
            policy = policy_of(player) or "?"
            for tally in (tallies.setdefault(policy, _Tally(set())), field):
                tally.players.add(player)
                tally.hands += 1
                tally.vpip += vpip
                tally.pfr += pfr
                tally.showdown += showdown
    rows = sorted(tallies.items(), key=lambda item: (-len(item[1].players), item[0]))
    return [tally.figures(policy) for policy, tally in rows] + [field.figures("all")]


def _hand_figures(hand: Mapping[str, Any]) -> dict[str, tuple[bool, bool, bool]]:
    """Per player of one PHH hand: (VPIP, PFR, went to showdown)."""
    players: list[str] = list(hand["players"])
    n = len(players)
    blinds = list(hand["blinds_or_straddles"])
    if n == 2:  # heads-up PHH lists the blinds reversed (table_worker.phh.blinds_by_position)
        blinds.reverse()
    stacks = [s - a for s, a in zip(hand["starting_stacks"], hand["antes"], strict=True)]
    bets = [min(b, s) for b, s in zip(blinds, stacks, strict=True)]
    top = max(bets)
    vpip, pfr, showdown = [False] * n, [False] * n, [False] * n
    flop = False
    for action in hand["actions"]:
        actor, _, rest = str(action).partition(" ")
        if actor == "d":
            flop = flop or rest.startswith("db")
            continue
        k = int(actor[1:]) - 1
        verb, _, amount = rest.partition(" ")
        if verb == "sm":
            showdown[k] = True
        elif not flop and verb == "cbr":
            vpip[k] = pfr[k] = True
            bets[k] = int(amount)
            top = max(top, bets[k])
        elif not flop and verb == "cc" and bets[k] < top:
            vpip[k] = True
            bets[k] = min(top, stacks[k])
    return {p: (vpip[k], pfr[k], showdown[k]) for k, p in enumerate(players)}


def read_hands(folder: Path) -> Iterator[dict[str, Any]]:
    """Every hand of every `*.phhs` in `folder` (a run's `hands/`) as its PHH fields (read by
    the audit's reader, `views.audit.read_hand_files`)."""
    return (section.fields for section in read_hand_files(folder))


def format_play_styles(rows: Iterable[PlayStyle]) -> str:
    """The figures as a small table, for `mtt run`'s last lines.

    >>> print(format_play_styles([PlayStyle("tag", 7, 700, 0.2, 0.15, 0.1)]))
    bots            players  hands/player   VPIP    PFR  showdown
    tag                   7         100.0  20.0%  15.0%     10.0%
    """
    lines = [f"{'bots':<14}{'players':>9}{'hands/player':>14}{'VPIP':>7}{'PFR':>7}{'showdown':>10}"]
    for r in rows:
        lines.append(
            f"{r.policy:<14}{r.players:>9}{r.hands_per_player:>14.1f}{r.vpip:>7.1%}"
            f"{r.pfr:>7.1%}{r.showdown:>10.1%}"
        )
    return "\n".join(lines)
