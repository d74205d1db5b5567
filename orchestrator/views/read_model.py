"""One read model of a tournament's log: a typed fold over the events the codec decodes
(`orchestrator.core.codec`). Pure.

What every reader of the log wants to know of the tournament as it stands after the events
applied so far: the players still in with their chips as last logged, who sits where at the
open tables and each table's button, the places taken and the prizes awarded, the entries and
the prize pool, the level and its clock (hands this level, breaks, the operator's pauses), the
final table, hand-for-hand, the hands played per table, eliminations, moves not yet seen
played, the failures (voided hands, restarts, lost nodes), and how it ended. The live lobby,
the metrics, the report's figures and the front door each keep one and add only what is
their own (the lobby its feed and clock screen, the metrics their Prometheus objects, the
report its timeline and fairness, the front door its players' notices).

`apply_record(record)` takes the log's records in seq order: one already applied is skipped
(a source may repeat itself), a seq missing before it sets `gap`, and one the codec cannot
read is counted in `unreadable` and sets `gap` too (the model may be wrong until a reload).
`apply(event, ts=...)` folds an event already decoded. The model remembers the tables and
places it changed until `take_touched()`, so a view can redraw only those.

>>> from orchestrator.core.events import PlayerSeated, TableOpened
>>> model = ReadModel()
>>> model.apply(TableOpened(table=1), ts=0.0)
>>> model.apply(PlayerSeated(player="ann", table=1, seat=4, stack=1500), ts=0.0)
>>> model.tables, model.stacks, model.seats
({1: {4: 'ann'}}, {'ann': 1500}, {'ann': (1, 4)})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.core import codec
from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import (
    Addon,
    BountyReturned,
    BountyWon,
    BreakStarted,
    ButtonAssigned,
    ChipsRemoved,
    Day2Started,
    Event,
    FinalTable,
    FlightBagged,
    HandFinished,
    HandForHand,
    HandVoided,
    LevelStarted,
    NodeLost,
    OverlayPaid,
    PhaseStarted,
    PlayerDisqualified,
    PlayerEliminated,
    PlayerMoved,
    PlayerReentered,
    PlayerRegistered,
    PlayerSeated,
    PlayerUnregistered,
    PlayStarted,
    PrizeAwarded,
    Rebuy,
    TableClosed,
    TableOpened,
    TableRestarted,
    TicketAwarded,
    TournamentCancelled,
    TournamentFinished,
    TournamentOpened,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from orchestrator.errors import RecordError

__all__ = ["ReadModel", "Touched"]


@dataclass(slots=True)
class Touched:
    """What changed since the last `take_touched()`: tables (closed ones included) and the
    places given."""

    tables: set[int] = field(default_factory=set)
    places: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class ReadModel:
    seq: int = 0  # the last record applied
    gap: bool = False  # a record was missing or unreadable: the model may be wrong
    unreadable: int = 0  # records the codec could not read
    # --- the start
    opened: TournamentOpened | None = None  # the log's opening record, when it has one
    config: TournamentConfig | None = None  # the opening record's, or the reader's own
    tournament: str = ""
    structure: str = ""
    max_per_table: int = 0
    started_at: float | None = None
    # --- the field and the tables
    stacks: dict[str, int] = field(default_factory=dict)  # players still in
    chips: int = 0  # the chips of the players still in (the sum of `stacks`)
    seats: dict[str, tuple[int, int]] = field(default_factory=dict)  # player -> (table, seat)
    tables: dict[int, dict[int, str]] = field(default_factory=dict)  # table -> seat -> player
    buttons: dict[int, int] = field(default_factory=dict)
    hands_per_table: dict[int, int] = field(default_factory=dict)
    leaving: set[str] = field(default_factory=set)  # disqualified, out at their boundary
    pending_moves: dict[str, int] = field(default_factory=dict)  # moved, not yet seen there
    final_table: int | None = None
    final_players: tuple[str, ...] = ()
    phase: int = 0
    # --- places and money
    places: dict[str, int] = field(default_factory=dict)
    eliminations: int = 0
    entries: int = 0  # paid entries, re-entries included (REG-1)
    field_size: int = 0  # different players
    prize_pool: int = 0  # cents (REG-1: the buy-ins; GTD-1: and the overlay)
    prizes: dict[int, int] = field(default_factory=dict)  # place -> amount, once awarded
    bounty_on: dict[str, int] = field(default_factory=dict)  # cents on a player's head (KO-1/2)
    bounties_won: dict[str, int] = field(default_factory=dict)  # cents won in cash (KO-3)
    tickets: dict[str, int] = field(default_factory=dict)  # SAT-3: seats won, their value
    # --- the clock
    hands: int = 0
    level: int = 0
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    level_hands: dict[int, int] = field(default_factory=dict)  # per table (START-2)
    level_started_at: float = 0.0  # a break's end when the level follows one
    break_until: float | None = None
    paused_at: float | None = None
    hand_for_hand: bool = False
    # --- failures and the end
    voided: int = 0
    restarts: int = 0
    node_losses: int = 0
    winner: str | None = None
    cancelled: str | None = None
    bagged: int | None = None  # FL-1: a Day 1 flight over, with this many bags
    event_entries: int = 0  # FL-3: a Day 2's, every flight's entries (its payout table's)
    _touched: Touched = field(default_factory=Touched)
    _paid: dict[str, int] = field(default_factory=dict)  # player -> buy-in of his last entry

    # --- reading ------------------------------------------------------------------------

    @property
    def players_left(self) -> int:
        """Players still in, the disqualified included until their boundary."""
        return len(self.stacks)

    @property
    def status(self) -> str:
        if self.cancelled is not None:
            return "cancelled"
        if self.winner is not None:
            return "finished"
        if self.bagged is not None:
            return "bagged"  # FL-1: a Day 1 flight, over without a winner
        if self.started_at is None:
            return "waiting"
        return "paused" if self.paused_at is not None else "running"

    def take_touched(self) -> Touched:
        touched, self._touched = self._touched, Touched()
        return touched

    # --- the fold -----------------------------------------------------------------------

    def apply_record(self, record: Mapping[str, Any]) -> codec.Recorded | None:
        """Fold one record of the log; the record as read, or None when it was skipped."""
        seq = record.get("seq")
        if type(seq) is int and seq <= self.seq:
            return None  # already applied
        try:
            read = codec.decode_record(record)
        except RecordError:
            self.unreadable += 1
            self.gap = True
            if type(seq) is int:
                self.seq = seq
            return None
        if read.seq != self.seq + 1:
            self.gap = True
        self.seq = read.seq
        self.apply(read.event, ts=read.ts)
        return read

    def apply(self, event: Event, *, ts: float) -> None:
        match event:
            case TournamentOpened():
                self.opened, self.config = event, event.config
            case TournamentStarted():
                self.tournament, self.started_at = event.tournament, ts
                self.structure, self.max_per_table = event.structure, event.max_per_table
            case PlayerRegistered():
                self.entries += 1
                self.field_size += event.entry == 1
                self.prize_pool += event.buy_in
                self._paid[event.player] = event.buy_in
                rules = self.config.knockout if self.config else None
                if rules is not None and rules.kind != "mystery":  # KO-4 has none on a head
                    self.bounty_on[event.player] = rules.bounty
            case OverlayPaid():  # GTD-1: the operator made up the guarantee
                self.prize_pool += event.overlay
            case Day2Started():  # FL-3: the flights' pool, its players having paid there
                self.prize_pool += event.pool
                self.event_entries = event.entries
            case FlightBagged():  # FL-1: over; its pool (still shown) went to Day 2
                self.bagged = event.players
                self.pending_moves.clear()
            case PlayerUnregistered():  # REG-2: before the start, the only entry given back
                self.entries -= 1
                self.field_size -= 1
                self.prize_pool -= self._paid.pop(event.player, 0)
            case TableOpened():
                self.tables.setdefault(event.table, {})
                self._touched.tables.add(event.table)
                # START-2: a table joining counts as many hands as the slowest (core.pace)
                self.level_hands[event.table] = min(self.level_hands.values(), default=0)
            case PlayerSeated() | PlayerReentered():
                self._unseat(event.player)  # a shoot-out seats everyone again (SO-1)
                self._seat(event.player, event.table, event.seat)
                self._set_stack(event.player, event.stack)
                if isinstance(event, PlayerReentered):
                    self.places.pop(event.player, None)
            case ButtonAssigned():
                self.buttons[event.table] = event.seat
                self._touched.tables.add(event.table)
            case HandFinished():
                self._hand(event)
            case PlayerEliminated():
                self.eliminations += 1
                self._unseat(event.player)
                self.chips -= self.stacks.pop(event.player, 0)
                self.leaving.discard(event.player)
                self.pending_moves.pop(event.player, None)
                self.places[event.player] = event.place
                self._touched.places[event.player] = event.place
            case PlayerDisqualified():
                self.leaving.add(event.player)
                self.pending_moves.pop(event.player, None)
            case PlayerMoved():
                self._unseat(event.player)
                self._seat(event.player, event.to_table, event.to_seat)
                self._set_stack(event.player, event.stack)
                self.pending_moves[event.player] = event.to_table
            case TableClosed():
                for player in list(self.tables.pop(event.table, {}).values()):
                    self.seats.pop(player, None)
                self.buttons.pop(event.table, None)
                self.level_hands.pop(event.table, None)
                self._touched.tables.add(event.table)
            case FinalTable():
                self.final_table, self.final_players = event.table, event.players
            case Rebuy() | Addon():
                self._add_chips(event.player, event.chips)
            case ChipsRemoved():
                self._add_chips(event.player, -event.chips)
            case PhaseStarted():
                self.phase = event.phase
            case LevelStarted():
                if event.level > 1:  # hands beyond the level's length carry over (START-2)
                    length = self.config.level_length if self.config else 0
                    self.level_hands = {t: n - length for t, n in self.level_hands.items()}
                self.level = event.level
                self.small_blind, self.big_blind, self.ante = (
                    event.small_blind,
                    event.big_blind,
                    event.ante,
                )
                # The core starts the level after a break (`Tournament._advance_level`).
                self.level_started_at = max(ts, self.break_until or ts)
            case PlayStarted():  # START-1: every table deals from here; the clock stood still
                self.level_started_at += event.held_seconds
            case BreakStarted():
                self.break_until = ts + 60 * event.minutes
            case TournamentPaused():
                self.paused_at = ts
            case TournamentResumed():
                self.paused_at = None
                self.level_started_at += event.paused_seconds
                if self.break_until is not None:
                    self.break_until += event.paused_seconds
            case HandForHand():
                self.hand_for_hand = event.active
            case PrizeAwarded():
                self.prizes[event.place] = event.amount
                self.places.setdefault(event.player, event.place)
                self._touched.places[event.player] = event.place
            case BountyWon():
                self.bounties_won[event.player] = (
                    self.bounties_won.get(event.player, 0) + event.cash
                )
                if event.player in self.bounty_on:
                    self.bounty_on[event.player] += event.added
                self.bounty_on.pop(event.eliminated, None)
            case BountyReturned():
                self.bounty_on.pop(event.player, None)
            case HandVoided():
                self.voided += 1
            case TableRestarted():
                self.restarts += 1
            case NodeLost():
                self.node_losses += 1
            case TicketAwarded():  # SAT-3: a seat in the target, place 1..N
                self.tickets[event.player] = event.value
                self.places.setdefault(event.player, event.place)
                self._touched.places[event.player] = event.place
            case TournamentFinished():
                self.winner = event.winner
                self.pending_moves.clear()
            case TournamentCancelled():  # tables close at their boundary: no more seating
                self.cancelled = event.reason
                self.paused_at = None
                self.pending_moves.clear()

    # --- internals ----------------------------------------------------------------------

    def _hand(self, event: HandFinished) -> None:
        table = event.table
        self.hands += 1
        self.hands_per_table[table] = self.hands_per_table.get(table, 0) + 1
        self.level_hands[table] = self.level_hands.get(table, 0) + 1
        self.buttons[table] = event.button
        for p in event.players:
            if p.player in self.stacks:
                self._set_stack(p.player, p.end)
            if self.pending_moves.get(p.player) == table:
                del self.pending_moves[p.player]
        self._touched.tables.add(table)

    def _seat(self, player: str, table: int, seat: int) -> None:
        seats = self.tables.setdefault(table, {})
        before = seats.get(seat)  # one busted and not yet placed (his place waits) left it
        if before is not None and before != player and self.seats.get(before) == (table, seat):
            del self.seats[before]
        seats[seat] = player
        self.seats[player] = (table, seat)
        self._touched.tables.add(table)

    def _unseat(self, player: str) -> None:
        table, seat = self.seats.pop(player, (0, 0))
        if self.tables.get(table, {}).get(seat) == player:
            del self.tables[table][seat]
            self._touched.tables.add(table)

    def _set_stack(self, player: str, stack: int) -> None:
        self.chips += stack - self.stacks.get(player, 0)
        self.stacks[player] = stack

    def _add_chips(self, player: str, chips: int) -> None:
        if player in self.stacks:
            self._set_stack(player, self.stacks[player] + chips)
            if player in self.seats:
                self._touched.tables.add(self.seats[player][0])
