"""What the money ledger (`orchestrator.core.ledger`) keeps and returns, as frozen records.

Accounts (a player's, the prize pool, the operator's), the reasons money moves with the rule each
implements, postings, the entries paid and their status, the results of a refund and of a
CRASH-2 roll-forward, and a snapshot of the whole ledger; `posting_event` puts a posting in the
tournament's log. Amounts are integer cents.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from orchestrator.core.events import LedgerPosted

__all__ = [
    "BOUNTIES",
    "EVENT",
    "OPERATOR",
    "POOL",
    "WALLET",
    "Account",
    "EntryPaid",
    "EntryRefund",
    "EntryStatus",
    "LedgerSnapshot",
    "Opening",
    "Posting",
    "Reason",
    "RollForward",
    "RollForwardShare",
    "player_account",
    "posting_event",
    "ticket_account",
]


@dataclass(frozen=True, slots=True, order=True)
class Account:
    kind: Literal["player", "pool", "operator", "bounties", "event", "wallet", "ticket"]
    player: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.player}" if self.player else self.kind


POOL = Account("pool")
OPERATOR = Account("operator")
BOUNTIES = Account("bounties")  # KO-5: the bounty part of every entry, apart from the pool
# What went back to the players' wallets (the Accounts port, outside the ledger): it only
# fills, so the ledger's total stays the total brought in.
WALLET = Account("wallet")
EVENT = Account("event")  # FL-3: a multi-day event's pool between its flights and Day 2


def player_account(player: str) -> Account:
    return Account("player", player)


def ticket_account(player: str) -> Account:
    """SAT-3: the seats a player won in satellites, held as an asset of the player."""
    return Account("ticket", player)


class Reason(StrEnum):
    """Why money moved; `RULES[reason]` is the rule it implements."""

    BUY_IN = "buy_in"
    FEE = "fee"
    REFUND_BUY_IN = "refund_buy_in"
    REFUND_FEE = "refund_fee"
    CANCELLATION_CHARGE = "cancellation_charge"
    CANCEL_BUY_IN = "cancel_buy_in"
    CANCEL_FEE = "cancel_fee"
    PRIZE = "prize"
    ROLL_FORWARD_FEE = "roll_forward_fee"
    ROLL_FORWARD_EQUAL = "roll_forward_equal"
    ROLL_FORWARD_CHIPS = "roll_forward_chips"
    OVERLAY = "overlay"
    DEAL = "deal"
    BOUNTY = "bounty"
    REFUND_BOUNTY = "refund_bounty"
    CANCEL_BOUNTY = "cancel_bounty"
    BOUNTY_WON = "bounty_won"
    BOUNTY_RETURNED = "bounty_returned"
    CASH_OUT = "cash_out"
    POOL_TO_DAY2 = "pool_to_day2"
    POOL_FROM_FLIGHTS = "pool_from_flights"
    TICKET = "ticket"
    TICKET_ENTRY = "ticket_entry"
    TICKET_FEE = "ticket_fee"
    REFUND_TICKET = "refund_ticket"

    @property
    def rule(self) -> str:
        return _RULES[self]


_RULES = {
    Reason.BUY_IN: "REG-1",
    Reason.FEE: "REG-1",
    Reason.REFUND_BUY_IN: "REG-2",
    Reason.REFUND_FEE: "REG-2",
    Reason.CANCELLATION_CHARGE: "REG-2",
    Reason.CANCEL_BUY_IN: "CRASH-1",
    Reason.CANCEL_FEE: "CRASH-1",
    Reason.PRIZE: "PRIZE",
    Reason.ROLL_FORWARD_FEE: "CRASH-2",
    Reason.ROLL_FORWARD_EQUAL: "CRASH-2",
    Reason.ROLL_FORWARD_CHIPS: "CRASH-2",
    Reason.OVERLAY: "GTD-1",
    Reason.DEAL: "DEAL-3",
    Reason.BOUNTY: "KO-1",  # the bounty part of an entry
    Reason.REFUND_BOUNTY: "REG-2",
    Reason.CANCEL_BOUNTY: "CRASH-1",
    Reason.BOUNTY_WON: "KO-3",  # to the eliminator(s), by the KO-1, KO-2 or KO-4 amount
    Reason.BOUNTY_RETURNED: "KO-5",  # a bounty nobody won, to the player holding it
    Reason.CASH_OUT: "WALLET",  # a player's money back to his wallet (refunds, REG-2, CRASH-1)
    Reason.POOL_TO_DAY2: "FL-3",  # a bagged flight's pool, to the event's Day 2
    Reason.POOL_FROM_FLIGHTS: "FL-3",  # Day 2's pool: every flight's
    Reason.TICKET: "SAT-3",  # a satellite's seat, from its pool to the player's ticket account
    Reason.TICKET_ENTRY: "SAT-3",  # a ticket spent as an entry: the buy-in to the pool...
    Reason.TICKET_FEE: "SAT-3",  # ...and the fee to the operator
    Reason.REFUND_TICKET: "SAT-3",  # REG-2 of a ticket's entry: the ticket back
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Posting:
    """One movement: `amount` cents (> 0) from `source` to `target`, concerning `player`."""

    number: int
    player: str
    source: Account
    target: Account
    amount: int
    reason: Reason
    at: float

    @property
    def rule(self) -> str:
        return self.reason.rule


@dataclass(frozen=True, slots=True)
class Opening:
    """Money brought under the ledger: a player's account opened with `balance` cents, or the
    operator's own money for a guarantee's overlay (GTD-1)."""

    account: Account
    balance: int
    at: float

    @property
    def player(self) -> str:
        """The player whose account was opened ("" for the operator's)."""
        return self.account.player


class EntryStatus(StrEnum):
    PAID = "paid"  # its buy-in is in the pool
    REFUNDED = "refunded"  # REG-2 or CRASH-1
    ROLLED_FORWARD = "rolled_forward"  # CRASH-2 settled it


@dataclass(frozen=True, slots=True, kw_only=True)
class EntryPaid:
    player: str
    number: int  # 1 = first entry, 2.. = re-entries
    buy_in: int
    fee: int
    status: EntryStatus = EntryStatus.PAID
    bounty: int = 0  # KO-5: the entry's bounty part, held apart from the pool
    ticket: bool = False  # SAT-3: paid with a ticket (from the player's ticket account)


@dataclass(frozen=True, slots=True, kw_only=True)
class EntryRefund:
    """REG-2: `refund` = buy-in + fee - `charge`, net to the player."""

    player: str
    refund: int
    charge: int
    postings: tuple[Posting, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RollForwardShare:
    player: str
    chips: int
    fee: int
    equal_share: int
    chip_share: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RollForward:
    """CRASH-2: what each player still in received, and the postings."""

    shares: tuple[RollForwardShare, ...]
    postings: tuple[Posting, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class LedgerSnapshot:
    """Everything the ledger holds, comparable with ==, e.g. before and after a refusal."""

    balances: tuple[tuple[Account, int], ...]
    openings: tuple[Opening, ...]
    entries: tuple[EntryPaid, ...]
    postings: tuple[Posting, ...]


def posting_event(posting: Posting) -> LedgerPosted:
    """The `ledger_posted` event that puts this posting in the tournament's log."""
    return LedgerPosted(
        posting=posting.number,
        source=str(posting.source),
        target=str(posting.target),
        amount=posting.amount,
        reason=posting.reason.value,
    )
