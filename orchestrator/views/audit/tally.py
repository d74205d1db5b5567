"""The event log as the audit reads it: decoded by the codec into typed events
(`decode_log`), then folded once, in seq order, into the read model and the few counts of the
audit's own (`Tally`), while each check (`Check`) compares every event with what the log said
before it.

Independence: the read model keeps the state every reader wants (stacks, seats, places, the
pool) and quietly absorbs what it is not told to doubt (a place given twice is one entry of a
dict, an eliminated player's chips leave with him). The checks therefore look at each event
*before* the model applies it, and the tally keeps apart what the model folds away: every
elimination as logged, every cent each player was paid, who sat down (the field as the tables
saw it, beside the entries paid)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.core import codec
from orchestrator.core.codec import Recorded
from orchestrator.core.events import (
    BountyReturned,
    DealPaid,
    EventRecord,
    HandFinished,
    PlayerEliminated,
    PlayerReentered,
    PlayerSeated,
    PrizeAwarded,
    RollForwardPaid,
    SatelliteFinished,
    StackBagged,
    TicketAwarded,
)
from orchestrator.errors import RecordError
from orchestrator.views.audit.violations import Violation, at_seq, is_a
from orchestrator.views.read_model import ReadModel

__all__ = ["Check", "DecodedLog", "Tally", "decode_log", "fold"]


@dataclass(frozen=True, slots=True)
class DecodedLog:
    """Every record the codec could read, in the log's order, and a violation for each one it
    could not."""

    records: tuple[Recorded, ...]
    unreadable: tuple[Violation, ...]


def decode_log(log: Sequence[EventRecord]) -> DecodedLog:
    """The log's records decoded (`core.codec.decode`): a record that is not one (a field
    missing, mistyped or unknown, an unknown type, a seq or cause that is no number) is a
    `contract` violation naming its seq (its line when the seq itself is bad), never a crash.
    The audit checks no times: a record without `ts` reads as at 0."""
    records: list[Recorded] = []
    unreadable: list[Violation] = []
    for line, stored in enumerate(log, start=1):
        seq, cause, ts = stored.get("seq"), stored.get("cause"), stored.get("ts", 0.0)
        if type(seq) is not int:
            detail = f"{stored.get('type')!r} has seq {seq!r}, not a position in the log"
            unreadable.append(Violation("contract", f"events.jsonl:{line}", detail))
            continue
        try:
            if cause is not None and not is_a(cause, int):
                raise RecordError(f"{stored.get('type')}: cause {cause!r} is not a seq")
            event = codec.decode(stored)
        except RecordError as exc:
            unreadable.append(Violation("contract", at_seq(seq), f"unreadable record: {exc}"))
            continue
        when = float(ts) if is_a(ts, (int, float)) else 0.0
        records.append(Recorded(seq, when, event, cause))
    return DecodedLog(tuple(records), tuple(unreadable))


@dataclass(slots=True)
class Tally:
    """The log folded up to some record: the read model, and what the audit counts itself."""

    model: ReadModel = field(default_factory=ReadModel)
    kinds: Counter[str] = field(default_factory=Counter)  # events of each type
    hands: dict[int, HandFinished] = field(default_factory=dict)  # by seq: what `cause` names
    seated: set[str] = field(default_factory=set)  # every player ever seated
    reentries: int = 0
    eliminated: dict[str, int] = field(default_factory=dict)  # player -> place, as logged
    deal_places: dict[str, int] = field(default_factory=dict)  # DEAL-3: a deal that ended it
    ticket_places: dict[str, int] = field(default_factory=dict)  # SAT-2: the seats' places
    tickets: Counter[str] = field(default_factory=Counter)  # SAT-3: cents of tickets won
    satellite: SatelliteFinished | None = None  # SAT-2: play stopped at the seats
    # The players left with chips on purpose and how many: rolled forward (CRASH-2), placed
    # by a deal that ended the tournament (DEAL-3), holding a seat when a satellite stopped
    # (SAT-2) or bagged by a Day 1 flight (FL-1).
    rolled: dict[str, int] = field(default_factory=dict)
    prizes: Counter[str] = field(default_factory=Counter)  # cents: prizes, deals, CRASH-2
    returned: Counter[str] = field(default_factory=Counter)  # bounty cents given back (KO-5)

    @property
    def places(self) -> dict[str, int]:
        """Each player's place as the log gives it: eliminations, the winner first, and the
        places of a deal that ended the tournament or of a satellite's seats."""
        places = dict(self.eliminated)
        if self.model.winner is not None:
            places[self.model.winner] = 1
        return places | self.deal_places | self.ticket_places

    @property
    def bounties(self) -> Counter[str]:
        """KO-5: the bounty cents each player received, won (the read model's) or returned."""
        received = Counter(self.model.bounties_won)
        for player, cents in self.returned.items():
            received[player] += cents
        return received

    def add(self, record: Recorded) -> None:
        event = record.event
        self.kinds[event.EVENT_TYPE] += 1
        match event:
            case HandFinished():
                self.hands[record.seq] = event
            case PlayerSeated():
                self.seated.add(event.player)
            case PlayerReentered():
                self.reentries += 1
            case PlayerEliminated():
                self.eliminated[event.player] = event.place
            case PrizeAwarded():
                self.prizes[event.player] += event.amount
            case RollForwardPaid():
                self.prizes[event.player] += event.equal_share + event.chip_share
                self.rolled[event.player] = event.chips
            case DealPaid():
                self.prizes[event.player] += event.amount
                if event.place:
                    self.deal_places[event.player] = event.place
                    self.rolled[event.player] = event.chips
            case BountyReturned():
                self.returned[event.player] += event.amount
            case StackBagged():  # FL-1: still in, unplaced, his chips going to Day 2
                self.rolled[event.player] = event.chips
            case TicketAwarded():
                self.tickets[event.player] += event.value
                self.ticket_places[event.player] = event.place
                if event.chips:
                    self.rolled[event.player] = event.chips
            case SatelliteFinished():
                self.satellite = event
        self.model.apply(event, ts=record.ts)


def fold(records: Sequence[Recorded]) -> Tally:
    """The whole log folded, no check run."""
    tally = Tally()
    for record in records:
        tally.add(record)
    return tally


class Check:
    """One invariant of the log: `see` each record before the tally applies it, `end` once the
    log is read; the violations found, in the order found."""

    def __init__(self) -> None:
        self.found: list[Violation] = []

    def see(self, record: Recorded, tally: Tally) -> None:
        """Judge `record` against the log before it (`tally`)."""

    def end(self, tally: Tally) -> None:
        """Judge the log as a whole (`tally` holds all of it)."""

    def flag(self, rule: str, where: str | Recorded, detail: str) -> None:
        at = at_seq(where.seq) if isinstance(where, Recorded) else where
        self.found.append(Violation(rule, at, detail))
