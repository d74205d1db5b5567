"""A load profile: how the bots think, arrive and storm, read from TOML (flags override it).

    [think]                 # TB-1 tail: bank_share of decisions run into the time bank
    sigma = 0.6
    bank_share = 0.02
    bank_use = 0.5
    [think.median]          # seconds, per action type; a missing type answers at once
    fold = 1.0
    check = 1.2
    call = 2.0
    bet = 2.8
    raise = 3.2
    [ramp]
    seconds = 60            # connect every bot, linearly, over this long
    [registration]
    mode = "storm"          # "ramp": each bot registers as it arrives
    storm_seconds = 1.0     # "storm": every bot registers within this long, then the ramp
    [[reconnect_storm]]     # any number of them
    at = 20.0               # seconds into the measured window
    share = 0.1             # of the bots, dropping their streams at once

`pace = "online"` at the top takes `ThinkTimes.online()` as the base the [think] table edits.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from loadtest.errors import ProfileError
from loadtest.schedule import REGISTRATION_MODES, ReconnectStorm
from loadtest.think import ThinkTimes

__all__ = ["PACES", "LoadProfile", "parse_profile"]

PACES = {"flat": ThinkTimes.flat_out, "online": ThinkTimes.online}
_KEYS = {
    "": {"pace", "think", "ramp", "registration", "reconnect_storm"},
    "think": {"sigma", "bank_share", "bank_use", "median"},
    "ramp": {"seconds"},
    "registration": {"mode", "storm_seconds"},
    "reconnect_storm": {"at", "share"},
}


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadProfile:
    think: ThinkTimes = field(default_factory=ThinkTimes.flat_out)
    ramp_seconds: float | None = None  # None: 1 s per 200 bots, at least 2 s
    registration: str = "ramp"
    storm_seconds: float = 1.0
    reconnect_storms: tuple[ReconnectStorm, ...] = ()

    def __post_init__(self) -> None:
        if self.registration not in REGISTRATION_MODES:
            raise ProfileError(
                f"registration.mode is one of {REGISTRATION_MODES}, not {self.registration!r}"
            )
        if self.ramp_seconds is not None and not self.ramp_seconds >= 0:
            raise ProfileError(f"ramp.seconds is at least 0, not {self.ramp_seconds}")
        if not self.storm_seconds >= 0:
            raise ProfileError(f"registration.storm_seconds is at least 0: {self.storm_seconds}")

    def ramp_for(self, bots: int) -> float:
        return max(2.0, bots / 200) if self.ramp_seconds is None else self.ramp_seconds


def _table(value: object, key: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ProfileError(f"{key} is a table")
    known = _KEYS[key.split(".")[0] if key else ""]
    unknown = set(value) - known
    if unknown:
        raise ProfileError(f"{key or 'the profile'}: unknown key(s) {sorted(unknown)}")
    return value


def _number(table: Mapping[str, Any], name: str, key: str) -> float:
    value = table[name]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProfileError(f"{key}.{name} is a number, not {value!r}")
    return float(value)


def parse_profile(text: str) -> LoadProfile:
    """The profile a TOML text describes; ProfileError naming the key for a bad value."""
    try:
        top = _table(tomllib.loads(text), "")
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"the profile is not TOML: {exc}") from exc
    pace = top.get("pace", "flat")
    if pace not in PACES:
        raise ProfileError(f"pace is one of {sorted(PACES)}, not {pace!r}")
    think = PACES[pace]()
    if "think" in top:
        table = _table(top["think"], "think")
        changes = {
            n: _number(table, n, "think") for n in ("sigma", "bank_share", "bank_use") if n in table
        }
        medians = dict(think.medians)
        if "median" in table:
            median = table["median"]
            if not isinstance(median, dict):
                raise ProfileError("think.median is a table of seconds per action type")
            medians |= {name: _number(median, name, "think.median") for name in median}
        think = replace(think, medians=medians, **changes)
    profile = LoadProfile(think=think)
    if "ramp" in top:
        ramp = _table(top["ramp"], "ramp")
        if "seconds" in ramp:
            profile = replace(profile, ramp_seconds=_number(ramp, "seconds", "ramp"))
    if "registration" in top:
        registration = _table(top["registration"], "registration")
        if "mode" in registration:
            profile = replace(profile, registration=str(registration["mode"]))
        if "storm_seconds" in registration:
            seconds = _number(registration, "storm_seconds", "registration")
            profile = replace(profile, storm_seconds=seconds)
    storms = top.get("reconnect_storm", [])
    if not isinstance(storms, list):
        raise ProfileError("reconnect_storm is an array of tables ([[reconnect_storm]])")
    parsed = []
    for entry in storms:
        table = _table(entry, "reconnect_storm")
        missing = {"at", "share"} - set(table)
        if missing:
            raise ProfileError(f"reconnect_storm needs {sorted(missing)}")
        at, share = (_number(table, n, "reconnect_storm") for n in ("at", "share"))
        parsed.append(ReconnectStorm(at=at, share=share))
    return replace(profile, reconnect_storms=tuple(parsed))
