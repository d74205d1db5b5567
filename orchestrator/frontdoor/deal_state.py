"""A deal at the final table as the front door shows it (DEAL-1..DEAL-3): proposed, each
player's answer, then accepted or declined. Folded from the tournament's events by the desk;
shown in the operators' `TournamentInfo` and sent to each player in the deal over his stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.core.events import DealAnswered, DealProposed

__all__ = ["DealState"]


@dataclass(eq=False)
class DealState:
    kind: str
    left: int  # cents left to play for, with the title
    players: tuple[str, ...]  # seat order
    chips: tuple[int, ...]
    amounts: tuple[int, ...]
    answers: dict[str, str] = field(default_factory=dict)  # player -> accepted / declined
    state: str = "proposed"  # then accepted or declined

    @classmethod
    def proposed(cls, event: DealProposed) -> DealState:
        return cls(event.kind, event.left, event.players, event.chips, event.amounts)

    def answered(self, event: DealAnswered) -> None:
        """DEAL-1: one refusal ends the deal."""
        self.answers[event.player] = "accepted" if event.accepted else "declined"
        if not event.accepted:
            self.state = "declined"

    def paid(self) -> None:
        """DEAL-3: every player accepted (`deal_paid`); the pool pays them."""
        self.state = "accepted"

    def message(self) -> pb.DealStatus:
        return pb.DealStatus(
            kind=self.kind,
            left=self.left,
            state=self.state,
            shares=[
                pb.DealShare(player=p, chips=c, amount=a, answer=self.answers.get(p, ""))
                for p, c, a in zip(self.players, self.chips, self.amounts, strict=True)
            ],
        )
