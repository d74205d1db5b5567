"""Playing in step, from the log alone: no table deals before `play_started` (START-1), and
under the equilibrium policy no table leaves its boundary 2+ players above the shortest table
(FO-2, balance at every boundary). The open tables and who sits at each are the read
model's."""

from __future__ import annotations

from collections import Counter

from orchestrator.core.codec import Recorded
from orchestrator.core.events import (
    BreakStarted,
    ChipsRemoved,
    FlightBagging,
    HandFinished,
    HandVoided,
    PhaseStarted,
    PlayerReentered,
    PlayStarted,
    SatelliteFinished,
    TableOpened,
    TablePolled,
    TournamentCancelled,
    TournamentPaused,
    TournamentStarted,
)
from orchestrator.core.replay import SHELL_EVENTS, STEP_EVENTS
from orchestrator.views.audit.tally import Check, Tally
from orchestrator.views.read_model import ReadModel

__all__ = ["Balanced", "InStep"]

# After a pause or a break the hands in progress finish.
_PAUSES = (BreakStarted, TournamentPaused)


class InStep(Check):
    """START-1: no table deals before `play_started`: no hand before the first, nor at a new
    phase's tables; after a break or the operator's pause each table finishes at most the hand
    it was playing (none if it had just finished one, or its hand was voided)."""

    def __init__(self) -> None:
        super().__init__()
        self.playing = False
        self.stop: Recorded | None = None  # what stopped play last
        self.may_finish: dict[int, int] = {}  # while play stands still: hands a table may finish

    def see(self, record: Recorded, tally: Tally) -> None:
        e = record.event
        match e:
            case TableOpened():
                self.may_finish[e.table] = 0
            case PlayStarted():
                if self.playing:
                    self.flag("START-1", record, "play_started while play goes on")
                self.playing = True
            case TournamentStarted() | BreakStarted() | TournamentPaused() | PhaseStarted():
                # play stands still until the next play_started
                if self.playing:
                    may = 1 if isinstance(e, _PAUSES) else 0
                    self.may_finish = dict.fromkeys(tally.model.tables, may)
                    hand = tally.hands.get(record.cause or 0)
                    if hand is not None:  # the hand that reached the break: that table is done
                        self.may_finish[hand.table] = 0
                self.playing, self.stop = False, record
            case HandVoided() if not self.playing:
                self.may_finish[e.table] = 0
            case HandFinished() if not self.playing:
                left = self.may_finish.get(e.table, 0)
                if not left:
                    since = "" if self.stop is None else self._stopped(self.stop)
                    self.flag(
                        "START-1",
                        record,
                        f"table {e.table} hand {e.hand} was dealt before play_started{since}",
                    )
                self.may_finish[e.table] = max(0, left - 1)

    @staticmethod
    def _stopped(stop: Recorded) -> str:
        return f" (play stopped at seq {stop.seq}, {stop.event.EVENT_TYPE})"


class Balanced(Check):
    """FO-2 at every boundary (equilibrium, not a shoot-out): a table whose boundary the log
    shows (its hand finished, or a logged poll of it) holding 2+ more players than the shortest
    table, players on their way counted, gives players until it does not. Checked where the
    core balances, at the end of the boundary's step: after the hand's players left (no chips
    left, whether or not placed yet) and before re-entries and the tables opened for them
    (after the hand) take their seats."""

    def __init__(self) -> None:
        super().__init__()
        self.active = False  # equilibrium, not a shoot-out: set by tournament_started
        self.boundary: Recorded | None = None  # the step's hand or poll
        self.reentered: set[str] = set()  # in this step: seated after the balancing
        self.opened: set[int] = set()  # in this step after its hand: filled after it too
        # Players who may sit with no chips (out, not placed yet): those a hand or SAN-1 left
        # with none, kept while the read model still seats them with none.
        self.broke: set[str] = set()

    def see(self, record: Recorded, tally: Tally) -> None:
        e = record.event
        if isinstance(e, TournamentStarted):
            self.active = e.policy == "equilibrium" and e.structure != "shootout"
        if not self.active:
            return
        if record.cause is None and e.EVENT_TYPE in STEP_EVENTS | SHELL_EVENTS:
            self._end_of_step(tally.model)
        match e:
            case TournamentCancelled():  # CRASH-2: tables close at their boundary, no moves
                self._end_of_step(tally.model)
                self.active = False
            case FlightBagging():  # FL-1: the step that found the bag due moves nobody
                self.boundary = None
                self.active = False
            case SatelliteFinished():  # SAT-2: play stopped in this step; nobody moves
                self.boundary = None
                self.active = False
            case HandFinished():
                self.boundary = record
                self.broke.update(p.player for p in e.players if p.end == 0)
            case TablePolled():
                self.boundary = record
            case ChipsRemoved():
                self.broke.add(e.player)
            case TableOpened() if self._after_a_hand():
                self.opened.add(e.table)
            case PlayerReentered():
                self.reentered.add(e.player)

    def _after_a_hand(self) -> bool:
        return self.boundary is not None and isinstance(self.boundary.event, HandFinished)

    def end(self, tally: Tally) -> None:
        if self.active:
            self._end_of_step(tally.model)

    def _end_of_step(self, model: ReadModel) -> None:
        boundary = self.boundary
        if boundary is not None and isinstance(boundary.event, HandFinished | TablePolled):
            counts = self._players(model)
            counts = {t: n for t, n in counts.items() if n or t not in self.opened}
            table = boundary.event.table
            if table in counts:
                short = min(counts, key=lambda t: (counts[t], t))
                if counts[table] >= counts[short] + 2:
                    self.flag(
                        "FO-2",
                        boundary,
                        f"table {table} left its boundary with {counts[table]} players, "
                        f"table {short} has {counts[short]} (moves counted)",
                    )
        self.boundary = None
        self.reentered.clear()
        self.opened.clear()

    def _players(self, model: ReadModel) -> dict[int, int]:
        """Players at each open table who take part in the balancing: seated with chips, and
        not re-entered in this step."""
        self.broke = {p for p in self.broke if model.stacks.get(p) == 0 and p in model.seats}
        away = Counter(model.seats[p][0] for p in self.broke | self.reentered if p in model.seats)
        return {table: len(seats) - away[table] for table, seats in model.tables.items()}
