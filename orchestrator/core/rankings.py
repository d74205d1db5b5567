"""Skill levels and the room's rankings (SKILL-1..SKILL-3). Pure.

- SKILL-1: a ranking (a whole number above 100) falls in one of four levels, `SkillLevel`,
  with RULES.md's (low, high] bounds.
- SKILL-2: a tournament may admit only the rankings of a `SkillRange` (registration checks it).
- SKILL-3: new players start at `STARTING_RANKING`, a Beginner; each tournament's final places
  move a ranking by `ranking_change`, never below the floor of the level it had reached.

`Rankings` is the room's record across tournaments; a tournament's registration reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from orchestrator.core.events import RankingUpdated
from orchestrator.errors import UnknownEntrantError

__all__ = [
    "RANKING_STEP",
    "STARTING_RANKING",
    "Rankings",
    "SkillLevel",
    "SkillRange",
    "ranking_change",
    "skill_level",
]


class SkillLevel(Enum):
    """SKILL-1, with RULES.md's decision closing the source's gaps: (low, high] bounds."""

    BEGINNER = ("Beginner", 100, 250)
    EXPERT = ("Expert", 250, 500)
    PROFESSIONAL = ("Professional", 500, 750)
    LEGEND = ("Legend", 750, None)

    def __init__(self, label: str, above: int, up_to: int | None) -> None:
        self.label = label
        self.above = above
        self.up_to = up_to

    @property
    def floor(self) -> int:
        """The lowest ranking of the level (rankings are whole numbers)."""
        return self.above + 1


STARTING_RANKING = 175  # SKILL-3: new players are Beginners, in the middle of the level
RANKING_STEP = 20  # points the winner gains (and the last loses) in one tournament


def skill_level(ranking: int) -> SkillLevel:
    """SKILL-1: the level of a ranking.

    >>> [skill_level(r).label for r in (101, 250, 251, 500, 501, 751)]
    ['Beginner', 'Beginner', 'Expert', 'Expert', 'Professional', 'Legend']
    """
    if type(ranking) is not int or ranking <= SkillLevel.BEGINNER.above:
        raise ValueError(f"SKILL-1: rankings are whole numbers above 100, not {ranking!r}")
    for level in SkillLevel:
        if level.up_to is None or ranking <= level.up_to:
            return level
    raise AssertionError("unreachable: LEGEND has no upper bound")


def ranking_change(place: int, field: int) -> int:
    """SKILL-3, our simple rule: points by place relative to the field,
    `RANKING_STEP * (field + 1 - 2 * place) // (field - 1)`: the winner +20, the last -20,
    the middle about 0, rounded down; a field of one changes nothing.

    >>> [ranking_change(p, 5) for p in range(1, 6)]
    [20, 10, 0, -10, -20]
    """
    if not 1 <= place <= field:
        raise ValueError(f"SKILL-3: place {place} is outside a field of {field}")
    if field == 1:
        return 0
    return RANKING_STEP * (field + 1 - 2 * place) // (field - 1)


class Rankings:
    """The room's rankings (SKILL-3): new players start at `STARTING_RANKING` (Beginner);
    results move a ranking by `ranking_change`, never below the floor of the level it had
    reached (an Expert never becomes a Beginner again)."""

    def __init__(self, rankings: Mapping[str, int] | None = None) -> None:
        self._rankings: dict[str, int] = {}
        for player, ranking in (rankings or {}).items():
            skill_level(ranking)  # refuses a ranking outside every level
            self._rankings[player] = ranking

    def __contains__(self, player: object) -> bool:
        return player in self._rankings

    def ranking(self, player: str) -> int:
        if player not in self._rankings:
            raise UnknownEntrantError(f"SKILL-3: {player!r} has no ranking in this room")
        return self._rankings[player]

    def level(self, player: str) -> SkillLevel:
        return skill_level(self.ranking(player))

    def as_dict(self) -> dict[str, int]:
        return dict(self._rankings)

    def add_player(self, player: str) -> int:
        """SKILL-3: a new player starts as a Beginner."""
        if not player:
            raise UnknownEntrantError("a player needs a name")
        return self._rankings.setdefault(player, STARTING_RANKING)

    def record_results(
        self, places: Mapping[str, int], *, field: int | None = None
    ) -> tuple[RankingUpdated, ...]:
        """Apply one tournament's final places (`field` defaults to the number of players
        placed; pass the entries when re-entries made places beyond it). All or nothing."""
        size = len(places) if field is None else field
        updates: list[RankingUpdated] = []
        for player in sorted(places, key=lambda p: (places[p], p)):
            before = self.ranking(player)
            floor = skill_level(before).floor  # SKILL-3: never below the level reached
            after = max(before + ranking_change(places[player], size), floor)
            updates.append(
                RankingUpdated(
                    player=player, before=before, after=after, level=skill_level(after).label
                )
            )
        for update in updates:
            self._rankings[update.player] = update.after
        return tuple(updates)


@dataclass(frozen=True, slots=True)
class SkillRange:
    """SKILL-2: the rankings a tournament admits, both ends included (None: no bound)."""

    lowest: int | None = None
    highest: int | None = None

    @classmethod
    def of_levels(cls, first: SkillLevel, last: SkillLevel | None = None) -> SkillRange:
        """Every ranking from `first` to `last` (default: `first` only).

        >>> SkillRange.of_levels(SkillLevel.EXPERT, SkillLevel.PROFESSIONAL)
        SkillRange(lowest=251, highest=750)
        """
        end = last or first
        return cls(first.floor, end.up_to)

    def admits(self, ranking: int) -> bool:
        return (self.lowest is None or ranking >= self.lowest) and (
            self.highest is None or ranking <= self.highest
        )

    def __str__(self) -> str:
        return f"{self.lowest or 'any'}..{self.highest or 'any'}"
