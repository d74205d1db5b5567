"""When a tournament opens and starts by itself: `registration_opens_at` and `starts_at` in its
[tournament] table. Pure (no clock: the front door's scheduler compares them with its own).

Each is a TOML offset date-time (`starts_at = 2026-12-02T20:00:00Z`, or `+01:00`), the same as
an ISO 8601 string with an offset (`"2026-12-02T20:00:00+01:00"`), or epoch seconds (a number
0..LATEST, the end of year 9999); a time without an offset is refused, since it would mean a
different instant on every machine. Both optional; read as epoch seconds (a float).
Registration must open before the start. Without `registration_opens_at` the operator opens
registration (`mtt ctl open`); a tournament still announced at `starts_at` is cancelled, as is
one with fewer than two entries (CRASH-1: every entry refunded).

>>> parse_schedule({"starts_at": 1_800_000_000, "registration_opens_at": "2027-01-15T08:00:00Z"})
{'registration_opens_at': 1800000000.0, 'starts_at': 1800000000.0}
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

from orchestrator.errors import ConfigError

__all__ = ["SCHEDULE_KEYS", "parse_schedule"]

SCHEDULE_KEYS = frozenset({"registration_opens_at", "starts_at"})
LATEST = 253_402_300_799  # 9999-12-31T23:59:59Z: the last instant a date-time can name


def parse_schedule(tournament: Mapping[str, Any]) -> dict[str, Any]:
    """The two keys as `TournamentConfig` fields, each checked with its key named."""
    opens = _instant(tournament.get("registration_opens_at"), "registration_opens_at")
    starts = _instant(tournament.get("starts_at"), "starts_at")
    if opens is not None and starts is not None and opens > starts:
        raise ConfigError(
            "registration_opens_at must not be after starts_at: registration opens first"
        )
    return {"registration_opens_at": opens, "starts_at": starts}


def _instant(value: object, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value)
        except ValueError as exc:
            raise ConfigError(
                f"{key} must be an ISO 8601 time with an offset or epoch seconds, not {value!r}"
            ) from exc
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ConfigError(
                f"{key} needs an offset (Z or +01:00): {value.isoformat()} is a different "
                "instant on every machine"
            )
        return value.timestamp()
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(
            f"{key} must be an ISO 8601 time with an offset or epoch seconds, not {value!r}"
        )
    if not 0 <= value <= LATEST:
        raise ConfigError(f"{key} in epoch seconds must be 0..{LATEST}, not {value!r}")
    return float(value)
