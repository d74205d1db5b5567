"""Errors of the orchestrator, all in one place.

Hierarchy::

    OrchestratorError                  every error the orchestrator core raises on purpose
    ├── ConfigError                    a tournament config that cannot run: unknown keys,
    │                                  impossible values (orchestrator.config)
    ├── ReportError                    a table's hand report that does not match the hand it
    │                                  was dealt, or comes from a table that is not open
    └── FloorError                     the table floor refused a request (orchestrator.floor);
        │                              the floor's state is unchanged when it is raised
        ├── InvalidSeatingError        impossible seating: bad max_per_table, duplicate or too
        │                              few players, a seat outside 1..max_per_table
        ├── UnknownTableError          a table that was never opened or is already closed
        ├── UnknownPlayerError         a player who was never seated (also a LookupError)
        ├── PlayerEliminatedError      a player already eliminated, e.g. eliminated twice
        │                              (also a LookupError)
        └── InvalidReportError         a hand report that cannot be true: a player who is not
                                       at that table, a big blind seat outside the table,
                                       every player of the table eliminated in one hand

Domain errors (a report that breaks the rules) live here; infrastructure errors (a store
down) get their own branch when the shells add them, translated with ``raise ... from exc``.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "FloorError",
    "InvalidReportError",
    "InvalidSeatingError",
    "OrchestratorError",
    "PlayerEliminatedError",
    "ReportError",
    "UnknownPlayerError",
    "UnknownTableError",
]


class OrchestratorError(Exception):
    """Base of every error the orchestrator raises on purpose."""


class FloorError(OrchestratorError):
    """The table floor (seating, balancing, closing) refused a request; state unchanged."""


class InvalidSeatingError(FloorError):
    """An impossible seating: bad `max_per_table`, duplicate or too few players, bad seat."""


class UnknownTableError(FloorError):
    """A table that was never opened or is already closed."""


class UnknownPlayerError(FloorError, LookupError):
    """A player who was never seated in this tournament."""


class PlayerEliminatedError(FloorError, LookupError):
    """A player already eliminated (reported eliminated twice, or looked up afterwards)."""


class InvalidReportError(FloorError):
    """A hand report that cannot be true for the floor's current seating."""


class ConfigError(OrchestratorError, ValueError):
    """A tournament config that cannot run; the message names the key and what is wrong."""


class ReportError(OrchestratorError):
    """A hand report the core refuses; the tournament state is unchanged."""
