"""Errors of the Swiss and top-cut core (and of the season league, which shares them).

    CompetitionError            anything the competition core refuses; `rule` names the RULES.md ID
    ├── InvalidInput            a file or value that is malformed: unknown keys, wrong types
    │   ├── UnknownPlayer       a name that is not registered in this event
    │   └── ImpossibleResult    a match result the rules cannot produce (3-0, 2-2, a drawn cut)
    └── InvalidState            a command that does not fit the event's state now
                                (pairing before the round is reported, a cut before the Swiss ends)

Every operation checks before it builds the new state, so a refused command changes nothing.
"""

from __future__ import annotations

__all__ = [
    "CompetitionError",
    "ImpossibleResult",
    "InvalidInput",
    "InvalidState",
    "UnknownPlayer",
]


class CompetitionError(Exception):
    """Base of the competition core's refusals."""

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(f"{rule}: {message}" if rule else message)
        self.rule = rule


class InvalidInput(CompetitionError):
    """Malformed input: the operator must fix the file or the argument."""


class UnknownPlayer(InvalidInput):
    """A player name that the event does not know."""


class ImpossibleResult(InvalidInput):
    """A match result that no best-of-three match can end with."""


class InvalidState(CompetitionError):
    """The command is well formed but not allowed at this point of the event."""
