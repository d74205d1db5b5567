"""The tournament core: hand reports in, events and per-table directives out. Pure.

The shell owns the clock, the RNG and every side effect: it passes `now` and a
`random.Random` in, appends the returned events to the log *before* it carries out the
returned directives (write-ahead), and sends each table the `NextHand` it is given. Given the
same config, seed and reports in the same order, the core takes the same decisions, so a log of
reports replays to the same tournament.

Structures: a freeze-out balances its tables with the floor (FO-*, CLOSE-1, BAL-1); a rebuy
tournament adds chips at hand boundaries (RB-2..RB-4); a shoot-out plays autonomous tables
phase by phase (SO-1..SO-5); hand-for-hand play (configurable, near the money) makes every
table play one hand and wait, and places the round's busted players as if at one table.

A table only ever plays the hand the core describes (seats, stacks, button, blinds, level), so
its state can always be rebuilt from here, and a report is checked against what was issued.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.core.blinds import first_blinds, next_blinds
from orchestrator.core.config import BlindLevel, TournamentConfig
from orchestrator.core.events import (
    Addon,
    BreakStarted,
    ButtonAssigned,
    ChipsRemoved,
    Event,
    FinalTable,
    HandFinished,
    HandForHand,
    HandVoided,
    LevelStarted,
    PhaseStarted,
    PlayerEliminated,
    PlayerMoved,
    PlayerQualified,
    PlayerReentered,
    PlayerSeated,
    PrizeAwarded,
    Rebuy,
    SideEventStarted,
    TableClosed,
    TableOpened,
    TablePolled,
    TableRestarted,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from orchestrator.core.floor import TableFloor
from orchestrator.core.ledger import Ledger
from orchestrator.core.levels import blind_level, level_due
from orchestrator.core.payouts import prize_table
from orchestrator.core.places import Busted, place_eliminated
from orchestrator.core.rebuys import ChipsAdded, boundary_rebuy, conversion_chips, rebuy_open
from orchestrator.core.registration import (
    Rankings,
    Registration,
    RegistrationRules,
    SkillLevel,
    SkillRange,
)
from orchestrator.core.sanctions import Disqualify, Ruling, SanctionBook, SitOut
from orchestrator.core.shootout import PhaseSeating, phase_rules
from orchestrator.errors import ReportError, TournamentStateError
from table_worker.protocol import (
    DECK_SIZE,
    Blinds,
    HandReport,
    NextHand,
    TableDirective,
    draw_for_button,
)

__all__ = ["Directive", "OpenTable", "StartSideEvent", "Step", "Tournament"]


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table the step opened: start its actor, which carries out `first` (deal or wait)."""

    first: TableDirective

    @property
    def table(self) -> int:
        return self.first.table


@dataclass(frozen=True, slots=True)
class StartSideEvent:
    """RB-6: a side event the step filled: run it beside this tournament with `players`."""

    event: int
    players: tuple[str, ...]


Directive = OpenTable | StartSideEvent


@dataclass(frozen=True, slots=True)
class Step:
    """One decision: events to log first (a report's hand_finished, if any, first), then what
    the shell carries out: `reply` for the table that asked, and `directives` (tables to open,
    side events to start) in order. The shell reads nothing back from the events."""

    events: list[Event]
    reply: TableDirective | None = None
    directives: tuple[Directive, ...] = ()


@dataclass(slots=True)
class _Table:
    drawn_button: int  # HE-1, for the table's first hand
    blinds: Blinds | None = None
    played_blinds: Blinds | None = None  # of the last hand reported: a voided hand replays
    issued: NextHand | None = None
    last_hand: int = 0
    last_directive: TableDirective | None = None
    idle_logged: tuple[int, tuple[int, ...]] | None = None  # last logged idle poll's decision


@dataclass(slots=True)
class _Clock:
    level: int = 1
    level_started_at: float = 0.0
    hands_this_level: int = 0
    tables_at_level_start: int = 1
    paused_seconds: float = 0.0


@dataclass(slots=True)
class Tournament:
    config: TournamentConfig
    tournament_id: str
    floor: TableFloor | PhaseSeating
    started_at: float
    stacks: dict[str, int]
    entries: int  # buy-ins, re-entries included (the prize pool)
    field_size: int = 0  # different players (the places)
    tables: dict[int, _Table] = field(default_factory=dict)
    clock: _Clock = field(default_factory=_Clock)
    places: dict[str, int] = field(default_factory=dict)
    hands: int = 0
    finished: bool = False
    paused_at: float | None = None  # when the operator paused the clock
    cancelled: str | None = None  # the reason, once cancelled (CRASH-2)
    rebuys_left: dict[str, int] = field(default_factory=dict)  # RB-2
    rebuys_asked: set[str] = field(default_factory=set)
    phase: int = 0  # shoot-out phase, 0-based
    qualified: list[str] = field(default_factory=list)
    next_table: int = 1
    hand_for_hand: bool = False
    hand_for_hand_done: bool = False
    round_waiting: set[int] = field(default_factory=set)  # tables done with this round
    round_busted: list[tuple[Busted, int, int, int]] = field(default_factory=list)
    reentries_left: dict[str, int] = field(default_factory=dict)
    late_arrivals: list[tuple[int, str]] = field(default_factory=list)  # (after hands, who)
    late_busted: list[tuple[Busted, int, int]] = field(default_factory=list)  # worst first
    registration: Registration | None = None  # REG-1, REG-2 and the ledger of every cent
    sanctions: SanctionBook = field(default_factory=lambda: SanctionBook(head_judge="head"))
    to_disqualify: set[str] = field(default_factory=set)
    penalty_hands: dict[str, int] = field(default_factory=dict)
    side_queue: list[str] = field(default_factory=list)  # RB-6: eliminated, waiting to play
    side_events: int = 0
    # What the step in progress decided beyond its reply; drained into its Step.
    opened: list[int] = field(default_factory=list)
    side_started: list[StartSideEvent] = field(default_factory=list)

    # --- start ----------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        config: TournamentConfig,
        players: Sequence[str],
        *,
        tournament_id: str,
        now: float,
        rng: random.Random,
    ) -> tuple[Tournament, Step]:
        """SEAT-1 seating, HE-1 button draw per table, level 1."""
        if len(set(players)) != len(players):
            raise ReportError("player names must be unique")
        floor: TableFloor | PhaseSeating
        if config.structure == "shootout":
            floor = PhaseSeating.seat(
                players,
                max_per_table=phase_rules(config, 0).max_per_table,
                first_table=1,
                rng=rng,
            )
        else:
            floor = TableFloor.seat_players(
                players, max_per_table=config.max_per_table, policy=config.policy, rng=rng
            )
        stacks = dict.fromkeys(players, config.starting_stack)
        tournament = cls(
            config=config,
            tournament_id=tournament_id,
            floor=floor,
            started_at=now,
            stacks=stacks,
            entries=len(players),
            field_size=len(players),
        )
        tournament.clock = _Clock(level_started_at=now, tables_at_level_start=len(floor.tables))
        registration, registered = _register(config, players, tournament_id, now)
        tournament.registration = registration
        if config.rebuy is not None:
            tournament.rebuys_left = dict.fromkeys(players, config.rebuy.rebuys)
        tournament.reentries_left = dict.fromkeys(players, config.reentries)
        # Bots registering late arrive after a random number of hands in the first level.
        horizon = config.level_length * len(floor.tables)
        tournament.late_arrivals = sorted(
            (rng.randrange(horizon), f"late{k:05d}") for k in range(1, config.late_entries + 1)
        )
        events: list[Event] = [
            *registered,
            TournamentStarted(
                tournament=tournament_id,
                players=len(players),
                tables=len(floor.tables),
                max_per_table=config.max_per_table,
                structure=config.structure,
                policy=config.policy,
                starting_stack=config.starting_stack,
            ),
        ]
        level = blind_level(config, 1)
        events.append(LevelStarted(level=1, **_level_fields(level)))
        if isinstance(floor, PhaseSeating):
            events += tournament._open_phase(floor, rng)
        else:
            events += tournament._open_tables(rng)
            if len(floor.tables) == 1:
                events.append(tournament._final_table(next(iter(floor.tables))))
        return tournament, tournament._step(events)

    def _open_tables(self, rng: random.Random) -> list[Event]:
        """Open every table of the current seating: seats, stacks, HE-1 button draw."""
        events: list[Event] = []
        deck = list(range(DECK_SIZE))
        for table, seats in sorted(self.floor.tables.items()):
            events.append(TableOpened(table=table))
            self.opened.append(table)
            for seat, player in sorted(seats.items()):
                stack = self.stacks[player]
                events.append(PlayerSeated(player=player, table=table, seat=seat, stack=stack))
            rng.shuffle(deck)
            button = draw_for_button(sorted(seats), deck)  # HE-1
            events.append(ButtonAssigned(table=table, seat=button))
            self.tables[table] = _Table(drawn_button=button)
            self.next_table = max(self.next_table, table + 1)
        return events

    def _open_phase(self, seating: PhaseSeating, rng: random.Random) -> list[Event]:
        """SO-1/SO-3: a phase's tables open with reset or carried stacks; a table already
        down to its qualifiers (a bye) sends them through without playing."""
        rules = phase_rules(self.config, self.phase)
        if self.phase > 0 and rules.stacks == "reset":
            for seats in seating.tables.values():
                for player in seats.values():
                    self.stacks[player] = rules.starting_stack
        self.floor = seating
        byes = [t for t, seats in seating.tables.items() if len(seats) <= rules.qualifiers]
        tables = len(seating.tables) - len(byes)
        events: list[Event] = [PhaseStarted(phase=self.phase + 1, tables=tables)]
        for table in byes:
            events += self._qualify(seating, table)
        events += self._open_tables(rng)
        if len(seating.tables) == 1 and rules.qualifiers == 1:
            events.append(self._final_table(next(iter(seating.tables))))
        return events

    def _qualify(self, seating: PhaseSeating, table: int) -> list[Event]:
        players = seating.finish_table(table)
        self.qualified += players
        return [PlayerQualified(player=p, phase=self.phase + 1) for p in players]

    # --- operator commands ----------------------------------------------------------------

    def pause(self, *, now: float) -> Step:
        """Stop the clock. Tables finish the hand in progress (its report is applied as usual)
        and then wait for the resume; the level in play does not run meanwhile."""
        self._require_running("pause")
        if self.paused_at is not None:
            raise TournamentStateError("the tournament is already paused")
        self.paused_at = now
        return self._step([TournamentPaused()])

    def resume(self, *, now: float) -> Step:
        """Start the clock again: the level in play ends as much later as the pause lasted."""
        self._require_running("resume")
        if self.paused_at is None:
            raise TournamentStateError("the tournament is not paused")
        paused = max(0.0, now - self.paused_at)
        self.paused_at = None
        self.clock.level_started_at += paused
        self.clock.paused_seconds += paused
        return self._step([TournamentResumed(paused_seconds=round(paused, 3))])

    def cancel(self, reason: str, *, now: float) -> Step:
        """CRASH-2: a running tournament cancelled. The hands in progress are voided, so every
        player still in rolls forward with the stack of the last reported boundary (TDA: an
        interrupted hand returns all bets); the busted waiting for their places get them
        first. Every table closes at its next boundary."""
        self._require_running("cancel")
        if not reason.strip():
            raise TournamentStateError("a cancellation needs a reason")
        registration = self.registration
        assert registration is not None  # every tournament registers its players at the start
        events: list[Event] = []
        for table, state in sorted(self.tables.items()):
            state.last_directive = None
            if state.issued is not None and state.issued.hand > state.last_hand:
                events.append(HandVoided(table=table, hand=state.issued.hand))
                state.last_hand = state.issued.hand
        events += self._place_round() + self._place_late_busted()
        prizes = self.prizes()  # prizes already won are paid; the rest of the pool rolls forward
        for player, place in sorted(self.places.items(), key=lambda item: item[1]):
            if amount := _prize(prizes, place):
                events.append(PrizeAwarded(player=player, place=place, amount=amount))
                events += registration.pay_prize(player, place=place, amount=amount, now=now)
        announced, *settled = registration.cancel(reason, now=now, chips=dict(self.stacks))
        events = [announced, *events, *settled]  # the step is named by its first event
        self.cancelled = reason
        self.paused_at = None
        return self._step(events)

    def _require_running(self, command: str) -> None:
        if self.finished:
            raise TournamentStateError(f"cannot {command}: the tournament is finished")
        if self.cancelled is not None:
            raise TournamentStateError(
                f"cannot {command}: the tournament was cancelled ({self.cancelled})"
            )

    # --- queries --------------------------------------------------------------------------

    @property
    def active_players(self) -> int:
        return len(self.stacks)

    @property
    def level(self) -> BlindLevel:
        return blind_level(self.config, self.clock.level)

    @property
    def paid_places(self) -> int:
        return sum(1 for prize in self.prizes() if prize > 0)

    @property
    def prize_pool(self) -> int:
        return self.entries * self.config.buy_in

    def _step(self, events: list[Event], reply: TableDirective | None = None) -> Step:
        """The step's result: the tables it opened (and did not close again) with their first
        directives, taken after everything else it decided, and the side events it filled."""
        opened = [OpenTable(self._directive(t)) for t in self.opened if t in self.tables]
        directives: tuple[Directive, ...] = (*opened, *self.side_started)
        self.opened, self.side_started = [], []
        return Step(events, reply, directives)

    def poll(self, table: int, *, rng: random.Random) -> Step:
        """A table short of players asks again. Players may have been moved in since; if not,
        its idle boundary lets the floor close it or fill it (CLOSE-1, BAL-1, FO-3)."""
        state = self._require_table(table)
        if self.cancelled is not None:  # logged: a restarted orchestrator closes it too
            return self._step([TablePolled(table=table)], self._close(table))
        if state.issued is not None and state.issued.hand > state.last_hand:
            return self._step([], TableDirective(table, state.issued))
        if table in self.round_waiting:
            return self._step([], TableDirective(table, None))  # hand-for-hand: the round goes on
        if isinstance(self.floor, PhaseSeating) or len(self.floor.tables[table]) >= 2:
            directive = self._directive(table)
            polled: list[Event] = [TablePolled(table=table)] if directive.next_hand else []
            return self._step(polled, directive)
        # The idle boundary. Only a poll that changes something is logged (TablePolled first,
        # so a restarted orchestrator replays it): repeating the same idle decision does not.
        big_blind = state.blinds.big_blind if state.blinds else min(self.floor.tables[table])
        requests = self.floor.pending_requests(table)
        events, closed = self._balance(table, [], big_blind, rng)
        directive = self._close(table) if closed else self._directive(table)
        idle = (big_blind, requests)
        if events or closed or directive.next_hand or state.idle_logged != idle:
            state.idle_logged = None if directive.next_hand else idle
            events.insert(0, TablePolled(table=table))
        return self._step(events, directive)

    def table_lost(self, table: int) -> list[Event]:
        """A table's actor (or its node) died. The hand it was playing is voided: stacks stay
        as last reported, and its number is never reused. Nothing else stops."""
        state = self._require_table(table)
        state.last_directive = None
        if state.issued is None or state.issued.hand <= state.last_hand:
            return []
        voided = state.issued.hand
        state.last_hand = voided
        state.blinds = state.played_blinds  # the next hand replays the voided one's positions
        return [HandVoided(table=table, hand=voided)]

    def table_restarted(self, table: int, *, node: str) -> Step:
        """The lost table's new actor is ready on `node`: it deals the same seats, stacks and
        positions as the voided hand, under a new hand number."""
        self._require_table(table)
        events: list[Event] = [TableRestarted(table=table, node=node)]
        if self.cancelled is not None:
            return self._step(events, self._close(table))
        if table in self.round_waiting:
            return self._step(events, TableDirective(table, None))
        return self._step(events, self._directive(table))

    # --- the step -------------------------------------------------------------------------

    def hand_finished(self, report: HandReport, *, now: float, rng: random.Random) -> Step:
        """Apply one finished hand. Idempotent per (table, hand): a repeat gets the same
        directive and no events."""
        state = self._require_table(report.table)
        if self.cancelled is not None:  # the hand was voided by the cancellation
            # Logged as the table's poll: a restarted orchestrator closes it too.
            return self._step([TablePolled(table=report.table)], self._close(report.table))
        if report.hand == state.last_hand and state.last_directive is not None:
            return self._step([], state.last_directive)
        self._check_report(report, state)
        table, events = report.table, list[Event]()
        # STEP 1: record the hand and the stacks it ended with.
        events.append(
            HandFinished(
                table=table,
                hand=report.hand,
                button=report.button,
                players=report.players,
                **report.timing.fields(),
            )
        )
        self.hands += 1
        state.last_hand = report.hand
        state.played_blinds = state.blinds
        for p in report.players:
            self.stacks[p.player] = p.end
        # STEP 2: rebuys and RB-4 conversions, at the players' own boundary (RB-3, RB-4).
        for p in report.players:
            events += self._add_chips(p.player)
        # STEP 3: the busted, placed now (ELIM-1) or, hand-for-hand, at the round's end.
        busted = [
            Busted(p.player, p.seat, p.start) for p in report.players if not self.stacks[p.player]
        ]
        busted = self._rescue_qualifiers(table, busted, report.button)
        removed = [
            p
            for p in report.players
            if p.player in self.to_disqualify and p.player not in {b.player for b in busted}
        ]
        back = [who.player for who in busted if self._may_reenter(who.player)]
        busted = [who for who in busted if who.player not in back]
        for who in busted:
            del self.stacks[who.player]
        if self.hand_for_hand:
            self.round_busted += [(b, report.button, table, report.hand) for b in busted]
        elif self._late_open() and self.config.late_registration_levels:
            # The field is not known yet: places wait for registration to close.
            order = place_eliminated(
                busted,
                button=report.button,
                seats_per_table=self.config.max_per_table,
                remaining_before=0,
            )
            self.late_busted += [(who, table, report.hand) for who, _ in reversed(order)]
        else:
            events += self._place(busted, report.button, table, report.hand)
        for p in removed:  # SAN-1: the chips leave play, the player takes the worst place left
            chips = self.stacks.pop(p.player)
            events.append(ChipsRemoved(player=p.player, chips=chips))
            events += self._place(
                [Busted(p.player, p.seat, chips)], report.button, table, report.hand
            )
            self.to_disqualify.discard(p.player)
        assert state.issued is not None
        for p in report.players:  # SAN-2 penalties count down the hands sat out
            if p.seat in state.issued.sitting_out and self.penalty_hands.get(p.player):
                self.penalty_hands[p.player] -= 1
        # STEP 4: the winner, if one player is left.
        if self.active_players == 1:
            events += self._place_round() + self._place_late_busted()
            if self.hand_for_hand:
                self.hand_for_hand, self.hand_for_hand_done = False, True
                events.append(HandForHand(active=False, players=1))
            return self._finish(report, events, now)
        # STEP 5: balancing and closing (FO-2..FO-5, CLOSE-1, BAL-1), or a shoot-out table
        # done with its phase (SO-2).
        assert state.issued is not None
        gone = [who.player for who in busted] + back + [p.player for p in removed]
        balance_events, closed = self._balance(table, gone, state.issued.blinds.big_blind, rng)
        events += balance_events
        # STEP 5b: re-entries and late registrants take random seats (never between the small
        # blind and the button).
        events += self._seat_entrants(back, rng)
        # STEP 6: the blind level, counted across all tables.
        events.extend(self._advance_level(now if self.paused_at is None else self.paused_at))
        # STEP 7: hand-for-hand near the money: this table waits for the round.
        events += self._hand_for_hand(table, closed)
        # STEP 8: this table's next hand, wait, or close.
        if closed:
            directive = self._close(table)
        elif table in self.round_waiting:
            directive = TableDirective(table, None)
        else:
            directive = self._directive(table)
        state.last_directive = directive
        return self._step(events, directive)

    # --- structures -----------------------------------------------------------------------

    def _add_chips(self, player: str) -> list[Event]:
        rules = self.config.rebuy
        left = self.rebuys_left.get(player, 0)
        if rules is None or not left:
            return []
        stack = self.stacks[player]
        if not rebuy_open(rules, self.clock.level):
            chips = conversion_chips(rules, stack=stack, unused=left)  # RB-4
            self.rebuys_left[player] = 0
            self.stacks[player] = stack + chips
            return [Addon(player=player, chips=chips)]
        added: ChipsAdded | None = boundary_rebuy(
            rules,
            player=player,
            stack=stack,
            left=left,
            level=self.clock.level,
            asked=player in self.rebuys_asked,
        )
        self.rebuys_asked.discard(player)
        if added is None:
            return []
        self.rebuys_left[player] = left - 1
        self.stacks[player] = stack + added.chips
        return [Rebuy(player=player, chips=added.chips)]

    def _rescue_qualifiers(self, table: int, busted: list[Busted], button: int) -> list[Busted]:
        """SO-2 ("the first N placed go through"): when one hand busts a shoot-out table below
        its qualifiers, the best placed of those busted (ELIM-1) still qualify. They hold no
        chips, so this happens only when the next phase resets the stacks (SO-3); with carried
        stacks a table sends fewer. Returns the players who are really out."""
        seating = self.floor
        if not busted or not isinstance(seating, PhaseSeating):
            return busted
        short = phase_rules(self.config, self.phase).qualifiers - (
            len(seating.tables[table]) - len(busted)
        )
        if short <= 0 or phase_rules(self.config, self.phase + 1).stacks != "reset":
            return busted
        ranked = [
            who
            for who, _ in place_eliminated(
                busted, button=button, seats_per_table=seating.max_per_table, remaining_before=0
            )
        ]
        return ranked[short:]

    def _place_late_busted(self) -> list[Event]:
        """Players out while registration was open take the last places, the first out last."""
        events: list[Event] = []
        worst = self.active_players + len(self.late_busted)
        for k, (who, table, hand) in enumerate(self.late_busted):
            self.places[who.player] = worst - k
            events += self._out(who.player)
            events.append(
                PlayerEliminated(
                    player=who.player, place=worst - k, table=table, hand=hand, start=who.start
                )
            )
        self.late_busted = []
        return events

    def _out(self, player: str) -> list[Event]:
        events: list[Event] = []
        if self.registration is not None:
            events += self.registration.eliminated(player, now=self.clock.level_started_at)
        side = self.config.side_events
        if side is not None and player not in self.to_disqualify:  # bots all join (RB-6)
            self.side_queue.append(player)
            if len(self.side_queue) == side.players:
                self.side_events += 1
                players = tuple(self.side_queue)
                events.append(SideEventStarted(event=self.side_events, players=players))
                self.side_started.append(StartSideEvent(self.side_events, players))
                self.side_queue = []
        return events

    def _late_open(self) -> bool:
        return self.clock.level <= self.config.late_registration_levels

    def _may_reenter(self, player: str) -> bool:
        return self._late_open() and self.reentries_left.get(player, 0) > 0

    def _seat_entrants(self, back: list[str], rng: random.Random) -> list[Event]:
        seating = self.floor
        if not isinstance(seating, TableFloor):
            return []
        arrivals: list[str] = []
        if self._late_open():
            while self.late_arrivals and self.late_arrivals[0][0] <= self.hands:
                arrivals.append(self.late_arrivals.pop(0)[1])
        else:
            self.late_arrivals.clear()
        events: list[Event] = []
        for player in back + arrivals:
            events += self._enter(player, reentry=player in back)
            table, seat, opened = seating.seat_entrant(
                player, forbidden=self._blind_gaps(), rng=rng
            )
            stack = self.config.starting_stack
            self.stacks[player] = stack
            self.entries += 1
            if opened:
                events.append(TableOpened(table=table))
                self.opened.append(table)
                self.tables[table] = _Table(drawn_button=seat)
                self.next_table = max(self.next_table, table + 1)
            if player in back:
                self.reentries_left[player] -= 1
                events.append(PlayerReentered(player=player, table=table, seat=seat, stack=stack))
            else:
                self.field_size += 1
                self.reentries_left[player] = self.config.reentries
                if self.config.rebuy is not None:
                    self.rebuys_left[player] = self.config.rebuy.rebuys
                events.append(PlayerSeated(player=player, table=table, seat=seat, stack=stack))
        return events

    def _enter(self, player: str, *, reentry: bool) -> list[Event]:
        """REG-1: a late registrant or a re-entry pays a new entry (bots bring exactly the
        money for the entries they may take)."""
        registration = self.registration
        if registration is None:
            return []
        if reentry:
            registration.eliminated(player, now=self.clock.level_started_at)
        else:
            price = (self.config.buy_in + self.config.fee) * (1 + self.config.reentries)
            registration.ledger.open_account(player, price, now=self.clock.level_started_at)
            registration.rankings.add_player(player)
        return list(registration.register(player, now=self.clock.level_started_at))

    def _blind_gaps(self) -> dict[int, set[int]]:
        """Per table, the empty seats between the next hand's button and small blind: a new
        player there would get the button before posting a blind."""
        gaps: dict[int, set[int]] = {}
        size = self.config.max_per_table
        for table, seats in self.floor.tables.items():
            blinds = self.tables[table].blinds if table in self.tables else None
            if blinds is None or len(seats) < 2:
                continue
            upcoming = next_blinds(blinds, sorted(seats))
            first = upcoming.small_blind or upcoming.big_blind
            span = (first - upcoming.button) % size
            gaps[table] = {(upcoming.button + k - 1) % size + 1 for k in range(1, span)}
        return gaps

    def sanction(
        self,
        kind: str,
        player: str,
        *,
        judge: str,
        reason: str,
        now: float,
        hands: int = 0,
    ) -> list[Event]:
        """SAN-1/SAN-2: a warning (the third disqualifies), a penalty of `hands` hands sat out,
        or a direct disqualification (head judge). Carried out at the player's next hand
        boundary; the events are logged now."""
        book, in_play = self.sanctions, tuple(self.stacks)
        ruling: Ruling
        if kind == "warning":
            ruling = book.warn(player, judge=judge, reason=reason, now=now, in_play=in_play)
        elif kind == "penalty":
            ruling = book.penalize(
                player, hands=hands, judge=judge, reason=reason, now=now, in_play=in_play
            )
        elif kind == "disqualification":
            ruling = book.disqualify(player, judge=judge, reason=reason, now=now, in_play=in_play)
        else:
            raise ReportError(f"unknown sanction {kind!r} (warning, penalty, disqualification)")
        for action in ruling.actions:
            if isinstance(action, Disqualify):
                self.to_disqualify.add(action.player)
            elif isinstance(action, SitOut):
                self.penalty_hands[action.player] = action.hands
        return list(ruling.events)

    def request_rebuy(self, player: str) -> None:
        """A player asks for a rebuy (RB-3); it is taken at their next hand boundary."""
        rules = self.config.rebuy
        if rules is None:
            raise ReportError("this tournament has no rebuys")
        if player not in self.stacks:
            raise ReportError(f"{player!r} is not playing in this tournament")
        if not rebuy_open(rules, self.clock.level):
            raise ReportError(f"the rebuy period ended with level {rules.levels} (RB-4)")
        if not self.rebuys_left.get(player):
            raise ReportError(f"{player} has no rebuys left (RB-2)")
        if self.stacks[player] > rules.threshold:
            raise ReportError(
                f"{player} holds {self.stacks[player]} chips: rebuys only at or below "
                f"{rules.threshold} (RB-3)"
            )
        self.rebuys_asked.add(player)

    def _place(self, busted: list[Busted], button: int, table: int, hand: int) -> list[Event]:
        events: list[Event] = []
        placed = place_eliminated(
            busted,
            button=button,
            seats_per_table=self.config.max_per_table,
            remaining_before=self.active_players + len(busted),
        )
        for who, place in placed:
            self.places[who.player] = place
            events += self._out(who.player)
            events.append(
                PlayerEliminated(
                    player=who.player, place=place, table=table, hand=hand, start=who.start
                )
            )
        return events

    def _place_round(self) -> list[Event]:
        """ELIM-1 decision: everyone busted in one hand-for-hand round is placed as if at one
        table (chips at the hand's start, then nearness to their own button)."""
        if not self.round_busted:
            return []
        size = self.config.max_per_table
        ordered = sorted(
            self.round_busted, key=lambda r: (-r[0].start, (r[0].seat - r[1]) % max(size, 10))
        )
        best = self.active_players + 1
        events: list[Event] = []
        for k, (who, _, table, hand) in enumerate(ordered):
            self.places[who.player] = best + k
            events += self._out(who.player)
            events.append(
                PlayerEliminated(
                    player=who.player, place=best + k, table=table, hand=hand, start=who.start
                )
            )
        self.round_busted = []
        return events

    def _hand_for_hand(self, table: int, closed: bool) -> list[Event]:
        events: list[Event] = []
        threshold = self.config.hand_for_hand
        paid = self.paid_places
        playing = {t for t, seats in self.floor.tables.items() if len(seats) >= 2}
        if (
            threshold
            and not self.hand_for_hand
            and not self.hand_for_hand_done
            and paid < self.active_players <= threshold
            and len(playing) > 1  # one table plays hand for hand anyway
        ):
            self.hand_for_hand = True
            events.append(HandForHand(active=True, players=self.active_players))
        if not self.hand_for_hand:
            return events
        if not closed:
            self.round_waiting.add(table)
        if not playing <= self.round_waiting | {table}:
            return events
        # The round is complete: place its busted, then play on (or leave hand-for-hand).
        events += self._place_round()
        self.round_waiting.clear()
        if self.active_players <= paid or len(playing) <= 1:
            self.hand_for_hand, self.hand_for_hand_done = False, True
            events.append(HandForHand(active=False, players=self.active_players))
        return events

    # --- internals ------------------------------------------------------------------------

    def _balance(
        self, table: int, eliminated: list[str], big_blind_seat: int, rng: random.Random
    ) -> tuple[list[Event], bool]:
        events: list[Event] = []
        decision = self.floor.hand_finished(
            table, eliminated=eliminated, big_blind_seat=big_blind_seat, rng=rng
        )
        seating = self.floor
        if isinstance(seating, PhaseSeating):
            rules = phase_rules(self.config, self.phase)
            if len(seating.tables[table]) > rules.qualifiers:
                return events, False
            events += self._qualify(seating, table)  # SO-2
            events.append(TableClosed(table=table))
            while not self.floor.tables:  # the phase is over: the next begins (SO-1)
                self.phase += 1
                players, self.qualified = self.qualified, []
                rules = phase_rules(self.config, self.phase)
                seating = PhaseSeating.seat(
                    players, max_per_table=rules.max_per_table, first_table=self.next_table, rng=rng
                )
                events += self._open_phase(seating, rng)  # may be all byes: then on again
            return events, True
        for move in decision.moves:
            events.append(
                PlayerMoved(
                    player=move.player,
                    from_table=move.from_table,
                    from_seat=move.from_seat,
                    to_table=move.to_table,
                    to_seat=move.to_seat,
                    stack=self.stacks[move.player],
                    reason=move.reason,
                )
            )
        if decision.closed:
            events.append(TableClosed(table=table))
        if decision.final_table is not None:
            events.append(self._final_table(decision.final_table))
        return events, decision.closed

    def _final_table(self, table: int) -> FinalTable:
        seated = self.floor.tables[table]
        return FinalTable(table=table, players=tuple(seated[s] for s in sorted(seated)))

    def _close(self, table: int) -> TableDirective:
        directive = TableDirective(table, None, close=True)
        self.tables[table].last_directive = directive
        del self.tables[table]
        self.round_waiting.discard(table)
        return directive

    def _require_table(self, table: int) -> _Table:
        try:
            return self.tables[table]
        except KeyError:
            raise ReportError(f"table {table} is not open in this tournament") from None

    def _check_report(self, report: HandReport, state: _Table) -> None:
        issued = state.issued
        if issued is not None and report.hand == issued.hand <= state.last_hand:
            # CRASH-1: `table_lost` voided it; a call Ray retried can still bring its report
            raise ReportError(
                f"table {report.table} hand {report.hand} was voided when the table was lost"
            )
        if issued is None or report.hand != issued.hand:
            expected = "no hand" if issued is None else f"hand {issued.hand}"
            raise ReportError(
                f"table {report.table} reported hand {report.hand} but was dealt {expected}"
            )
        played = tuple((p.seat, p.player, p.start) for p in report.players)
        if tuple(sorted(played)) != issued.seats:
            raise ReportError(
                f"table {report.table} hand {report.hand}: players, seats or starting stacks "
                "differ from the hand it was dealt"
            )
        if sum(p.end for p in report.players) != sum(p.start for p in report.players):
            raise ReportError(
                f"table {report.table} hand {report.hand}: chips not conserved "
                f"({sum(p.start for p in report.players)} in, "
                f"{sum(p.end for p in report.players)} out)"
            )
        if any(p.end < 0 for p in report.players):
            raise ReportError(f"table {report.table} hand {report.hand}: a negative stack")

    def _directive(self, table: int) -> TableDirective:
        state = self.tables[table]
        seats = self.floor.tables[table]
        if self.cancelled is not None:
            return self._close(table)
        if len(seats) < 2 or self.paused_at is not None:
            return TableDirective(table, None)
        occupied = sorted(seats)
        if state.blinds is None:
            button = state.drawn_button if state.drawn_button in seats else occupied[0]
            blinds = first_blinds(button, occupied)
        else:
            blinds = next_blinds(state.blinds, occupied)  # HE-8, HE-9
        state.blinds = blinds
        state.idle_logged = None
        level = self.level
        next_hand = NextHand(
            table=table,
            hand=state.last_hand + 1,
            seats=tuple((seat, seats[seat], self.stacks[seats[seat]]) for seat in occupied),
            blinds=blinds,
            level=self.clock.level,
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            betting=self.config.betting,
            sitting_out=tuple(s for s in occupied if self.penalty_hands.get(seats[s], 0) > 0),
        )
        state.issued = next_hand
        return TableDirective(table, next_hand)

    def _advance_level(self, now: float) -> list[Event]:
        clock = self.clock
        clock.hands_this_level += 1
        if not level_due(
            self.config,
            level_started_at=clock.level_started_at,
            hands_this_level=clock.hands_this_level,
            tables_at_level_start=clock.tables_at_level_start,
            now=now,
        ):
            return []
        events: list[Event] = []
        for pause in self.config.breaks:
            if pause.after_level == clock.level:
                events.append(BreakStarted(minutes=pause.minutes))
                now += 60 * pause.minutes  # the next level starts after the break
        clock.level += 1
        if clock.level == self.config.late_registration_levels + 1:
            events += self._place_late_busted()  # registration closed: the field is known
        clock.level_started_at = now
        clock.hands_this_level = 0
        clock.tables_at_level_start = max(1, len(self.tables))
        events.append(LevelStarted(level=clock.level, **_level_fields(self.level)))
        if self.registration is not None:
            events += self.registration.level_started(clock.level, now=now)
        return events

    def _finish(self, report: HandReport, events: list[Event], now: float) -> Step:
        (winner,) = self.stacks
        self.places[winner] = 1
        self.finished = True
        by_place = {place: player for player, place in self.places.items()}
        for place, amount in enumerate(self.prizes(), start=1):
            events.append(PrizeAwarded(player=by_place[place], place=place, amount=amount))
            if self.registration is not None:
                events += self.registration.pay_prize(
                    by_place[place], place=place, amount=amount, now=now
                )
        if self.registration is not None:
            events += self.registration.finish(now=now)
            events += self.registration.rankings.record_results(self.places)  # SKILL-3
            self.registration.ledger.check()
        events.append(
            TournamentFinished(winner=winner, hands=self.hands, seconds=now - self.started_at)
        )
        directive = TableDirective(report.table, None, close=True)
        self.tables[report.table].last_directive = directive
        return self._step(events, directive)

    def prizes(self) -> list[int]:
        """Prize by place (index 0 is first), from the configured or the default table."""
        return prize_table(
            self.prize_pool,
            percent=self.config.payout_percent,
            entries=self.entries,
            field_size=self.field_size,
        )

    def results(self, *, seconds: float) -> dict[str, object]:
        """results.json (DESIGN.md)."""
        prizes = self.prizes()
        ordered = sorted(self.places.items(), key=lambda item: item[1])
        return {
            "tournament": self.tournament_id,
            "players": self.entries,
            "prize_pool": self.prize_pool,
            "hands": self.hands,
            "seconds": round(seconds, 3),
            "places": [
                {"place": place, "player": player, "prize": _prize(prizes, place)}
                for player, place in ordered
            ],
            "ledger": self._ledger_summary(),
        } | ({} if self.cancelled is None else {"cancelled": self.cancelled})

    def _ledger_summary(self) -> dict[str, int]:
        if self.registration is None:
            return {}
        ledger = self.registration.ledger
        return {
            "entries": self.entries,
            "prize_pool_left": ledger.pool,
            "commission": ledger.operator,
            "postings": len(ledger.postings),
        }


def _level_fields(level: BlindLevel) -> dict[str, int]:
    return {"small_blind": level.small_blind, "big_blind": level.big_blind, "ante": level.ante}


def _prize(prizes: Sequence[int], place: int) -> int:
    return prizes[place - 1] if place <= len(prizes) else 0


def _register(
    config: TournamentConfig, players: Sequence[str], tournament_id: str, now: float
) -> tuple[Registration, list[Event]]:
    """Registration before the start (REG-1): every bot brings the money for its entries."""
    rules = RegistrationRules(
        tournament=tournament_id,
        buy_in=config.buy_in,
        fee=config.fee,
        late_registration_levels=config.late_registration_levels,
        reentries=config.reentries,
        max_entries=config.max_entries,
        cancellation_bp=config.cancellation_bp,
        skill_range=None
        if config.skill_levels is None
        else SkillRange.of_levels(*(SkillLevel[level.upper()] for level in config.skill_levels)),
    )
    registration = Registration(rules, Ledger(), Rankings())
    price = (config.buy_in + config.fee) * (1 + config.reentries)
    events: list[Event] = list(registration.open(now=now))
    for player in players:
        registration.ledger.open_account(player, price, now=now)
        registration.rankings.add_player(player)
        events += registration.register(player, now=now)
    events += registration.start(now=now)
    return registration, events
