"""Bounties: knockout (KO-1), progressive knockout (KO-2), mystery bounty (KO-4), who wins
them (KO-3) and the money behind them (KO-5). Pure.

Every entry pays its `bounty` cents into the ledger's `bounties` account, never into the prize
pool; every cent leaves it by a ledger posting (`Ledger.pay_bounty`), so at the end the account
is empty, as the pool is.

- KO-3, the eliminator: a busted player's last chips went into the smallest pot he had a claim
  on (the fewest players eligible: the last side pot he was in for); its winner(s) eliminated
  him. Several winners share his bounty by their shares of that pot: each gets his share of
  the chips, rounded down, and the cents left over go one at a time to those winners in the
  HE-7 order (clockwise, starting left of the button). Several players busted in one hand are
  each judged on their own pot.
- KO-1: each player's bounty is the fixed `bounty`, paid in cash to the eliminator.
- KO-2: each player's bounty starts at `bounty`; the eliminator gets `cash_percent` of his
  share in cash (rounded down: the cent stays on his head) and the rest is added to his own
  bounty.
- KO-4: the published amounts are shuffled by the tournament's RNG at the start; the order
  is committed (SHA-256 of a salt drawn from the same RNG and the amounts in order, as decks
  are committed) and revealed at the end. From the stage (`mystery_from` players left, or the
  money) each elimination draws the next amount of that order, without replacement; before
  it eliminations win nothing. An elimination is in the stage when the players in before its
  hand are no more than the stage's count. Amounts never drawn go to the winner at the end.
- Bounties nobody won (KO-5): the winner receives his own (KO-2; for KO-1 as well, since nobody
  won it); a disqualified player (SAN-1) gets his back; at a cancellation (CRASH-2) every
  player still in gets back the bounty he holds, and the mystery amounts not drawn are shared
  equally by them (the cents left over one each, more chips first, then by name).

>>> from table_worker.protocol import HandPot
>>> pot = HandPot(900, eligible=(2, 5, 7), winners=((2, 450), (7, 450)))
>>> split_by_pot(1001, pot, button=5, seats_per_table=9)  # the odd cent: left of the button
[(7, 501), (2, 500)]
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.core.config import BountyRules
from orchestrator.core.event_base import Event
from orchestrator.core.ledger_records import posting_event
from orchestrator.core.money_events import (
    BountyReturned,
    BountyWon,
    MysteryBountiesCommitted,
    MysteryBountiesRevealed,
)
from orchestrator.core.places import Busted
from orchestrator.core.play import Play
from orchestrator.core.structures import Structure
from orchestrator.errors import ReportError
from table_worker.protocol import HandPlayer, HandPot, HandReport

__all__ = ["Bounties", "eliminators_pot", "mystery_commitment", "split_by_pot"]

SALT_BYTES = 32  # as a deck's commitment salt (rng_service.commit)


def eliminators_pot(seat: int, pots: Sequence[HandPot]) -> HandPot | None:
    """KO-3: the smallest pot (fewest players eligible) the player at `seat` had a claim on;
    None when he was in none.

    >>> pots = [HandPot(300, (1, 2, 3), ((2, 300),)), HandPot(200, (2, 3), ((3, 200),))]
    >>> eliminators_pot(3, pots).amount, eliminators_pot(1, pots).amount
    (200, 300)
    """
    his = [pot for pot in pots if seat in pot.eligible]
    return min(reversed(his), key=lambda pot: len(pot.eligible), default=None)


def split_by_pot(
    amount: int, pot: HandPot, *, button: int, seats_per_table: int
) -> list[tuple[int, int]]:
    """KO-3: `amount` cents shared by the pot's winners in proportion to the chips each won of
    it, rounded down; the cents left go one each in the HE-7 order (clockwise from the seat
    left of the button). `(seat, cents)` in that order."""
    order = sorted(pot.winners, key=lambda w: (w[0] - button - 1) % seats_per_table)
    chips = sum(won for _, won in order)
    if chips <= 0:
        raise ReportError(f"KO-3: a pot of {pot.amount} chips names no winner's chips")
    shares = [amount * won // chips for _, won in order]
    left = amount - sum(shares)
    paired = zip(order, shares, strict=True)
    return [(seat, share + (k < left)) for k, ((seat, _), share) in enumerate(paired)]


def mystery_commitment(order: Sequence[int], salt: bytes) -> str:
    """KO-4: SHA-256(salt || the amounts in order, as decimal text joined by commas), hex.

    >>> mystery_commitment([500, 100], bytes(32))[:16]
    '7f4681dc6b971cf1'
    """
    return hashlib.sha256(salt + ",".join(map(str, order)).encode()).hexdigest()


@dataclass(slots=True)
class Bounties(Structure):
    """The bounties of one tournament: who holds which (KO-1, KO-2) or the mystery order
    (KO-4), as a structure of the tournament's step (`knocked_out`, `settle`)."""

    rules: BountyRules
    seats_per_table: int
    held: dict[str, int] = field(default_factory=dict)  # KO-2: bounties grown by eliminations
    order: tuple[int, ...] = ()  # KO-4: the amounts in the committed order
    salt: bytes = b""
    drawn: int = 0  # KO-4: how many of `order` are drawn

    @classmethod
    def of(cls, rules: BountyRules, seats_per_table: int, rng: random.Random) -> Bounties:
        """The start. KO-4: the amounts' order and its salt, drawn from the tournament's RNG."""
        bounties = cls(rules, seats_per_table)
        if rules.kind == "mystery":
            order = list(rules.mystery)
            rng.shuffle(order)
            bounties.order, bounties.salt = tuple(order), rng.randbytes(SALT_BYTES)
        return bounties

    def committed(self) -> list[Event]:
        """KO-4: the published amounts and the commitment of their order, logged at the start."""
        if self.rules.kind != "mystery":
            return []
        commitment = mystery_commitment(self.order, self.salt)
        return [MysteryBountiesCommitted(amounts=tuple(sorted(self.order)), commitment=commitment)]

    def bounty_of(self, player: str) -> int:
        """The bounty on `player` now (KO-1, KO-2; 0 for a mystery bounty)."""
        if self.rules.kind == "mystery":
            return 0
        return self.held.get(player, self.rules.bounty)

    # --- the tournament's step ----------------------------------------------------------

    def knocked_out(
        self,
        play: Play,
        report: HandReport,
        out: Sequence[Busted],
        removed: Sequence[HandPlayer],
    ) -> list[Event]:
        """STEP 3: the bounties of the players `report`'s hand knocked out (`out`, already out
        of `play.stacks`), and those of the players disqualified at this boundary."""
        events: list[Event] = []
        in_before = play.active_players + len(removed)
        in_before += sum(1 for who in out if who.player not in play.stacks)
        names = {p.seat: p.player for p in report.players}
        for who in out:
            pot = eliminators_pot(who.seat, report.pots)
            assert pot is not None, "the table's report was verified to hold it (KO-3)"
            amount = self._won_on(who.player, in_before, play)
            if not amount:  # KO-4: before the stage
                continue
            shares = split_by_pot(
                amount, pot, button=report.button, seats_per_table=self.seats_per_table
            )
            for seat, share in shares:
                events += self._win(play, names[seat], who.player, share)
        for p in removed:  # SAN-1: nobody eliminated him; his bounty goes back to him
            events += self._return(play, p.player, self.bounty_of(p.player))
            self.held.pop(p.player, None)
        return events

    def settle(self, play: Play) -> list[Event]:
        """One player left, or a cancellation (CRASH-2): every bounty still held goes back to
        its holder (KO-5); the mystery amounts not drawn are shared by the players still in,
        and the order is revealed (KO-4)."""
        events: list[Event] = []
        if self.rules.kind == "mystery":
            left = sum(self.order[self.drawn :])
            self.drawn = len(self.order)
            in_play = sorted(play.stacks, key=lambda p: (-play.stacks[p], p))
            share, odd = divmod(left, max(1, len(in_play)))
            for k, player in enumerate(in_play):
                events += self._return(play, player, share + (k < odd))
            salt = self.salt.hex()
            return [*events, MysteryBountiesRevealed(order=self.order, salt=salt)]
        for player in sorted(play.stacks):
            events += self._return(play, player, self.held.pop(player, self.rules.bounty))
        return events

    # --- internals ----------------------------------------------------------------------

    def _won_on(self, player: str, in_before: int, play: Play) -> int:
        """The cents that `player`'s elimination puts up: his bounty (KO-1, KO-2), or the next
        mystery amount once the stage is reached (KO-4)."""
        if self.rules.kind != "mystery":
            return self.held.pop(player, self.rules.bounty)
        stage = self.rules.mystery_from or play.paid_places
        if in_before > stage or self.drawn >= len(self.order):
            return 0
        self.drawn += 1
        return self.order[self.drawn - 1]

    def _win(self, play: Play, player: str, eliminated: str, share: int) -> list[Event]:
        """KO-1, KO-4: the share in cash; KO-2: `cash_percent` of it, the rest on his head."""
        progressive = self.rules.kind == "progressive"
        cash = share * self.rules.cash_percent // 100 if progressive else share
        added = share - cash
        if added:
            self.held[player] = self.bounty_of(player) + added
        events: list[Event] = [
            BountyWon(player=player, eliminated=eliminated, cash=cash, added=added)
        ]
        posting = play.registration.ledger.pay_bounty(
            player, cash, won=True, now=play.clock.level_started_at
        )
        return events if posting is None else [*events, posting_event(posting)]

    def _return(self, play: Play, player: str, amount: int) -> list[Event]:
        if amount <= 0:
            return []
        posting = play.registration.ledger.pay_bounty(
            player, amount, won=False, now=play.clock.level_started_at
        )
        assert posting is not None
        return [BountyReturned(player=player, amount=amount), posting_event(posting)]
