"""Playing in step: when play starts, the pace of levels counted in hands, and short tables held
(START-1, START-2, HALT-1). Pure.

START-1
    No table deals until play has started: every open table's actor has answered once (the
    shell's logged `table_ready`; a restart's new actor answers with its `table_restarted`) and
    no table is in a hand. Play stops at the start, at a break, at the operator's pause and
    when a new phase opens its tables; it starts again for every table at once
    (`play_started`), and the level clock, held meanwhile, starts then (`LevelClock.release`).
    With levels in minutes a break lasts its minutes first; with levels in hands (bots) it is a
    gathering only. A table that opens while play goes on (a late entrant's) or is restarted
    after a failure joins the running clock: only a table never ready holds the others back
    (a lost table's hand is voided, so it is at its boundary).

START-2
    With levels in hands each table counts the hands it played in the level; the level is over
    when the slowest table has played `length` of them, and a table more than `lead` hands
    ahead of the slowest waits at its boundary (0: every table plays one hand and waits for
    all). The slowest is taken among the tables that can play (`pacing`): open, ready, not
    lost, two players or more. A table joining them (ready, restarted, given a second player)
    counts at least the hands of the slowest of them, so it never holds them back for the
    hands it did not play; hands beyond `length` carry into the next level, so a table ahead
    stays ahead by no more than `lead`.

HALT-1
    Under the equilibrium policy a table 3 or more players short of the fullest (players on
    their way there counted) deals no hand until balancing brings it within 2. A table waiting
    at its boundary still gives the players FO-2 asks of it (`Tournament.poll`), so the full
    tables that are to fill it never wait for it.

The pacing set is brought up to date (`sync`) at the end of every step that can change it,
before any table is told what to do, so every decision reads the same state in a replay.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from orchestrator.core.clock import LevelClock
from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import Event, PlayStarted
from orchestrator.core.tables import TableState

__all__ = ["HALT_SHORT_BY", "Pace", "tables_named"]

HALT_SHORT_BY = 3  # HALT-1: players short of the fullest table that halt a table

Seating = Mapping[int, Mapping[int, str]]


@dataclass(slots=True, kw_only=True)
class Pace:
    lead: int | None  # START-2: hands ahead of the slowest; None with levels in minutes
    length: int  # hands per level, counted at the slowest table
    halt: bool  # HALT-1
    playing: bool = False  # between `play_started` and the next stop
    ready: set[int] = field(default_factory=set)  # tables whose actor has answered
    lost: set[int] = field(default_factory=set)  # tables whose actor died, until restarted
    hands: dict[int, int] = field(default_factory=dict)  # per table, hands into the level
    pacing: set[int] = field(default_factory=set)  # the tables the slowest is found among
    # How many pacing tables have played each number of hands in the level, so the slowest is
    # found without a scan of every table; None until built (a snapshot from before it).
    at_hands: dict[int, int] | None = None

    @classmethod
    def of(cls, config: TournamentConfig) -> Pace:
        return cls(
            lead=config.level_lead if config.level_unit == "hands" else None,
            length=config.level_length,
            halt=config.halts_short_tables,
        )

    # --- the tables' actors ---------------------------------------------------------------

    def table_ready(self, table: int) -> bool:
        """START-1: the table's actor answered; whether that is news (logged once)."""
        if table in self.ready:
            return False
        self.ready.add(table)
        return True

    def table_lost(self, table: int) -> bool:
        """The table's actor died: it holds nobody back until it is restarted; whether that
        is news."""
        if table in self.lost:
            return False
        self.lost.add(table)
        return True

    def table_restarted(self, table: int) -> None:
        """Its new actor answered: it plays on in step with the others."""
        self.lost.discard(table)
        self.ready.add(table)

    # --- starting and stopping (START-1) --------------------------------------------------

    def stop(self) -> None:
        """Play stops: every table waits at its boundary until play starts again."""
        self.playing = False

    def may_start(
        self,
        tables: Collection[int],
        states: Mapping[int, TableState],
        clock: LevelClock,
        *,
        now: float,
    ) -> bool:
        """START-1: every open table (`tables`, their `states`) is ready and at its boundary,
        the clock is not paused, and a break in minutes is over."""
        if self.playing or clock.paused or not tables:
            return False
        if self.lead is None and now < clock.level_started_at:
            return False  # a break in minutes lasts its minutes: the next level starts after it
        ready = self.ready
        # Newest first: tables open in number order and answer first in that order, so at the
        # start the table not yet ready is found at once, not after every one that is.
        return all(table in ready and not states[table].in_hand for table in reversed(list(tables)))

    def start(self, tables: Iterable[int], clock: LevelClock, *, now: float) -> PlayStarted:
        self.playing = True
        held = clock.release(now=now)
        return PlayStarted(tables=tuple(sorted(tables)), held_seconds=round(held, 3))

    # --- the pace of levels in hands (START-2) --------------------------------------------

    def sync(self, seating: Seating, changed: Iterable[int] | None = None) -> None:
        """The tables the slowest is found among, after a step changed who can play; a table
        joining them counts at least the hands of the slowest of those that stay. `changed`:
        the only tables whose seats, readiness or loss the step can have changed (each step
        knows them), so a big field is not scanned per report; None scans every table."""
        if changed is None or self.at_hands is None:
            self._sync_all(seating)
            return
        changed = set(changed)
        leaving, joining = [], []
        for table in changed:
            seats = seating.get(table)
            can = (
                seats is not None
                and len(seats) >= 2
                and table in self.ready
                and table not in self.lost
            )
            if can and table not in self.pacing:
                joining.append(table)
            elif not can and table in self.pacing:
                leaving.append(table)
        for table in leaving:
            self.pacing.discard(table)
            self._count(self.hands[table], -1)
        for table in changed:
            if table not in seating:  # closed
                self.hands.pop(table, None)
        staying = min(self.at_hands, default=None)
        for table in joining:
            mine = self.hands.get(table, 0)
            self.hands[table] = mine if staying is None else max(mine, staying)
        for table in joining:  # after: the joining do not count among those that stay
            self.pacing.add(table)
            self._count(self.hands[table], +1)

    def _sync_all(self, seating: Seating) -> None:
        pacing = {
            table
            for table, seats in seating.items()
            if len(seats) >= 2 and table in self.ready and table not in self.lost
        }
        staying = min((self.hands[t] for t in self.pacing & pacing), default=None)
        for table in sorted(pacing - self.pacing):
            mine = self.hands.get(table, 0)
            self.hands[table] = mine if staying is None else max(mine, staying)
        self.pacing = pacing
        for table in [t for t in self.hands if t not in seating]:
            del self.hands[table]
        self._index()

    def _index(self) -> None:
        """`at_hands` anew from `hands` and `pacing`."""
        self.at_hands = {}
        for table in self.pacing:
            self._count(self.hands[table], +1)

    def _count(self, hands: int, change: int) -> None:
        assert self.at_hands is not None
        count = self.at_hands.get(hands, 0) + change
        if count:
            self.at_hands[hands] = count
        else:
            del self.at_hands[hands]

    def hand_played(self, table: int) -> None:
        if table in self.pacing:
            if self.at_hands is not None:
                self._count(self.hands[table], -1)
                self._count(self.hands[table] + 1, +1)
            self.hands[table] += 1

    def slowest(self) -> int:
        """The hands the slowest table has played in this level (0 with none that can play)."""
        if self.at_hands is None:
            self._index()
            assert self.at_hands is not None
        return min(self.at_hands, default=0)

    def level_started(self) -> None:
        """Hands beyond the level's length carry into the next one."""
        for table in self.hands:
            self.hands[table] -= self.length
        if self.at_hands is not None:
            self.at_hands = {hands - self.length: n for hands, n in self.at_hands.items()}

    # --- dealing --------------------------------------------------------------------------

    def may_deal(self, table: int, seating: Seating, *, in_rounds: bool = False) -> bool:
        """Whether `table`, at its boundary with two players or more, deals now: play has
        started (START-1), it is not more than `lead` hands ahead of the slowest (START-2;
        not `in_rounds` of hand-for-hand, which keep every table in step: a lead held there
        would wait for a table that waits for the round), and it is not halted short
        (HALT-1)."""
        if not self.playing:
            return False
        if (
            self.lead is not None
            and not in_rounds
            and table in self.pacing
            and self.hands[table] - self.slowest() > self.lead
        ):
            return False
        return not (self.halt and self.halted(table, seating))

    @staticmethod
    def halted(table: int, seating: Seating) -> bool:
        """HALT-1: `table` is 3 or more players short of the fullest table.

        >>> Pace.halted(2, {1: {1: "a", 2: "b", 3: "c", 4: "d"}, 2: {1: "e"}})
        True
        """
        fullest = max(len(seats) for seats in seating.values())
        return fullest - len(seating[table]) >= HALT_SHORT_BY


def tables_named(table: int, events: Iterable[Event]) -> set[int]:
    """`table` and every table a step's events name: where the step can have changed seats
    (eliminations, moves from and to, closings, seatings), for `Pace.sync`."""
    named = {table}
    for event in events:
        for key in ("table", "from_table", "to_table"):
            value = getattr(event, key, None)
            if isinstance(value, int):
                named.add(value)
    return named
