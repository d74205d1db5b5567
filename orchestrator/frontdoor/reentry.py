"""Re-entries paid from the players' wallets (LATE, REG-1; docs/FRONTDOOR.md "Every
structure"). Pure: the desk carries out what this decides.

**Decision:** a remote player is asked. The core's re-entry is automatic for bots (`mtt run`),
but a wallet is the player's own money, so the front door runs its tournaments with
`reentry_auto` false: a player who busts with a re-entry left while late registration lasts
waits for his place as anyone out does, and is sent a `ReentryOffer` on his stream. He takes
it with `reenter` before registration closes (the offer's deadline: the core gives the places
of everyone out then); not asking is declining.

What the desk follows here, from the run's log: each hand that busts someone (`hand_finished`
with a finishing stack of 0) who is still waiting for his place once the step is read (a
rebuy tops up a busted player in the same step), with re-entries left and the window open,
makes an offer; his re-entry (`player_registered`), his place (`player_eliminated`) or the
window's end withdraws it.

Paying one (`Desk.reenter`) has a crash window between the wallet's debit and the
orchestrator's record. The desk logs its intent (`reentry_paying`, with the debit's key)
before the debit and its outcome (`reentered` or `reentry_refused`) after; a front door
restarted with an intent open settles it (`settle_open`): if the run's log holds the entry,
the re-entry happened; otherwise the debit is repeated under its key (nothing moves if it
landed; if it had not, it lands now or the wallet refuses it) and credited back under the key
plus `/refused`. Either way the wallet and the ledger agree, and the player may ask again
while the offer stands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import Event, HandFinished, PlayerEliminated, PlayerRegistered

__all__ = ["Intent", "Offer", "Reentries", "entered", "reentry_record"]


@dataclass(frozen=True, slots=True)
class Offer:
    entry: int  # the entry he would take (2: his first re-entry)
    price: int  # cents
    reentries_left: int  # after this one
    until_level: int  # the last level of late registration

    def message(self) -> pb.ServerMessage:
        """The offer as the player's stream carries it."""
        offer = pb.ReentryOffer(
            entry=self.entry,
            price=self.price,
            reentries_left=self.reentries_left,
            until_level=self.until_level,
        )
        return pb.ServerMessage(reentry_offer=offer)


@dataclass(frozen=True, slots=True)
class Intent:
    """A re-entry being paid: logged before the debit, closed by its outcome."""

    player: str
    entry: int
    key: str  # the wallet's debit


@dataclass
class Reentries:
    """One tournament's re-entry offers and the payments still open."""

    offers: dict[str, Offer] = field(default_factory=dict)
    open: dict[str, Intent] = field(default_factory=dict)  # by key
    _busted: list[str] = field(default_factory=list)  # by the events read, not yet decided

    def saw(self, event: Event) -> None:
        """One event of the run's log, in order."""
        match event:
            case HandFinished(players=players):
                self._busted += [p.player for p in players if p.end == 0]
            case PlayerRegistered(player=player) | PlayerEliminated(player=player):
                self.offers.pop(player, None)

    def decide(
        self,
        config: TournamentConfig,
        *,
        level: int,
        stacks: Mapping[str, int],
        entries: Mapping[str, int],
        price: int,
    ) -> dict[str, Offer]:
        """After a batch of events: the new offers (each to be sent to its player); those of
        a closed window are withdrawn. `stacks`: the players still in or waiting for their
        places (the read model's), `entries`: each player's entries so far."""
        busted, self._busted = dict.fromkeys(self._busted), []
        last = config.late_registration_levels
        if not config.reentries or level > last:
            self.offers.clear()
            return {}
        fresh: dict[str, Offer] = {}
        for player in busted:
            taken = entries.get(player, 1)
            if stacks.get(player) != 0 or taken > config.reentries or player in self.offers:
                continue
            left = config.reentries - taken
            fresh[player] = Offer(
                entry=taken + 1, price=price, reentries_left=left, until_level=last
            )
        self.offers |= fresh
        return fresh

    def opening(self, player: str) -> Intent | None:
        """The payment already open for `player`, if any (one at a time)."""
        return next((i for i in self.open.values() if i.player == player), None)

    def replay(self, record: Mapping[str, Any]) -> None:
        """The desk's own records, after a restart: the intents still open."""
        kind = record["type"]
        if kind == "reentry_paying":
            intent = Intent(str(record["player"]), int(record["entry"]), str(record["key"]))
            self.open[intent.key] = intent
        elif kind in ("reentered", "reentry_refused"):
            self.open.pop(str(record["key"]), None)


def entered(records: Iterable[Mapping[str, Any]], intent: Intent) -> bool:
    """Whether the run's log holds the entry an intent was paying for."""
    return any(
        r.get("type") == "player_registered"
        and r.get("player") == intent.player
        and r.get("entry") == intent.entry
        for r in records
    )


def reentry_record(kind: str, intent: Intent) -> dict[str, Any]:
    """The desk's record of an intent (`reentry_paying`) or its outcome."""
    record: dict[str, Any] = {"type": kind, "player": intent.player, "key": intent.key}
    if kind == "reentry_paying":
        record["entry"] = intent.entry
    return record
