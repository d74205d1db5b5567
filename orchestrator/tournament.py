"""The tournament core: hand reports in, events and per-table directives out. Pure.

The shell owns the clock, the RNG and every side effect: it passes `now` and a
`random.Random` in, appends the returned events to the log *before* it carries out the
returned directives (write-ahead), and sends each table the `NextHand` it is given. Given the
same config, seed and reports in the same order, the core takes the same decisions, so a log of
reports replays to the same tournament.

A table only ever plays the hand the core describes (seats, stacks, button, blinds, level), so
its state can always be rebuilt from here, and a report is checked against what was issued.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.blinds import Blinds, first_blinds, next_blinds
from orchestrator.config import BlindLevel, TournamentConfig
from orchestrator.errors import ReportError
from orchestrator.events import (
    BreakStarted,
    ButtonAssigned,
    Event,
    FinalTable,
    HandFinished,
    HandPlayer,
    LevelStarted,
    PlayerEliminated,
    PlayerMoved,
    PlayerSeated,
    PrizeAwarded,
    TableClosed,
    TableOpened,
    TournamentFinished,
    TournamentStarted,
)
from orchestrator.floor import TableFloor
from orchestrator.levels import blind_level, level_due
from orchestrator.payouts import default_percentages, payouts
from orchestrator.places import Busted, place_eliminated
from table_worker.cards import DECK_SIZE, draw_for_button

__all__ = ["HandReport", "NextHand", "Step", "TableDirective", "Tournament"]


@dataclass(frozen=True, slots=True)
class NextHand:
    """Everything a table needs to deal its next hand."""

    table: int
    hand: int
    seats: tuple[tuple[int, str, int], ...]  # (seat, player, stack), by seat
    blinds: Blinds
    level: int
    small_blind: int
    big_blind: int
    ante: int
    betting: str


@dataclass(frozen=True, slots=True)
class TableDirective:
    """What a table does at a hand boundary: deal `next_hand`, wait for players, or close."""

    table: int
    next_hand: NextHand | None
    close: bool = False

    @property
    def wait(self) -> bool:
        return self.next_hand is None and not self.close


@dataclass(frozen=True, slots=True)
class HandReport:
    """A table's finished hand: who played from which seat, with what, ending with what."""

    table: int
    hand: int
    button: int
    players: tuple[HandPlayer, ...]


@dataclass(frozen=True, slots=True)
class Step:
    """One decision: events to log first (a report's hand_finished, if any, first), then the
    directive for the table that asked."""

    events: list[Event]
    directive: TableDirective | None = None


@dataclass(slots=True)
class _Table:
    drawn_button: int  # HE-1, for the table's first hand
    blinds: Blinds | None = None
    issued: NextHand | None = None
    last_hand: int = 0
    last_directive: TableDirective | None = None


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
    floor: TableFloor
    started_at: float
    stacks: dict[str, int]
    entries: int
    tables: dict[int, _Table] = field(default_factory=dict)
    clock: _Clock = field(default_factory=_Clock)
    places: dict[str, int] = field(default_factory=dict)
    hands: int = 0
    finished: bool = False

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
        )
        tournament.clock = _Clock(level_started_at=now, tables_at_level_start=len(floor.tables))
        events: list[Event] = [
            TournamentStarted(
                tournament=tournament_id,
                players=len(players),
                tables=len(floor.tables),
                max_per_table=config.max_per_table,
                structure=config.structure,
                policy=config.policy,
                starting_stack=config.starting_stack,
            )
        ]
        level = blind_level(config, 1)
        events.append(LevelStarted(level=1, **_level_fields(level)))
        deck = list(range(DECK_SIZE))
        for table, seats in sorted(floor.tables.items()):
            events.append(TableOpened(table=table))
            for seat, player in sorted(seats.items()):
                events.append(
                    PlayerSeated(player=player, table=table, seat=seat, stack=config.starting_stack)
                )
            rng.shuffle(deck)
            button = draw_for_button(sorted(seats), deck)  # HE-1
            events.append(ButtonAssigned(table=table, seat=button))
            tournament.tables[table] = _Table(drawn_button=button)
        if len(floor.tables) == 1:
            events.append(tournament._final_table(next(iter(floor.tables))))
        return tournament, Step(events)

    # --- queries --------------------------------------------------------------------------

    @property
    def active_players(self) -> int:
        return len(self.stacks)

    @property
    def level(self) -> BlindLevel:
        return blind_level(self.config, self.clock.level)

    @property
    def prize_pool(self) -> int:
        return self.entries * self.config.buy_in

    def first_hands(self) -> list[TableDirective]:
        """The opening directive of every table."""
        return [self.opening_directive(table) for table in sorted(self.tables)]

    def opening_directive(self, table: int) -> TableDirective:
        """A newly opened table's first directive."""
        self._require_table(table)
        return self._directive(table)

    def poll(self, table: int, *, rng: random.Random) -> Step:
        """A table short of players asks again. Players may have been moved in since; if not,
        its idle boundary lets the floor close it or fill it (CLOSE-1, BAL-1, FO-3)."""
        state = self._require_table(table)
        if state.issued is not None and state.issued.hand > state.last_hand:
            return Step([], TableDirective(table, state.issued))
        if len(self.floor.tables[table]) >= 2:
            return Step([], self._directive(table))
        big_blind = state.blinds.big_blind if state.blinds else min(self.floor.tables[table])
        events, closed = self._balance(table, [], big_blind, rng)
        return Step(events, self._close(table) if closed else self._directive(table))

    # --- the step -------------------------------------------------------------------------

    def hand_finished(self, report: HandReport, *, now: float, rng: random.Random) -> Step:
        """Apply one finished hand. Idempotent per (table, hand): a repeat gets the same
        directive and no events."""
        state = self._require_table(report.table)
        if report.hand == state.last_hand and state.last_directive is not None:
            return Step([], state.last_directive)
        self._check_report(report, state)
        table, events = report.table, list[Event]()
        # STEP 1: record the hand and the stacks it ended with.
        events.append(
            HandFinished(
                table=table, hand=report.hand, button=report.button, players=report.players
            )
        )
        self.hands += 1
        state.last_hand = report.hand
        for p in report.players:
            self.stacks[p.player] = p.end
        # STEP 2: place the busted players (ELIM-1).
        busted = [Busted(p.player, p.seat, p.start) for p in report.players if p.end == 0]
        placed = place_eliminated(
            busted,
            button=report.button,
            seats_per_table=self.config.max_per_table,
            remaining_before=self.active_players,
        )
        for who, place in placed:
            del self.stacks[who.player]
            self.places[who.player] = place
            events.append(
                PlayerEliminated(
                    player=who.player, place=place, table=table, hand=report.hand, start=who.start
                )
            )
        # STEP 3: the winner, if one player is left.
        if self.active_players == 1:
            return self._finish(report, events, now)
        # STEP 4: balancing and closing at this table's boundary (FO-2..FO-5, CLOSE-1, BAL-1).
        assert state.issued is not None
        gone = [who.player for who, _ in placed]
        balance_events, closed = self._balance(table, gone, state.issued.blinds.big_blind, rng)
        events += balance_events
        # STEP 5: the blind level, counted across all tables.
        events.extend(self._advance_level(now))
        # STEP 6: this table's next hand, or close.
        directive = self._close(table) if closed else self._directive(table)
        state.last_directive = directive
        return Step(events, directive)

    # --- internals ------------------------------------------------------------------------

    def _balance(
        self, table: int, eliminated: list[str], big_blind_seat: int, rng: random.Random
    ) -> tuple[list[Event], bool]:
        events: list[Event] = []
        decision = self.floor.hand_finished(
            table, eliminated=eliminated, big_blind_seat=big_blind_seat, rng=rng
        )
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
        return directive

    def _require_table(self, table: int) -> _Table:
        try:
            return self.tables[table]
        except KeyError:
            raise ReportError(f"table {table} is not open in this tournament") from None

    def _check_report(self, report: HandReport, state: _Table) -> None:
        issued = state.issued
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
        if len(seats) < 2:
            return TableDirective(table, None)
        occupied = sorted(seats)
        if state.blinds is None:
            button = state.drawn_button if state.drawn_button in seats else occupied[0]
            blinds = first_blinds(button, occupied)
        else:
            blinds = next_blinds(state.blinds, occupied)  # HE-8, HE-9
        state.blinds = blinds
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
        clock.level_started_at = now
        clock.hands_this_level = 0
        clock.tables_at_level_start = len(self.tables)
        events.append(LevelStarted(level=clock.level, **_level_fields(self.level)))
        return events

    def _finish(self, report: HandReport, events: list[Event], now: float) -> Step:
        (winner,) = self.stacks
        self.places[winner] = 1
        self.finished = True
        by_place = {place: player for player, place in self.places.items()}
        for place, amount in enumerate(self.prizes(), start=1):
            events.append(PrizeAwarded(player=by_place[place], place=place, amount=amount))
        events.append(
            TournamentFinished(winner=winner, hands=self.hands, seconds=now - self.started_at)
        )
        directive = TableDirective(report.table, None, close=True)
        self.tables[report.table].last_directive = directive
        return Step(events, directive)

    def prizes(self) -> list[int]:
        """Prize by place (index 0 is first), from the configured or the default table."""
        shares = self.config.payout_percent
        points = [p * 100 for p in shares] if shares else list(default_percentages(self.entries))
        return payouts(self.prize_pool, points[: self.entries])

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
        }


def _level_fields(level: BlindLevel) -> dict[str, int]:
    return {"small_blind": level.small_blind, "big_blind": level.big_blind, "ante": level.ante}


def _prize(prizes: Sequence[int], place: int) -> int:
    return prizes[place - 1] if place <= len(prizes) else 0
