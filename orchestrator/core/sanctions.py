"""Judges' sanctions in a tournament (SAN-1, SAN-2). Pure: decides, never acts.

`SanctionBook` records every warning, penalty and disqualification with the judge, the reason
and the time (SAN-2; the shell reads the clock and passes `now`). Each command returns a
`Ruling`: the events to log and the actions the tournament core must carry out. The book never
touches the tournament.

Rules we chose:

- SAN-1: a player's third standing warning disqualifies them, recorded under the judge of that
  third warning. A warning the head judge rescinded does not count.
- Penalty: the player sits out `hands` hands (`SitOut`): dealt in and folded, blinds and antes
  still paid, as a TDA missed-hand penalty. A penalty is not a warning and does not count
  toward SAN-1.
- SAN-2, "the head judge has the last word": only the head judge disqualifies directly (other
  judges warn; three warnings do it), and only the head judge rescinds a warning or a
  penalty. A disqualification is final: once carried out the chips have left play.
- **A disqualified player's chips leave play** (`Disqualify`), as the TDA rules have it: the
  core carries it out at the player's table's next hand boundary (a hand in progress is
  finished and stands; chips the player put in the pot stay there). The player's stack at that
  boundary is removed from play, not given to anyone, and the chips in play fall by that amount
  (the core logs it, so chip conservation holds). The player is placed as if eliminated at
  that moment: the worst place still open, better than players busted in the hand just
  finished (they were out first, placed among themselves by ELIM-1). The prize of that place
  is paid like any other: RULES.md names no forfeit, and a withheld prize would need its own
  rule for where the money goes. A disqualified player may not re-enter
  (`Registration.eliminated(..., disqualified=True)`).

The Swiss events (`competition.swiss.sanctions`) keep their own records (round numbers, ISO
times, their persisted JSON format and error types); both use `WARNINGS_TO_DISQUALIFY` and
`disqualifies` from here, so SAN-1 is decided in one place.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from enum import StrEnum

from orchestrator.core.events import (
    Event,
    PenaltyGiven,
    PlayerDisqualified,
    SanctionRescinded,
    WarningIssued,
)
from orchestrator.errors import AlreadyDisqualifiedError, InvalidSanctionError, NotInPlayError

__all__ = [
    "WARNINGS_TO_DISQUALIFY",
    "Action",
    "Disqualify",
    "Ruling",
    "Sanction",
    "SanctionBook",
    "SanctionKind",
    "SitOut",
    "disqualifies",
]

WARNINGS_TO_DISQUALIFY = 3  # SAN-1


def disqualifies(warnings: int) -> bool:
    """SAN-1: does a player with this many standing warnings leave the tournament?

    >>> disqualifies(2), disqualifies(3)
    (False, True)
    """
    return warnings >= WARNINGS_TO_DISQUALIFY


class SanctionKind(StrEnum):
    WARNING = "warning"
    PENALTY = "penalty"
    DISQUALIFICATION = "disqualification"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sanction:
    """SAN-2: one sanction, numbered from 1 in the book."""

    number: int
    kind: SanctionKind
    player: str
    judge: str
    reason: str
    at: float
    hands: int = 0  # a penalty's hands sat out
    rescinded_by: str | None = None


@dataclass(frozen=True, slots=True)
class Disqualify:
    """Remove the player's chips from play and place them as eliminated (module docstring)."""

    player: str
    sanction: int


@dataclass(frozen=True, slots=True)
class SitOut:
    """The player sits out the next `hands` hands (a penalty); 0 ends a rescinded penalty."""

    player: str
    hands: int


Action = Disqualify | SitOut


@dataclass(frozen=True, slots=True)
class Ruling:
    """What a sanction decided: events to log (first), then actions for the core."""

    events: tuple[Event, ...]
    actions: tuple[Action, ...] = ()


class SanctionBook:
    """The sanctions of one tournament. `in_play` is the core's current set of players in the
    tournament, passed to every command so the book keeps no copy of the field."""

    def __init__(self, *, head_judge: str) -> None:
        if not head_judge.strip():
            raise InvalidSanctionError("SAN-2: a tournament needs a head judge")
        self.head_judge = head_judge
        self._sanctions: list[Sanction] = []

    @property
    def sanctions(self) -> tuple[Sanction, ...]:
        return tuple(self._sanctions)

    def warnings_of(self, player: str) -> int:
        """Standing (not rescinded) warnings."""
        return sum(
            1
            for s in self._sanctions
            if s.player == player and s.kind is SanctionKind.WARNING and s.rescinded_by is None
        )

    def is_disqualified(self, player: str) -> bool:
        return any(
            s.player == player and s.kind is SanctionKind.DISQUALIFICATION for s in self._sanctions
        )

    def warn(
        self, player: str, *, judge: str, reason: str, now: float, in_play: Collection[str]
    ) -> Ruling:
        """A warning; the third standing one disqualifies (SAN-1)."""
        self._verify(player, judge, reason, in_play)
        warning = self._record(SanctionKind.WARNING, player, judge, reason, now)
        count = self.warnings_of(player)
        events: list[Event] = [
            WarningIssued(
                sanction=warning.number, player=player, judge=judge, reason=reason, warnings=count
            )
        ]
        if not disqualifies(count):
            return Ruling(tuple(events))
        why = f"SAN-1: warning number {count} ({reason})"
        dq = self._record(SanctionKind.DISQUALIFICATION, player, judge, why, now)
        events.append(
            PlayerDisqualified(sanction=dq.number, player=player, judge=judge, reason=why)
        )
        return Ruling(tuple(events), (Disqualify(player, dq.number),))

    def penalize(
        self,
        player: str,
        *,
        hands: int,
        judge: str,
        reason: str,
        now: float,
        in_play: Collection[str],
    ) -> Ruling:
        """A penalty of `hands` hands sat out (SAN-2)."""
        self._verify(player, judge, reason, in_play)
        if type(hands) is not int or hands < 1:
            raise InvalidSanctionError(f"a penalty is 1 hand or more, not {hands!r}")
        penalty = self._record(SanctionKind.PENALTY, player, judge, reason, now, hands=hands)
        event = PenaltyGiven(
            sanction=penalty.number, player=player, judge=judge, reason=reason, hands=hands
        )
        return Ruling((event,), (SitOut(player, hands),))

    def disqualify(
        self, player: str, *, judge: str, reason: str, now: float, in_play: Collection[str]
    ) -> Ruling:
        """A direct disqualification: the head judge's decision only (SAN-2)."""
        self._verify(player, judge, reason, in_play)
        self._head_judge(judge, "disqualifies directly")
        dq = self._record(SanctionKind.DISQUALIFICATION, player, judge, reason, now)
        event = PlayerDisqualified(sanction=dq.number, player=player, judge=judge, reason=reason)
        return Ruling((event,), (Disqualify(player, dq.number),))

    def rescind(self, number: int, *, judge: str, reason: str, now: float) -> Ruling:
        """SAN-2: the head judge withdraws a warning or a penalty of a player not disqualified.
        A penalty's hands already sat out are not given back; the core stops the rest."""
        if not reason.strip():
            raise InvalidSanctionError("SAN-2: a rescission needs the reason")
        self._head_judge(judge, "rescinds")
        if not 1 <= number <= len(self._sanctions):
            raise InvalidSanctionError(f"there is no sanction number {number}")
        sanction = self._sanctions[number - 1]
        if sanction.kind is SanctionKind.DISQUALIFICATION or self.is_disqualified(sanction.player):
            raise InvalidSanctionError("SAN-2: a disqualification is final")
        if sanction.rescinded_by is not None:
            raise InvalidSanctionError(f"sanction {number} is already rescinded")
        self._sanctions[number - 1] = replace(sanction, rescinded_by=judge)
        event = SanctionRescinded(
            sanction=number, player=sanction.player, judge=judge, reason=reason
        )
        actions: tuple[Action, ...] = ()
        if sanction.kind is SanctionKind.PENALTY:
            actions = (SitOut(sanction.player, 0),)  # no more hands to sit out
        return Ruling((event,), actions)

    def _verify(self, player: str, judge: str, reason: str, in_play: Collection[str]) -> None:
        if not judge.strip() or not reason.strip():
            raise InvalidSanctionError("SAN-2: a sanction needs the judge and the reason")
        if self.is_disqualified(player):
            raise AlreadyDisqualifiedError(f"SAN-1: {player} is already disqualified")
        if player not in in_play:
            raise NotInPlayError(f"{player!r} is not in the tournament")

    def _head_judge(self, judge: str, what: str) -> None:
        if judge != self.head_judge:
            raise InvalidSanctionError(
                f"SAN-2: only the head judge ({self.head_judge}) {what}, not {judge}"
            )

    def _record(
        self,
        kind: SanctionKind,
        player: str,
        judge: str,
        reason: str,
        now: float,
        *,
        hands: int = 0,
    ) -> Sanction:
        sanction = Sanction(
            number=len(self._sanctions) + 1,
            kind=kind,
            player=player,
            judge=judge,
            reason=reason,
            at=now,
            hands=hands,
        )
        self._sanctions.append(sanction)
        return sanction
