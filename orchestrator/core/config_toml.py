"""Tournament configuration from TOML, checked field by field with messages a person can act on.

[tournament]
name = "Sunday 1000"
players = 1000            # entries (mtt run --players overrides)
max_per_table = 10        # FO-1: 2..10
starting_stack = 10000
policy = "equilibrium"    # or "threshold", "tda" (RULES.md: FO-2..FO-5 / CLOSE-1 + BAL-1 / TDA)
tda_breaks = "due"        # TDA-2 under "tda": every table FO-3 no longer needs breaks (highest
                          # numbers) at its boundary; "one": the highest alone, one at a time
betting = "no"            # no-limit, or "fixed" (HE-5)
buy_in = 10000            # cents into the prize pool per entry (REG-1)
fee = 1000                # cents of commission per entry (REG-1)
action_seconds = 30       # OUT-1: a remote player's time to act (the front door), 0.1..600
time_bank_seconds = 60    # TB-1: each player's bank, run after action_seconds; 0..3600, default 0
time_bank_refill = 10     # TB-1: it gains this (at most back to full) every time_bank_every levels
halt_short_tables = true  # HALT-1: a table 3+ players short of the fullest deals no hand until
                          # balancing brings it within 2; equilibrium only, default on from 8 seats

[levels]
unit = "hands"            # "hands" (per table, for simulations) or "minutes" (RB-5)
length = 10
blinds = [[25, 50, 0], [50, 100, 0], [100, 200, 25]]   # small, big (HE-2: twice the small), ante
big_blind_ante = false    # BBA-1: true makes each level's ante one ante for the table, posted by
                          # the big blind after the blind (TDA's big blind ante)
lead = 2                  # START-2, levels in hands: a table more than this many hands ahead
                          # of the slowest waits at its boundary (0: hand for hand)

[[breaks]]
after_level = 4
minutes = 10

[payouts]
percent = [50, 30, 20]    # by place; omit for the default table scaled by field size,
paid_percent = 15         # or that table paying this share of the entries (PAY-1; 1..100)
guarantee = 1000000       # GTD-1: the prize pool guaranteed, in cents; the operator pays the
                          # overlay when registration (late registration included) closes

[deal]
bots_accept = "always"    # DEAL-1: bots answer a final-table deal "always", "never" or
                          # "if_above_chip_chop" (at least their chip-chop amount)

Structures beyond the freeze-out (`structure = ...` in [tournament]):

[rebuy]                   # structure = "rebuy" (RB-1..RB-5) needs this section
rebuys = 3                # pre-paid with the entry (RB-2)
threshold = 1500          # a rebuy only at or below this stack (RB-3)
chips = 1500
levels = 6                # rebuys during the first N levels; then RB-4 converts the rest
first_conversion = 1500   # RB-4: the first unused rebuy if the stack is <= threshold
conversion = 2500         # RB-4: every other unused rebuy
auto = true               # the room's auto-rebuy: take every rebuy one may (false: ask)

[[phases]]                # structure = "shootout" (SO-1..SO-4) needs these or [shootout]
max_per_table = 10
qualifiers = 1            # the last N at each table go through (SO-2)
stacks = "reset"          # or "carry" (SO-3)
starting_stack = 5000     # with "reset"

[shootout]                # or, instead of [[phases]]: a heads-up knockout (SO-5)
heads_up = true

hand_for_hand = 20        # in [tournament]: from this many players left until the money is
                          # reached, every table plays one hand and waits (ELIM-1)
late_registration_levels = 4   # in [tournament]: registration stays open for 4 levels; a
reentries = 1             # busted player may enter again (a new entry) that often, and
late_entries = 30         # (bots only) mtt run registers this many more during the window

[side_events]             # RB-6: fast freeze-outs for eliminated players, beside the event
players = 10              # each starts when this many have joined (so its prizes are fixed)
starting_stack = 2500
buy_in = 1000
percent = [60, 40]

[knockout]                # KO-1..KO-5: bounties, paid apart from the prize pool
kind = "progressive"      # "knockout" (KO-1), "progressive" (KO-2) or "mystery" (KO-4)
bounty = 5000             # cents of each entry's buy_in that fund the bounties (<= buy_in)
cash_percent = 50         # progressive: the eliminator's cash share, 0..100; the rest adds
                          # to his own bounty
mystery = [200000, 100000, 50000]  # mystery: the published amounts, adding up to
                          # bounty x players exactly (no late registration)
mystery_from = "money"    # mystery: draws from the money on, or from this many players left

[satellite]               # SAT-1..SAT-3: the pool pays seats; keys in `core.config_satellite`
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.core.config import (
    BlindLevel,
    Break,
    Phase,
    RebuyRules,
    SideEvents,
    TournamentConfig,
)
from orchestrator.core.config_balancing import BALANCING_KEYS, parse_balancing
from orchestrator.core.config_checks import choice as _choice
from orchestrator.core.config_checks import unknown as _unknown
from orchestrator.core.config_checks import whole as _whole
from orchestrator.core.config_cluster import parse_spare_tables
from orchestrator.core.config_knockout import parse_knockout
from orchestrator.core.config_satellite import parse_satellite
from orchestrator.core.config_schedule import SCHEDULE_KEYS, parse_schedule
from orchestrator.core.config_time_bank import TIME_BANK_KEYS, parse_time_bank
from orchestrator.core.deals import BOT_RULES
from orchestrator.errors import ConfigError

__all__ = ["SKILL_LEVELS", "config_from_text", "load_config", "parse_config"]

_SECTIONS = {"tournament", "levels", "breaks", "payouts", "deal", "rebuy", "phases", "shootout"}
_SECTIONS |= {"side_events", "knockout", "satellite", "cluster"}
_TOURNAMENT_KEYS = (
    {
        "name",
        "players",
        "max_per_table",
        "starting_stack",
        "structure",
        "betting",
        "buy_in",
        "fee",
        "hand_for_hand",
        "late_registration_levels",
        "reentries",
        "late_entries",
        "max_entries",
        "cancellation_percent",
        "skill_levels",
        "action_seconds",
        *SCHEDULE_KEYS,
    }
    | TIME_BANK_KEYS
    | BALANCING_KEYS
)
_LEVEL_KEYS = {"unit", "length", "blinds", "lead", "big_blind_ante"}


def load_config(path: str | Path) -> TournamentConfig:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    return config_from_text(text, source=str(path))


def config_from_text(text: str, *, source: str = "config") -> TournamentConfig:
    """A config from TOML text (the front door's operators send the text itself)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source} is not valid TOML: {exc}") from exc
    return parse_config(data, source=source)


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
    levels = _big_blind_ante(
        _parse_levels(levels_section.get("blinds")), levels_section.get("big_blind_ante", False)
    )
    starting_stack = _whole(tournament.get("starting_stack", 10_000), "starting_stack", low=1)
    if starting_stack < levels[0].big_blind:
        raise ConfigError(
            f"starting_stack {starting_stack} is below the first big blind {levels[0].big_blind}"
        )
    structures = ("freezeout", "rebuy", "shootout")
    structure = _choice(tournament.get("structure", "freezeout"), "structure", structures)
    betting = _choice(tournament.get("betting", "no"), "betting", ("no", "fixed"))
    unit = _choice(levels_section.get("unit", "hands"), "levels.unit", ("hands", "minutes"))
    return TournamentConfig(
        name=name,
        players=players,
        max_per_table=max_per_table,
        starting_stack=starting_stack,
        structure=structure,
        **parse_balancing(tournament, structure),
        betting=betting,  # type: ignore[arg-type]
        buy_in=_whole(tournament.get("buy_in", 0), "buy_in"),
        fee=_whole(tournament.get("fee", 0), "fee"),
        level_unit=unit,  # type: ignore[arg-type]
        level_length=_whole(levels_section.get("length", 10), "levels.length", low=1),
        levels=levels,
        level_lead=_lead(levels_section.get("lead"), unit),
        breaks=_parse_breaks(data.get("breaks", []), len(levels)),
        payout_percent=_parse_payouts(data.get("payouts")),
        paid_percent=_parse_paid_percent(data.get("payouts")),
        guarantee=_parse_guarantee(data.get("payouts")),
        deal_bots_accept=_parse_deal(data.get("deal")),
        rebuy=_parse_rebuy(data.get("rebuy"), structure),
        phases=_parse_phases(data.get("phases"), structure),
        heads_up_knockout=_parse_shootout(data.get("shootout"), structure, data.get("phases")),
        hand_for_hand=_whole(tournament.get("hand_for_hand", 0), "hand_for_hand"),
        **_parse_late(tournament, structure),
        max_entries=_optional_whole(tournament.get("max_entries"), "max_entries", low=2),
        cancellation_bp=100
        * _whole(tournament.get("cancellation_percent", 0), "cancellation_percent", high=100),
        side_events=_parse_side_events(data.get("side_events")),
        skill_levels=_parse_skill_levels(tournament.get("skill_levels")),
        action_seconds=_action_seconds(tournament.get("action_seconds", 30)),
        **parse_time_bank(tournament),
        knockout=parse_knockout(data.get("knockout"), tournament, players),
        **parse_schedule(tournament),
        satellite=parse_satellite(data, tournament),  # SAT-1 (its keys: `core.config_satellite`)
        spare_tables=parse_spare_tables(data.get("cluster", {})),
    )


def _lead(value: object, unit: str) -> int:
    """START-2: how many hands a table may be ahead of the slowest; levels in hands only."""
    if value is None:
        return 2
    if unit != "hands":
        raise ConfigError('levels.lead counts hands: it needs levels.unit = "hands"')
    return _whole(value, "levels.lead", high=1000)


def _action_seconds(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.1 <= value <= 600:
        raise ConfigError(f"action_seconds must be a number of seconds in 0.1..600, not {value!r}")
    return float(value)


def _big_blind_ante(levels: tuple[BlindLevel, ...], value: object) -> tuple[BlindLevel, ...]:
    """BBA-1: `big_blind_ante = true` makes every level's ante one ante for the table, posted
    by the big blind (so the ante column is usually the big blind)."""
    if not isinstance(value, bool):
        raise ConfigError(f"levels.big_blind_ante must be true or false, not {value!r}")
    if value and not any(level.ante for level in levels):
        raise ConfigError(
            "levels.big_blind_ante = true, but no level has an ante: give the levels an ante "
            "(the third number of each levels.blinds entry)"
        )
    return tuple(replace(level, big_blind_ante=value) for level in levels)


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
        if big != 2 * small:  # HE-2: the big blind is twice the small blind
            raise ConfigError(
                f"level {number}: the big blind must be twice the small blind (HE-2), "
                f"not [{small}, {big}]"
            )
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
    _unknown("payouts", raw, {"percent", "paid_percent", "guarantee"})
    if "percent" not in raw:
        return None
    if "paid_percent" in raw:
        raise ConfigError("give either payouts.percent or payouts.paid_percent, not both")
    percent = raw.get("percent")
    if not isinstance(percent, list) or not percent:
        raise ConfigError("payouts.percent must be a non-empty list of whole percentages")
    values = tuple(_whole(p, "payouts.percent entry", low=1) for p in percent)
    if sum(values) != 100:
        raise ConfigError(f"payouts.percent must add up to 100, not {sum(values)}")
    if list(values) != sorted(values, reverse=True):
        raise ConfigError("payouts.percent must not increase from one place to the next")
    return values


def _parse_deal(raw: object) -> str:
    """DEAL-1: how the bots answer a deal at the final table."""
    if raw is None:
        return "always"
    if not isinstance(raw, Mapping):
        raise ConfigError("[deal] must be a table")
    _unknown("deal", raw, {"bots_accept"})
    return _choice(raw.get("bots_accept", "always"), "deal.bots_accept", BOT_RULES)


def _parse_guarantee(raw: object) -> int:
    """GTD-1: the guaranteed prize pool in cents (0: none)."""
    if not isinstance(raw, Mapping) or "guarantee" not in raw:
        return 0
    return _whole(raw["guarantee"], "payouts.guarantee")


def _parse_paid_percent(raw: object) -> int | None:
    """PAY-1: the default payout table paying `paid_percent` of the entries."""
    if not isinstance(raw, Mapping) or "paid_percent" not in raw:
        return None
    return _whole(raw["paid_percent"], "payouts.paid_percent", low=1, high=100)


def _parse_rebuy(raw: object, structure: str) -> RebuyRules | None:
    if raw is not None and structure != "rebuy":
        raise ConfigError(f'[rebuy] belongs to structure = "rebuy", not {structure!r}')
    if structure != "rebuy":
        return None
    if raw is None:
        raise ConfigError('structure = "rebuy" needs a [rebuy] section (RB-2..RB-4: its rebuys)')
    section = raw
    if not isinstance(section, Mapping):
        raise ConfigError("[rebuy] must be a table")
    keys = {"rebuys", "threshold", "chips", "levels", "first_conversion", "conversion", "auto"}
    _unknown("rebuy", section, keys)
    auto = section.get("auto", True)
    if not isinstance(auto, bool):
        raise ConfigError("rebuy.auto must be true or false")
    d = RebuyRules()
    return RebuyRules(
        rebuys=_whole(section.get("rebuys", d.rebuys), "rebuy.rebuys"),
        threshold=_whole(section.get("threshold", d.threshold), "rebuy.threshold"),
        chips=_whole(section.get("chips", d.chips), "rebuy.chips", low=1),
        levels=_whole(section.get("levels", d.levels), "rebuy.levels", low=1),
        first_conversion=_whole(
            section.get("first_conversion", d.first_conversion), "rebuy.first_conversion"
        ),
        conversion=_whole(section.get("conversion", d.conversion), "rebuy.conversion"),
        auto=auto,
    )


def _parse_phases(raw: object, structure: str) -> tuple[Phase, ...]:
    if raw is not None and structure != "shootout":
        raise ConfigError(f'[[phases]] belong to structure = "shootout", not {structure!r}')
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise ConfigError("[[phases]] must list the shoot-out's phases")
    phases = []
    for number, entry in enumerate(raw, start=1):
        if not isinstance(entry, Mapping):
            raise ConfigError(f"phase {number} must be a table")
        _unknown("phases", entry, {"max_per_table", "qualifiers", "stacks", "starting_stack"})
        size = _whole(entry.get("max_per_table"), f"phase {number} max_per_table", low=2, high=10)
        qualifiers = _whole(entry.get("qualifiers", 1), f"phase {number} qualifiers", low=1)
        if qualifiers >= size:
            raise ConfigError(f"phase {number}: {qualifiers} qualifiers from tables of {size}")
        stacks = _choice(entry.get("stacks", "carry"), f"phase {number} stacks", ("reset", "carry"))
        start = _whole(entry.get("starting_stack", 0), f"phase {number} starting_stack")
        if stacks == "reset" and start <= 0:
            raise ConfigError(f'phase {number}: stacks = "reset" needs a starting_stack')
        phases.append(
            Phase(
                max_per_table=size,
                qualifiers=qualifiers,
                stacks=stacks,  # type: ignore[arg-type]
                starting_stack=start,
            )
        )
    if phases[-1].qualifiers != 1:
        raise ConfigError("the last phase is the final table: it plays to 1 (qualifiers = 1)")
    return tuple(phases)


def _parse_shootout(raw: object, structure: str, phases: object) -> bool:
    if raw is not None and structure != "shootout":
        raise ConfigError(f'[shootout] belongs to structure = "shootout", not {structure!r}')
    if structure != "shootout":
        return False
    if raw is None:
        if phases is None:
            raise ConfigError(
                'structure = "shootout" needs a [[phases]] section (SO-1, SO-2) or a '
                "[shootout] section with heads_up = true (SO-5)"
            )
        return False
    if not isinstance(raw, Mapping):
        raise ConfigError("[shootout] must be a table")
    _unknown("shootout", raw, {"heads_up"})
    if raw.get("heads_up") is not True:
        raise ConfigError("[shootout] heads_up = true is its only setting")
    if phases is not None:
        raise ConfigError("give either [[phases]] or [shootout] heads_up = true, not both")
    return True


def _parse_late(tournament: Mapping[str, Any], structure: str) -> dict[str, Any]:
    levels = _whole(tournament.get("late_registration_levels", 0), "late_registration_levels")
    reentries = _whole(tournament.get("reentries", 0), "reentries")
    late = _whole(tournament.get("late_entries", 0), "late_entries")
    if (reentries or late) and not levels:
        raise ConfigError("reentries and late_entries need late_registration_levels > 0")
    if levels and structure == "shootout":
        raise ConfigError("a shoot-out seats its field once per phase: no late registration")
    return {"late_registration_levels": levels, "reentries": reentries, "late_entries": late}


def _optional_whole(value: object, what: str, *, low: int) -> int | None:
    return None if value is None else _whole(value, what, low=low)


def _parse_side_events(raw: object) -> SideEvents | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError("[side_events] must be a table")
    _unknown(
        "side_events",
        raw,
        {"players", "starting_stack", "buy_in", "fee", "percent", "level_length"},
    )
    d = SideEvents()
    percent = _parse_payouts({"percent": raw.get("percent", list(d.percent))})
    assert percent is not None
    players = _whole(raw.get("players", d.players), "side_events.players", low=2, high=10)
    if len(percent) > players:
        raise ConfigError(f"side events pay {len(percent)} places but seat only {players}")
    return SideEvents(
        players=players,
        starting_stack=_whole(
            raw.get("starting_stack", d.starting_stack), "side_events.starting_stack", low=1
        ),
        buy_in=_whole(raw.get("buy_in", d.buy_in), "side_events.buy_in"),
        fee=_whole(raw.get("fee", d.fee), "side_events.fee"),
        percent=percent,
        level_length=_whole(
            raw.get("level_length", d.level_length), "side_events.level_length", low=1
        ),
    )


SKILL_LEVELS = ("beginner", "expert", "professional", "legend")  # SKILL-1, in order


def _parse_skill_levels(raw: object) -> tuple[str, str] | None:
    """SKILL-2: `skill_levels = ["expert", "legend"]` admits Experts up to Legends."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(x, str) for x in raw):
        raise ConfigError('skill_levels must be [lowest, highest], e.g. ["expert", "legend"]')
    low, high = (x.lower() for x in raw)
    for level in (low, high):
        if level not in SKILL_LEVELS:
            raise ConfigError(f"unknown skill level {level!r} (known: {', '.join(SKILL_LEVELS)})")
    if SKILL_LEVELS.index(low) > SKILL_LEVELS.index(high):
        raise ConfigError(f"skill_levels: {low} is above {high}")
    return low, high
