"""The events of registration, money and judges (REG-*, CRASH-*, SKILL-*, SAN-*), re-exported
by `core.events` with the others."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from orchestrator.core.event_base import Event

__all__ = [
    "BountyReturned",
    "BountyWon",
    "DealAnswered",
    "DealPaid",
    "DealProposed",
    "LedgerPosted",
    "MysteryBountiesCommitted",
    "MysteryBountiesRevealed",
    "OverlayPaid",
    "PenaltyGiven",
    "PlayerDisqualified",
    "PlayerRegistered",
    "PlayerUnregistered",
    "RankingUpdated",
    "Refund",
    "RegistrationClosed",
    "RegistrationOpened",
    "RollForwardPaid",
    "SanctionRescinded",
    "SatelliteFinished",
    "TicketAwarded",
    "TournamentCancelled",
    "WarningIssued",
]


# --- registration and money (REG-*, CRASH-*, SKILL-*) -------------------------------------
# Every money movement is also logged as a `ledger_posted` event, right after the event that
# caused it, so the ledger is a fold over the log like the rest of the state
# (`Ledger.replay`), and an auditor can add up the postings without trusting any summary.


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistrationOpened(Event):
    EVENT_TYPE: ClassVar[str] = "registration_opened"
    tournament: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistrationClosed(Event):
    """No more entries: at the start, or when the late registration level has passed."""

    EVENT_TYPE: ClassVar[str] = "registration_closed"
    entries: int
    prize_pool: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OverlayPaid(Event):
    """GTD-1: registration closed with the entries' prize contributions (`entries_pool`) short
    of the `guarantee`; the operator paid the `overlay` (their difference) into the pool."""

    EVENT_TYPE: ClassVar[str] = "overlay_paid"
    guarantee: int
    entries_pool: int
    overlay: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRegistered(Event):
    """REG-1: `entry` is 1 for the first entry, 2.. for re-entries; `buy_in` went to the prize
    pool (in a knockout, the rest of the entry's buy-in went to the bounties: its
    `ledger_posted`), `fee` to the operator (SAT-3: a ticket's entry is the same, its
    `ledger_posted` from the player's ticket account)."""

    EVENT_TYPE: ClassVar[str] = "player_registered"
    player: str
    entry: int
    buy_in: int
    fee: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerUnregistered(Event):
    """REG-2: `refund` = the entry less `charge`, the cancellation charge kept by the operator."""

    EVENT_TYPE: ClassVar[str] = "player_unregistered"
    player: str
    refund: int
    charge: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Refund(Event):
    EVENT_TYPE: ClassVar[str] = "refund"
    player: str
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCancelled(Event):
    EVENT_TYPE: ClassVar[str] = "tournament_cancelled"
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RollForwardPaid(Event):
    """CRASH-2: a player still in at the cancellation gets `equal_share` + `chip_share` of the
    prize pool not yet awarded (the commission comes back as a separate `refund`)."""

    EVENT_TYPE: ClassVar[str] = "roll_forward_paid"
    player: str
    chips: int
    equal_share: int
    chip_share: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LedgerPosted(Event):
    """One money movement in cents from account `source` to account `target` (`pool`,
    `operator` or `player:<name>`); `posting` numbers them from 1 in the ledger."""

    EVENT_TYPE: ClassVar[str] = "ledger_posted"
    posting: int
    source: str
    target: str
    amount: int
    reason: str


# --- deals at the final table (DEAL-1..DEAL-3) ----------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class DealProposed(Event):
    """DEAL-1, DEAL-2: the operator proposed a deal of `kind` (`chip_chop`, `icm`, `equal`) at
    the final table, play paused: `amounts[k]` for `players[k]`, who holds `chips[k]`; `left`
    cents stay in play with the title. It leads its step."""

    EVENT_TYPE: ClassVar[str] = "deal_proposed"
    kind: str
    players: tuple[str, ...]
    chips: tuple[int, ...]
    amounts: tuple[int, ...]
    left: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DealAnswered(Event):
    """DEAL-1: a player's answer to the deal proposed; one refusal ends it and play resumes
    unchanged. It leads its step."""

    EVENT_TYPE: ClassVar[str] = "deal_answered"
    player: str
    accepted: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class DealPaid(Event):
    """DEAL-3: every player accepted; the pool paid `player` his `amount` (its `ledger_posted`
    follows). `place` is his final place when the deal ends the tournament (by chips, `chips`
    his stack), 0 when play goes on for the amount left."""

    EVENT_TYPE: ClassVar[str] = "deal_paid"
    player: str
    chips: int
    amount: int
    place: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RankingUpdated(Event):
    """SKILL-3: a player's ranking after a tournament's results."""

    EVENT_TYPE: ClassVar[str] = "ranking_updated"
    player: str
    before: int
    after: int
    level: str


# --- bounties (KO-1..KO-5) ----------------------------------------------------------------
# Each cent paid is also a `ledger_posted` from the `bounties` account, right after.


@dataclass(frozen=True, slots=True, kw_only=True)
class BountyWon(Event):
    """KO-3: `player` won (his share of) `eliminated`'s bounty: `cash` cents paid now (KO-1,
    KO-2's cash part, KO-4's drawn amount) and `added` cents to his own bounty (KO-2)."""

    EVENT_TYPE: ClassVar[str] = "bounty_won"
    player: str
    eliminated: str
    cash: int
    added: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class BountyReturned(Event):
    """KO-5: a bounty nobody won goes to the player holding it: the winner's own (KO-2), or,
    at a cancellation (CRASH-2), each player still in gets his own back (a mystery bounty's
    amounts not drawn: shared by the players still in)."""

    EVENT_TYPE: ClassVar[str] = "bounty_returned"
    player: str
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MysteryBountiesCommitted(Event):
    """KO-4 at the start: the published amounts (sorted, cents) and the SHA-256 commitment
    (hex) of the order they are drawn in, under a secret salt."""

    EVENT_TYPE: ClassVar[str] = "mystery_bounties_committed"
    amounts: tuple[int, ...]
    commitment: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MysteryBountiesRevealed(Event):
    """KO-4 at the end: the order committed at the start and its salt (hex), so anyone can
    check the commitment and every draw."""

    EVENT_TYPE: ClassVar[str] = "mystery_bounties_revealed"
    order: tuple[int, ...]
    salt: str


# --- satellites (SAT-1..SAT-3) -------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TicketAwarded(Event):
    """SAT-3: `player` took `place` (1..N) and won a seat: a ticket of `value` cents to the
    `target` tournament, posted from the pool to his ticket account (its `ledger_posted`
    follows). `chips`: his stack when play stopped (0 for a player busted into the seats in the
    last hand-for-hand round, whose `player_eliminated` came first)."""

    EVENT_TYPE: ClassVar[str] = "ticket_awarded"
    player: str
    place: int
    value: int
    chips: int
    target: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class SatelliteFinished(Event):
    """SAT-1/SAT-2: play stopped with `seats` players holding tickets of `value` cents (the
    `players`, best placed first); `remainder` cents went in cash to place `seats` + 1. It comes
    right before `tournament_finished`, whose `winner` is the first of `players`."""

    EVENT_TYPE: ClassVar[str] = "satellite_finished"
    seats: int
    value: int
    remainder: int
    players: tuple[str, ...]
    target: str = ""


# --- judges and sanctions (SAN-*) ---------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class WarningIssued(Event):
    """SAN-2; `warnings` counts this player's standing warnings, this one included."""

    EVENT_TYPE: ClassVar[str] = "warning_issued"
    sanction: int
    player: str
    judge: str
    reason: str
    warnings: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PenaltyGiven(Event):
    """SAN-2: the player sits out `hands` hands (dealt in and folded, forced bets still paid)."""

    EVENT_TYPE: ClassVar[str] = "penalty"
    sanction: int
    player: str
    judge: str
    reason: str
    hands: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerDisqualified(Event):
    """SAN-1 (third warning) or a judge's direct disqualification; the chips leave play by the
    rule in `orchestrator.core.sanctions`."""

    EVENT_TYPE: ClassVar[str] = "player_disqualified"
    sanction: int
    player: str
    judge: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SanctionRescinded(Event):
    """SAN-2: the head judge has the last word and withdrew sanction number `sanction`."""

    EVENT_TYPE: ClassVar[str] = "sanction_rescinded"
    sanction: int
    player: str
    judge: str
    reason: str
