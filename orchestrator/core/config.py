"""A tournament's configuration as typed values: frozen dataclasses, amounts in chips or cents.

`orchestrator.core.config_toml` reads them from TOML (every key is documented there) and checks
each field; the values here are what the rest of the core, the shells and the views read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from orchestrator.core.balancing import BalancingPolicy, TdaBreaks
from orchestrator.core.time_bank import TimeBankRules
from orchestrator.errors import ConfigError

SPARE_TABLES = 1  # [cluster] spare_tables when the config says nothing

__all__ = [
    "BOUNTY_KINDS",
    "BagRule",
    "BlindLevel",
    "BountyRules",
    "Break",
    "Day2Start",
    "Phase",
    "RebuyRules",
    "SatelliteRules",
    "SideEvents",
    "TournamentConfig",
]


@dataclass(frozen=True, slots=True)
class BlindLevel:
    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = False  # BBA-1: `ante` is one ante for the table, from the big blind


@dataclass(frozen=True, slots=True)
class Break:
    after_level: int
    minutes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RebuyRules:
    rebuys: int = 3
    threshold: int = 1500
    chips: int = 1500
    levels: int = 6
    first_conversion: int = 1500
    conversion: int = 2500
    auto: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class SideEvents:
    """RB-6: fast freeze-outs for eliminated players, beside the main event."""

    players: int = 10
    starting_stack: int = 2500
    buy_in: int = 0
    fee: int = 0
    percent: tuple[int, ...] = (60, 40)
    level_length: int = 5


BOUNTY_KINDS = ("knockout", "progressive", "mystery")  # KO-1, KO-2, KO-4


@dataclass(frozen=True, slots=True, kw_only=True)
class BountyRules:
    """KO-1..KO-5: `bounty` cents of each entry's buy-in fund the bounties, apart from the
    prize pool. A progressive knockout pays `cash_percent` of a bounty won in cash and adds the
    rest to the eliminator's own; a mystery bounty draws from `mystery` (cents, which the
    bounty part of every entry funds exactly) from `mystery_from` players left (None: from the
    money on)."""

    kind: Literal["knockout", "progressive", "mystery"]
    bounty: int
    cash_percent: int = 50
    mystery: tuple[int, ...] = ()
    mystery_from: int | None = None

    def check_funding(self, entries: int) -> None:
        """KO-4: the mystery list is the bounty money of `entries` entries, to the cent."""
        if self.kind == "mystery" and sum(self.mystery) != self.bounty * entries:
            raise ConfigError(
                f"knockout.mystery adds up to {sum(self.mystery)} cents, but {entries} entries "
                f"of knockout.bounty {self.bounty} fund {self.bounty * entries}"
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class SatelliteRules:
    """SAT-1..SAT-3: the prize pool pays seats of `seat_value` cents (the target tournament's
    entry, buy-in + fee); `target` names the target's config file, relative to the
    satellite's own ("" when the operator registers the tickets elsewhere)."""

    seat_value: int
    target: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Phase:
    max_per_table: int
    qualifiers: int
    stacks: Literal["reset", "carry"] = "carry"
    starting_stack: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class BagRule:
    """FL-1: a Day 1 flight stops ("bags") once `players` or fewer remain (0: no such rule), or
    when level `after_level` is over (0: no such rule); one player left bags too."""

    players: int = 0
    after_level: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Day2Start:
    """FL-3: what a Day 2 starts from: each qualified player's bagged stack (FL-2: his
    largest), the level the flights stopped at, and the prize pool of every flight's entries
    (`entries` of them), carried into Day 2's pool."""

    stacks: tuple[tuple[str, int], ...]
    level: int
    pool: int
    entries: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentConfig:
    name: str
    players: int
    max_per_table: int = 10
    starting_stack: int = 10_000
    structure: str = "freezeout"
    policy: BalancingPolicy = "equilibrium"
    # TDA-2 with FO-3: "due" breaks every table one fewer would not need (the highest numbers),
    # each at its boundary; "one" only the highest, one at a time (the only way before v2 of
    # `tournament_opened`, whose upcaster keeps it for older logs)
    tda_breaks: TdaBreaks = "due"
    betting: Literal["no", "fixed"] = "no"
    buy_in: int = 0
    fee: int = 0
    level_unit: Literal["hands", "minutes"] = "hands"
    level_length: int = 10
    levels: tuple[BlindLevel, ...]
    level_lead: int = 2  # START-2: hands a table may be ahead of the slowest (levels in hands)
    breaks: tuple[Break, ...] = ()
    payout_percent: tuple[int, ...] | None = None
    paid_percent: int | None = None  # PAY-1: the default table pays this share of entries
    guarantee: int = 0  # GTD-1: the prize pool guaranteed, in cents (0: none)
    deal_bots_accept: str = "always"  # DEAL-1: how bots answer a deal (`core.deals.BOT_RULES`)
    rebuy: RebuyRules | None = None
    phases: tuple[Phase, ...] = ()
    heads_up_knockout: bool = False
    hand_for_hand: int = 0
    late_registration_levels: int = 0
    reentries: int = 0
    # LATE: a bust with re-entries left and the money re-enters by himself (bots, `mtt run`);
    # false: only when he asks (`Tournament.register_late` again), as the front door's players
    # do, whose re-entries their wallets pay (docs/FRONTDOOR.md)
    reentry_auto: bool = True
    late_entries: int = 0
    max_entries: int | None = None
    cancellation_bp: int = 0
    skill_levels: tuple[str, str] | None = None  # SKILL-2: lowest and highest level admitted
    side_events: SideEvents | None = None
    action_seconds: float = 30.0  # OUT-1: a remote player's time limit per action
    time_bank_seconds: float = 0.0  # TB-1: each player's bank, run after the time limit
    time_bank_refill: float = 0.0  # TB-1: seconds added back...
    time_bank_every: int = 1  # ...every this many levels
    halt_short_tables: bool | None = None  # HALT-1; None: on for tables of 8+ seats (equilibrium)
    knockout: BountyRules | None = None  # KO-1..KO-5: its bounty is part of `buy_in`
    # When the front door opens and starts it by itself, in epoch seconds (`config_schedule`)
    registration_opens_at: float | None = None
    starts_at: float | None = None
    bag: BagRule | None = None  # FL-1: a Day 1 flight of a multi-day event
    day2: Day2Start | None = None  # FL-3: a Day 2, seated with the flights' bags
    satellite: SatelliteRules | None = None  # SAT-1..SAT-3: the pool pays seats (tickets)
    # [cluster] for the shell, no rule of play: warm spare table actors each node keeps, so a
    # lost table restarts without a process start (`orchestrator.shell.tables.SparePool`)
    spare_tables: int = SPARE_TABLES

    @property
    def prize_buy_in(self) -> int:
        """The cents of each entry's buy-in that go to the prize pool: all of it, less the
        bounty (KO-5: bounty money is never part of the prize pool)."""
        return self.buy_in - self.bounty

    @property
    def registration_price(self) -> tuple[int, int]:
        """What one entry pays at registration, (to the prize pool, to the operator) in cents:
        nothing on a Day 2, whose players paid in their flights (FL-3)."""
        return (self.prize_buy_in, self.fee) if self.day2 is None else (0, 0)

    @property
    def bounty(self) -> int:
        """KO-1: the cents of each entry's buy-in that fund the bounties (0: no bounties)."""
        return self.knockout.bounty if self.knockout else 0

    @property
    def time_bank(self) -> TimeBankRules:
        """TB-1: the time bank's rules (checked when the config is read)."""
        return TimeBankRules(
            seconds=self.time_bank_seconds, refill=self.time_bank_refill, every=self.time_bank_every
        )

    @property
    def halts_short_tables(self) -> bool:
        """HALT-1: a table 3+ players short of the fullest waits for balancing. Only where the
        floor balances (the `equilibrium` policy, not a shoot-out); on by default from 8 seats."""
        if self.policy != "equilibrium" or self.structure == "shootout":
            return False
        if self.halt_short_tables is None:
            return self.max_per_table >= 8
        return self.halt_short_tables

    def side_event_config(self, number: int) -> TournamentConfig:
        """RB-6: side event `number` as a freeze-out of its own (one table, no rebuys, its
        prizes fixed in advance by the full field it waits for)."""
        side = self.side_events
        assert side is not None
        return TournamentConfig(
            name=f"{self.name}-side{number}",
            players=side.players,
            max_per_table=side.players,
            starting_stack=side.starting_stack,
            betting=self.betting,
            buy_in=side.buy_in,
            fee=side.fee,
            level_unit="hands",
            level_length=side.level_length,
            levels=self.levels,
            payout_percent=side.percent,
        )

    def with_players(self, players: int) -> TournamentConfig:
        """The same tournament for `players` entries (`mtt run --players`)."""
        if type(players) is not int:
            raise ConfigError(f"players must be a whole number, not {players!r}")
        if players < 2:
            raise ConfigError(f"players must be >= 2, not {players}")
        if self.knockout is not None:
            self.knockout.check_funding(players)
        return replace(self, players=players)
