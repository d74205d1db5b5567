"""A multi-day event's plan from TOML: several Day 1 flights and a Day 2 (FL-1..FL-3). Pure.

An event's file is a tournament's file (`core.config_toml`: its [tournament], [levels],
[[breaks]] and [payouts] are the structure every flight and Day 2 share) with two more sections:

[event]
name = "Main Event"
bag_at_share = 0.25       # FL-1: a flight bags once at most this share of its field is left,
                          # in (0, 1); or
bag_at_level = 6          # FL-1: a flight bags when this level is over (give one of the two)
multi_entries = 3         # (bots only) mtt run enters this many players in every flight after
                          # the first too (FL-2: only each one's largest bag goes forward)

[[flights]]               # one per Day 1 flight, in the order they play
name = "1A"
players = 18

Each flight is a tournament of its own (`EventPlan.flight_config`) that plays no hand-for-hand
(FL-3: the money bubble falls on Day 2 only); Day 2 (`EventPlan.day2_config`) seats the
qualified players with their bags and plays on to the winner.

Late registration (REG-1) works per flight as in a single tournament: the structure's
`late_registration_levels` (and, for `mtt run`'s bots, `late_entries`: the same late bots enter
every flight, FL-2) apply to each flight, which does not bag while it is open; Day 2 takes no
entries. A `bag_at_share` counts a flight's planned field with its late entries; with
`bag_at_level`, late registration must end by that level.

A guarantee (GTD-1, `[payouts] guarantee`) is over the whole event's entries. **Decision:** the
flights pay no overlay; Day 2's ledger opens with the flights' pools (FL-3) and, when Day 2's
registration closes at its start (after the last flight's registration closed, before any hand
of Day 2 and so before any prize: FL-3 pays on Day 2 only), the operator pays the shortfall of
that pool under the guarantee into it (`overlay_paid` in Day 2's log). Each flight's own audit
then stays entries = pool carried + commission, and Day 2's is the single tournament's GTD-1.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from orchestrator.core.config import BagRule, Day2Start, TournamentConfig
from orchestrator.core.config_checks import unknown, whole
from orchestrator.core.config_toml import parse_config
from orchestrator.core.payouts import paid_places
from orchestrator.errors import ConfigError

__all__ = ["EventPlan", "Flight", "load_plan", "parse_event"]

_EVENT_KEYS = {"name", "bag_at_share", "bag_at_level", "multi_entries"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Flight:
    name: str
    players: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EventPlan:
    """FL-1..FL-3: the flights, how they bag, and the structure they and Day 2 share."""

    name: str
    flights: tuple[Flight, ...]
    structure: TournamentConfig
    bag_at_share: Fraction | None = None
    bag_at_level: int = 0
    multi_entries: int = 0

    @property
    def entries(self) -> int:
        """Every flight's planned entries, late ones included (FL-3: the prize pool and the
        places count them all)."""
        return sum(self.field(flight) for flight in self.flights)

    def field(self, flight: Flight) -> int:
        """The flight's planned field: its players and (REG-1) its late entries."""
        return flight.players + self.structure.late_entries

    def bag_target(self, flight: Flight) -> int:
        """FL-1: the flight bags once this many players or fewer are left (0: by level)."""
        if self.bag_at_share is None:
            return 0
        return int(self.bag_at_share * self.field(flight))  # exact: the share is a fraction

    def flight_config(self, flight: Flight) -> TournamentConfig:
        """FL-1: a flight as a tournament of its own, bagging by the plan's rule."""
        return replace(
            self.structure,
            name=f"{self.name}-{flight.name}",
            players=flight.players,
            hand_for_hand=0,  # FL-3: no money on Day 1, so no bubble to play hand for hand
            bag=BagRule(players=self.bag_target(flight), after_level=self.bag_at_level),
            guarantee=0,  # GTD-1: the event's guarantee is made good on Day 2
        )

    def day2_config(self, start: Day2Start) -> TournamentConfig:
        """FL-3: Day 2 seats every qualified player with his bag, at the flights' level; it
        takes no entries (REG-1) and pays any overlay of the event's guarantee (GTD-1)."""
        return replace(
            self.structure,
            name=f"{self.name}-day2",
            players=len(start.stacks),
            day2=start,
            late_registration_levels=0,
            late_entries=0,
        )


def load_plan(path: str | Path) -> TournamentConfig | EventPlan:
    """A tournament's file, or an event's (one with an [event] section)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    if "event" in data:
        return parse_event(data, source=str(path))
    return parse_config(data, source=str(path))


def parse_event(data: Mapping[str, Any], *, source: str = "event") -> EventPlan:
    """FL-1..FL-3: the event's plan; a plan that cannot be played is refused naming its key."""
    event = data.get("event")
    if not isinstance(event, Mapping):
        raise ConfigError(f"{source} needs an [event] section")
    unknown("event", event, _EVENT_KEYS)
    flights = _flights(data.get("flights"))
    rest = {key: value for key, value in data.items() if key not in ("event", "flights")}
    tournament = rest.get("tournament")
    if isinstance(tournament, Mapping) and "players" in tournament:
        raise ConfigError("tournament.players: in an event each [[flights]] entry sets players")
    structure = parse_config(rest, source=source)
    _shared_structure(structure)
    name = event.get("name", structure.name)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("event.name must be a non-empty string")
    share, level = _bag_rule(event)
    late = structure.late_registration_levels
    if level and late > level:
        raise ConfigError(
            f"tournament.late_registration_levels {late} outlasts event.bag_at_level {level}: "
            "a flight's late registration must end by the level it bags at"
        )
    multi = whole(event.get("multi_entries", 0), "event.multi_entries")
    if multi and len(flights) < 2:
        raise ConfigError("event.multi_entries needs two flights or more to enter again")
    if multi > min(flight.players for flight in flights):
        raise ConfigError(
            f"event.multi_entries {multi} is more than the smallest flight's players "
            f"{min(flight.players for flight in flights)}"
        )
    plan = EventPlan(
        name=name,
        flights=flights,
        structure=structure,
        bag_at_share=share,
        bag_at_level=level,
        multi_entries=multi,
    )
    _day2_seated(plan)
    return plan


def _flights(raw: object) -> tuple[Flight, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError("an event needs [[flights]]: one entry (name, players) per Day 1 flight")
    flights: list[Flight] = []
    for number, entry in enumerate(raw, start=1):
        if not isinstance(entry, Mapping):
            raise ConfigError(f"flights entry {number} must be a table with name and players")
        unknown("flights", entry, {"name", "players"})
        name = entry.get("name", str(number))
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise ConfigError(f"flights entry {number}: name must be a non-empty string, no /")
        if any(f.name == name for f in flights):
            raise ConfigError(f"flights entry {number}: the name {name!r} is taken already")
        players = whole(entry.get("players"), f"flights entry {number} ({name}) players", low=2)
        flights.append(Flight(name=name, players=players))
    return tuple(flights)


def _bag_rule(event: Mapping[str, Any]) -> tuple[Fraction | None, int]:
    """FL-1: bag at a share of the field, or after a level; exactly one of them."""
    has_share, has_level = "bag_at_share" in event, "bag_at_level" in event
    if has_share == has_level:
        raise ConfigError("[event] needs one of bag_at_share (a share in (0, 1)) or bag_at_level")
    if has_level:
        return None, whole(event["bag_at_level"], "event.bag_at_level", low=1)
    value = event["bag_at_share"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise ConfigError(f"event.bag_at_share must be a share in (0, 1), not {value!r}")
    return Fraction(str(value)), 0  # the decimal as written: 0.29 of 100 is 29, not 28


def _shared_structure(structure: TournamentConfig) -> None:
    """What the flights' structure may not have (yet): each would need its own Day 2 rule."""
    refused = (
        (structure.structure != "freezeout", f"tournament.structure {structure.structure!r}"),
        (structure.reentries > 0, "tournament.reentries"),
        (structure.knockout is not None, "[knockout]"),
        (structure.side_events is not None, "[side_events]"),
    )
    for bad, key in refused:
        if bad:
            raise ConfigError(
                f"{key}: a multi-flight event plays freeze-out flights without re-entries "
                "(a player enters another flight instead, FL-2), bounties or side events"
            )


def _day2_seated(plan: EventPlan) -> None:
    """FL-3: every flight bags someone, Day 2 seats at least two, and the places paid fit in
    the field Day 2 is planned for (the money bubble falls on Day 2 only): each flight bagging
    its share, every multi-entrant bagging in every flight. (A hand that busts several at the
    bag leaves fewer; Day 2 then pays its whole pool over fewer places: `Play.prizes`.)"""
    if plan.bag_at_share is None:
        return  # bagging after a level: who is left is known only then
    for number, flight in enumerate(plan.flights, start=1):
        if plan.bag_target(flight) < 1:
            raise ConfigError(
                f"event.bag_at_share {float(plan.bag_at_share)} of flights entry {number} "
                f"({flight.name}, {flight.players} players) bags nobody: Day 2 cannot seat it"
            )
    day2 = sum(plan.bag_target(flight) for flight in plan.flights) - plan.multi_entries * (
        len(plan.flights) - 1
    )
    if day2 < 2:
        raise ConfigError(
            f"event.bag_at_share {float(plan.bag_at_share)} leaves Day 2 {day2} player(s) at "
            "most: it cannot be seated (FL-3 needs two or more)"
        )
    structure = plan.structure
    if structure.payout_percent is not None:
        paid, key = len(structure.payout_percent), "payouts.percent"
    else:
        paid, key = paid_places(plan.entries, structure.paid_percent), "payouts.paid_percent"
    if paid > day2:
        raise ConfigError(
            f"{key} pays {paid} places, but Day 2 may seat only {day2} (event.bag_at_share "
            f"{float(plan.bag_at_share)}): FL-3 puts the money bubble on Day 2 only"
        )
