"""The event log's invariants (DESIGN.md contracts, ELIM-1, RB-3/RB-4, SO-3, SAN-1, REG-1, KO-3,
KO-5, START-1, FO-2): `audit_events` on records as read, `audit_log` on a log already decoded.

One pass over the typed events (`tally.Tally`, the read model beside it); each check judges
an event against the log before it. The checks of places, chips and seats are here, those of
money in `money.py`, those of playing in step in `in_step.py`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.core.codec import Recorded
from orchestrator.core.events import (
    Addon,
    ChipsRemoved,
    EventRecord,
    FinalTable,
    HandFinished,
    PhaseStarted,
    PlayerEliminated,
    PlayerMoved,
    PlayerReentered,
    PlayerSeated,
    Rebuy,
    TableOpened,
)
from orchestrator.views.audit.in_step import Balanced, InStep
from orchestrator.views.audit.money import Eliminators, Money, Seats
from orchestrator.views.audit.tally import Check, DecodedLog, Tally, decode_log, fold
from orchestrator.views.audit.violations import Violation

__all__ = ["LogAudit", "audit_events", "audit_log"]


@dataclass(frozen=True, slots=True)
class LogAudit:
    """What the log's audit found, and the log folded (the read model and the tally)."""

    violations: list[Violation]
    tally: Tally | None  # None when a record could not be read: nothing else was checked


def audit_events(
    log: Sequence[EventRecord], *, buy_in: int | None = None, fee: int | None = None
) -> list[Violation]:
    """The event log's invariants, on its records as read (a file's lines, a store's records).

    `buy_in` and `fee` (cents per entry) are checked against every `player_registered` when
    given; the money checks otherwise take them from those events."""
    return audit_log(decode_log(log), buy_in=buy_in, fee=fee).violations


def audit_log(log: DecodedLog, *, buy_in: int | None = None, fee: int | None = None) -> LogAudit:
    """`audit_events` on a log already decoded, with the tally the cross-checks of the run's
    other files read (`results_against_log`)."""
    # STEP 1: every record decodes; the rest is meaningless without them
    if log.unreadable:
        return LogAudit(list(log.unreadable), None)
    # STEP 2: seq numbers 1, 2, 3, ... (DESIGN.md)
    for line, record in enumerate(log.records, start=1):
        if record.seq != line:
            misplaced = Violation("contract", f"events.jsonl:{line}", f"seq {record.seq}")
            return LogAudit([misplaced], fold(log.records))
    # STEP 3: one pass, each check seeing every event before the tally applies it
    checks: list[Check] = [
        Counts(),
        FinalTables(),
        Places(),
        Chips(),
        OnePlace(),
        Money(buy_in, fee),
        Seats(),
        Eliminators(),
        InStep(),
        Balanced(),
    ]
    tally = Tally()
    for record in log.records:
        for check in checks:
            check.see(record, tally)
        tally.add(record)
    # STEP 4: what only the whole log shows
    for check in checks:
        check.end(tally)
    return LogAudit([v for check in checks for v in check.found], tally)


class Counts(Check):
    """One start; one end: finished, or cancelled (CRASH-2: no winner, the rest rolled
    forward); hand-for-hand on, then off (ELIM-1)."""

    def end(self, tally: Tally) -> None:
        cancelled = tally.model.cancelled is not None
        bagged = tally.model.bagged is not None  # FL-1: a Day 1 flight ends without a winner
        for kind, allowed in (
            ("tournament_started", (1,)),
            ("tournament_finished", (0,) if cancelled or bagged else (1,)),
            ("flight_bagged", (0, 1)),
            ("tournament_cancelled", (0, 1)),
            ("hand_for_hand", (0, 1, 2) if cancelled else (0, 2)),
        ):
            if tally.kinds[kind] not in allowed:
                self.flag("contract", "events.jsonl", f"{tally.kinds[kind]} {kind} events")


class FinalTables(Check):
    """One final table (none yet if cancelled); another only after a table opened since the
    last (a late entrant found no seat at it, so it was not the last table after all)."""

    def __init__(self) -> None:
        super().__init__()
        self.finals, self.opened_since = 0, False

    def see(self, record: Recorded, tally: Tally) -> None:
        if isinstance(record.event, TableOpened):
            self.opened_since = True
        elif isinstance(record.event, FinalTable):
            if self.finals and not self.opened_since:
                self.flag("contract", record, "a second final_table, no table opened")
            self.finals, self.opened_since = self.finals + 1, False

    def end(self, tally: Tally) -> None:
        stopped = tally.model.cancelled is not None or tally.satellite is not None  # SAT-2
        if self.finals == 0 and not stopped and tally.model.bagged is None:  # FL-1
            self.flag("contract", "events.jsonl", "0 final_table events")


class Places(Check):
    """ELIM-1: every player placed exactly once, places 1..N, the winner first; after a
    cancellation (CRASH-2) the players rolled forward hold no place and the eliminated the
    last ones."""

    def __init__(self) -> None:
        super().__init__()
        self.given: dict[int, int] = {}  # place -> seq of the first elimination given it

    def see(self, record: Recorded, tally: Tally) -> None:
        e = record.event
        if not isinstance(e, PlayerEliminated):
            return
        if e.player in tally.eliminated:
            self.flag("ELIM-1", record, f"{e.player} eliminated twice")
        if e.place in self.given:
            self.flag("ELIM-1", record, f"place {e.place} also given at seq {self.given[e.place]}")
        self.given.setdefault(e.place, record.seq)

    def end(self, tally: Tally) -> None:
        places, rolled, winner = tally.eliminated, tally.rolled, tally.model.winner
        if winner in places:
            self.flag("ELIM-1", "events.jsonl", f"the winner {winner} was also eliminated")
        both = sorted(set(rolled) & set(places))
        if both:
            self.flag("CRASH-2", "events.jsonl", f"rolled forward and eliminated: {both}")
        field = len(tally.seated)
        taken = set(places.values())
        best = len(rolled) + 1 if rolled else 2
        expected = set(range(best, field + 1))
        if taken != expected or len(places) != field - best + 1:
            self.flag(
                "ELIM-1",
                "events.jsonl",
                f"{field} players seated, {len(places)} eliminated; places missing "
                f"{sorted(expected - taken)}, unexpected {sorted(taken - expected)}",
            )


class Chips(Check):
    """Chips conserved in every hand; between hands a stack changes only by a logged rebuy or
    add-on (RB-3, RB-4), a reseat (SO-3, re-entry) or chips leaving play (SAN-1), and a player
    moves with the chips he holds; nobody is eliminated holding chips; the winner ends with all
    of them, or after a cancellation each player rolled forward with exactly the stack of the
    last hand logged (CRASH-2). Every `cause` points back to an earlier hand_finished. The
    stacks are the read model's: what each player held after the last logged change."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[int, int]] = set()  # (table, hand) finished

    def see(self, record: Recorded, tally: Tally) -> None:
        e, stacks = record.event, tally.model.stacks
        match e:
            case PlayerReentered():
                held = stacks.get(e.player)
                if e.player not in tally.seated:
                    self.flag("chips", record, f"{e.player} re-entered, never seated")
                elif held:
                    self.flag("chips", record, f"{e.player} re-entered holding {held} chips")
            case Rebuy() | Addon() | ChipsRemoved():
                if e.player not in stacks:
                    self.flag("chips", record, f"{e.EVENT_TYPE} for {e.player}, not in play")
            case PlayerMoved() if e.stack != stacks.get(e.player):
                held = stacks.get(e.player)
                self.flag("chips", record, f"{e.player} moved with {e.stack} chips, held {held}")
            case HandFinished():
                self._hand(record, e, stacks)
            case PlayerEliminated():
                held = stacks.get(e.player, 0)
                if held:
                    self.flag("chips", record, f"{e.player} eliminated holding {held} chips")
        cause = record.cause
        if cause is not None and not (cause < record.seq and cause in tally.hands):
            self.flag("contract", record, f"cause {cause} is no earlier hand")

    def _hand(self, record: Recorded, e: HandFinished, stacks: dict[str, int]) -> None:
        key = (e.table, e.hand)
        if key in self.seen:
            self.flag("contract", record, f"table {e.table} hand {e.hand} twice")
        self.seen.add(key)
        start = sum(p.start for p in e.players)
        end = sum(p.end for p in e.players)
        if start != end:
            self.flag("chips", record, f"hand starts with {start}, ends with {end}")
        for p in e.players:
            if p.start != stacks.get(p.player):
                self.flag(
                    "chips",
                    record,
                    f"{p.player} starts with {p.start}, "
                    f"held {stacks.get(p.player)} after the last logged change",
                )

    def end(self, tally: Tally) -> None:
        winner, rolled = tally.model.winner, tally.rolled
        left = {
            p: c for p, c in tally.model.stacks.items() if p != winner and c != rolled.get(p, 0)
        }
        if left:
            self.flag("chips", "events.jsonl", f"chips left with non-winners: {left}")


class OnePlace(Check):
    """A player is in exactly one place at any time (DESIGN.md "How a hand flows"): seated at
    an open table, moved, never seen again after elimination; a shoot-out phase reseats
    everyone (SO-1). Where each player sits, and the open tables, are the read model's."""

    def __init__(self) -> None:
        super().__init__()
        self.placed: set[str] = set()  # given a seat in this phase: once each (SO-1)

    def see(self, record: Recorded, tally: Tally) -> None:
        e, out = record.event, tally.eliminated
        match e:
            case PhaseStarted():
                self.placed.clear()
            case PlayerSeated():
                if e.player in self.placed or e.player in out:
                    self.flag("contract", record, f"{e.player} seated twice")
                self._sits(record, e.player, e.table, tally)
            case PlayerReentered():
                if e.player in out:
                    self.flag("contract", record, f"{e.player} re-entered after elimination")
                self._sits(record, e.player, e.table, tally)
            case PlayerMoved():
                if self._table(e.player, tally) != e.from_table or e.player in out:
                    self.flag("contract", record, f"{e.player} moved from a table not theirs")
                self._sits(record, e.player, e.to_table, tally)
            case HandFinished():
                for p in e.players:
                    logged = self._table(p.player, tally)
                    if logged != e.table or p.player in out:
                        self.flag(
                            "contract",
                            record,
                            f"{p.player} played at table {e.table}, logged at {logged}"
                            + (" and eliminated" if p.player in out else ""),
                        )

    def _sits(self, record: Recorded, player: str, table: int, tally: Tally) -> None:
        if table not in tally.model.tables:
            self.flag("contract", record, f"{player} seated at table {table}, which is not open")
        self.placed.add(player)

    @staticmethod
    def _table(player: str, tally: Tally) -> int | None:
        seat = tally.model.seats.get(player)
        return None if seat is None else seat[0]
