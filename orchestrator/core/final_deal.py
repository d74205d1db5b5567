"""The tournament's side of a deal at the final table (DEAL-1..DEAL-3). Pure.

Two operator-logged commands, as `Tournament` methods (this mixin), each a step like `pause`:

- `propose_deal(kind, left=..., now=...)`: DEAL-1, only at the final table (one table left),
  between its hands, once registration has closed, and once per tournament. Play pauses (the
  clock stops and the table waits, as for the operator's pause) and `deal_proposed` logs every
  player's amount (`core.deals` computes them over the prizes of the places still open).
- `answer_deal(player, accept, now=...)`: `deal_answered`. A refusal ends the deal and play
  resumes unchanged. The last acceptance makes it (DEAL-3): the pool pays each player his
  amount (`deal_paid` with its `ledger_posted`); then, with nothing left to play for, the
  tournament ends, the players placed by their chips (the chip leader wins, equal stacks by
  seat) and the places already taken paid their prizes; otherwise play resumes for `left`
  and the title (first place's prize becomes `left`, the other dealt places pay nothing more).

Bots answer through the same command; their rule (`[deal] bots_accept`) is the driver's
(`core.deals.bot_accepts`), not the core's.
"""

from __future__ import annotations

from typing import Protocol

from orchestrator.core.config import TournamentConfig
from orchestrator.core.deals import Deal, DealKind, DealVote, propose_deal
from orchestrator.core.directives import Step
from orchestrator.core.events import (
    DealAnswered,
    DealPaid,
    DealProposed,
    Event,
    TournamentFinished,
)
from orchestrator.core.ledger_records import posting_event
from orchestrator.core.play import Play
from orchestrator.core.structures import Seating
from orchestrator.errors import DealError

__all__ = ["TournamentDeals"]


class _Tournament(Protocol):
    config: TournamentConfig
    play: Play
    seating: Seating
    hands: int
    started_at: float
    finished: bool
    cancelled: str | None

    def pause(self, *, now: float) -> Step: ...
    def resume(self, *, now: float) -> Step: ...
    def _require_running(self, command: str) -> None: ...
    def _step(self, events: list[Event]) -> Step: ...


class TournamentDeals:
    """DEAL-1..DEAL-3 commands of `Tournament`, over the fields it declares."""

    __slots__ = ()

    def verify_propose_deal(self: _Tournament, kind: DealKind | str, *, left: int = 0) -> None:
        """Raise the `DealError` that `propose_deal` would raise, or nothing."""
        self._require_running("propose a deal")
        play = self.play
        if play.seats is not None:
            raise DealError("DEAL-1: a satellite pays seats (SAT-1), not a deal")
        if play.deal_vote is not None:
            raise DealError("DEAL-1: a deal is already waiting for the players' answers")
        if play.deal is not None:
            raise DealError("DEAL-3: this tournament has made its deal already")
        if play.registration.is_open():
            raise DealError("DEAL-1: a deal only once registration has closed")
        tables = [t for t, seats in self.seating.tables.items() if seats]
        if len(tables) != 1:
            raise DealError(f"DEAL-1: a deal only at the final table, {len(tables)} are open")
        state = play.tables.get(tables[0])
        if state is not None and state.in_hand:
            raise DealError("DEAL-1: the final table is in a hand; propose at its boundary")
        _proposal(self, kind, left)

    def can_propose_deal(self: _Tournament, kind: DealKind | str, *, left: int = 0) -> bool:
        try:
            TournamentDeals.verify_propose_deal(self, kind, left=left)
        except DealError:
            return False
        return True

    def propose_deal(self: _Tournament, kind: DealKind | str, *, left: int = 0, now: float) -> Step:
        """DEAL-1: pause play and put the deal to every player still in."""
        TournamentDeals.verify_propose_deal(self, kind, left=left)
        deal = _proposal(self, kind, left)
        play = self.play
        play.deal_vote = DealVote(deal)
        proposed = DealProposed(
            kind=deal.kind.value,
            players=deal.players,
            chips=deal.chips,
            amounts=deal.amounts,
            left=deal.left,
        )
        events: list[Event] = [proposed]
        if not play.clock.paused:
            events += self.pause(now=now).events
        return self._step(events)

    def answer_deal(self: _Tournament, player: str, accept: bool, *, now: float) -> Step:
        """DEAL-1: `player` accepts or refuses; DEAL-3 once all accepted."""
        self._require_running("answer a deal")
        play = self.play
        vote = play.deal_vote
        if vote is None:
            raise DealError("DEAL-1: no deal is waiting for answers")
        vote.verify_answer(player)
        events: list[Event] = [DealAnswered(player=player, accepted=accept)]
        if not accept:
            play.deal_vote = None
            return self._step(events + self.resume(now=now).events)
        if not vote.accept(player):
            return self._step(events)
        deal = vote.deal
        play.deal_vote, play.deal = None, deal
        ends = deal.left == 0
        # DEAL-3: with nothing left to play for, the places already taken are paid first
        events += play.pay_prizes_won(now=now) if ends else []
        seat_order = {p: k for k, p in enumerate(deal.players)}
        by_chips = sorted(deal.players, key=lambda p: (-play.stacks[p], seat_order[p]))
        ledger = play.registration.ledger
        for place, who in enumerate(by_chips, start=1):
            amount = deal.amount_of(who)
            events.append(
                DealPaid(
                    player=who, chips=play.stacks[who], amount=amount, place=place if ends else 0
                )
            )
            posting = ledger.pay_deal(who, amount, now=now)
            events += [posting_event(posting)] if posting else []
        if not ends:
            return self._step(events + self.resume(now=now).events)
        for place, who in enumerate(by_chips, start=1):
            play.places[who] = place
        registration = play.registration
        events += registration.finish(now=now)
        events += registration.rankings.record_results(play.places)
        ledger.check()
        self.finished = True
        seconds = now - self.started_at
        events.append(TournamentFinished(winner=by_chips[0], hands=self.hands, seconds=seconds))
        return self._step(events)


def _proposal(tournament: _Tournament, kind: DealKind | str, left: int) -> Deal:
    """The deal of `kind` over the players at the final table, in seat order, and the prizes
    of the places still open."""
    (seats,) = (s for s in tournament.seating.tables.values() if s)
    play = tournament.play
    stacks = {player: play.stacks[player] for _, player in sorted(seats.items())}
    awards = play.awards()
    prizes = [awards[k] if k < len(awards) else 0 for k in range(len(stacks))]
    return propose_deal(kind, stacks, prizes, left=left)
