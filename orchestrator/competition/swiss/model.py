"""The records of a Swiss event: configuration, players, rounds, results, sanctions.

All frozen; an operation on the event (see `event.py`) returns a new `SwissState`. Points are
integers (SW-3: 3 a win, 1 a draw); percentages are exact `Fraction`s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from orchestrator.competition.swiss.errors import ImpossibleResult
from orchestrator.competition.swiss.structure import Structure

__all__ = [
    "DRAW_POINTS",
    "WIN_POINTS",
    "CutRule",
    "EventConfig",
    "MatchResult",
    "Outcome",
    "Pairing",
    "Player",
    "PokerConfig",
    "Round",
    "Sanction",
    "SanctionKind",
    "Stage",
    "SwissState",
    "Tiebreaker",
]

WIN_POINTS = 3  # SW-3
DRAW_POINTS = 1  # SW-3, also an intentional draw


class CutRule(StrEnum):
    """SW-5: `seed` is 1v8, 2v7, ...; `choice` lets the better half pick their opponents.
    The source: when no rule is announced, the seed rule ("dado") applies."""

    SEED = "seed"
    CHOICE = "choice"


class Tiebreaker(StrEnum):
    OMW = "omw"  # opponents' match-win %, each opponent floored at 0.33
    GW = "gw"  # own game-win %, floored at 0.33
    OGW = "ogw"  # opponents' game-win %, each floored at 0.33
    BUCHHOLZ = "buchholz"  # sum of the opponents' points


class Stage(StrEnum):
    SWISS = "swiss"
    CUT = "cut"


class Outcome(StrEnum):
    WIN_A = "a"
    WIN_B = "b"
    DRAW = "draw"


class SanctionKind(StrEnum):
    WARNING = "warning"
    DISQUALIFICATION = "disqualification"


@dataclass(frozen=True, slots=True, kw_only=True)
class PokerConfig:
    """A heads-up game between two bots (`poker.py`): blinds double every `double_every`
    hands; at `hand_cap` hands the chip leader wins (equal stacks: a coin flip)."""

    starting_stack: int = 1_000
    small_blind: int = 10
    big_blind: int = 20
    double_every: int = 10
    hand_cap: int = 200
    bots: Mapping[str, str] = field(default_factory=lambda: {"*": "strength"})

    def bot_for(self, player: str) -> str:
        return self.bots.get(player, self.bots.get("*", "strength"))


@dataclass(frozen=True, slots=True, kw_only=True)
class EventConfig:
    name: str
    seed: int
    fewer_rounds_top16: bool = False  # SW-1 organiser's option (24+ players)
    cut_rule: CutRule = CutRule.SEED  # SW-5
    third_place: bool = True  # SW-4
    deck_checks: bool = True  # SW-6 (optional in the source, announced at the start)
    tiebreakers: tuple[Tiebreaker, ...] = (Tiebreaker.OMW, Tiebreaker.GW, Tiebreaker.OGW)
    head_judge: str = ""  # SAN-2
    poker: PokerConfig = field(default_factory=PokerConfig)


@dataclass(frozen=True, slots=True, kw_only=True)
class Player:
    name: str
    lot: int  # drawn at entry: the last tie-break, so equal records still order the same way
    joined_round: int = 1  # a late entry joins before this round
    dropped_after: int | None = None  # never paired in a round after this one


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchResult:
    """Games won by the first and second player at the table, and drawn games.

    Best of three (SW-4): nobody wins more than 2 games and not both reach 2. A drawn game does
    not count toward the three, so draws are bounded only loosely (at most 3)."""

    games_a: int
    games_b: int
    games_drawn: int = 0
    intentional_draw: bool = False  # SW-3: declared at the start of the round, 1 point each

    def __post_init__(self) -> None:
        counts = (self.games_a, self.games_b, self.games_drawn)
        if any(type(c) is not int or c < 0 for c in counts):
            raise ImpossibleResult(f"games must be whole numbers >= 0, not {counts}", rule="SW-4")
        if self.games_a > 2 or self.games_b > 2:
            raise ImpossibleResult(
                f"best of three: nobody wins more than 2 games ({self.score})", rule="SW-4"
            )
        if self.games_a == 2 and self.games_b == 2:
            raise ImpossibleResult("best of three: both players cannot win 2 games", rule="SW-4")
        if self.games_drawn > 3:
            raise ImpossibleResult(f"more than 3 drawn games ({self.score})", rule="SW-4")
        if self.intentional_draw and any(counts):
            raise ImpossibleResult(
                f"an intentional draw is agreed before playing: no games ({self.score})",
                rule="SW-3",
            )

    @property
    def outcome(self) -> Outcome:
        if self.games_a > self.games_b:
            return Outcome.WIN_A
        if self.games_b > self.games_a:
            return Outcome.WIN_B
        return Outcome.DRAW

    @property
    def score(self) -> str:
        if self.intentional_draw:
            return "ID"
        base = f"{self.games_a}-{self.games_b}"
        return f"{base}-{self.games_drawn}" if self.games_drawn else base


@dataclass(frozen=True, slots=True, kw_only=True)
class Pairing:
    """One table of a round. `b` is None for a bye (SW-2), whose result is implied.
    In the top cut, `chooser` is the better seed, who chooses who starts (SW-5)."""

    table: int
    a: str
    b: str | None
    result: MatchResult | None = None
    label: str = ""
    chooser: str | None = None

    @property
    def is_bye(self) -> bool:
        return self.b is None

    @property
    def is_reported(self) -> bool:
        return self.is_bye or self.result is not None

    def winner(self) -> str | None:
        if self.b is None:
            return self.a
        if self.result is None:
            return None
        outcome = self.result.outcome
        return self.a if outcome is Outcome.WIN_A else self.b if outcome is Outcome.WIN_B else None

    def loser(self) -> str | None:
        won = self.winner()
        if won is None or self.b is None:
            return None
        return self.b if won == self.a else self.a


@dataclass(frozen=True, slots=True, kw_only=True)
class Round:
    number: int
    stage: Stage
    pairings: tuple[Pairing, ...]
    deck_check: int | None = None  # SW-6: the table drawn for a deck check (a bye included)
    log: tuple[str, ...] = ()  # why each bye, pair-down and relaxation happened

    @property
    def is_complete(self) -> bool:
        return all(p.is_reported for p in self.pairings)

    def table(self, number: int) -> Pairing | None:
        return next((p for p in self.pairings if p.table == number), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Sanction:
    """SAN-2: who was penalised, how, by which judge, why and when (ISO time from the shell)."""

    player: str
    kind: SanctionKind
    judge: str
    reason: str
    at: str
    round: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SwissState:
    config: EventConfig
    players: tuple[Player, ...]
    rounds: tuple[Round, ...] = ()
    sanctions: tuple[Sanction, ...] = ()
    structure: Structure | None = None  # fixed by SW-1 when round 1 is paired
    cut_seeds: tuple[str, ...] = ()  # top-cut seeds in order, once the cut starts
    cut_log: tuple[str, ...] = ()

    def player(self, name: str) -> Player | None:
        return next((p for p in self.players if p.name == name), None)

    @property
    def swiss_rounds(self) -> tuple[Round, ...]:
        return tuple(r for r in self.rounds if r.stage is Stage.SWISS)

    @property
    def cut_rounds(self) -> tuple[Round, ...]:
        return tuple(r for r in self.rounds if r.stage is Stage.CUT)

    def disqualified(self) -> frozenset[str]:
        return frozenset(
            s.player for s in self.sanctions if s.kind is SanctionKind.DISQUALIFICATION
        )

    def is_active(self, name: str, round_number: int) -> bool:
        """May `name` be paired in round `round_number`? Not if dropped before it, not yet
        entered, or disqualified (SAN-1)."""
        player = self.player(name)
        if player is None or name in self.disqualified():
            return False
        if player.joined_round > round_number:
            return False
        return player.dropped_after is None or player.dropped_after >= round_number
