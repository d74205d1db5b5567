"""The [satellite] section of a tournament's TOML (SAT-1..SAT-3). Pure.

    [satellite]
    seat_value = 11000          # cents: one seat (ticket) = the target's buy_in + fee (SAT-1)
    target = "target.toml"      # the target tournament's config file, relative to this one;
                                # `mtt run` plays the satellite, then the target with the
                                # ticket holders registered by their tickets (SAT-3)

A satellite is a freeze-out whose field is known at the start (its seats N = floor(pool /
seat_value) are fixed then): no rebuys, no late registration, no bounties, no shoot-out phases,
no side events, no payout table ([payouts] takes only a `guarantee`, GTD-1). Whether the pool
pays at least one seat and fewer seats than players is checked at the start
(`core.satellite.Seats.of`), when the field is known; whether the target exists and charges
`seat_value` is checked where the target's file is read (`check_target`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.core.config import SatelliteRules, TournamentConfig
from orchestrator.core.config_checks import unknown, whole
from orchestrator.errors import ConfigError

__all__ = ["check_target", "parse_satellite"]

# [tournament] keys and sections a satellite refuses: each would change the field or the pool
# after the seats are fixed, or pay money outside the seats.
_NOT_WITH = {
    "late_registration_levels": "late registration (the seats are fixed at the start)",
    "reentries": "re-entries (the seats are fixed at the start)",
}
_SECTIONS_NOT_WITH = {
    "rebuy": "rebuys",
    "knockout": "bounties",
    "phases": "shoot-out phases",
    "shootout": "a shoot-out",
    "side_events": "side events",
}


def parse_satellite(
    data: Mapping[str, Any], tournament: Mapping[str, Any]
) -> SatelliteRules | None:
    """SAT-1: the [satellite] section, or None."""
    raw = data.get("satellite")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError("[satellite] must be a table")
    unknown("satellite", raw, {"seat_value", "target"})
    seat_value = whole(raw.get("seat_value"), "satellite.seat_value", low=1)
    target = raw.get("target", "")
    if not isinstance(target, str):
        raise ConfigError(f"satellite.target must be a file name, not {target!r}")
    for key, what in _NOT_WITH.items():
        if tournament.get(key):
            raise ConfigError(f"[satellite]: a satellite takes no {what}; remove {key}")
    for section, what in _SECTIONS_NOT_WITH.items():
        if section in data:
            raise ConfigError(f"[satellite]: a satellite has no {what}; remove [{section}]")
    payouts = data.get("payouts", {})
    if isinstance(payouts, Mapping) and set(payouts) - {"guarantee"}:
        raise ConfigError("[satellite]: the pool pays seats; [payouts] takes only guarantee")
    structure = tournament.get("structure", "freezeout")
    if structure != "freezeout":
        raise ConfigError(f'[satellite]: a satellite is structure = "freezeout", not {structure!r}')
    return SatelliteRules(seat_value=seat_value, target=target)


def check_target(satellite: TournamentConfig, target: TournamentConfig) -> None:
    """SAT-1/SAT-3: a ticket is the target's entry, so its value is the target's price."""
    assert satellite.satellite is not None
    price = target.buy_in + target.fee
    if satellite.satellite.seat_value != price:
        raise ConfigError(
            f"satellite.seat_value {satellite.satellite.seat_value} is not the entry of the "
            f"target {target.name!r} (buy_in {target.buy_in} + fee {target.fee} = {price})"
        )
    if target.satellite is not None:
        raise ConfigError(f"satellite.target {target.name!r} is itself a satellite")
