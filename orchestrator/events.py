"""The tournament's events (DESIGN.md "Files written by mtt run": events.jsonl).

Each is a frozen record with the contract's field names; `EVENT_TYPE` is its `type`. The log
adds the envelope: `seq`, `ts`, and `cause` (the seq of the hand_finished that led to it).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar

__all__ = [
    "BreakStarted",
    "ButtonAssigned",
    "Event",
    "FinalTable",
    "HandFinished",
    "LevelStarted",
    "PlayerEliminated",
    "PlayerMoved",
    "PlayerSeated",
    "PrizeAwarded",
    "TableClosed",
    "TableOpened",
    "TournamentFinished",
    "TournamentStarted",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    EVENT_TYPE: ClassVar[str] = ""

    def fields(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentStarted(Event):
    EVENT_TYPE: ClassVar[str] = "tournament_started"
    tournament: str
    players: int
    tables: int
    max_per_table: int
    structure: str
    policy: str
    starting_stack: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TableOpened(Event):
    EVENT_TYPE: ClassVar[str] = "table_opened"
    table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSeated(Event):
    EVENT_TYPE: ClassVar[str] = "player_seated"
    player: str
    table: int
    seat: int
    stack: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ButtonAssigned(Event):
    EVENT_TYPE: ClassVar[str] = "button_assigned"
    table: int
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LevelStarted(Event):
    EVENT_TYPE: ClassVar[str] = "level_started"
    level: int
    small_blind: int
    big_blind: int
    ante: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BreakStarted(Event):
    EVENT_TYPE: ClassVar[str] = "break_started"
    minutes: int


@dataclass(frozen=True, slots=True)
class HandPlayer:
    player: str
    seat: int
    start: int
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandFinished(Event):
    EVENT_TYPE: ClassVar[str] = "hand_finished"
    table: int
    hand: int
    button: int
    players: tuple[HandPlayer, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerEliminated(Event):
    EVENT_TYPE: ClassVar[str] = "player_eliminated"
    player: str
    place: int
    table: int
    hand: int
    start: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerMoved(Event):
    EVENT_TYPE: ClassVar[str] = "player_moved"
    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    stack: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TableClosed(Event):
    EVENT_TYPE: ClassVar[str] = "table_closed"
    table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FinalTable(Event):
    EVENT_TYPE: ClassVar[str] = "final_table"
    table: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PrizeAwarded(Event):
    EVENT_TYPE: ClassVar[str] = "prize_awarded"
    player: str
    place: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentFinished(Event):
    EVENT_TYPE: ClassVar[str] = "tournament_finished"
    winner: str
    hands: int
    seconds: float
