"""The tournament in play, as its step and every structure share it. Pure.

`Play` holds what is not any one structure's: the chips in play, the places taken, the
entries (the prize pool), each open table's hands, the clock and the tables' pace (START-1,
START-2, HALT-1: `core.pace`), the registration with its
ledger, the judges' discipline and the side events' queue; and the two ways the field changes
shape: a player placed (`place`, `place_at`: his registration ends, he may join a side event)
and a table opened (`open_tables`, `open_table`). The structures (`core.structures`) keep their
own state and change this through these.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from orchestrator.core.blinds import blind_gap
from orchestrator.core.clock import LevelClock
from orchestrator.core.config import TournamentConfig
from orchestrator.core.deals import Deal, DealVote
from orchestrator.core.directives import StartSideEvent
from orchestrator.core.discipline import Discipline
from orchestrator.core.events import (
    ButtonAssigned,
    ChipsRemoved,
    Day2Started,
    Event,
    HandVoided,
    PlayerEliminated,
    PlayerSeated,
    PrizeAwarded,
    SatelliteFinished,
    SideEventStarted,
    TableOpened,
    TicketAwarded,
)
from orchestrator.core.ledger import Ledger
from orchestrator.core.ledger_records import EVENT, Reason, posting_event
from orchestrator.core.pace import Pace
from orchestrator.core.payouts import prize_table, split_ties
from orchestrator.core.places import Busted, button_distances, place_eliminated
from orchestrator.core.rankings import Rankings, SkillLevel, SkillRange
from orchestrator.core.registration import Registration, RegistrationRules
from orchestrator.core.satellite import Seats
from orchestrator.core.tables import TableState
from table_worker.protocol import DECK_SIZE, HandPlayer, draw_for_button

__all__ = ["Play", "open_registration"]


@dataclass(slots=True, kw_only=True)
class Play:
    config: TournamentConfig
    registration: Registration  # REG-1, REG-2 and the ledger of every cent
    stacks: dict[str, int]  # players in the tournament and their chips
    entries: int  # buy-ins, re-entries included (the prize pool)
    field_size: int  # different players (the places)
    pace: Pace  # START-1, START-2, HALT-1: which tables may deal
    clock: LevelClock = field(default_factory=LevelClock)
    discipline: Discipline = field(default_factory=Discipline)
    places: dict[str, int] = field(default_factory=dict)
    ties: list[tuple[int, ...]] = field(default_factory=list)  # PAY-1: places that share
    deal_vote: DealVote | None = None  # DEAL-1: a deal proposed, waiting for every answer
    deal: Deal | None = None  # DEAL-3: the deal accepted; its players play on for `left`
    bagging: bool = False  # FL-1: a flight's bag is due; its tables close at their boundary
    seats: Seats | None = None  # SAT-1: a satellite's seats, fixed at the start
    tables: dict[int, TableState] = field(default_factory=dict)
    side_queue: list[str] = field(default_factory=list)  # RB-6: eliminated, waiting to play
    side_events: int = 0
    # What the step in progress decided beyond its events; drained into its Step.
    opened: list[int] = field(default_factory=list)
    side_started: list[StartSideEvent] = field(default_factory=list)

    # --- the field and its money ----------------------------------------------------------

    @property
    def active_players(self) -> int:
        return len(self.stacks)

    @property
    def prize_pool(self) -> int:
        """The entries' prize contributions, and the operator's overlay once registration closed
        (GTD-1)."""
        day2 = self.config.day2  # FL-3: a Day 2's pool is every flight's entries'
        entries_pool = day2.pool if day2 else self.entries * self.config.prize_buy_in
        return entries_pool + self.registration.ledger.overlay

    def prizes(self) -> list[int]:
        """Prize by place (index 0 is first), from the configured or the default table (SAT-1:
        a satellite's seats, then its cash remainder)."""
        if self.seats is not None:
            return self.seats.prizes()
        return prize_table(
            self.prize_pool,
            percent=self.config.payout_percent,
            entries=self.entries,
            field_size=self.field_size,
            paid_percent=self.config.paid_percent,
        )

    def awards(self) -> list[int]:
        """What each place is paid (index 0 is first): the prizes, tied places sharing theirs
        (PAY-1; SAT-2: not a satellite's, a ticket is not split)."""
        if self.seats is not None:
            return self.seats.prizes()
        awards = split_ties(self.prizes(), self.ties)
        if self.deal is not None:  # DEAL-3: the dealt places play for what was left
            dealt = len(self.deal.players)
            awards[:dealt] = [self.deal.left, *[0] * (dealt - 1)]
        return awards

    @property
    def paid_places(self) -> int:
        return sum(1 for prize in self.prizes() if prize > 0)

    def void_hands_in_progress(self) -> list[Event]:
        """CRASH-2: every hand in progress is voided (TDA: an interrupted hand returns all
        bets), so stacks stay as last reported; every table's next directive is decided anew."""
        events: list[Event] = []
        for table, state in sorted(self.tables.items()):
            state.last_directive = None
            if state.issued is not None and state.in_hand:
                events.append(HandVoided(table=table, hand=state.issued.hand))
                state.last_hand = state.issued.hand
        return events

    def roll_forward(
        self,
        reason: str,
        events: list[Event],
        seating: Mapping[int, Mapping[int, str]],
        *,
        now: float,
    ) -> list[Event]:
        """CRASH-2: everyone still in rolled forward through the ledger, leftover cents by
        largest remainder (ties: more chips, then nearer the button clockwise); the step's
        `events` come after the cancellation's announcement, which names the step."""
        buttons = {t: state.blinds.button for t, state in self.tables.items() if state.blinds}
        distance = button_distances(seating, buttons, self.config.max_per_table)
        announced, *settled = self.registration.cancel(
            reason, now=now, chips=dict(self.stacks), button_distance=distance
        )
        return [announced, *events, *settled]

    def pay_prizes_won(self, *, now: float) -> list[Event]:
        """The prizes of the places taken so far (CRASH-2: before the roll-forward)."""
        prizes = self.awards()
        events: list[Event] = []
        for player, place in sorted(self.places.items(), key=lambda item: item[1]):
            if amount := _prize(prizes, place):
                events.append(PrizeAwarded(player=player, place=place, amount=amount))
                events += self.registration.pay_prize(player, place=place, amount=amount, now=now)
        return events

    def finish(self, *, now: float) -> list[Event]:
        """The one player left wins: every prize is paid, the registration ends and the
        rankings move (SKILL-3); the ledger must balance. A satellite ends with its seats."""
        if self.seats is not None:
            return self._award_seats(self.seats, now=now)
        registration = self.registration
        (winner,) = self.stacks
        self.places[winner] = 1
        by_place = {place: player for player, place in self.places.items()}
        events: list[Event] = [*registration.close_late(now=now)]  # GTD-1 before any prize
        paid = len(self.prizes())
        for place, amount in enumerate(self.awards(), start=1):
            if place > paid and not amount:
                continue
            events.append(PrizeAwarded(player=by_place[place], place=place, amount=amount))
            events += registration.pay_prize(by_place[place], place=place, amount=amount, now=now)
        events += registration.finish(now=now)
        events += registration.rankings.record_results(self.places)
        registration.ledger.check()
        return events

    def _award_seats(self, seats: Seats, *, now: float) -> list[Event]:
        """SAT-1..SAT-3: play stopped with N players or fewer left. They take the first places
        by their chips (equal stacks by name); places 1..N each win a ticket (the pool pays it
        into the player's ticket account), place N+1 the cash remainder."""
        by_chips = sorted(self.stacks, key=lambda p: (-self.stacks[p], p))
        self.places.update({player: k for k, player in enumerate(by_chips, start=1)})
        by_place = {place: player for player, place in self.places.items()}
        registration, ledger = self.registration, self.registration.ledger
        events: list[Event] = [*registration.close_late(now=now)]  # GTD-1 before any prize
        holders = tuple(by_place[place] for place in range(1, seats.count + 1))
        for place, player in enumerate(holders, start=1):
            chips = self.stacks.get(player, 0)
            value, target = seats.value, seats.target
            events.append(
                TicketAwarded(player=player, place=place, value=value, chips=chips, target=target)
            )
            events.append(posting_event(ledger.award_ticket(player, seats.value, now=now)))
        if seats.remainder:
            bubble, place = by_place[seats.count + 1], seats.count + 1
            events.append(PrizeAwarded(player=bubble, place=place, amount=seats.remainder))
            events += registration.pay_prize(bubble, place=place, amount=seats.remainder, now=now)
        events.append(
            SatelliteFinished(
                seats=seats.count,
                value=seats.value,
                remainder=seats.remainder,
                players=holders,
                target=seats.target,
            )
        )
        events += registration.finish(now=now)
        events += registration.rankings.record_results(self.places)
        ledger.check()
        return events

    def results(self, *, tournament: str, hands: int) -> dict[str, object]:
        """results.json's places and money (DESIGN.md); the caller sets `seconds`."""
        prizes = self.awards()
        ordered = sorted(self.places.items(), key=lambda item: item[1])
        ledger = self.registration.ledger
        deal, seats = self.deal, self.seats
        tickets = seats.count if seats else 0  # SAT-3: places 1..N won a ticket, not cash

        def dealt(player: str) -> int:  # DEAL-3: what the deal paid him
            return deal.amount_of(player) if deal and player in deal.players else 0

        bounties: dict[str, int] = {}  # KO-5: the bounty cash each player received
        for posting in ledger.postings:
            if posting.reason in (Reason.BOUNTY_WON, Reason.BOUNTY_RETURNED):
                bounties[posting.player] = bounties.get(posting.player, 0) + posting.amount
        return {
            "tournament": tournament,
            "players": self.entries,
            "prize_pool": self.prize_pool,
            "hands": hands,
            "seconds": 0.0,
            "places": [
                {
                    "place": place,
                    "player": player,
                    "prize": 0 if place <= tickets else _prize(prizes, place) + dealt(player),
                }
                | ({"bounties": bounties.get(player, 0)} if self.config.knockout else {})
                | ({"ticket": seats.value} if seats and place <= tickets else {})
                for player, place in ordered
            ],
            **self._flight_results(),
            "ledger": {
                "entries": self.entries,
                "prize_pool_left": ledger.pool,
                "commission": ledger.operator,
                "overlay": ledger.overlay,  # GTD-1
                "bounties_left": ledger.bounties,
                "tickets": ledger.tickets,  # SAT-3
                "postings": len(ledger.postings),
            },
        } | ({"satellite": seats.summary()} if seats else {})

    def _flight_results(self) -> dict[str, object]:
        """FL-1: a bagged flight's bags, the level it stopped at and the pool it carried."""
        if self.config.bag is None:
            return {}
        carried = sum(p.amount for p in self.registration.ledger.postings if p.target == EVENT)
        bags = [{"player": player, "chips": chips} for player, chips in sorted(self.stacks.items())]
        return {"flight": {"bagged": bags, "level": self.clock.level, "pool": carried}}

    # --- placing --------------------------------------------------------------------------

    def place(self, busted: Sequence[Busted], *, button: int, table: int, hand: int) -> list[Event]:
        """ELIM-1: players busted in one hand at one table take the places just below the
        players still in, by their chips at the hand's start (`busted` are out of `stacks`)."""
        placed = place_eliminated(
            busted,
            button=button,
            seats_per_table=self.config.max_per_table,
            remaining_before=self.active_players + len(busted),
        )
        events: list[Event] = []
        for who, place in placed:
            events += self.place_at(who, place, table=table, hand=hand)
        return events

    def place_at(self, who: Busted, place: int, *, table: int, hand: int) -> list[Event]:
        """`who` (out of `stacks`) takes `place`: his entry ends, and he joins the side
        events' queue (RB-6; the bots all join) unless disqualified."""
        self.places[who.player] = place
        events: list[Event] = [
            *self.registration.eliminated(who.player, now=self.clock.level_started_at)
        ]
        side = self.config.side_events
        if side is not None and not self.discipline.pending_removal(who.player):
            self.side_queue.append(who.player)
            if len(self.side_queue) == side.players:
                self.side_events += 1
                players = tuple(self.side_queue)
                events.append(SideEventStarted(event=self.side_events, players=players))
                self.side_started.append(StartSideEvent(self.side_events, players))
                self.side_queue = []
        events.append(
            PlayerEliminated(
                player=who.player, place=place, table=table, hand=hand, start=who.start
            )
        )
        return events

    def disqualified(self, who: HandPlayer, *, button: int, table: int, hand: int) -> list[Event]:
        """SAN-1 carried out at the player's boundary: his chips leave play and he takes the
        worst place left."""
        chips = self.stacks.pop(who.player)
        events: list[Event] = [ChipsRemoved(player=who.player, chips=chips)]
        events += self.place(
            [Busted(who.player, who.seat, chips)], button=button, table=table, hand=hand
        )
        self.discipline.removed(who.player)
        return events

    # --- tables ---------------------------------------------------------------------------

    def open_tables(
        self, seating: Mapping[int, Mapping[int, str]], rng: random.Random
    ) -> list[Event]:
        """Open every table of `seating`: seats, stacks, the HE-1 button draw."""
        events: list[Event] = []
        deck = list(range(DECK_SIZE))
        for table, seats in sorted(seating.items()):
            events.append(TableOpened(table=table))
            self.opened.append(table)
            for seat, player in sorted(seats.items()):
                stack = self.stacks[player]
                events.append(PlayerSeated(player=player, table=table, seat=seat, stack=stack))
            rng.shuffle(deck)
            button = draw_for_button(sorted(seats), deck)  # HE-1
            events.append(ButtonAssigned(table=table, seat=button))
            self.tables[table] = TableState(drawn_button=button)
        return events

    def open_table(self, table: int, *, first_seat: int) -> TableOpened:
        """A table opened for an entrant (no draw: the button starts at his seat)."""
        self.opened.append(table)
        self.tables[table] = TableState(drawn_button=first_seat)
        return TableOpened(table=table)

    def blind_gaps(self, seating: Mapping[int, Mapping[int, str]]) -> dict[int, set[int]]:
        """Per table, the empty seats between the next hand's button and its first blind: a
        new player there would get the button before posting a blind."""
        gaps: dict[int, set[int]] = {}
        for table, seats in seating.items():
            state = self.tables.get(table)
            if state is None or state.blinds is None or len(seats) < 2:
                continue
            gaps[table] = blind_gap(state.blinds, sorted(seats), self.config.max_per_table)
        return gaps


def open_registration(
    config: TournamentConfig,
    players: Sequence[str],
    deposits: Mapping[str, int],
    tournament_id: str,
    now: float,
    tickets: Mapping[str, int] | None = None,
) -> tuple[Registration, list[Event]]:
    """Registration before the start (REG-1): an account with its deposit and a ranking for
    every player the caller funds (SKILL-3: new players start as Beginners), then every one of
    `players` pays his entry: by his ticket (SAT-3) when `tickets` holds one for him."""
    buy_in, fee = config.registration_price  # FL-3: Day 2's players paid in their flights
    rules = RegistrationRules(
        tournament=tournament_id,
        buy_in=buy_in,
        fee=fee,
        bounty=config.bounty,
        late_registration_levels=config.late_registration_levels,
        reentries=config.reentries,
        max_entries=config.max_entries,
        cancellation_bp=config.cancellation_bp,
        guarantee=config.guarantee,
        skill_range=None
        if config.skill_levels is None
        else SkillRange.of_levels(*(SkillLevel[level.upper()] for level in config.skill_levels)),
    )
    registration = Registration(rules, Ledger(), Rankings())
    for player, money in deposits.items():
        registration.ledger.open_account(player, money, now=now)
        registration.rankings.add_player(player)
    tickets = tickets or {}
    for player, value in tickets.items():
        registration.ledger.open_ticket(player, value, now=now)
    events: list[Event] = list(registration.open(now=now))
    if config.day2 is not None:  # FL-3: the flights' pool, before registration closes
        day2 = config.day2
        events.append(Day2Started(entries=day2.entries, pool=day2.pool, level=day2.level))
        posting = registration.ledger.receive_flights_pool(day2.pool, now=now)
        events += [posting_event(posting)] if posting else []
    for player in players:
        events += registration.register(player, now=now, ticket=player in tickets)
    events += registration.start(now=now)
    return registration, events


def _prize(prizes: Sequence[int], place: int) -> int:
    return prizes[place - 1] if place <= len(prizes) else 0
