"""Each player's Swiss record, folded from the reported rounds: points (SW-3), byes (SW-2),
opponents and games. Pairing and standings both read it; top-cut rounds are not included."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from orchestrator.competition.swiss.model import DRAW_POINTS, WIN_POINTS, Outcome, Round, Stage

__all__ = ["PlayerRecord", "fold_records"]


@dataclass(slots=True)
class PlayerRecord:
    """Mutable only while folding; read-only afterwards by convention."""

    name: str
    wins: int = 0  # matches won over the board (byes are not matches, SW-2)
    draws: int = 0
    losses: int = 0
    byes: int = 0
    game_wins: int = 0
    game_losses: int = 0
    game_draws: int = 0
    opponents: list[str] = field(default_factory=list)  # reported matches only
    faced: set[str] = field(default_factory=set)  # every pairing, reported or not (rematches)

    @property
    def points(self) -> int:
        # SW-2: a bye is worth a win; SW-3: 3 a win, 1 a draw.
        return WIN_POINTS * (self.wins + self.byes) + DRAW_POINTS * self.draws

    @property
    def matches(self) -> int:
        """Matches played; a bye is not one (SW-2)."""
        return self.wins + self.draws + self.losses

    @property
    def match_points(self) -> int:
        """Points from matches played, without byes: the numerator of match-win %."""
        return WIN_POINTS * self.wins + DRAW_POINTS * self.draws

    @property
    def games(self) -> int:
        return self.game_wins + self.game_losses + self.game_draws


def fold_records(names: Iterable[str], rounds: Iterable[Round]) -> dict[str, PlayerRecord]:
    records = {name: PlayerRecord(name) for name in names}
    for round_ in rounds:
        if round_.stage is not Stage.SWISS:
            continue
        for pairing in round_.pairings:
            a = records[pairing.a]
            if pairing.b is None:
                a.byes += 1
                continue
            b = records[pairing.b]
            a.faced.add(b.name)
            b.faced.add(a.name)
            result = pairing.result
            if result is None:
                continue
            a.opponents.append(b.name)
            b.opponents.append(a.name)
            a.game_wins += result.games_a
            a.game_losses += result.games_b
            b.game_wins += result.games_b
            b.game_losses += result.games_a
            a.game_draws += result.games_drawn
            b.game_draws += result.games_drawn
            outcome = result.outcome
            if outcome is Outcome.DRAW:
                a.draws += 1
                b.draws += 1
            elif outcome is Outcome.WIN_A:
                a.wins += 1
                b.losses += 1
            else:
                b.wins += 1
                a.losses += 1
    return records
