"""The tournament core: hand reports and commands in, events and per-table directives out. Pure.

The shell owns the clock, the RNG and every side effect: it passes `now` and a `random.Random` in,
appends the returned events to the log *before* it carries out the returned directives
(write-ahead), and sends each table the `NextHand` it is given. Every input is a step (`start`,
`apply_hand`, `poll`, `table_ready`, `table_lost`, `table_restarted`, and the commands `pause`,
`resume`, `cancel`, `register_late`, `sanction`, `request_rebuy`, the deals of `core.final_deal`);
a refused one raises before it changes anything. The same config, seed and steps give the same
decisions, so the log replays (`core.replay`). Tables play in step (START-*, HALT-1: `core.pace`).

The structures (seating, rebuys, hand-for-hand, late entry, bounties) keep their own state
behind one protocol (`core.structures`), which `apply_hand` calls in numbered steps; they share
the `Play` (`core.play`). The caller brings the money: `start` opens every player's account
with his deposit (the bots' come from `shell.simulation`) and his satellite ticket (SAT-3); a
satellite stops at its seats (SAT-2, `core.satellite`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orchestrator.core.bagging import TournamentBagging, opening_field
from orchestrator.core.bounties import Bounties
from orchestrator.core.config import TournamentConfig
from orchestrator.core.directives import Directive, OpenTable, StartSideEvent, Step
from orchestrator.core.events import (
    Event,
    HandFinished,
    HandVoided,
    LevelStarted,
    TableActorLost,
    TablePolled,
    TableReady,
    TableRestarted,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from orchestrator.core.final_deal import TournamentDeals
from orchestrator.core.freezeout import FreezeOut
from orchestrator.core.hand_for_hand import HandForHand
from orchestrator.core.late import LateEntry, TournamentLate
from orchestrator.core.levels import blind_level, level_fields
from orchestrator.core.pace import Pace, tables_named
from orchestrator.core.places import Busted
from orchestrator.core.play import Play, open_registration
from orchestrator.core.queries import TournamentQueries
from orchestrator.core.rebuys import Rebuys
from orchestrator.core.sanctions import SanctionKind
from orchestrator.core.satellite import Seats, seats_filled
from orchestrator.core.shootout import ShootOut
from orchestrator.core.structures import Busts, Seating, Structure
from orchestrator.errors import ReportError, TournamentStateError
from table_worker.protocol import HandReport, TableDirective

__all__ = ["Directive", "OpenTable", "StartSideEvent", "Step", "Tournament"]


@dataclass(slots=True, kw_only=True)
class Tournament(TournamentQueries, TournamentDeals, TournamentBagging, TournamentLate):
    config: TournamentConfig
    tournament_id: str
    started_at: float
    play: Play
    seating: Seating
    structures: tuple[Structure, ...]  # the seating first, then the others, in step order
    rebuys: Rebuys | None = None
    late: LateEntry | None = None
    hands: int = 0
    finished: bool = False
    cancelled: str | None = None  # the reason, once cancelled (CRASH-2)

    # --- start ----------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        config: TournamentConfig,
        players: Sequence[str],
        *,
        deposits: Mapping[str, int],
        tournament_id: str,
        now: float,
        rng: random.Random,
        tickets: Mapping[str, int] | None = None,
    ) -> tuple[Tournament, Step]:
        """Registration (REG-1), SEAT-1 seating, HE-1 button draw per table, level 1 (a Day 2's
        bags at its level: FL-3). `deposits` opens each player's account (cents): everyone who
        plays, and everyone who may register late; `tickets` the players who enter by a
        satellite's ticket (SAT-3)."""
        if len(set(players)) != len(players):
            raise ReportError("player names must be unique")
        seating: Seating
        late = None
        if config.structure == "shootout":
            seating = ShootOut(config, players, rng)  # no late entries (the config says so)
        else:
            floor = FreezeOut.seat(config, players, rng)
            late = LateEntry(config, floor) if config.late_registration_levels else None
            seating = floor
        registration, registered = open_registration(
            config, players, deposits, tournament_id, now, tickets
        )
        stacks, entries, clock = opening_field(config, players, now=now)  # FL-3: a Day 2's bags
        play = Play(
            config=config,
            registration=registration,
            stacks=stacks,
            entries=entries,
            field_size=len(players),
            pace=Pace.of(config),
            clock=clock,
        )
        play.clock.hold(at=now)  # START-1: the level starts when play does
        rebuys = Rebuys(config.rebuy) if config.rebuy is not None else None
        play.seats = Seats.of(config, pool=play.prize_pool, field=len(players))  # SAT-1
        hand_for_hand = HandForHand.of(config, seating, play.seats)
        ko = Bounties.of(config.knockout, config.max_per_table, rng) if config.knockout else None
        tournament = cls(
            config=config,
            tournament_id=tournament_id,
            started_at=now,
            play=play,
            seating=seating,
            structures=tuple(s for s in (seating, rebuys, hand_for_hand, late, ko) if s),
            rebuys=rebuys,
            late=late,
        )
        events: list[Event] = [
            *registered,
            TournamentStarted(
                tournament=tournament_id,
                players=len(players),
                tables=len(seating.tables),
                max_per_table=config.max_per_table,
                structure=config.structure,
                policy=config.policy,
                starting_stack=config.starting_stack,
            ),
            *(ko.committed() if ko else ()),  # KO-4: the mystery order's commitment
            LevelStarted(level=clock.level, **level_fields(blind_level(config, clock.level))),
            *seating.opening(play, rng),
        ]
        return tournament, tournament._step(events)

    # --- operator commands ----------------------------------------------------------------

    def pause(self, *, now: float) -> Step:
        """Stop the clock: tables finish the hand in progress, then wait for the resume."""
        self._require_running("pause")
        self.play.clock.pause(now=now)
        self.play.clock.hold(at=now)
        self.play.pace.stop()  # START-1: after the pause every table starts again together
        return self._step([TournamentPaused()])

    def resume(self, *, now: float) -> Step:
        """Start the clock again: the level in play ends as much later as the pause lasted.
        Tables deal again once every one is at its boundary (START-1: `play_started`)."""
        self._require_running("resume")
        paused = self.play.clock.resume(now=now)
        return self._step([TournamentResumed(paused_seconds=round(paused, 3))])

    def cancel(self, reason: str, *, now: float) -> Step:
        """CRASH-2: a running tournament cancelled. The hands in progress are voided, so every
        player still in rolls forward with the stack of the last reported boundary (TDA: an
        interrupted hand returns all bets); the busted waiting for their places get them
        first. Every table closes at its next boundary."""
        self._require_running("cancel")
        if not reason.strip():
            raise TournamentStateError("a cancellation needs a reason")
        play = self.play
        events = play.void_hands_in_progress()
        for structure in self.structures:
            events += structure.settle(play)
        events += play.pay_prizes_won(now=now)  # the rest of the pool rolls forward
        events = play.roll_forward(reason, events, self.seating.tables, now=now)
        self.cancelled = reason
        play.clock.paused_at = None
        return self._step(events)

    def sanction(
        self,
        kind: SanctionKind,
        player: str,
        *,
        judge: str,
        reason: str,
        now: float,
        hands: int = 0,
    ) -> Step:
        """SAN-1/SAN-2: a warning (the third disqualifies), a penalty of `hands` hands sat out,
        or a direct disqualification (head judge). Carried out at the player's next hand
        boundary; the events are logged now."""
        self._require_running("sanction")
        in_play = tuple(self.play.stacks)
        rule = self.play.discipline.rule
        events = rule(
            kind, player, judge=judge, reason=reason, now=now, hands=hands, in_play=in_play
        )
        return self._step(events)

    def request_rebuy(self, player: str, *, now: float) -> Step:
        """A player asks for a rebuy (RB-3); it is taken at his next hand boundary."""
        self._require_running("rebuy")
        if self.rebuys is None:
            raise ReportError("this tournament has no rebuys")
        return self._step(self.rebuys.request(self.play, player))

    # --- tables ---------------------------------------------------------------------------

    def poll(self, table: int, *, now: float, rng: random.Random) -> Step:
        """A waiting table asks again. Holding 2+ players more than the shortest table, it first
        gives what FO-2 asks of it, as at any boundary; then it deals if it may (START-1,
        START-2, HALT-1, hand-for-hand), or, short of players, its idle boundary lets the floor
        close it or fill it (CLOSE-1, BAL-1, FO-3). Only a poll that changes something is logged."""
        state = self._require_table(table)
        if self.cancelled is not None or self.finished:  # logged: a restart closes it too
            return self._step([TablePolled(table=table)], self._close(table))
        if state.in_hand:
            return self._step([], TableDirective(table, state.issued))
        if self._bag_due():  # FL-1: the flight is bagging
            return self._bag_table(table, [TablePolled(table=table)], now)
        seats = self.seating.tables[table]
        big_blind = state.blinds.big_blind if state.blinds else min(seats)
        if len(seats) >= 2 and self.seating.owes_players(table):
            events, closed = self._boundary(table, [], big_blind, now, rng)
            self.play.pace.sync(self.seating.tables, tables_named(table, events))
            events = [TablePolled(table=table), *events, *self._play_starts(now)]
            return self._step(events, self._close(table) if closed else self._next(table))
        if self._held(table):
            return self._step([], TableDirective(table, None))  # hand-for-hand: the round goes on
        if len(seats) >= 2:
            started = self._play_starts(now)
            directive = self._directive(table)
            changed = bool(started) or directive.next_hand is not None
            return self._step([TablePolled(table=table), *started] if changed else [], directive)
        # The idle boundary. Only a poll that changes something is logged: repeating the same
        # idle decision does not.
        requests = self.seating.pending_requests(table)
        events, closed = self._boundary(table, [], big_blind, now, rng)
        self.play.pace.sync(self.seating.tables, tables_named(table, events))
        events += self._play_starts(now)
        directive = self._close(table) if closed else self._directive(table)
        idle = (big_blind, requests)
        if events or closed or directive.next_hand or state.idle_logged != idle:
            state.idle_logged = None if directive.next_hand else idle
            events.insert(0, TablePolled(table=table))
        return self._step(events, directive)

    def table_ready(self, table: int, *, now: float) -> Step:
        """START-1: the table's actor answered its first call (logged once per table)."""
        self._require_table(table)
        if self.finished or self.cancelled is not None or not self.play.pace.table_ready(table):
            return self._step([])
        self.play.pace.sync(self.seating.tables, (table,))
        return self._step([TableReady(table=table), *self._play_starts(now)])

    def table_lost(self, table: int) -> list[Event]:
        """A table's actor (or its node) died. The hand it was playing is voided: stacks stay
        as last reported, and its number is never reused. Nothing else stops."""
        state = self._require_table(table)
        state.last_directive = None
        news = self.play.pace.table_lost(table)  # it holds nobody back meanwhile (START-2)
        self.play.pace.sync(self.seating.tables, (table,))
        if state.issued is None or not state.in_hand:
            return [TableActorLost(table=table)] if news else []
        voided = state.issued.hand
        state.last_hand = voided
        state.blinds = state.played_blinds  # the next hand replays the voided one's positions
        return [HandVoided(table=table, hand=voided)]

    def table_restarted(self, table: int, *, node: str) -> Step:
        """The lost table's new actor is ready on `node`: it deals the same seats, stacks and
        positions as the voided hand, under a new hand number, joining the running clock
        (START-1)."""
        self._require_table(table)
        self.play.pace.table_restarted(table)
        self.play.pace.sync(self.seating.tables, (table,))
        events: list[Event] = [TableRestarted(table=table, node=node)]
        if self.cancelled is not None:
            return self._step(events, self._close(table))
        return self._step(events, self._next(table))

    # --- the step -------------------------------------------------------------------------

    def apply_hand(self, report: HandReport, *, now: float, rng: random.Random) -> Step:
        """Apply one finished hand at its table's boundary, step by step over the structures.
        Idempotent per (table, hand): a repeat gets the same directive and no events."""
        state = self._require_table(report.table)
        if self.cancelled is not None:  # the hand was voided by the cancellation
            # Logged as the table's poll: a restarted orchestrator closes it too.
            return self._step([TablePolled(table=report.table)], self._close(report.table))
        if report.hand == state.last_hand and state.last_directive is not None:
            return self._step([], state.last_directive)
        if self.finished:  # SAT-2: voided when play stopped at the seats
            return self._step([TablePolled(table=report.table)], self._close(report.table))
        issued = state.verify_report(report, pots=self.config.knockout is not None)
        play, table, button, hand = self.play, report.table, report.button, report.hand
        # STEP 1: record the hand and the stacks it ended with.
        events: list[Event] = [
            HandFinished(
                table=table,
                hand=hand,
                button=button,
                players=report.players,
                **report.timing.fields(),
                pots=report.pots,
            )
        ]
        self.hands += 1
        state.last_hand = hand
        state.played_blinds = state.blinds
        for p in report.players:
            play.stacks[p.player] = p.end
        # STEP 2: chips the players take at their own boundary: rebuys and the RB-4 add-on.
        for p in report.players:
            for structure in self.structures:
                events += structure.chips_added(play, p.player)
        # STEP 3: who the hand busted is really out (SO-2 qualifiers stay seated, re-entries
        # come back), and their places: now by ELIM-1, or later, held by hand-for-hand or by
        # late registration; the disqualified leave with their chips (SAN-1).
        busts = Busts(
            out=tuple(
                Busted(p.player, p.seat, p.start)
                for p in report.players
                if not play.stacks[p.player]
            )
        )
        for structure in self.structures:
            busts = structure.really_out(play, table, busts, button=button)
        leaving = {who.player for who in busts.out + busts.back}
        removed = [
            p
            for p in report.players
            if play.discipline.pending_removal(p.player) and p.player not in leaving
        ]
        for who in busts.out:
            del play.stacks[who.player]
        if not any(
            s.holds_places(play, busts.out, button=button, table=table, hand=hand)
            for s in self.structures
        ):
            events += play.place(busts.out, button=button, table=table, hand=hand)
        for p in removed:
            events += play.disqualified(p, button=button, table=table, hand=hand)
        for structure in self.structures:  # KO-1..KO-5: the bounties on them
            events += structure.knocked_out(play, report, busts.out + busts.back, removed)
        for p in report.players:  # SAN-2 penalties count down the hands sat out
            if p.seat in issued.sitting_out:
                play.discipline.sat_out(p.player)
        # STEP 4: a flight bagging closes the table (FL-1); else the winner, if one player is
        # left, or a satellite's seats filled (SAT-2): every place still held is given.
        if self._bag_due():
            return self._bag_table(table, events, now)
        seats = seats_filled(
            play.seats, play.active_players, self.seating.tables, table, self.structures
        )
        if play.active_players == 1 or seats:
            for structure in self.structures:
                events += structure.settle(play)
            for structure in self.structures:
                events += structure.finish(play)
            return self._finish(report, events, now)
        # STEP 5: balancing and closing (FO-2..FO-5, CLOSE-1, BAL-1), or a shoot-out table
        # done with its phase (SO-2).
        gone = [who.player for who in busts.out + busts.back] + [p.player for p in removed]
        boundary, closed = self._boundary(table, gone, issued.blinds.big_blind, now, rng)
        events += boundary
        # STEP 6: re-entries take random seats (never between the small blind and the button).
        for structure in self.structures:
            events += structure.seat_entrants(play, busts.back, rng)
        # STEP 7: the blind level, by the clock or by the slowest table's hands (START-2).
        events += self._advance_level(table, now, tables_named(table, events))
        # STEP 8: hand-for-hand near the money: this table waits for the round.
        for structure in self.structures:
            events += structure.table_done(play, table, closed=closed)
        # STEP 9: play starts again once every table is ready at its boundary (START-1).
        events += self._play_starts(now)
        # STEP 10: this table's next hand, wait, or close (a flight's bag level is over: FL-1).
        if self._bag_due():
            return self._bag_table(table, events, now)
        directive = self._close(table) if closed else self._next(table)
        state.last_directive = directive
        return self._step(events, directive)

    # --- internals ------------------------------------------------------------------------

    def _step(self, events: list[Event], reply: TableDirective | None = None) -> Step:
        """The step's result: the tables it opened (and did not close again) with their first
        directives, taken after everything else it decided, and the side events it filled."""
        play = self.play
        opened = [OpenTable(self._directive(t)) for t in play.opened if t in play.tables]
        directives: tuple[Directive, ...] = (*opened, *play.side_started)
        play.opened, play.side_started = [], []
        return Step(events, reply, directives)

    def _boundary(
        self, table: int, gone: list[str], big_blind: int, now: float, rng: random.Random
    ) -> tuple[list[Event], bool]:
        events: list[Event] = []
        closed = False
        play = self.play
        for structure in self.structures:
            boundary = structure.boundary(play, table, gone=gone, big_blind=big_blind, rng=rng)
            events += boundary.events
            closed = closed or boundary.closed
            if boundary.new_phase:  # START-1: its tables start together
                play.clock.hold(at=now)
                play.pace.stop()
        return events, closed

    def _play_starts(self, now: float) -> list[Event]:
        """START-1: play (re)starts when every open table is ready at its boundary."""
        play = self.play
        if play.pace.playing or self.finished or self.cancelled is not None:
            return []
        # Not a copy of every table's state per step: while play is stopped every step asks,
        # and at the start every table's first answer is a step (quadratic in the tables).
        if not play.pace.may_start(self.seating.tables, play.tables, play.clock, now=now):
            return []
        return [play.pace.start(self.seating.tables, play.clock, now=now)]

    def _next(self, table: int) -> TableDirective:
        """A table at its boundary: wait for its hand-for-hand round, or its next directive."""
        return TableDirective(table, None) if self._held(table) else self._directive(table)

    def _held(self, table: int) -> bool:
        return any(structure.holds_table(table) for structure in self.structures)

    def _advance_level(self, table: int, now: float, changed: set[int]) -> list[Event]:
        play, pace = self.play, self.play.pace
        clock = play.clock
        pace.hand_played(table)
        pace.sync(self.seating.tables, changed)
        breaks = clock.hand_played(self.config, now=now, hands=pace.slowest())
        if breaks is None:
            return []
        pace.level_started()
        if breaks:  # START-1: every table starts again together after the break
            clock.hold(at=now)
            pace.stop()
        events: list[Event] = [*breaks]
        for structure in self.structures:
            events += structure.level_starting(play, clock.level)
        events.append(LevelStarted(level=clock.level, **level_fields(self.level)))
        events += play.registration.level_started(clock.level, now=clock.level_started_at)
        return events

    def _finish(self, report: HandReport, events: list[Event], now: float) -> Step:
        self.finished = True
        if self.play.seats is not None:  # SAT-2: hands still in progress elsewhere are void
            events += self.play.void_hands_in_progress()
        events += self.play.finish(now=now)
        winner = next(p for p, place in self.play.places.items() if place == 1)
        events.append(
            TournamentFinished(winner=winner, hands=self.hands, seconds=now - self.started_at)
        )
        directive = TableDirective(report.table, None, close=True)
        self.play.tables[report.table].last_directive = directive
        return self._step(events, directive)

    def _close(self, table: int) -> TableDirective:
        directive = TableDirective(table, None, close=True)
        self.play.tables[table].last_directive = directive
        del self.play.tables[table]
        return directive

    def _directive(self, table: int) -> TableDirective:
        play, seats = self.play, self.seating.tables[table]
        if self.cancelled is not None or self.finished:  # CRASH-2, or ended by a deal (DEAL-3)
            return self._close(table)
        waits = len(seats) < 2 or play.clock.paused
        in_rounds = any(structure.in_rounds() for structure in self.structures)
        if waits or not play.pace.may_deal(table, self.seating.tables, in_rounds=in_rounds):
            return TableDirective(table, None)
        state = play.tables[table]
        waiting = self.seating.waiting_for_big_blind(table, state.blinds)  # TDA-3
        next_hand = state.deal(
            table,
            {seat: player for seat, player in seats.items() if seat not in waiting},
            stacks=play.stacks,
            level=play.clock.level,
            blinds=self.level,
            betting=self.config.betting,
            sits_out=play.discipline.sits_out,  # SAN-2: dealt in, check or fold
        )
        return TableDirective(table, next_hand)
