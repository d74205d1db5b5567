"""A tournament's run for the desk's tests without Ray: `FakeRun` stands for its orchestrator
(its log kept in the store as the real one keeps it), `FakeRunDesk` launches it (or takes over
one that outlived the front door), and
`LostReply` is a wallet whose answer to one debit is lost."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from orchestrator.core import codec
from orchestrator.core.events import (
    Event,
    EventRecord,
    FundingWithdrawn,
    HandFinished,
    LevelStarted,
    PlayerFunded,
    PlayerReentered,
    PlayerRegistered,
    PlayerSeated,
)
from orchestrator.errors import (
    FundingTakenError,
    FundingWithdrawnError,
    ReentryError,
    RemoteUnavailable,
    StoreUnavailable,
)
from orchestrator.frontdoor.desk import Desk, DeskSettings, Entry
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.shell.export import stream_name
from orchestrator.shell.orchestrators import OrchestratorHandle
from orchestrator.shell.store import Accounts, Store, open_store
from table_worker.protocol import HandPlayer

__all__ = ["FakeRun", "FakeRunDesk", "LostReply"]


class FakeRun:
    """The tournament's orchestrator in a test: its log kept as the real one keeps it (in the
    store, as run `r1`), and a late registration taken as the core takes a re-entry (`take`),
    refused by it (`refuse`), lost with the actor before anything was logged (`lost`) or after
    the entry was (`lost_after`), or still on its way when its caller gave up (`in_flight`,
    until `arrive`)."""

    def __init__(self, store: Store, tournament: str, players: list[str]) -> None:
        self.store, self.mode = store, "take"
        self.stream = stream_name(tournament, "r1")
        self.records: list[EventRecord] = []
        self.calls: list[tuple[str, int]] = []
        self.in_flight: list[tuple[str, int, str]] = []
        store.register(self.stream, {"tournament": tournament, "seed": 0})
        self.log(*(PlayerRegistered(player=p, entry=1, buy_in=1000, fee=100) for p in players))
        self.log(LevelStarted(level=1, small_blind=25, big_blind=50, ante=0))
        self.log(
            *(PlayerSeated(player=p, table=1, seat=k, stack=1000) for k, p in enumerate(players, 1))
        )

    def log(self, *events: Event) -> None:
        after = len(self.records)
        fresh = [codec.record(e, seq=after + k, ts=1.0) for k, e in enumerate(events, 1)]
        self.store.append(self.stream, fresh)
        self.records += fresh

    def bust(self, player: str, winner: str) -> None:
        """A hand in which `player` loses his 1000 chips to `winner`."""
        seats = [HandPlayer(player, 1, 1000, 0), HandPlayer(winner, 2, 1000, 2000)]
        self.log(HandFinished(table=1, hand=len(self.records), button=1, players=tuple(seats)))

    async def start(self) -> None:
        return None

    async def events_since(self, seq: int) -> list[EventRecord]:
        return [r for r in self.records if r["seq"] > seq]

    async def complete(self) -> None:
        return None

    async def register_late(self, player: str, deposit: int = 0, key: str = "") -> None:
        self.calls.append((player, deposit))
        if self.mode == "refuse":
            raise ReentryError(f"{player} has used all 1 re-entries")
        if self.mode == "lost":
            raise RemoteUnavailable("the orchestrator's actor is gone")
        if self.mode == "in_flight":  # the caller is gone; the call reaches the run later
            self.in_flight.append((player, deposit, key))
            raise RemoteUnavailable("the front door lost the orchestrator's answer")
        self._take(player, deposit, key)
        if self.mode == "lost_after":
            raise RemoteUnavailable("the orchestrator's actor is gone")

    def arrive(self) -> None:
        """The calls in flight reach the run (an orchestrator that outlived their caller),
        each taken or refused as the core would."""
        for call in self.in_flight:
            with contextlib.suppress(FundingWithdrawnError):
                self._take(*call)
        self.in_flight.clear()

    async def withdraw_funding(self, key: str) -> None:
        if any(r["type"] == "player_funded" and r.get("key") == key for r in self.records):
            raise FundingTakenError(f"the payment {key} was taken: its entry stands")
        self.log(FundingWithdrawn(key=key))

    def _take(self, player: str, deposit: int, key: str) -> None:
        if any(r["type"] == "funding_withdrawn" and r["key"] == key for r in self.records):
            raise FundingWithdrawnError(f"the payment {key} was withdrawn by the front door")
        self.log(
            PlayerFunded(player=player, amount=deposit, key=key),
            PlayerRegistered(player=player, entry=2, buy_in=1000, fee=100),
            PlayerReentered(player=player, table=1, seat=1, stack=1000),
        )


class LostReply:
    """The built-in wallet whose first re-entry debit lands but whose answer is lost
    (`StoreUnavailable`: "it may have landed")."""

    def __init__(self, accounts: Accounts) -> None:
        self._accounts = accounts
        self.lost = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._accounts, name)

    def debit(self, account: str, amount: int, *, key: str) -> int:
        balance = self._accounts.debit(account, amount, key=key)
        if "/reentry/" in key and not self.lost:
            self.lost = True
            raise StoreUnavailable("the wallet's answer was lost")
        return balance


class FakeRunDesk(Desk):
    """A desk whose tournaments run on `FakeRun` (its launch and its takeover after a
    restart are its only Ray calls)."""

    def __init__(
        self,
        tmp_path: Path,
        hub: PlayerHub | None = None,
        *,
        flaky: bool = False,
        outlived: FakeRun | None = None,
    ) -> None:
        settings = DeskSettings(
            data_dir=tmp_path / "data",
            deck_target="-",
            gateway_target="-",
            gateway_secret="s",
            store_url="-",
        )
        self.store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
        self.hub = hub or PlayerHub()
        accounts = LostReply(self.store.accounts) if flaky else None
        super().__init__(self.store, self.hub, settings, accounts=accounts)
        self.run: FakeRun | None = outlived

    async def _launch(self, entry: Entry, players: list[str], **_: Any) -> OrchestratorHandle:
        self.run = FakeRun(self.store, entry.tournament_id, players)
        return self.run  # type: ignore[return-value]

    async def _reattach(self, entry: Entry) -> None:
        """The run an external cluster kept playing (`outlived`) is taken over; without one,
        only the wallets are settled here."""
        if self.run is not None:
            entry.orchestrator = self.run  # type: ignore[assignment]
            self._follow(entry)
