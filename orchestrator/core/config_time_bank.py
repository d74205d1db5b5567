"""The time-bank keys of a tournament's [tournament] table (TB-1), each checked with the key
named. Pure. `time_bank_seconds` (0..3600, default 0: no bank), `time_bank_refill` (seconds
added back, 0..time_bank_seconds, default 0), `time_bank_every` (levels between refills,
1..1000, default 1); `core.config_toml` shows them in its example."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.core.config_checks import whole
from orchestrator.core.time_bank import TimeBankRules
from orchestrator.errors import ConfigError

__all__ = ["TIME_BANK_KEYS", "parse_time_bank"]

TIME_BANK_KEYS = frozenset({"time_bank_seconds", "time_bank_refill", "time_bank_every"})


def parse_time_bank(tournament: Mapping[str, Any]) -> dict[str, Any]:
    """TB-1: the three keys as `TournamentConfig` fields: each of the right kind, and
    together in range (`TimeBankRules` checks the ranges)."""
    rules = TimeBankRules(
        seconds=_seconds(tournament.get("time_bank_seconds", 0), "time_bank_seconds"),
        refill=_seconds(tournament.get("time_bank_refill", 0), "time_bank_refill"),
        every=whole(tournament.get("time_bank_every", 1), "time_bank_every", low=1),
    )
    return {
        "time_bank_seconds": rules.seconds,
        "time_bank_refill": rules.refill,
        "time_bank_every": rules.every,
    }


def _seconds(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ConfigError(f"{key} must be a number of seconds, not {value!r}")  # NaN too
    return float(value)
