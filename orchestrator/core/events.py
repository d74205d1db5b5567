"""The tournament's events (DESIGN.md "Files written by mtt run": events.jsonl).

Each is a frozen record with the contract's field names; `EVENT_TYPE` is its `type`, `VERSION`
its fields' version (`v`; a change to them bumps it, with an upcaster in `core.codec`, which
reads and writes every subclass of `Event`). The log adds the envelope: `seq`, `ts`, and
`cause` (the seq of the hand_finished that led to it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from orchestrator.core.config import TournamentConfig
from orchestrator.core.event_base import Event, EventRecord
from orchestrator.core.money_events import (
    BountyReturned,
    BountyWon,
    DealAnswered,
    DealPaid,
    DealProposed,
    LedgerPosted,
    MysteryBountiesCommitted,
    MysteryBountiesRevealed,
    OverlayPaid,
    PenaltyGiven,
    PlayerDisqualified,
    PlayerRegistered,
    PlayerUnregistered,
    RankingUpdated,
    Refund,
    RegistrationClosed,
    RegistrationOpened,
    RollForwardPaid,
    SanctionRescinded,
    SatelliteFinished,
    TicketAwarded,
    TournamentCancelled,
    WarningIssued,
)
from table_worker.protocol import HandPlayer, HandPot, HandTiming

__all__ = [
    "Addon",
    "BountyReturned",
    "BountyWon",
    "BreakStarted",
    "ButtonAssigned",
    "ChipsRemoved",
    "Day2Started",
    "DealAnswered",
    "DealPaid",
    "DealProposed",
    "Event",
    "EventRecord",
    "FinalTable",
    "FlightBagged",
    "FlightBagging",
    "FundingWithdrawn",
    "HandFinished",
    "HandForHand",
    "HandTiming",
    "HandVoided",
    "LedgerPosted",
    "LevelStarted",
    "MysteryBountiesCommitted",
    "MysteryBountiesRevealed",
    "NodeLost",
    "OverlayPaid",
    "PenaltyGiven",
    "PhaseStarted",
    "PlayStarted",
    "PlayerDisqualified",
    "PlayerEliminated",
    "PlayerFunded",
    "PlayerMoved",
    "PlayerQualified",
    "PlayerReentered",
    "PlayerRegistered",
    "PlayerSeated",
    "PlayerUnregistered",
    "PrizeAwarded",
    "RankingUpdated",
    "Rebuy",
    "RebuyRequested",
    "Refund",
    "RegistrationClosed",
    "RegistrationOpened",
    "RollForwardPaid",
    "SanctionRescinded",
    "SatelliteFinished",
    "SideEventStarted",
    "StackBagged",
    "TableActorLost",
    "TableClosed",
    "TableOpened",
    "TablePolled",
    "TableReady",
    "TableRestarted",
    "TicketAwarded",
    "TournamentCancelled",
    "TournamentFinished",
    "TournamentOpened",
    "TournamentPaused",
    "TournamentResumed",
    "TournamentStarted",
    "WarningIssued",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentOpened(Event):
    """The log's first record: all the start was given (deposits in cents, the seed of every
    step's RNG, the satellite tickets entries were paid with, SAT-3), so the log alone rebuilds
    the tournament (`core.replay.rebuild_from_log`)."""

    EVENT_TYPE: ClassVar[str] = "tournament_opened"
    VERSION: ClassVar[int] = 2  # 2 added the config's `tda_breaks`
    tournament: str
    config: TournamentConfig
    players: tuple[str, ...]
    deposits: dict[str, int]
    seed: int
    tickets: dict[str, int] = field(default_factory=dict)  # SAT-3: entries paid by ticket


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentStarted(Event):
    EVENT_TYPE: ClassVar[str] = "tournament_started"
    tournament: str
    players: int
    tables: int
    max_per_table: int
    structure: str
    policy: str
    starting_stack: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TableOpened(Event):
    EVENT_TYPE: ClassVar[str] = "table_opened"
    table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSeated(Event):
    EVENT_TYPE: ClassVar[str] = "player_seated"
    player: str
    table: int
    seat: int
    stack: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ButtonAssigned(Event):
    EVENT_TYPE: ClassVar[str] = "button_assigned"
    table: int
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LevelStarted(Event):
    EVENT_TYPE: ClassVar[str] = "level_started"
    level: int
    small_blind: int
    big_blind: int
    ante: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BreakStarted(Event):
    EVENT_TYPE: ClassVar[str] = "break_started"
    minutes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandFinished(Event):
    EVENT_TYPE: ClassVar[str] = "hand_finished"
    VERSION: ClassVar[int] = 2  # 2 added `pots`
    table: int
    hand: int
    button: int
    players: tuple[HandPlayer, ...]
    # Added for metrics (DESIGN.md allows new fields): the table's HandTiming.
    seconds: float = 0.0
    deck_wait_seconds: float = 0.0
    fouled_decks: int = 0
    # The report's pots: a bounty's eliminator is decided from them (KO-3), so a replay needs
    # them. A record without them (written before) reads as none.
    pots: tuple[HandPot, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerEliminated(Event):
    EVENT_TYPE: ClassVar[str] = "player_eliminated"
    player: str
    place: int
    table: int
    hand: int
    start: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerMoved(Event):
    EVENT_TYPE: ClassVar[str] = "player_moved"
    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    stack: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TableClosed(Event):
    EVENT_TYPE: ClassVar[str] = "table_closed"
    table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeLost(Event):
    """A node died; the tables it hosted are restarted elsewhere (CRASH decision)."""

    EVENT_TYPE: ClassVar[str] = "node_lost"
    node: str
    tables: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandVoided(Event):
    """The hand in progress on a lost table never happened: stacks stay at the last reported
    boundary (TDA: an interrupted hand returns all bets)."""

    EVENT_TYPE: ClassVar[str] = "hand_voided"
    table: int
    hand: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TableRestarted(Event):
    EVENT_TYPE: ClassVar[str] = "table_restarted"
    table: int
    node: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TableActorLost(Event):
    """A table's actor (or its node) died between two hands, with no hand to void (one in
    progress is voided instead: `hand_voided`). Until its restart the table holds nobody back
    (START-1, START-2)."""

    EVENT_TYPE: ClassVar[str] = "table_lost"
    table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TableReady(Event):
    """START-1: the table's actor answered its first call; it may deal once play starts. Logged
    once per table (a restart's new actor is ready with its `table_restarted`)."""

    EVENT_TYPE: ClassVar[str] = "table_ready"
    table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayStarted(Event):
    """START-1: every table of the tournament is seated, ready and at its boundary, and `tables`
    deal from here together: at the start, after a break, after the operator's pause and when a
    new phase starts. The level clock stood still for `held_seconds` before it (the level in
    play ends that much later)."""

    EVENT_TYPE: ClassVar[str] = "play_started"
    tables: tuple[int, ...]
    held_seconds: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class TablePolled(Event):
    """A waiting table asked again and the answer changed the tournament (a hand dealt, the
    floor's decision taken at its idle boundary). Logged so a restarted orchestrator replays
    exactly the polls that mattered; the others change nothing."""

    EVENT_TYPE: ClassVar[str] = "table_polled"
    table: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FinalTable(Event):
    EVENT_TYPE: ClassVar[str] = "final_table"
    table: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PrizeAwarded(Event):
    EVENT_TYPE: ClassVar[str] = "prize_awarded"
    player: str
    place: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentPaused(Event):
    """The operator stopped the clock: tables finish the hand in progress, then wait."""

    EVENT_TYPE: ClassVar[str] = "tournament_paused"


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentResumed(Event):
    """The clock runs again; the level in play ends `paused_seconds` later than it would have."""

    EVENT_TYPE: ClassVar[str] = "tournament_resumed"
    paused_seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentFinished(Event):
    EVENT_TYPE: ClassVar[str] = "tournament_finished"
    winner: str
    hands: int
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Rebuy(Event):
    """RB-3: chips bought back (pre-paid with the entry, RB-2)."""

    EVENT_TYPE: ClassVar[str] = "rebuy"
    player: str
    chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RebuyRequested(Event):
    """RB-3: a player asked for a rebuy, taken at his next hand boundary (leads the step of
    the request, so a restarted orchestrator takes it again)."""

    EVENT_TYPE: ClassVar[str] = "rebuy_requested"
    player: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Addon(Event):
    """RB-4: unused rebuys converted to chips at the end of the rebuy period."""

    EVENT_TYPE: ClassVar[str] = "addon"
    player: str
    chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseStarted(Event):
    """SO-1: a shoot-out phase begins with the players still in, reseated at random."""

    EVENT_TYPE: ClassVar[str] = "phase_started"
    phase: int
    tables: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerQualified(Event):
    """SO-2: one of the last players at a table goes through to the next phase."""

    EVENT_TYPE: ClassVar[str] = "player_qualified"
    player: str
    phase: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerReentered(Event):
    """A busted player enters again during late registration: a new entry, a full stack and a
    seat drawn at random (never between the small blind and the button)."""

    EVENT_TYPE: ClassVar[str] = "player_reentered"
    player: str
    table: int
    seat: int
    stack: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SideEventStarted(Event):
    """RB-6: eliminated players fill a side event, which runs beside the main event with its
    own registration, log and tables (`side-events/<event>/` in the run's folder)."""

    EVENT_TYPE: ClassVar[str] = "side_event_started"
    event: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChipsRemoved(Event):
    """A disqualified player's chips leave play (SAN-1; the rule is in `core.sanctions`)."""

    EVENT_TYPE: ClassVar[str] = "chips_removed"
    player: str
    chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandForHand(Event):
    """Hand-for-hand play near the money starts (`active` true) or ends (ELIM-1 decision)."""

    EVENT_TYPE: ClassVar[str] = "hand_for_hand"
    active: bool
    players: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerFunded(Event):
    """REG-1 during late registration, for a player the start did not fund (he registered at
    the front door after it): his account opens with `amount` cents, then his entry is taken
    in the same step, which this event leads (a restarted orchestrator funds him again)."""

    EVENT_TYPE: ClassVar[str] = "player_funded"
    player: str
    amount: int
    key: str = ""  # the payment's key in the player's wallet (the front door's), if any


@dataclass(frozen=True, slots=True, kw_only=True)
class FundingWithdrawn(Event):
    """LATE: the front door, restarted with a re-entry's payment open (`reentry_paying`),
    withdrew it before crediting it back: a `player_funded` with this `key` is refused from
    now on, so the run never takes an entry its payer has given back."""

    EVENT_TYPE: ClassVar[str] = "funding_withdrawn"
    key: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StackBagged(Event):
    """FL-1: a Day 1 flight bagged; `player` is still in with `chips`, which go forward to
    Day 2 unless he bags larger in another flight (FL-2)."""

    EVENT_TYPE: ClassVar[str] = "stack_bagged"
    player: str
    chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FlightBagging(Event):
    """FL-1: a Day 1 flight's bag is due with `players` left at `level`: no table deals again;
    each plays out the hand in progress and closes at its boundary (nobody moves any more)."""

    EVENT_TYPE: ClassVar[str] = "flight_bagging"
    players: int
    level: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FlightBagged(Event):
    """FL-1: a Day 1 flight is over: `players` bagged `chips` in all at `level`; its `pool`
    went to the event's Day 2 (its `ledger_posted` follows, `pool` to `event`)."""

    EVENT_TYPE: ClassVar[str] = "flight_bagged"
    players: int
    chips: int
    level: int
    pool: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Day2Started(Event):
    """FL-3: a Day 2 starts with the bags of the flights' `entries` entries, at `level`, its
    prize pool every flight's `pool` (its `ledger_posted` follows, `event` to `pool`)."""

    EVENT_TYPE: ClassVar[str] = "day2_started"
    entries: int
    pool: int
    level: int
