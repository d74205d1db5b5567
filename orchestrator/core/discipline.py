"""The judges' sanctions carried out in a tournament (SAN-1, SAN-2). Pure.

The `SanctionBook` decides and records (`orchestrator.core.sanctions`); `Discipline` keeps what
its rulings leave for the tournament to do: the disqualified players whose chips leave play at
their table's next hand boundary, and the hands each penalized player still sits out (dealt
in and folded, blinds paid).
"""

from __future__ import annotations

from collections.abc import Collection

from orchestrator.core.events import Event
from orchestrator.core.sanctions import Disqualify, Ruling, SanctionBook, SanctionKind, SitOut

__all__ = ["HEAD_JUDGE", "Discipline"]

HEAD_JUDGE = "head"  # SAN-2: the judge with the last word, until a tournament names its own


class Discipline:
    def __init__(self, *, head_judge: str = HEAD_JUDGE) -> None:
        self.book = SanctionBook(head_judge=head_judge)
        self._to_disqualify: set[str] = set()
        self._penalty_hands: dict[str, int] = {}

    def rule(
        self,
        kind: SanctionKind,
        player: str,
        *,
        judge: str,
        reason: str,
        now: float,
        hands: int,
        in_play: Collection[str],
    ) -> list[Event]:
        """A warning (the third disqualifies, SAN-1), a penalty of `hands` hands sat out, or
        a direct disqualification (the head judge's, SAN-2); the events to log. A refusal
        (`SanctionError`) changes nothing."""
        book = self.book
        ruling: Ruling
        if kind is SanctionKind.WARNING:
            ruling = book.warn(player, judge=judge, reason=reason, now=now, in_play=in_play)
        elif kind is SanctionKind.PENALTY:
            ruling = book.penalize(
                player, hands=hands, judge=judge, reason=reason, now=now, in_play=in_play
            )
        else:
            ruling = book.disqualify(player, judge=judge, reason=reason, now=now, in_play=in_play)
        for action in ruling.actions:
            if isinstance(action, Disqualify):
                self._to_disqualify.add(action.player)
            elif isinstance(action, SitOut):
                self._penalty_hands[action.player] = action.hands
        return list(ruling.events)

    def pending_removal(self, player: str) -> bool:
        """Disqualified, and still holding a seat until the next hand boundary (SAN-1)."""
        return player in self._to_disqualify

    def removed(self, player: str) -> None:
        """The player's chips left play and he is placed: the disqualification is done."""
        self._to_disqualify.discard(player)

    def sits_out(self, player: str) -> bool:
        return self._penalty_hands.get(player, 0) > 0

    def sat_out(self, player: str) -> None:
        """The player sat out one hand of his penalty."""
        if self._penalty_hands.get(player):
            self._penalty_hands[player] -= 1
