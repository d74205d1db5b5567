"""Judges' sanctions (SAN-1, SAN-2): warnings, and disqualification at the third warning.

Each sanction records the judge, the reason and the time (the shell reads the clock and passes
it in). A disqualified player is never paired again; reported results stand. The SAN-1 count
is shared with the tournament sanctions (`orchestrator.core.sanctions`); the records stay apart.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from orchestrator.competition.swiss.errors import InvalidInput, InvalidState, UnknownPlayer
from orchestrator.competition.swiss.model import Sanction, SanctionKind, SwissState
from orchestrator.core.sanctions import WARNINGS_TO_DISQUALIFY, disqualifies

__all__ = ["WARNINGS_TO_DISQUALIFY", "disqualify", "warn", "warnings_of"]


def warnings_of(state: SwissState, player: str) -> int:
    return sum(1 for s in state.sanctions if s.player == player and s.kind is SanctionKind.WARNING)


def _check(state: SwissState, player: str, judge: str, reason: str) -> None:
    if state.player(player) is None:
        raise UnknownPlayer(f"no player named {player!r} in this event", rule="SAN-2")
    if not judge.strip() or not reason.strip():
        raise InvalidInput("a sanction needs the judge and the reason", rule="SAN-2")
    if player in state.disqualified():
        raise InvalidState(f"{player} is already disqualified", rule="SAN-1")


def warn(state: SwissState, player: str, *, judge: str, reason: str, at: datetime) -> SwissState:
    """Record a warning; the third one also records the disqualification (SAN-1)."""
    _check(state, player, judge, reason)
    stamp = at.isoformat(timespec="seconds")
    round_number = len(state.rounds)
    added = [
        Sanction(
            player=player,
            kind=SanctionKind.WARNING,
            judge=judge,
            reason=reason,
            at=stamp,
            round=round_number,
        )
    ]
    if disqualifies(
        warnings_of(state, player) + 1
    ):  # SAN-1, decided in orchestrator.core.sanctions
        added.append(
            Sanction(
                player=player,
                kind=SanctionKind.DISQUALIFICATION,
                judge=judge,
                reason=f"SAN-1: warning number {WARNINGS_TO_DISQUALIFY} ({reason})",
                at=stamp,
                round=round_number,
            )
        )
    return replace(state, sanctions=state.sanctions + tuple(added))


def disqualify(
    state: SwissState, player: str, *, judge: str, reason: str, at: datetime
) -> SwissState:
    """A direct disqualification (the source: blatant intent, such as an illegal deck)."""
    _check(state, player, judge, reason)
    sanction = Sanction(
        player=player,
        kind=SanctionKind.DISQUALIFICATION,
        judge=judge,
        reason=reason,
        at=at.isoformat(timespec="seconds"),
        round=len(state.rounds),
    )
    return replace(state, sanctions=(*state.sanctions, sanction))
