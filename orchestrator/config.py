"""Tournament configuration from TOML, checked field by field with messages a person can act on.

[tournament]
name = "Sunday 1000"
players = 1000            # entries (mtt run --players overrides)
max_per_table = 10        # FO-1: 2..10
starting_stack = 10000
policy = "equilibrium"    # or "threshold" (RULES.md: FO-2..FO-5 / CLOSE-1 + BAL-1)
betting = "no"            # no-limit, or "fixed" (HE-5)
buy_in = 10000            # cents into the prize pool per entry (REG-1)
fee = 1000                # cents of commission per entry (REG-1)

[levels]
unit = "hands"            # "hands" (per table, for simulations) or "minutes" (RB-5)
length = 10
blinds = [[25, 50, 0], [50, 100, 0], [100, 200, 25]]   # small, big, ante per level

[[breaks]]
after_level = 4
minutes = 10

[payouts]
percent = [50, 30, 20]    # by place; omit for the default table scaled by field size
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from orchestrator.errors import ConfigError

__all__ = ["BlindLevel", "Break", "TournamentConfig", "load_config", "parse_config"]

Policy = Literal["equilibrium", "threshold"]


@dataclass(frozen=True, slots=True)
class BlindLevel:
    small_blind: int
    big_blind: int
    ante: int = 0


@dataclass(frozen=True, slots=True)
class Break:
    after_level: int
    minutes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentConfig:
    name: str
    players: int
    max_per_table: int = 10
    starting_stack: int = 10_000
    structure: str = "freezeout"
    policy: Policy = "equilibrium"
    betting: Literal["no", "fixed"] = "no"
    buy_in: int = 0
    fee: int = 0
    level_unit: Literal["hands", "minutes"] = "hands"
    level_length: int = 10
    levels: tuple[BlindLevel, ...]
    breaks: tuple[Break, ...] = ()
    payout_percent: tuple[int, ...] | None = None

    def with_players(self, players: int) -> TournamentConfig:
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields["players"] = _whole(players, "players", low=2)
        return TournamentConfig(**fields)


_SECTIONS = {"tournament", "levels", "breaks", "payouts"}
_TOURNAMENT_KEYS = {
    "name",
    "players",
    "max_per_table",
    "starting_stack",
    "structure",
    "policy",
    "betting",
    "buy_in",
    "fee",
}
_LEVEL_KEYS = {"unit", "length", "blinds"}


def load_config(path: str | Path) -> TournamentConfig:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    return parse_config(data, source=str(path))


def _unknown(section: str, data: Mapping[str, Any], known: set[str]) -> None:
    extra = sorted(set(data) - known)
    if extra:
        raise ConfigError(
            f"[{section}]: unknown key{'s' if len(extra) > 1 else ''} {', '.join(extra)} "
            f"(known: {', '.join(sorted(known))})"
        )


def _whole(value: object, what: str, *, low: int = 0, high: int | None = None) -> int:
    if type(value) is not int:
        raise ConfigError(f"{what} must be a whole number, not {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(f"{what} must be {bounds}, not {value}")
    return value


def _choice(value: object, what: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"{what} must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def parse_config(data: Mapping[str, Any], *, source: str = "config") -> TournamentConfig:
    _unknown(source, data, _SECTIONS)
    tournament = data.get("tournament")
    if not isinstance(tournament, Mapping):
        raise ConfigError(f"{source} needs a [tournament] section")
    _unknown("tournament", tournament, _TOURNAMENT_KEYS)
    levels_section = data.get("levels")
    if not isinstance(levels_section, Mapping):
        raise ConfigError(f"{source} needs a [levels] section with a blind schedule")
    _unknown("levels", levels_section, _LEVEL_KEYS)

    name = tournament.get("name", Path(source).stem)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("tournament.name must be a non-empty string")
    max_per_table = _whole(tournament.get("max_per_table", 10), "max_per_table", low=2, high=10)
    players = _whole(tournament.get("players", max_per_table), "players", low=2)
    levels = _parse_levels(levels_section.get("blinds"))
    starting_stack = _whole(tournament.get("starting_stack", 10_000), "starting_stack", low=1)
    if starting_stack < levels[0].big_blind:
        raise ConfigError(
            f"starting_stack {starting_stack} is below the first big blind {levels[0].big_blind}"
        )
    structure = _choice(tournament.get("structure", "freezeout"), "structure", ("freezeout",))
    policy = _choice(
        tournament.get("policy", "equilibrium"), "policy", ("equilibrium", "threshold")
    )
    betting = _choice(tournament.get("betting", "no"), "betting", ("no", "fixed"))
    unit = _choice(levels_section.get("unit", "hands"), "levels.unit", ("hands", "minutes"))
    return TournamentConfig(
        name=name,
        players=players,
        max_per_table=max_per_table,
        starting_stack=starting_stack,
        structure=structure,
        policy=policy,  # type: ignore[arg-type]
        betting=betting,  # type: ignore[arg-type]
        buy_in=_whole(tournament.get("buy_in", 0), "buy_in"),
        fee=_whole(tournament.get("fee", 0), "fee"),
        level_unit=unit,  # type: ignore[arg-type]
        level_length=_whole(levels_section.get("length", 10), "levels.length", low=1),
        levels=levels,
        breaks=_parse_breaks(data.get("breaks", []), len(levels)),
        payout_percent=_parse_payouts(data.get("payouts")),
    )


def _parse_levels(raw: object) -> tuple[BlindLevel, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError("levels.blinds must be a non-empty list of [small, big, ante] levels")
    levels: list[BlindLevel] = []
    for number, entry in enumerate(raw, start=1):
        if not isinstance(entry, list) or len(entry) not in (2, 3):
            raise ConfigError(f"level {number}: expected [small, big] or [small, big, ante]")
        small = _whole(entry[0], f"level {number} small blind")
        big = _whole(entry[1], f"level {number} big blind", low=1)
        ante = _whole(entry[2], f"level {number} ante") if len(entry) == 3 else 0
        if small > big:
            raise ConfigError(f"level {number}: small blind {small} exceeds big blind {big}")
        if levels and big <= levels[-1].big_blind:
            raise ConfigError(
                f"level {number}: blinds must increase, but big blind {big} follows "
                f"{levels[-1].big_blind}"
            )
        levels.append(BlindLevel(small, big, ante))
    return tuple(levels)


def _parse_breaks(raw: object, level_count: int) -> tuple[Break, ...]:
    if not isinstance(raw, list):
        raise ConfigError("[[breaks]] must be a list of tables with after_level and minutes")
    breaks = []
    for entry in raw:
        if not isinstance(entry, Mapping):
            raise ConfigError("each [[breaks]] entry needs after_level and minutes")
        _unknown("breaks", entry, {"after_level", "minutes"})
        after = _whole(entry.get("after_level"), "breaks.after_level", low=1)
        breaks.append(Break(after, _whole(entry.get("minutes"), "breaks.minutes", low=1)))
    return tuple(sorted(breaks, key=lambda b: b.after_level))


def _parse_payouts(raw: object) -> tuple[int, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError("[payouts] must be a table")
    _unknown("payouts", raw, {"percent"})
    percent = raw.get("percent")
    if not isinstance(percent, list) or not percent:
        raise ConfigError("payouts.percent must be a non-empty list of whole percentages")
    values = tuple(_whole(p, "payouts.percent entry", low=1) for p in percent)
    if sum(values) != 100:
        raise ConfigError(f"payouts.percent must add up to 100, not {sum(values)}")
    if list(values) != sorted(values, reverse=True):
        raise ConfigError("payouts.percent must not increase from one place to the next")
    return values
