"""The money of the event log, to the cent: entries (REG-1), the overlay (GTD-1), prizes, the
ledger's postings, bounties (KO-3, KO-5) and a satellite's seats (SAT-1..SAT-3, tickets
counted as paid at their face value). The pool, the entries and the bounties won are
the read model's; the prizes each player received are the tally's, summed event by event so a
prize paid twice shows (the model keeps one amount a place)."""

from __future__ import annotations

from collections import Counter

from orchestrator.core.bounties import eliminators_pot
from orchestrator.core.codec import Recorded
from orchestrator.core.events import (
    BountyWon,
    Day2Started,
    FlightBagged,
    LedgerPosted,
    OverlayPaid,
    PlayerRegistered,
    PlayerUnregistered,
    PrizeAwarded,
    Refund,
    SatelliteFinished,
    TicketAwarded,
)
from orchestrator.core.ledger_records import Reason
from orchestrator.views.audit.tally import Check, Tally

__all__ = ["Eliminators", "Money", "Seats"]

_BOUNTY_PAID = frozenset({Reason.BOUNTY_WON, Reason.BOUNTY_RETURNED})  # KO-5


class Money(Check):
    """REG-1: every entry paid its buy-in to the pool and its fee to the operator; GTD-1: the
    operator's overlay tops the pool up to the guarantee, before any prize; prizes pay out the
    whole pool; the ledger's postings balance to the cent: entries = prize pool + commission -
    overlay, and the postings leave the pool empty and the operator with the commission less
    the overlay. KO-5: the bounty money paid in leaves the `bounties` account to the cent, and
    every cent paid out is a `bounty_won` or `bounty_returned` (refunded entries aside)."""

    def __init__(self, buy_in: int | None, fee: int | None) -> None:
        super().__init__()
        self.buy_in, self.fee = buy_in, fee
        self.fees = 0  # the commission of every entry
        self.overlay = 0
        self.refunded_fees = 0  # CRASH-2 gives each player still in the fee back
        self.fee_paid: dict[str, int] = {}  # each player's last entry's fee
        self.balance: Counter[str] = Counter()  # account -> cents, by the postings
        self.bounty_postings = 0  # cents posted as bounties paid
        self.to_day2 = 0  # FL-3: a flight's pool, carried to the event's Day 2
        self.from_flights = 0  # FL-3: a Day 2's pool, from the event's flights

    def see(self, record: Recorded, tally: Tally) -> None:
        e = record.event
        match e:
            case PlayerRegistered():
                self.fees += e.fee
                self.fee_paid[e.player] = e.fee
                if (self.buy_in is not None and e.buy_in != self.buy_in) or (
                    self.fee is not None and e.fee != self.fee
                ):
                    self.flag("REG-1", record, f"entry paid {e.buy_in} + {e.fee}")
            case PlayerUnregistered():  # REG-2: the fee back, the cancellation charge kept
                self.fees += e.charge - self.fee_paid.get(e.player, 0)
            case OverlayPaid():
                self.overlay += e.overlay
                if e.overlay <= 0 or e.overlay != e.guarantee - e.entries_pool:
                    self.flag("GTD-1", record, "the overlay is not the guarantee's shortfall")
                if tally.kinds[PrizeAwarded.EVENT_TYPE]:
                    self.flag("GTD-1", record, "the overlay was paid after a prize")
            case FlightBagged():
                self.to_day2 += e.pool
            case Day2Started():
                self.from_flights += e.pool
            case Refund() if tally.model.cancelled is not None:
                self.refunded_fees += e.amount
            case LedgerPosted():
                self.balance[e.source] -= e.amount
                self.balance[e.target] += e.amount
                if e.reason in _BOUNTY_PAID:
                    self.bounty_postings += e.amount

    def end(self, tally: Tally) -> None:
        model = tally.model
        entries = len(tally.seated) + tally.reentries
        if model.entries != entries:
            self.flag("REG-1", "events.jsonl", f"{model.entries} entries paid, {entries} seated")
        prizes = sum(tally.prizes.values()) + sum(tally.tickets.values())  # SAT-3: face value
        prizes += self.to_day2  # FL-3: a flight's pool went to Day 2
        pool = model.prize_pool
        if prizes != pool:
            self.flag("REG-1", "events.jsonl", f"prizes add up to {prizes}, the pool is {pool}")
        balance = self.balance
        operator = self.fees - self.refunded_fees - self.overlay  # GTD-1: the operator's money
        if sum(balance.values()) != 0 or balance["pool"] != 0 or balance["operator"] != operator:
            self.flag(
                "ledger",
                "events.jsonl",
                f"postings leave the pool at {balance['pool']} (0 expected) and the operator "
                f"at {balance['operator']} ({operator} expected), net {sum(balance.values())}",
            )
        if balance["event"] != self.to_day2 - self.from_flights:  # FL-3
            self.flag("FL-3", "events.jsonl", f"{balance['event']} cents moved for Day 2")
        if balance["bounties"]:
            self.flag(
                "KO-5", "events.jsonl", f"the bounties still hold {balance['bounties']} cents"
            )
        paid = sum(tally.bounties.values())
        if paid != self.bounty_postings:
            self.flag(
                "KO-5",
                "events.jsonl",
                f"bounties of {paid} cents, postings of {self.bounty_postings}",
            )


class Eliminators(Check):
    """KO-3: whoever a `bounty_won` names won chips of the smallest pot (fewest players
    eligible) the eliminated player was in, in the hand that caused it."""

    def see(self, record: Recorded, tally: Tally) -> None:
        e = record.event
        if not isinstance(e, BountyWon) or record.cause is None:
            return
        hand = tally.hands.get(record.cause)
        if hand is None:
            return  # a cause that names no hand is the chips check's to report
        seats = {p.player: p.seat for p in hand.players}
        smallest = eliminators_pot(seats.get(e.eliminated, -1), hand.pots)
        if smallest is None or seats.get(e.player) not in dict(smallest.winners):
            self.flag(
                "KO-3", record, f"{e.player} won no share of the smallest pot {e.eliminated} was in"
            )


class Seats(Check):
    """SAT-1..SAT-3: a satellite's places 1..N each won one ticket of the same value, N =
    floor(pool / value), each posted from the pool to the player's ticket account; the
    remainder went in cash to place N+1, and no other place was paid."""

    def __init__(self) -> None:
        super().__init__()
        self.pool = 0  # the entries' buy-ins and the overlay
        self.posted = 0  # cents posted to ticket accounts
        self.cash: list[tuple[int, int]] = []  # (place, cents) of every prize
        self.end_record: Recorded | None = None

    def see(self, record: Recorded, tally: Tally) -> None:
        e = record.event
        match e:
            case PlayerRegistered():
                self.pool += e.buy_in
            case OverlayPaid():
                self.pool += e.overlay
            case LedgerPosted() if e.reason == Reason.TICKET:
                self.posted += e.amount
            case PrizeAwarded():
                self.cash.append((e.place, e.amount))
            case SatelliteFinished():
                self.end_record = record
            case TicketAwarded() if tally.satellite is not None:
                self.flag("SAT-2", record, f"a ticket for {e.player} after play stopped")

    def end(self, tally: Tally) -> None:
        end, record = tally.satellite, self.end_record
        if end is None or record is None:
            if tally.tickets:
                self.flag("SAT-2", "events.jsonl", "tickets without satellite_finished")
            return
        seats, value, remainder = end.seats, end.value, end.remainder
        if divmod(self.pool, value) != (seats, remainder):
            self.flag("SAT-1", record, f"a pool of {self.pool} does not pay {seats} seats")
        places = sorted(tally.ticket_places.values())
        won = set(tally.tickets.values())
        if places != list(range(1, seats + 1)) or won - {value}:
            self.flag("SAT-2", record, f"tickets of {sorted(won)} for places {places}")
        if self.posted != value * seats:
            self.flag("SAT-3", record, f"tickets posted {self.posted}, {value * seats} won")
        if self.cash != ([(seats + 1, remainder)] if remainder else []):
            self.flag("SAT-1", record, f"cash {self.cash}: only the remainder, to place N+1")
