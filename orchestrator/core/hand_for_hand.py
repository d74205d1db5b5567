"""Hand-for-hand play near the money (`hand_for_hand` players left; the ELIM-1 decision). Pure.

From `hand_for_hand` players left until the money is reached (or one table is left, which
plays hand for hand anyway), every table plays one hand and waits until every other table has
played its hand of the round. Everyone busted in a round is placed when the round is
complete, as if at one table: by chips at the hand's start, then by nearness to their own
table's button. It happens once per tournament, and not while late registration is open: the
field and so the money are not known yet, and late registration places its busted itself.
In a satellite the money is its seats (SAT-2): hand-for-hand stops the field at N.
"""

from __future__ import annotations

from collections.abc import Sequence

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import Event
from orchestrator.core.events import HandForHand as HandForHandEvent
from orchestrator.core.places import Busted
from orchestrator.core.play import Play
from orchestrator.core.satellite import Seats
from orchestrator.core.structures import Seating, Structure

__all__ = ["HandForHand"]


class HandForHand(Structure):
    def __init__(self, config: TournamentConfig, seating: Seating, threshold: int = 0) -> None:
        self._threshold = threshold or config.hand_for_hand  # SAT-2 gives a satellite's
        self._seats_per_table = config.max_per_table
        self._seating = seating
        self._active = False
        self._done = False
        self._waiting: set[int] = set()  # tables done with this round
        self._busted: list[tuple[Busted, int, int, int]] = []  # (who, button, table, hand)

    @classmethod
    def of(
        cls, config: TournamentConfig, seating: Seating, seats: Seats | None
    ) -> HandForHand | None:
        """The config's hand-for-hand, if any; a satellite's always (SAT-2: from its seats and
        one table unless `hand_for_hand` says otherwise)."""
        threshold = (
            seats.hand_for_hand(config.hand_for_hand, config.max_per_table)
            if seats
            else config.hand_for_hand
        )
        return cls(config, seating, threshold) if threshold else None

    def holds_places(
        self, play: Play, out: Sequence[Busted], *, button: int, table: int, hand: int
    ) -> bool:
        if not self._active:
            return False
        self._busted += [(who, button, table, hand) for who in out]
        return True

    def settle(self, play: Play) -> list[Event]:
        """ELIM-1 decision: everyone busted in the round is placed as if at one table (chips
        at the hand's start, then nearness to their own button). PAY-1: equal stacks at
        different tables are a tie nearness cannot break (each is near his own button): they
        take the places in that order, and share those places' prizes."""
        if not self._busted:
            return []
        size = max(self._seats_per_table, 10)
        ordered = sorted(self._busted, key=lambda r: (-r[0].start, (r[0].seat - r[1]) % size))
        best = play.active_players + 1
        events: list[Event] = []
        for k, (who, _, table, hand) in enumerate(ordered):
            events += play.place_at(who, best + k, table=table, hand=hand)
        for start in sorted({who.start for who, *_ in ordered}, reverse=True):
            group = [(best + k, r[2]) for k, r in enumerate(ordered) if r[0].start == start]
            if len({table for _, table in group}) > 1:
                play.ties.append(tuple(place for place, _ in group))
        self._busted = []
        return events

    def finish(self, play: Play) -> list[Event]:
        if not self._active:
            return []
        self._active, self._done = False, True
        return [HandForHandEvent(active=False, players=play.active_players)]

    def table_done(self, play: Play, table: int, *, closed: bool) -> list[Event]:
        """Start hand-for-hand when the field reaches the threshold; the table then waits for
        the round; the round's last table places its busted and plays on, or ends it."""
        events: list[Event] = []
        if not self._active and (self._done or play.active_players > self._threshold):
            return events  # asked after every hand: the prizes and tables only when near
        if not self._active:
            if play.registration.is_open():  # late registration: the money is not known
                return events
            if self._paid(play) >= play.active_players:
                # The field is in the money already (a threshold at or below the paid places):
                # with registration closed the paid places are fixed and the field only
                # shrinks, so hand-for-hand can never start. Done, so the prize table is not
                # built again after every hand to the end (a big field's is 15% of it).
                self._done = True
                return events
        playing = {t for t, seats in self._seating.tables.items() if len(seats) >= 2}
        if not self._active:
            if len(playing) <= 1:  # one table plays hand for hand anyway
                return events
            self._active = True
            events.append(HandForHandEvent(active=True, players=play.active_players))
        if not closed:
            self._waiting.add(table)
        if not playing <= self._waiting | {table}:
            return events
        # The round is complete: place its busted, then play on (or leave hand-for-hand).
        events += self.settle(play)
        self._waiting.clear()
        if play.active_players <= self._paid(play) or len(playing) <= 1:
            self._active, self._done = False, True
            events.append(HandForHandEvent(active=False, players=play.active_players))
        return events

    @staticmethod
    def _paid(play: Play) -> int:
        """The places paid (SAT-2: a satellite's seats): the money's bubble. Asked only when a
        decision turns on it, not after every hand: it builds the whole prize table."""
        return play.seats.count if play.seats else play.paid_places

    def holds_table(self, table: int) -> bool:
        return table in self._waiting

    def holds_tables(self) -> bool:
        return bool(self._waiting)

    def in_rounds(self) -> bool:
        return self._active
