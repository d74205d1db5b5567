"""Registration of one tournament (REG-1..REG-3, SKILL-1..SKILL-3, CRASH-1..CRASH-2). Pure.

States and the legal transitions::

    announced --open--> registering --start--> running --finish--> finished
        |                    |                    |
        +------cancel--------+-------cancel-------+--> cancelled

- REG-1: entries are taken while `registering`, and while `running` up to and including the
  level `late_registration_levels` (0 = none after the start). Each entry debits the player's
  ledger account: the buy-in to the prize pool, the fee (commission) to the operator.
- Re-entry: a player eliminated while late registration is open may enter again, at most
  `reentries` times; a re-entry is a new entry at the full price.
- `max_entries` caps the entries taken (re-entries included; an entry refunded by REG-2 frees
  its place). `min_entries` entries are needed to start: with fewer the operator cancels.
- GTD-1: when registration closes (at the start, or when late registration ends) with the pool
  short of `guarantee`, the operator pays the overlay into it (`Ledger.pay_overlay`).
- REG-2: before the start a player may unregister: the entry back less the cancellation
  charge (`cancellation_bp` basis points of the entry, kept by the operator; see
  `orchestrator.core.ledger`). After the start, never.
- REG-3 / SKILL-2: a tournament may admit only rankings in a `SkillRange`.
- Cancel: in registration every entry is refunded in full (CRASH-1); while running the
  tournament rolls forward (CRASH-2) with each remaining player's chips, which the core passes.

Every command checks everything before it changes anything: a refusal raises a typed
`RegistrationError` (or a `LedgerError` for money the player does not have) and leaves both
the registration and the ledger as they were. Commands return the events to append to the log,
each money movement followed by its `ledger_posted` events.

Rankings (SKILL-1, SKILL-3) live in `orchestrator.core.rankings`, the room's record across
tournaments; registration reads them (SKILL-2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from orchestrator.core.events import (
    Event,
    PlayerRegistered,
    PlayerUnregistered,
    Refund,
    RegistrationClosed,
    RegistrationOpened,
    RollForwardPaid,
    TournamentCancelled,
)
from orchestrator.core.ledger import Ledger
from orchestrator.core.ledger_amounts import BASIS_POINTS
from orchestrator.core.ledger_records import LedgerSnapshot, Posting, posting_event
from orchestrator.core.money_events import OverlayPaid
from orchestrator.core.rankings import Rankings, SkillRange, skill_level
from orchestrator.errors import (
    AlreadyRegisteredError,
    ConfigError,
    InsufficientFundsError,
    NotRegisteredError,
    ReentryError,
    RegistrationClosedError,
    RegistrationError,
    RegistrationStateError,
    SkillRangeError,
    TournamentFullError,
    UnknownEntrantError,
    UnregisterClosedError,
)

__all__ = [
    "Registrant",
    "Registration",
    "RegistrationRules",
    "RegistrationSnapshot",
    "RegistrationState",
]

# --- registration ------------------------------------------------------------------------


class RegistrationState(StrEnum):
    ANNOUNCED = "announced"
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


_TRANSITIONS: dict[RegistrationState, frozenset[RegistrationState]] = {
    RegistrationState.ANNOUNCED: frozenset(
        {RegistrationState.REGISTERING, RegistrationState.CANCELLED}
    ),
    RegistrationState.REGISTERING: frozenset(
        {RegistrationState.RUNNING, RegistrationState.CANCELLED}
    ),
    RegistrationState.RUNNING: frozenset({RegistrationState.FINISHED, RegistrationState.CANCELLED}),
    RegistrationState.FINISHED: frozenset(),
    RegistrationState.CANCELLED: frozenset(),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistrationRules:
    """A tournament's registration terms; amounts in cents: the buy-in to the prize pool, the
    bounty to the bounties (KO-5; the config's `buy_in` holds both) and the fee to the
    operator."""

    tournament: str
    buy_in: int = 0
    fee: int = 0
    bounty: int = 0
    max_entries: int | None = None
    min_entries: int = 2
    late_registration_levels: int = 0
    reentries: int = 0
    cancellation_bp: int = 0
    skill_range: SkillRange | None = None
    guarantee: int = 0  # GTD-1, cents

    def __post_init__(self) -> None:
        numbers = ("buy_in", "fee", "bounty", "late_registration_levels", "reentries")
        for name in (*numbers, "min_entries", "guarantee"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise ConfigError(f"{name} must be a whole number >= 0, not {value!r}")
        if self.max_entries is not None and (
            type(self.max_entries) is not int or self.max_entries < max(self.min_entries, 1)
        ):
            raise ConfigError(f"max_entries must be >= min_entries, not {self.max_entries!r}")
        if type(self.cancellation_bp) is not int or not 0 <= self.cancellation_bp <= BASIS_POINTS:
            raise ConfigError(f"cancellation_bp must be 0..{BASIS_POINTS} basis points")

    @property
    def price(self) -> int:
        """What one entry costs the player (REG-1)."""
        return self.buy_in + self.bounty + self.fee


@dataclass(frozen=True, slots=True)
class Registrant:
    player: str
    entries: int  # entries paid and not refunded, re-entries included
    in_play: bool  # holds a live entry: registered, or running and not eliminated


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistrationSnapshot:
    """All the registration holds (its ledger included), comparable with ==."""

    state: RegistrationState
    level: int
    late_open: bool
    registrants: tuple[Registrant, ...]
    paid_places: tuple[tuple[int, str], ...]
    barred: tuple[str, ...]
    ledger: LedgerSnapshot


@dataclass(slots=True)
class _Book:
    state: RegistrationState = RegistrationState.ANNOUNCED
    level: int = 0
    late_open: bool = False
    registrants: dict[str, Registrant] = field(default_factory=dict)
    paid_places: dict[int, str] = field(default_factory=dict)
    barred: set[str] = field(default_factory=set)  # disqualified: no re-entry


class Registration:
    """One tournament's registration over its ledger; the room's `Rankings` are read only."""

    def __init__(self, rules: RegistrationRules, ledger: Ledger, rankings: Rankings) -> None:
        self.rules = rules
        self.ledger = ledger
        self._rankings = rankings
        self._book = _Book()

    # --- reading -------------------------------------------------------------------------

    @property
    def rankings(self) -> Rankings:
        """The players' rankings (SKILL-3), which new players join as they register."""
        return self._rankings

    @property
    def state(self) -> RegistrationState:
        return self._book.state

    @property
    def level(self) -> int:
        return self._book.level

    @property
    def entries(self) -> int:
        return sum(r.entries for r in self._book.registrants.values())

    @property
    def prize_pool(self) -> int:
        return self.ledger.pool

    def in_play(self) -> tuple[str, ...]:
        return tuple(p for p, r in self._book.registrants.items() if r.in_play)

    def registrant(self, player: str) -> Registrant | None:
        return self._book.registrants.get(player)

    def is_open(self) -> bool:
        """REG-1: entries are taken now (registering, or running within late registration)."""
        book = self._book
        return book.state is RegistrationState.REGISTERING or (
            book.state is RegistrationState.RUNNING and book.late_open
        )

    def snapshot(self) -> RegistrationSnapshot:
        book = self._book
        return RegistrationSnapshot(
            state=book.state,
            level=book.level,
            late_open=book.late_open,
            registrants=tuple(book.registrants.values()),
            paid_places=tuple(sorted(book.paid_places.items())),
            barred=tuple(sorted(book.barred)),
            ledger=self.ledger.snapshot(),
        )

    # --- state transitions ---------------------------------------------------------------

    def open(self, *, now: float) -> tuple[Event, ...]:
        """announced -> registering (REG-1)."""
        self._transition(RegistrationState.REGISTERING)
        self._book.state = RegistrationState.REGISTERING
        return (RegistrationOpened(tournament=self.rules.tournament),)

    def start(self, *, now: float) -> tuple[Event, ...]:
        """registering -> running at level 1; late registration stays open through level
        `late_registration_levels`."""
        self._transition(RegistrationState.RUNNING)
        if self.entries < self.rules.min_entries:
            raise RegistrationStateError(
                f"{self.entries} entries, at least {self.rules.min_entries} are needed to start"
            )
        book = self._book
        book.state, book.level = RegistrationState.RUNNING, 1
        book.late_open = self.rules.late_registration_levels >= 1
        return () if book.late_open else self._closed(now)

    def level_started(self, level: int, *, now: float) -> tuple[Event, ...]:
        """The core started `level`: past `late_registration_levels`, no more entries."""
        if self._book.state is not RegistrationState.RUNNING:
            raise RegistrationStateError(f"levels start only while running, not {self.state}")
        if type(level) is not int or level < self._book.level:
            raise RegistrationStateError(f"level {level!r} after level {self._book.level}")
        self._book.level = level
        if self._book.late_open and level > self.rules.late_registration_levels:
            return self.close_late(now=now)
        return ()

    def close_late(self, *, now: float) -> tuple[Event, ...]:
        """Late registration ends now (its level passed, or the tournament is over before
        it did): no more entries, and the guarantee is made good (GTD-1)."""
        if not self._book.late_open:
            return ()
        self._book.late_open = False
        return self._closed(now)

    def finish(self, *, now: float) -> tuple[Event, ...]:
        """running -> finished (the core has placed everyone and paid the prizes)."""
        self._transition(RegistrationState.FINISHED)
        self._book.state = RegistrationState.FINISHED
        self._book.late_open = False
        return ()

    def cancel(
        self,
        reason: str,
        *,
        now: float,
        chips: Mapping[str, int] | None = None,
        button_distance: Mapping[str, int] | None = None,
    ) -> tuple[Event, ...]:
        """Cancel. In registration (CRASH-1) every entry is refunded in full; running (CRASH-2)
        the tournament rolls forward with `chips`, the stack of every player still in, and
        `button_distance`, each one's seats clockwise from his table's button (the last
        tie-break for the leftover cents, `Ledger.roll_forward`)."""
        self._transition(RegistrationState.CANCELLED)
        if not reason.strip():
            raise RegistrationStateError("a cancellation needs a reason")
        cancelled: list[Event] = [TournamentCancelled(reason=reason)]
        running = self._book.state is RegistrationState.RUNNING
        if running:
            if not self.in_play():
                raise RegistrationStateError("CRASH-2: nobody is still in; finish instead")
            if chips is None or set(chips) != set(self.in_play()):
                raise NotRegisteredError(
                    "CRASH-2: the chips must name exactly the players still in: "
                    f"{sorted(self.in_play())}"
                )
            rolled = self.ledger.roll_forward(chips, now=now, button_distance=button_distance)
            for share in rolled.shares:
                cancelled.append(Refund(player=share.player, amount=share.fee))
                cancelled.append(
                    RollForwardPaid(
                        player=share.player,
                        chips=share.chips,
                        equal_share=share.equal_share,
                        chip_share=share.chip_share,
                    )
                )
            cancelled.extend(posting_event(p) for p in rolled.postings)
        else:
            if chips is not None:
                raise RegistrationStateError("chips are only for a running tournament (CRASH-2)")
            postings = self.ledger.refund_all(now=now)
            cancelled.extend(_refunds(postings))
            cancelled.extend(posting_event(p) for p in postings)
        book = self._book
        book.state, book.late_open = RegistrationState.CANCELLED, False
        for player, registrant in book.registrants.items():
            # CRASH-1 gave every entry back; after CRASH-2 no entry is live
            book.registrants[player] = replace(
                registrant, in_play=False, entries=registrant.entries if running else 0
            )
        return tuple(cancelled)

    # --- register and unregister (REG-1, REG-2, SKILL-2) ---------------------------------

    def verify_register(self, player: str, *, ticket: bool = False) -> None:
        """Raise the typed error that `register` would raise, or nothing."""
        if player not in self._rankings or not self.ledger.has_account(player):
            raise UnknownEntrantError(f"{player!r} is not a known player with an account")
        self.verify_terms(player)
        price = self.rules.price
        if ticket and self.ledger.ticket_of(player) != price:
            raise InsufficientFundsError(
                f"SAT-3: {player}'s ticket is worth {self.ledger.ticket_of(player)}, "
                f"the entry is {price}"
            )
        if not ticket and self.ledger.balance_of(player) < price:
            raise InsufficientFundsError(
                f"REG-1: {player} has {self.ledger.balance_of(player)}, the entry is {price}"
            )

    def verify_terms(self, player: str) -> None:
        """Everything `verify_register` checks but the money: whether this player (a known
        ranking) may take an entry now. A wallet outside the ledger asks this before it pays
        the entry in (`Ledger.deposit`), so a refusal moves nothing anywhere."""
        if player not in self._rankings:
            raise UnknownEntrantError(f"{player!r} is not a known player")
        if not self.is_open():
            after = (
                f" after level {self.rules.late_registration_levels}"
                if self.state is RegistrationState.RUNNING
                else ""
            )
            raise RegistrationClosedError(f"REG-1: registration is not open ({self.state}{after})")
        registrant = self._book.registrants.get(player)
        if registrant is not None and registrant.in_play:
            raise AlreadyRegisteredError(f"{player} is already registered")
        if player in self._book.barred:
            raise ReentryError(f"SAN-1: {player} was disqualified and may not re-enter")
        if registrant is not None and registrant.entries > self.rules.reentries:
            raise ReentryError(
                f"{player} has used {registrant.entries - 1} of {self.rules.reentries} re-entries"
            )
        if self.rules.max_entries is not None and self.entries >= self.rules.max_entries:
            raise TournamentFullError(f"all {self.rules.max_entries} entries are taken")
        ranking = self._rankings.ranking(player)
        allowed = self.rules.skill_range
        if allowed is not None and not allowed.admits(ranking):
            raise SkillRangeError(
                f"SKILL-2: {player}'s ranking {ranking} is outside {allowed} "
                f"({skill_level(ranking).label})"
            )

    def can_register(self, player: str) -> bool:
        try:
            self.verify_register(player)
        except (RegistrationError, InsufficientFundsError):
            return False
        return True

    def register(self, player: str, *, now: float, ticket: bool = False) -> tuple[Event, ...]:
        """REG-1: take the player's entry (or re-entry) and debit the ledger (SAT-3: with
        `ticket`, his ticket pays it)."""
        self.verify_register(player, ticket=ticket)
        rules = self.rules
        postings = self.ledger.entry(
            player, buy_in=rules.buy_in, fee=rules.fee, bounty=rules.bounty, now=now, ticket=ticket
        )
        before = self._book.registrants.get(player)
        entries = 1 if before is None else before.entries + 1
        self._book.registrants[player] = Registrant(player, entries, in_play=True)
        return (
            PlayerRegistered(
                player=player,
                entry=entries,
                buy_in=rules.buy_in,
                fee=rules.fee,
            ),
            *(posting_event(p) for p in postings),
        )

    def verify_unregister(self, player: str) -> None:
        if player not in self._rankings:
            raise UnknownEntrantError(f"{player!r} is not a known player")
        if self.state is not RegistrationState.REGISTERING:
            raise UnregisterClosedError(
                f"REG-2: unregistering only before the start ({self.state})"
            )
        registrant = self._book.registrants.get(player)
        if registrant is None or not registrant.in_play:
            raise NotRegisteredError(f"{player} is not registered")

    def can_unregister(self, player: str) -> bool:
        try:
            self.verify_unregister(player)
        except RegistrationError:
            return False
        return True

    def unregister(self, player: str, *, now: float) -> tuple[Event, ...]:
        """REG-2: the entry back, less the cancellation charge."""
        self.verify_unregister(player)
        refunded = self.ledger.refund_entry(player, charge_bp=self.rules.cancellation_bp, now=now)
        registrant = self._book.registrants[player]
        self._book.registrants[player] = Registrant(player, registrant.entries - 1, False)
        return (
            PlayerUnregistered(player=player, refund=refunded.refund, charge=refunded.charge),
            Refund(player=player, amount=refunded.refund),
            *(posting_event(p) for p in refunded.postings),
        )

    # --- during play ---------------------------------------------------------------------

    def eliminated(
        self, player: str, *, now: float, disqualified: bool = False
    ) -> tuple[Event, ...]:
        """The core eliminated the player: no longer in play; a re-entry is possible while late
        registration is open, except after a disqualification (SAN-1)."""
        if self.state is not RegistrationState.RUNNING:
            raise RegistrationStateError(f"eliminations only while running ({self.state})")
        registrant = self._book.registrants.get(player)
        if registrant is None or not registrant.in_play:
            raise NotRegisteredError(f"{player} is not in play")
        self._book.registrants[player] = replace(registrant, in_play=False)
        if disqualified:
            self._book.barred.add(player)
        return ()

    def pay_prize(self, player: str, *, place: int, amount: int, now: float) -> tuple[Event, ...]:
        """Pay a place's prize from the pool (when the player busts in the money, or at the
        end). Returns the `ledger_posted` events only: `prize_awarded` is the core's event."""
        if self.state is not RegistrationState.RUNNING:
            raise RegistrationStateError(f"prizes are paid while running ({self.state})")
        if player not in self._book.registrants:
            raise NotRegisteredError(f"{player} never entered this tournament")
        if type(place) is not int or place < 1:
            raise RegistrationStateError(f"a place is 1 or more, not {place!r}")
        if place in self._book.paid_places:
            raise RegistrationStateError(
                f"place {place} was already paid to {self._book.paid_places[place]}"
            )
        posting = self.ledger.award_prize(player, amount, now=now)
        self._book.paid_places[place] = player
        return () if posting is None else (posting_event(posting),)

    # --- internals -----------------------------------------------------------------------

    def _transition(self, target: RegistrationState) -> None:
        if target not in _TRANSITIONS[self._book.state]:
            raise RegistrationStateError(f"cannot go from {self.state} to {target}")

    def _closed(self, now: float) -> tuple[Event, ...]:
        """Registration closed: GTD-1, the operator pays any overlay before any prize."""
        entries_pool = self.prize_pool
        closed = RegistrationClosed(entries=self.entries, prize_pool=entries_pool)
        posting = self.ledger.pay_overlay(self.rules.guarantee, now=now)
        if posting is None:
            return (closed,)
        overlay = OverlayPaid(
            guarantee=self.rules.guarantee, entries_pool=entries_pool, overlay=posting.amount
        )
        return (closed, overlay, posting_event(posting))


def _refunds(postings: tuple[Posting, ...]) -> list[Refund]:
    """One `refund` event per player, the total of their refund postings, in posting order."""
    totals: dict[str, int] = {}
    for posting in postings:
        totals[posting.player] = totals.get(posting.player, 0) + posting.amount
    return [Refund(player=p, amount=amount) for p, amount in totals.items()]
