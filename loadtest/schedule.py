"""When each bot registers, connects and drops its stream: the ramp, the registration storm and
the reconnect storms, as offsets in seconds from the fleet's start. Pure: the RNG comes in.

A ramp spreads arrivals evenly (linearly) over its seconds; with registration "ramp" each bot
registers as it arrives and connects at once, with registration "storm" every bot registers
within the storm's seconds first and the connect ramp follows. A reconnect storm drops a share
of the bots' streams at one moment of the measured window; each reconnects with the same token
at once (OUT-3: the server sends it Resume).

>>> [a.connect_at for a in arrivals(4, ramp_seconds=2.0, registration="ramp", storm_seconds=1.0)]
[0.0, 0.5, 1.0, 1.5]
>>> [a.register_at for a in arrivals(2, ramp_seconds=2.0, registration="storm", storm_seconds=1.0)]
[0.0, 0.5]
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from loadtest.errors import ProfileError

__all__ = ["REGISTRATION_MODES", "Arrival", "ReconnectStorm", "arrivals", "spread", "victims"]

REGISTRATION_MODES = ("ramp", "storm")


@dataclass(frozen=True, slots=True)
class Arrival:
    bot: int
    register_at: float
    connect_at: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ReconnectStorm:
    """`share` of the bots drop their streams `at` seconds into the measured window."""

    at: float
    share: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.at) and self.at >= 0):
            raise ProfileError(f"reconnect_storm.at is seconds, at least 0, not {self.at}")
        if not 0.0 < self.share <= 1.0:
            raise ProfileError(f"reconnect_storm.share is a share, above 0 up to 1: {self.share}")


def spread(count: int, seconds: float) -> list[float]:
    """`count` moments spread evenly over `seconds`, the first at 0."""
    return [k * seconds / count for k in range(count)]


def arrivals(
    bots: int, *, ramp_seconds: float, registration: str, storm_seconds: float
) -> list[Arrival]:
    """Every bot's registration and connection offsets, in bot order."""
    if registration not in REGISTRATION_MODES:
        raise ProfileError(
            f"registration.mode is one of {REGISTRATION_MODES}, not {registration!r}"
        )
    if not (math.isfinite(ramp_seconds) and ramp_seconds >= 0):
        raise ProfileError(f"ramp.seconds is at least 0, not {ramp_seconds}")
    if not (math.isfinite(storm_seconds) and storm_seconds >= 0):
        raise ProfileError(f"registration.storm_seconds is at least 0, not {storm_seconds}")
    connects = spread(bots, ramp_seconds)
    if registration == "ramp":
        return [Arrival(k, at, at) for k, at in enumerate(connects)]
    registers = spread(bots, storm_seconds)
    return [Arrival(k, registers[k], storm_seconds + connects[k]) for k in range(bots)]


def victims(bots: int, storm: ReconnectStorm, rng: random.Random) -> list[int]:
    """The bots (indices, sorted) whose streams the storm drops: its share, at least one."""
    count = min(bots, max(1, round(storm.share * bots)))
    return sorted(rng.sample(range(bots), count))
