"""What one step of the tournament core returns: the events to log first, then what the shell
carries out (DESIGN.md "Decisions are returned, not inferred"). Pure data."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.core.events import Event
from table_worker.protocol import TableDirective

__all__ = ["Directive", "OpenTable", "StartSideEvent", "Step"]


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table the step opened: start its actor, which carries out `first` (deal or wait)."""

    first: TableDirective

    @property
    def table(self) -> int:
        return self.first.table


@dataclass(frozen=True, slots=True)
class StartSideEvent:
    """RB-6: a side event the step filled: run it beside this tournament with `players`."""

    event: int
    players: tuple[str, ...]


Directive = OpenTable | StartSideEvent


@dataclass(frozen=True, slots=True)
class Step:
    """One decision: events to log first (a report's hand_finished, if any, first), then what
    the shell carries out: `reply` for the table that asked, and `directives` (tables to open,
    side events to start) in order. The shell reads nothing back from the events."""

    events: list[Event]
    reply: TableDirective | None = None
    directives: tuple[Directive, ...] = ()
