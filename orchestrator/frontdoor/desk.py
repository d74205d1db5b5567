"""Tournaments at the front door: created from config text, registration (the pure core
`orchestrator.core.registration`), the start on Ray, operator control, and the event stream.

Lifecycle: announced -> registering -> running (<-> paused) -> finished, or cancelled from any
of them. What must survive a restart of `mtt serve` goes to the Store port as a log per
tournament under the id `<tournament>.frontdoor`: creation (the config text), registration
opened, each registration and unregistration (the token's SHA-256 digest, never the token),
the start and a cancellation; while it runs, each re-entry's payment (`reentry_paying`, then
`reentered` or `reentry_refused`: `orchestrator.frontdoor.reentry`) and the time banks that
changed (`time_bank`, TB-1). On start-up the desk replays those logs; a running tournament's
orchestrator actor is found again by its name when the Ray cluster outlived the front door (its
tables look this front door's gateway up in the gateway book), or launched again from the
run's log in the store when the cluster went with it.

Money: the desk's registration and ledger are the one record of a tournament's entries; the
players' wallets are behind the `Accounts` port, and `orchestrator.frontdoor.cashier` is the
one place money moves between them (entries debited, refunds and the run's payments credited,
each call keyed so a replay after a restart moves nothing twice). The orchestrator is launched
with exactly the entries the desk took.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import re
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator.core import codec
from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_satellite import check_target
from orchestrator.core.config_toml import config_from_text
from orchestrator.core.deals import DealKind
from orchestrator.core.events import (
    Addon,
    BountyWon,
    DealAnswered,
    DealPaid,
    DealProposed,
    Event,
    EventRecord,
    PlayerEliminated,
    PlayerReentered,
    PlayerRegistered,
    Rebuy,
    TournamentCancelled,
    TournamentFinished,
)
from orchestrator.core.ledger import Ledger
from orchestrator.core.rankings import Rankings, SkillLevel, SkillRange
from orchestrator.core.registration import Registration, RegistrationRules, RegistrationState
from orchestrator.core.satellite import Seats
from orchestrator.core.time_bank import TimeBank
from orchestrator.errors import (
    PACKAGE_ERRORS,
    ConfigError,
    DealInHandError,
    FundingTakenError,
    OrchestratorError,
    StoreError,
)
from orchestrator.frontdoor.auth import new_secret, token_digest
from orchestrator.frontdoor.cashier import Cashier
from orchestrator.frontdoor.deal_state import DealState
from orchestrator.frontdoor.errors import (
    FrontDoorError,
    InvalidRequest,
    NotAvailable,
    NotFound,
    Unauthenticated,
    WrongState,
    refusal,
)
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.frontdoor.reentry import Intent, Reentries, entered, reentry_record
from orchestrator.shell.cancellation import find_stream
from orchestrator.shell.errors import translate
from orchestrator.shell.export import export_run, find_run, stream_name
from orchestrator.shell.orchestrators import OrchestratorHandle
from orchestrator.shell.store import Accounts, Store
from orchestrator.shell.tables import publish_gateway
from orchestrator.views.metrics import TournamentMetrics
from orchestrator.views.read_model import ReadModel

__all__ = ["Desk", "DeskSettings", "Entry"]

log = logging.getLogger(__name__)

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
PLAYER_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
MAX_CONFIG_BYTES = 64 * 1024
EVENT_POLL_SECONDS = 0.2
# DEAL-1: how long a proposal waits for the final table's hand in progress to end (the desk
# pauses play, then proposes at the boundary); beyond it the proposal is refused, play resumed.
DEAL_BOUNDARY_SECONDS = 60.0
DEAL_RETRY_SECONDS = 0.1
SHOWN_SECONDS = 5.0  # a reply waits this long for what it decided to reach the lobby
LOG_SUFFIX = ".frontdoor"
# The version of the desk's own records (DESIGN.md "Stores": every stored record carries one);
# release 1 wrote none, which reads as 1.
DESK_RECORD_VERSION = 1
HOST = f"{socket.gethostname()}:{os.getpid()}"  # who took a rescheduled tournament over


@dataclass(frozen=True, slots=True, kw_only=True)
class DeskSettings:
    data_dir: Path  # each tournament's events.jsonl, hands/ and results.json under <id>/,
    # exported from the store when it ends
    deck_target: str
    gateway_target: str  # where table actors reach the gateway
    gateway_secret: str
    store_url: str  # where the orchestrators keep their event logs (recovery, issue 6)
    seed: int = 0
    # Where the gateway is published for the tables (a Ray actor's name; "": not published):
    # the tables of a tournament taken over after a restart find this front door's gateway.
    gateway_book: str = ""


@dataclass(eq=False)
class Entry:
    tournament_id: str
    config: TournamentConfig
    config_text: str
    registration: Registration
    state: str = "announced"
    tokens: dict[str, str] = field(default_factory=dict)  # token digest -> player
    seated: tuple[str, ...] = ()  # at the start
    late: tuple[str, ...] = ()  # registered into the running tournament (REG-1)
    orchestrator: OrchestratorHandle | None = None  # once started
    events: list[EventRecord] = field(default_factory=list)  # its log, as watchers get it
    model: ReadModel = field(default_factory=ReadModel)  # the log read (views.read_model)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    follower: asyncio.Task[None] | None = None
    logged: int = 0  # records in its store log
    stream: str = ""  # its orchestrator's log in the store, once started here
    settled: int = 0  # the seq up to which the run's payments are credited to the wallets
    deal: DealState | None = None  # the latest deal proposed (DEAL-1), as the lobby shows it
    rebuys: dict[str, int] = field(default_factory=dict)  # RB-3: rebuys each player took
    entries: dict[str, int] = field(default_factory=dict)  # each player's entries (REG-1)
    reentries: Reentries = field(default_factory=Reentries)  # offers, payments open (LATE)
    banks: dict[str, TimeBank] = field(default_factory=dict)  # TB-1: changed, not yet kept


def _rules(config: TournamentConfig, tournament_id: str) -> RegistrationRules:
    return RegistrationRules(
        tournament=tournament_id,
        buy_in=config.prize_buy_in,
        fee=config.fee,
        bounty=config.bounty,
        late_registration_levels=0,  # registration through the front door closes at the start
        reentries=0,
        max_entries=config.max_entries,
        cancellation_bp=config.cancellation_bp,
        skill_range=None
        if config.skill_levels is None
        else SkillRange.of_levels(*(SkillLevel[level.upper()] for level in config.skill_levels)),
    )


class Desk:
    def __init__(
        self,
        store: Store,
        hub: PlayerHub,
        settings: DeskSettings,
        *,
        metrics: TournamentMetrics | None = None,
        clock: Callable[[], float] = time.time,
        accounts: Accounts | None = None,
    ) -> None:
        """`accounts`: the players' wallets (default: the built-in one at the store's URL)."""
        self._metrics = metrics
        self._cashier = Cashier(store.accounts if accounts is None else accounts)
        self._store = store
        self._hub = hub
        self._settings = settings
        self._clock = clock
        self._entries: dict[str, Entry] = {}
        self._tokens: dict[str, tuple[str, str]] = {}  # token digest -> (tournament, player)
        hub.keep_banks(self._keep_bank)  # TB-1: every bank's change goes to the store

    # --- reading ------------------------------------------------------------------------

    def get(self, tournament_id: str) -> Entry:
        entry = self._entries.get(tournament_id)
        if entry is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        return entry

    def all(self) -> list[Entry]:
        return [self._entries[t] for t in sorted(self._entries)]

    def now(self) -> float:
        """The desk's clock (its scheduler's too: `orchestrator.frontdoor.schedule`)."""
        return self._clock()

    def balance(self, account: str) -> int:
        """What the account's wallet holds now, in cents."""
        with _translated():
            return self._cashier.accounts.balance(account)

    def player_of(self, token: str) -> tuple[str, str] | None:
        """The (tournament, player) a player token was issued to, or None."""
        return self._tokens.get(token_digest(token))

    def players(self, entry: Entry) -> list[str]:
        if entry.seated:
            return [*entry.seated, *entry.late]
        return list(entry.registration.in_play())

    # --- operators ----------------------------------------------------------------------

    def create(self, config_text: str, tournament_id: str = "") -> Entry:
        if len(config_text.encode()) > MAX_CONFIG_BYTES:
            raise InvalidRequest(f"the config is over {MAX_CONFIG_BYTES} bytes")
        try:
            config = config_from_text(config_text, source="the config")
        except ConfigError as exc:
            raise refusal(exc) from exc
        if config.late_entries or config.side_events:
            raise InvalidRequest(
                "the front door seats registered players only: late_entries (late bots) and "
                "[side_events] (RB-6, played by bots) are for `mtt run`"
            )
        self._check_satellite(config)
        tournament_id = tournament_id or self._unique(config.name)
        if not ID_PATTERN.match(tournament_id):
            raise InvalidRequest(
                "a tournament id is 1..64 letters, digits, '_', '.' or '-', starting with a "
                f"letter or digit, not {tournament_id!r}"
            )
        if tournament_id in self._entries:
            raise WrongState(f"tournament {tournament_id!r} exists already")
        entry = self._new_entry(tournament_id, config, config_text)
        self._persist(entry, {"type": "created", "config": config_text})
        self._entries[tournament_id] = entry
        return entry

    def _check_satellite(self, config: TournamentConfig) -> None:
        """SAT-3 at the front door: a satellite's `[satellite] target` is the id of a
        tournament created here, not yet started, whose entry is the seat's value."""
        rules = config.satellite
        if rules is None:
            return
        target = self._entries.get(rules.target)
        if target is None:
            known = ", ".join(sorted(self._entries)) or "none"
            raise InvalidRequest(
                f"satellite.target {rules.target!r}: no such tournament at this front door (a "
                f"satellite's target is the id of one created here; created: {known})"
            )
        if target.state not in ("announced", "registering"):
            raise WrongState(f"satellite.target {rules.target!r} is {target.state} already")
        try:
            check_target(config, target.config)
        except ConfigError as exc:
            raise refusal(exc) from exc

    def tickets(self, account: str) -> dict[str, int]:
        """SAT-3: the satellite tickets the account's wallet holds, per target (cents)."""
        with _translated():
            return self._cashier.accounts.tickets(account)

    def create_account(self, account: str, balance: int) -> str:
        """An operator opens a player's wallet with `balance` cents; returns its credential,
        which the player needs to register himself (only its digest is kept)."""
        _check_player(account)
        credential = new_secret()
        with _translated():
            self._cashier.accounts.open(
                account, balance=balance, credential_digest=token_digest(credential)
            )
        return credential

    def open_registration(self, tournament_id: str) -> Entry:
        entry = self.get(tournament_id)
        if entry.state != "announced":
            raise WrongState(f"registration opens only for an announced tournament ({entry.state})")
        with _translated():
            entry.registration.open(now=self._clock())
        self._persist(entry, {"type": "registration_opened"})
        entry.state = "registering"
        return entry

    def register(
        self,
        tournament_id: str,
        player: str,
        *,
        credential: str | None = None,
        ticket: bool = False,
    ) -> str:
        """REG-1: the player's entry is taken from his wallet (SAT-3 `ticket`: paid by his
        satellite ticket to this tournament); returns a new token (the old one, if any, is no
        longer valid). `credential`: the player registering himself with his account's
        credential (None: the operator on his behalf)."""
        entry = self.get(tournament_id)
        _check_player(player)
        self._authenticate(player, credential)
        if entry.state != "registering":
            raise WrongState(f"registration is not open ({entry.state})")
        token = new_secret()
        self._take_entry(entry, player, ticket=ticket)
        record = {"type": "registered", "player": player, "token": token_digest(token)}
        self._persist(entry, {**record, "ticket": True} if ticket else record)
        self._issue(entry, player, token_digest(token))
        return token

    def _authenticate(self, player: str, credential: str | None) -> None:
        """A player registering himself shows his account's credential (None: the operator
        registers him)."""
        if credential is None:
            return
        with _translated():
            known = self._cashier.accounts.authenticate(player, token_digest(credential))
        if not known:  # the same answer for no such account: names are not probed
            raise Unauthenticated(f"wrong account credential for {player!r}")

    def unregister(self, tournament_id: str, player: str) -> Entry:
        """REG-2: the entry back, less the cancellation charge."""
        entry = self.get(tournament_id)
        if entry.state != "registering":
            raise WrongState(f"unregistering is possible only before the start ({entry.state})")
        now = self._clock()
        with _translated():
            entry.registration.unregister(player, now=now)
        self._persist(entry, {"type": "unregistered", "player": player})
        self._revoke(entry, player)
        with _translated():  # the refund to his wallet; a restart repeats it by its key
            self._cashier.cash_out(tournament_id, entry.registration, now=now, players=[player])
        return entry

    def registration_open(self, entry: Entry) -> bool:
        """REG-1: entries are taken before the start, and while late registration lasts."""
        if entry.state == "registering":
            return True
        late = entry.config.late_registration_levels
        return entry.state in ("running", "paused") and 0 < entry.model.level <= late

    async def enter(
        self,
        tournament_id: str,
        player: str,
        *,
        credential: str | None = None,
        ticket: bool = False,
    ) -> str:
        """REG-1 by the API: registration before the start (`register`), or late registration
        into the running tournament; returns the player's new token. `credential`, `ticket`:
        as for `register` (SAT-3: a ticket pays an entry taken before the start only)."""
        entry = self.get(tournament_id)
        if entry.state in ("running", "paused") and entry.orchestrator is not None:
            if ticket:
                raise WrongState(f"SAT-3: a ticket pays an entry before the start ({entry.state})")
            return await self._register_late(entry, player, credential)
        return self.register(tournament_id, player, credential=credential, ticket=ticket)

    async def _register_late(self, entry: Entry, player: str, credential: str | None) -> str:
        """REG-1 while late registration lasts: the entry's price is debited from the player's
        wallet (`Cashier.pay_late_entry`) and brought to the orchestrator, which takes the
        entry and seats the player at once (`core.late`), or refuses (closed, entered already,
        full: the debit is credited back, nothing else changed)."""
        _check_player(player)
        self._authenticate(player, credential)
        if entry.config.late_registration_levels == 0:
            raise WrongState("registration closed at the start (no late_registration_levels)")
        orchestrator = entry.orchestrator
        if orchestrator is None:
            raise WrongState(f"the tournament is not running ({entry.state})")
        if player in self.players(entry):  # before any debit; a bust re-enters on his stream
            raise WrongState(
                f"{player} has entered this tournament already: a re-entry follows a bust, "
                "asked for on the player's stream (reenter)"
            )
        price = entry.registration.rules.price
        with _translated():
            key = self._cashier.pay_late_entry(entry.tournament_id, player, price)
        try:
            await orchestrator.register_late(player, price)
        except OrchestratorError as exc:  # the core refused: nothing changed in the run
            with _translated():
                self._cashier.refund_late_entry(key, player, price)
            raise refusal(exc, "register_late refused") from exc
        except PACKAGE_ERRORS as exc:  # the actor gone: the debit stands, keyed (`paid`)
            raise refusal(exc) from exc
        token = new_secret()
        record = {
            "type": "registered_late",
            "player": player,
            "token": token_digest(token),
            "paid": key,  # the wallet's debit (the run's log holds the entry)
        }
        self._persist(entry, record)
        self._issue(entry, player, token_digest(token))
        entry.late = (*entry.late, player)
        await self._shown(entry, lambda: player in entry.entries)  # in the prize pool shown
        return token

    async def reenter(self, tournament_id: str, player: str) -> None:
        """LATE: the player takes the re-entry he was offered (`reentry`), its price paid from
        his wallet: the intent is logged with the debit's key, the debit made, the entry
        brought to the orchestrator (`player_funded`, as for a late registrant) and the
        outcome logged; refused with nothing moved (no offer, a payment already open, too
        little money, the core's refusal: the debit credited back)."""
        entry = self._playing(tournament_id, player)
        offer = entry.reentries.offers.get(player)
        if offer is None:
            raise WrongState(
                f"{player} has no re-entry offered: one follows a bust with re-entries left, "
                "while late registration lasts"
            )
        if entry.reentries.opening(player) is not None:
            raise WrongState(f"{player}'s re-entry is being paid already")
        orchestrator = entry.orchestrator
        assert orchestrator is not None  # `_playing`
        price = entry.registration.rules.price
        key = self._cashier.reentry_key(tournament_id, player, offer.entry)
        intent = Intent(player, offer.entry, key)
        self._persist(entry, reentry_record("reentry_paying", intent))  # before the debit
        entry.reentries.open[key] = intent
        try:
            with _translated():
                self._cashier.pay_reentry(key, player, price)
        except FrontDoorError:  # refused (nothing moved), or unreachable (it may have landed)
            self._undo_reentry(entry, intent)
            raise
        try:
            await orchestrator.register_late(player, price, key)
        except OrchestratorError as exc:  # the core refused: nothing changed in the run
            self._undo_reentry(entry, intent)
            raise refusal(exc, "reenter refused") from exc
        except PACKAGE_ERRORS as exc:  # the actor gone: the intent stays open (`restore`)
            raise refusal(exc) from exc
        self._close_reentry(entry, "reentered", intent)
        await self._shown(entry, lambda: entry.entries.get(player, 0) >= offer.entry)

    def reentry_offer(self, tournament_id: str, player: str) -> pb.ServerMessage | None:
        """The re-entry offer standing for the player (sent again on a new stream), or None."""
        entry = self._entries.get(tournament_id)
        offer = None if entry is None else entry.reentries.offers.get(player)
        if offer is None:
            return None
        return offer.message()

    def _keep_bank(self, tournament_id: str, player: str, bank: TimeBank) -> None:
        """TB-1: a player's bank changed (spent, emptied, refilled): written to the desk's
        log with the others changed since, at the next poll of the run (`_write_banks`)."""
        entry = self._entries.get(tournament_id)
        if entry is not None:
            entry.banks[player] = bank

    def _write_banks(self, entry: Entry) -> None:
        """TB-1: the banks changed since the last poll, in one write (not one per action on
        the event loop), so a restarted front door gives them back (`_replay`). A store that
        fails keeps them for the next poll."""
        if not entry.banks:
            return
        records = [
            {"type": "time_bank", "player": player, "seconds": bank.seconds, "level": bank.level}
            for player, bank in entry.banks.items()
        ]
        try:
            self._persist_all(entry, records)
        except FrontDoorError as exc:
            log.error("%s: time banks not kept yet: %s", entry.tournament_id, exc)
            return
        entry.banks.clear()

    def _undo_reentry(self, entry: Entry, intent: Intent) -> None:
        """A re-entry the run did not take: its debit made sure of and credited back
        (`Cashier.undo_reentry`), then closed; a wallet that cannot be reached leaves it open,
        for the next restart (`_settle_reentries`)."""
        price = entry.registration.rules.price
        try:
            with _translated():
                self._cashier.undo_reentry(intent.key, intent.player, price)
        except FrontDoorError as exc:
            log.error("%s: re-entry %s left open: %s", entry.tournament_id, intent.key, exc)
            return
        self._close_reentry(entry, "reentry_refused", intent)

    def _close_reentry(self, entry: Entry, kind: str, intent: Intent) -> None:
        self._persist(entry, reentry_record(kind, intent))
        entry.reentries.open.pop(intent.key, None)

    async def _settle_with_run(self, entry: Entry) -> None:
        """After a restart, for a run that is playing: each re-entry payment left open by the
        crash is withdrawn from the run before it is credited back (`withdraw_funding`), so a
        call of the old front door's still on its way to the orchestrator (which may have
        outlived it) cannot take the entry afterwards; the run refusing says it took it."""
        orchestrator = entry.orchestrator
        if orchestrator is None:
            self._settle_reentries(entry)
            return
        for intent in list(entry.reentries.open.values()):
            try:
                await orchestrator.withdraw_funding(intent.key)
            except FundingTakenError:
                self._close_reentry(entry, "reentered", intent)
                continue
            except PACKAGE_ERRORS as exc:  # unreachable: the next restart settles it
                log.error("%s: re-entry %s left open: %s", entry.tournament_id, intent.key, exc)
                continue
            self._undo_reentry(entry, intent)

    def _settle_reentries(self, entry: Entry) -> None:
        """After a restart, for a run that no orchestrator plays any more (cancelled, or not
        running again here): each re-entry payment left open by the crash is closed by the
        run's log (the crash window of `reenter`, `orchestrator.frontdoor.reentry`): the entry
        taken, or the debit made sure of and credited back."""
        if not entry.reentries.open:
            return
        try:
            records = self._store.read(find_stream(self._store, entry.tournament_id))
        except PACKAGE_ERRORS as exc:
            log.error("%s: re-entries left open, the run unreadable: %s", entry.tournament_id, exc)
            return
        for intent in list(entry.reentries.open.values()):
            if entered(records, intent):
                self._close_reentry(entry, "reentered", intent)
            else:
                self._undo_reentry(entry, intent)

    async def request_rebuy(self, tournament_id: str, player: str) -> None:
        """RB-3: the player asks; the orchestrator takes the rebuy at his next hand boundary
        (`core.rebuys`), or refuses now (no rebuys, too many chips, out, period over)."""
        entry = self._playing(tournament_id, player)
        await self._ask(entry, "request_rebuy", player)

    async def propose_deal(self, tournament_id: str, kind: str, leave: int) -> Entry:
        """DEAL-1: the operator's deal at the final table, put to every player still in (none
        answers for them: each is asked over his stream). A table in a hand is paused first
        and the deal proposed at its boundary; any refusal leaves the tournament as it was."""
        entry = self.get(tournament_id)
        if entry.state not in ("running", "paused") or entry.orchestrator is None:
            raise WrongState(f"a deal is made in a running tournament ({entry.state})")
        try:
            DealKind(kind)
        except ValueError:
            kinds = ", ".join(k.value for k in DealKind)
            raise InvalidRequest(f"deal kind is one of {kinds}, not {kind!r}") from None
        if leave < 0:
            raise InvalidRequest(f"deal leave is cents left to play for (>= 0), not {leave}")
        orchestrator, earlier = entry.orchestrator, entry.deal
        paused_here = False
        deadline = self._clock() + DEAL_BOUNDARY_SECONDS
        while True:
            try:
                await orchestrator.propose_deal(kind, leave, ())  # no bots: players answer
                break
            except DealInHandError as exc:
                if entry.state == "running" and not paused_here:
                    await self._control(entry, "pause")  # the table stops at its boundary
                    paused_here = True
                if self._clock() < deadline:
                    await asyncio.sleep(DEAL_RETRY_SECONDS)
                    continue
                failure: Exception = exc
            except PACKAGE_ERRORS as exc:
                failure = exc
            if paused_here:
                await self._control(entry, "resume")
            raise refusal(failure, "deal refused")
        entry.state = "paused"  # until the players' answers resume or end it (DEAL-3)
        await self._shown(entry, lambda: entry.deal is not earlier)  # the proposal, as shown
        return entry

    async def _shown(self, entry: Entry, done: Callable[[], bool]) -> None:
        """Wait (at most `SHOWN_SECONDS`) until the tournament's log, as followed here, shows
        what the orchestrator just decided: the reply then shows it too."""
        async with entry.changed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(entry.changed.wait_for(done), SHOWN_SECONDS)

    async def answer_deal(self, tournament_id: str, player: str, accept: bool) -> None:
        """DEAL-1: the player's own answer (his stream's, never another's)."""
        entry = self._playing(tournament_id, player)
        await self._ask(entry, "answer_deal", player, accept)

    def _playing(self, tournament_id: str, player: str) -> Entry:
        entry = self.get(tournament_id)
        if entry.state not in ("running", "paused") or entry.orchestrator is None:
            raise WrongState(f"the tournament is not running ({entry.state})")
        if player not in self.players(entry):
            raise NotFound(f"{player!r} does not play in {tournament_id!r}")
        return entry

    async def start(self, tournament_id: str) -> Entry:
        """Seat the registered players and start dealing; those not connected now are Out
        from the first hand (OUT-2: the hub's initial state)."""
        entry = self.get(tournament_id)
        if entry.state != "registering":
            raise WrongState(f"only a tournament in registration starts ({entry.state})")
        players = sorted(entry.registration.in_play())
        if len(players) < 2:
            raise WrongState(f"{len(players)} registered: a tournament needs at least 2")
        self._check_seats(entry, len(players))
        self._check_satellites_over(entry)
        with _translated():
            entry.registration.start(now=self._clock())
        self._persist(entry, {"type": "started", "players": players})
        entry.seated = tuple(players)
        entry.state = "running"
        try:
            entry.orchestrator = await self._launch(entry, players)
        except Exception as exc:  # Ray refused: say so, keep serving the rest
            entry.state = "lost"
            log.exception("%s: the orchestrator did not start", tournament_id)
            why = translate(exc) or exc  # Ray's errors in a line
            raise NotAvailable(f"the tournament could not start on Ray: {why}") from exc
        self._follow(entry)
        return entry

    def _check_seats(self, entry: Entry, field: int) -> None:
        """SAT-1 before the launch, as the orchestrator's start checks it (`Seats.of`): a
        satellite's pool (made up to its guarantee, GTD-1) pays at least one seat and fewer
        seats than players; refused with nothing changed, registration still open."""
        pool = max(entry.registration.prize_pool, entry.config.guarantee)
        try:
            Seats.of(entry.config, pool=pool, field=field)
        except ConfigError as exc:
            raise WrongState(str(exc)) from exc

    def _check_satellites_over(self, target: Entry) -> None:
        """SAT-3: a target starts once every satellite to it here has ended (finished or
        cancelled), so no seat is won after the tickets could still pay an entry."""
        pending = sorted(
            e.tournament_id
            for e in self._entries.values()
            if e.config.satellite is not None
            and e.config.satellite.target == target.tournament_id
            and e.state not in ("finished", "cancelled")
        )
        if pending:
            raise WrongState(
                f"SAT-3: the satellites {', '.join(pending)} to {target.tournament_id} have not "
                "ended: their seats are entries to it (end or cancel them first)"
            )

    async def pause(self, tournament_id: str) -> Entry:
        entry = self._running(tournament_id, "running")
        await self._control(entry, "pause")
        entry.state = "paused"
        return entry

    async def resume(self, tournament_id: str) -> Entry:
        entry = self._running(tournament_id, "paused")
        await self._control(entry, "resume")
        entry.state = "running"
        return entry

    async def cancel(self, tournament_id: str, reason: str) -> Entry:
        """In registration: every entry back (CRASH-1). Running: the orchestrator rolls the
        tournament forward (CRASH-2) and its tables close at their next boundary. Lost at its
        launch, before its run began: every entry back too; lost with a run in the store: that
        run is cancelled there (`mtt cancel --store`), not here."""
        entry = self.get(tournament_id)
        if not reason.strip():
            raise InvalidRequest("a cancellation needs a reason")
        if entry.state in ("finished", "cancelled"):
            raise WrongState(f"the tournament is {entry.state} already")
        if entry.orchestrator is None:
            now = self._clock()
            with _translated():
                runs = self._run_of(entry) if entry.state == "lost" else ""
            if runs:
                raise WrongState(
                    f"{tournament_id} has a run in the store ({runs}): cancel it there (mtt "
                    "cancel TOURNAMENT --store URL --reason TEXT); a restarted front door then "
                    "pays the wallets from its log"
                )
            with _translated():
                events = self._cancel_unplayed(entry, reason, now)
            self._persist(entry, {"type": "cancelled", "reason": reason})
            events += self._refund_all(entry, now)
            self._took(entry, _records(events, after=len(entry.events), ts=now))  # CRASH-1
        else:
            await self._control(entry, "cancel", reason)
            self._persist(entry, {"type": "cancelled", "reason": reason})
        entry.state = "cancelled"
        for player in self.players(entry):
            self._hub.finished(tournament_id, player, 0, f"cancelled: {reason}")
        async with entry.changed:
            entry.changed.notify_all()
        return entry

    async def standings(self, tournament_id: str) -> tuple[Entry, list[dict[str, Any]]]:
        entry = self.get(tournament_id)
        if entry.orchestrator is None:
            start = entry.config.starting_stack
            rows = [
                {"player": p, "stack": start, "place": 0, "prize": 0} for p in self.players(entry)
            ]
            return entry, rows
        rows = await self._ask(entry, "standings")
        rows.sort(key=lambda r: (r["place"] != 0, r["place"] or -r["stack"], r["player"]))
        return entry, rows

    async def watch(self, tournament_id: str, after: int) -> AsyncIterator[dict[str, Any]]:
        """The tournament's event records after `after`, then live ones until it ends."""
        entry = self.get(tournament_id)
        sent = after
        while True:
            fresh = [e for e in entry.events if e["seq"] > sent]
            for record in fresh:
                yield record
                sent = record["seq"]
            if fresh:
                continue
            if entry.state in ("finished", "cancelled", "lost") and (
                entry.follower is None or entry.follower.done()
            ):
                return
            async with entry.changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(entry.changed.wait(), 1.0)

    # --- restart ------------------------------------------------------------------------

    async def restore(self) -> None:
        """Rebuild every tournament from its store log (after a restart of `mtt serve`, here or
        on another host). CRASH-1: a tournament in registration is rescheduled on this front
        door (`rescheduled` is logged); one whose log can no longer be replayed is cancelled
        with every entry refunded in full. A running one is taken over (`_reattach`). One
        tournament's trouble never stops the others."""
        settings = self._settings
        if settings.gateway_book:  # before any table of ours looks for it
            publish_gateway(settings.gateway_book, settings.gateway_target, settings.gateway_secret)
        for stream in self._store.tournaments():
            if not stream.endswith(LOG_SUFFIX):
                continue
            tournament_id = stream[: -len(LOG_SUFFIX)]
            try:
                records = self._store.read(stream)
            except StoreError as exc:
                log.error("%s: its log cannot be read, left out: %s", tournament_id, exc)
                continue
            if not records or records[0]["type"] != "created":
                continue
            try:
                config = config_from_text(records[0]["config"], source=tournament_id)
            except ConfigError as exc:
                log.error("%s: its config no longer loads, left out: %s", tournament_id, exc)
                continue
            entry = self._new_entry(tournament_id, config, records[0]["config"])
            entry.logged = len(records)
            self._entries[tournament_id] = entry
            for record in records:  # LATE: the re-entries being paid when it stopped
                entry.reentries.replay(record)
            cancelled = any(r["type"] == "cancelled" for r in records)
            if not cancelled:
                try:
                    self._replay(entry, records[1:])
                except (FrontDoorError, OrchestratorError, KeyError, TypeError) as exc:
                    self._cannot_reschedule(entry, exc)
            if entry.state == "running":
                await self._reattach(entry)
            try:
                await self._settle_with_run(entry)
            except FrontDoorError as exc:  # the store refused the outcome: the next restart
                log.error("%s: re-entries not settled: %s", tournament_id, exc)
            if cancelled:
                self._restore_cancelled(entry, records)
            elif entry.state in ("announced", "registering"):
                self._persist(entry, {"type": "rescheduled", "host": HOST})
                log.info("%s rescheduled on %s (CRASH-1)", tournament_id, HOST)

    def _replay(self, entry: Entry, records: list[dict[str, Any]]) -> None:
        now = self._clock()
        for record in records:
            kind = record["type"]
            if kind == "registration_opened":
                entry.registration.open(now=now)
                entry.state = "registering"
            elif kind == "registered":
                self._take_entry(entry, record["player"], ticket=record.get("ticket", False))
                self._issue(entry, record["player"], record["token"])
            elif kind == "unregistered":
                entry.registration.unregister(record["player"], now=now)
                self._revoke(entry, record["player"])
                self._cashier.cash_out(
                    entry.tournament_id, entry.registration, now=now, players=[record["player"]]
                )
            elif kind == "started":
                entry.registration.start(now=now)
                entry.seated = tuple(record["players"])
                entry.state = "running"
            elif kind == "registered_late":  # the orchestrator's log holds the entry
                self._issue(entry, record["player"], record["token"])
                entry.late = (*entry.late, record["player"])
            elif kind == "time_bank":  # TB-1: the bank as the hub last had it
                bank = TimeBank(float(record["seconds"]), int(record["level"]))
                self._hub.restore_bank(entry.tournament_id, record["player"], bank)

    def _cannot_reschedule(self, entry: Entry, error: Exception) -> None:
        """CRASH-1's other branch: in registration and not replayable here, the tournament is
        cancelled and every entry taken so far given back in full."""
        log.error("%s cannot be rescheduled: %s", entry.tournament_id, error)
        if entry.state not in ("announced", "registering"):
            entry.state = "lost"
            return
        reason = f"could not be rescheduled after its host was lost ({error})"
        now = self._clock()
        events = entry.registration.cancel(reason, now=now)
        self._persist(entry, {"type": "cancelled", "reason": reason})
        events += self._refund_all(entry, now)
        self._took(entry, _records(events, after=len(entry.events), ts=now))
        for player in set(entry.tokens.values()):
            self._revoke(entry, player)
        entry.state = "cancelled"

    def _restore_cancelled(self, entry: Entry, records: list[dict[str, Any]]) -> None:
        """A cancelled tournament after a restart: its wallets made whole again, each call
        repeated by its key (nothing moves twice): the refunds of one cancelled in
        registration, the payments of one cancelled while running."""
        entry.state = "cancelled"
        tournament = entry.tournament_id
        try:
            if self._run_of(entry):
                self._settle_run(entry)
                return
            with contextlib.suppress(FrontDoorError, OrchestratorError, KeyError, TypeError):
                # as far as it replayed when it was cancelled (`_cannot_reschedule`), so the
                # refunds are the same postings, under the same keys
                self._replay(entry, [r for r in records[1:] if r["type"] != "cancelled"])
            reason = next(r["reason"] for r in records if r["type"] == "cancelled")
            now = self._clock()
            self._cancel_unplayed(entry, reason, now)
            self._refund_all(entry, now)
        except PACKAGE_ERRORS as exc:
            log.error("%s: its wallets could not be settled again: %s", tournament, exc)
        for player in set(entry.tokens.values()):
            self._revoke(entry, player)
        entry.state = "cancelled"

    async def _reattach(self, entry: Entry) -> None:
        """A running tournament taken over: its orchestrator found by name when the cluster
        outlived the front door (its tables find this gateway in the gateway book), else
        launched again from its run's log in the store, as `mtt resume` does: it rebuilds
        itself and restarts every table (hands in progress voided) with this gateway."""
        tournament = entry.tournament_id
        entry.orchestrator = OrchestratorHandle.find(tournament)
        if entry.orchestrator is not None:
            self._follow(entry)
            log.info("restored %s (running)", tournament)
            return
        try:
            stream = find_run(self._store, tournament)
            meta = self._store.meta(stream)
            out = self._settings.data_dir / tournament
            export_run(self._store, stream, out, force=True)  # the folder the tables go on in
            entry.orchestrator = await self._launch(
                entry,
                list(entry.seated),
                run=stream.partition("/")[2],
                seed=int(meta.get("seed", self._settings.seed)),
            )
        except PACKAGE_ERRORS as exc:
            entry.state = "lost"
            log.error("%s: its orchestrator is gone and cannot start again: %s", tournament, exc)
            return
        self._follow(entry)
        log.info("restored %s (running): launched again from %s", tournament, stream)

    async def close(self) -> None:
        for entry in self._entries.values():
            if entry.follower is not None:
                entry.follower.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await entry.follower

    # --- internals ----------------------------------------------------------------------

    def _new_entry(self, tournament_id: str, config: TournamentConfig, text: str) -> Entry:
        registration = Registration(_rules(config, tournament_id), Ledger(), Rankings())
        return Entry(tournament_id, config, text, registration)

    def _unique(self, name: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "tournament"
        base = base[:56]
        taken = set(self._entries) | {
            s[: -len(LOG_SUFFIX)] for s in self._store.tournaments() if s.endswith(LOG_SUFFIX)
        }
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        return candidate

    def _take_entry(self, entry: Entry, player: str, *, ticket: bool = False) -> None:
        """REG-1 through the core, which checks everything before the entry is debited from
        the player's wallet (`Cashier.pay_entry`; SAT-3 `ticket`: his ticket spent,
        `Cashier.pay_entry_by_ticket`): a refusal moves nothing."""
        pay = self._cashier.pay_entry_by_ticket if ticket else self._cashier.pay_entry
        with _translated():
            pay(entry.tournament_id, entry.registration, player, now=self._clock())

    def _cancel_unplayed(self, entry: Entry, reason: str, now: float) -> tuple[Event, ...]:
        """Cancel a tournament no hand of which was played here: in registration (CRASH-1), or
        started but lost at its launch. Either way every entry comes back in full: with every
        player at the starting stack, the roll-forward (CRASH-2) gives each his fee and an equal
        share of the pool, his buy-in."""
        registration = entry.registration
        chips = None
        if registration.state is RegistrationState.RUNNING:
            chips = dict.fromkeys(registration.in_play(), entry.config.starting_stack)
        return registration.cancel(reason, now=now, chips=chips)

    def _run_of(self, entry: Entry) -> str:
        """The tournament's run logs in the store, comma-separated ("" when none: it never
        launched)."""
        tournament = entry.tournament_id
        runs = [s for s in self._store.tournaments() if s.partition("/")[0] == tournament]
        return ", ".join(r for r in runs if "/" in r)

    def _refund_all(self, entry: Entry, now: float) -> tuple[Event, ...]:
        """After a cancellation in registration (CRASH-1): every refund back to its wallet,
        and (SAT-3) every ticket to it not spent paid at face value in cash."""
        with _translated():
            refunds = self._cashier.cash_out(entry.tournament_id, entry.registration, now=now)
            self._cashier.cash_tickets(entry.tournament_id, self._ticket_holders(entry))
        return refunds

    def _ticket_holders(self, target: Entry) -> list[str]:
        """SAT-3: who won a seat to `target` in a satellite at this front door (as its run's
        log in the store says; a satellite not yet loaded after a restart is left out)."""
        holders: list[str] = []
        for satellite in self._entries.values():
            rules = satellite.config.satellite
            if rules is None or rules.target != target.tournament_id or not self._run_of(satellite):
                continue
            records = self._store.read(find_stream(self._store, satellite.tournament_id))
            holders += [str(r["player"]) for r in records if r["type"] == "ticket_awarded"]
        return holders

    def _settle(self, entry: Entry) -> None:
        """The run's payments so far credited to the wallets (CRASH-2 shares, prizes, ...);
        a wallet that fails is tried again from there at the next poll."""
        fresh = [r for r in entry.events if r["seq"] > entry.settled]
        try:
            self._cashier.settle(entry.tournament_id, fresh)
        except PACKAGE_ERRORS as exc:
            log.error("%s: payments not credited yet, will retry: %s", entry.tournament_id, exc)
            return
        if fresh:
            entry.settled = fresh[-1]["seq"]

    def _settle_run(self, entry: Entry) -> None:
        """Every payment in the run's log in the store credited (after a restart)."""
        stream = find_stream(self._store, entry.tournament_id)
        self._cashier.settle(entry.tournament_id, self._store.read(stream))

    def _issue(self, entry: Entry, player: str, digest: str) -> None:
        self._revoke(entry, player)
        entry.tokens[digest] = player
        self._tokens[digest] = (entry.tournament_id, player)
        self._hub.add(entry.tournament_id, player, entry.config.time_bank)

    def _revoke(self, entry: Entry, player: str) -> None:
        for digest in [d for d, p in entry.tokens.items() if p == player]:
            del entry.tokens[digest]
            self._tokens.pop(digest, None)
        self._hub.remove(entry.tournament_id, player)

    def _persist(self, entry: Entry, record: dict[str, Any]) -> None:
        self._persist_all(entry, [record])

    def _persist_all(self, entry: Entry, records: Sequence[dict[str, Any]]) -> None:
        """The desk's records, in one write."""
        stream = entry.tournament_id + LOG_SUFFIX
        try:
            if entry.logged == 0:
                self._store.register(stream, {"tournament": entry.tournament_id})
            ts = self._clock()
            stored = [
                {"seq": entry.logged + k, "ts": ts, "v": DESK_RECORD_VERSION, **record}
                for k, record in enumerate(records, 1)
            ]
            self._store.append(stream, stored)
        except StoreError as exc:
            raise refusal(exc, "the store refused") from exc
        entry.logged += len(records)

    def _took(self, entry: Entry, records: list[EventRecord]) -> None:
        """The tournament's next records: kept for watchers, folded into its read model, and
        told to the players they place."""
        tournament, tell = entry.tournament_id, self._hub.tell
        deal_changed = False
        for record in records:
            read = entry.model.apply_record(record)
            if read is not None:
                entry.reentries.saw(read.event)
            match None if read is None else read.event:
                case PlayerEliminated(player=player, place=place):
                    self._hub.finished(tournament, player, place, "out")
                case TournamentFinished(winner=winner):
                    self._hub.finished(tournament, winner, 1, "winner")
                    entry.state = "finished"
                case TournamentCancelled():
                    entry.state = "cancelled"
                case PlayerRegistered(player=player, entry=number):
                    entry.entries[player] = number
                case Rebuy(player=player, chips=chips):  # RB-3
                    entry.rebuys[player] = entry.rebuys.get(player, 0) + 1
                    tell(tournament, player, _chips_added("rebuy", chips))
                case Addon(player=player, chips=chips):  # RB-4
                    tell(tournament, player, _chips_added("addon", chips))
                case PlayerReentered(player=player, stack=stack):
                    tell(tournament, player, _chips_added("reentry", stack))
                case BountyWon() as won:  # KO-3
                    bounty = pb.BountyWon(
                        eliminated=won.eliminated,
                        cash=won.cash,
                        added=won.added,
                        bounty=entry.model.bounty_on.get(won.player, 0),
                    )
                    tell(tournament, won.player, pb.ServerMessage(bounty_won=bounty))
                case DealProposed() as proposed:  # DEAL-1
                    entry.deal, deal_changed = DealState.proposed(proposed), True
                case DealAnswered() as answer if entry.deal is not None:
                    entry.deal.answered(answer)
                    deal_changed = True
                    if not answer.accepted and entry.state == "paused":
                        entry.state = "running"  # one refusal: play resumes unchanged
                case DealPaid(player=player, place=place) if entry.deal is not None:  # DEAL-3
                    entry.deal.paid()
                    deal_changed = True
                    if place > 1:  # the winner hears it with the tournament's end
                        self._hub.finished(tournament, player, place, "deal")
                    elif place == 0 and entry.state == "paused":
                        entry.state = "running"  # play on for what was left
        self._offer_reentries(entry)
        if deal_changed and entry.deal is not None:
            message = pb.ServerMessage(deal=entry.deal.message())
            for player in entry.deal.players:
                tell(tournament, player, message)
        entry.events += records

    def _offer_reentries(self, entry: Entry) -> None:
        """LATE: each player the records just read busted, with a re-entry left while late
        registration lasts, is offered it on his stream."""
        model = entry.model
        fresh = entry.reentries.decide(
            entry.config,
            level=model.level,
            stacks=model.stacks,
            entries=entry.entries,
            price=entry.registration.rules.price,
        )
        for player, offer in fresh.items():
            self._hub.tell(entry.tournament_id, player, offer.message())

    def _running(self, tournament_id: str, state: str) -> Entry:
        entry = self.get(tournament_id)
        if entry.state != state:
            raise WrongState(f"the tournament is {entry.state}, not {state}")
        return entry

    async def _control(self, entry: Entry, method: str, *args: Any) -> None:
        await self._ask(entry, method, *args)

    async def _ask(self, entry: Entry, method: str, *args: Any) -> Any:
        """A call on the tournament's orchestrator actor: the core's refusal (already paused)
        is WrongState, an actor gone NotAvailable (`refusal`)."""
        try:
            return await getattr(entry.orchestrator, method)(*args)
        except OrchestratorError as exc:
            raise refusal(exc, f"{method} refused") from exc
        except PACKAGE_ERRORS as exc:
            raise refusal(exc) from exc

    async def _launch(
        self, entry: Entry, players: list[str], *, run: str = "", seed: int | None = None
    ) -> OrchestratorHandle:
        """The tournament's orchestrator, for a new run, or for run `run` (launched again: it
        rebuilds from that run's log)."""
        from orchestrator.shell.actor import StoreSettings
        from orchestrator.shell.tables import TableSettings
        from table_worker.remote import GatewaySettings

        settings = self._settings
        seed = settings.seed if seed is None else seed
        out = settings.data_dir / entry.tournament_id
        out.mkdir(parents=True, exist_ok=True)
        tables = TableSettings(
            deck_target=settings.deck_target,
            bots=("random",),  # unused: every seat is a remote player
            seed=seed,
            gateway=GatewaySettings(
                target=settings.gateway_target,
                secret=settings.gateway_secret,
                action_seconds=entry.config.action_seconds,
                book=settings.gateway_book,
                time_bank_seconds=entry.config.time_bank_seconds,  # TB-1
            ),
        )
        run_id = run or uuid.uuid4().hex[:12]
        entry.stream = stream_name(entry.tournament_id, run_id)
        deposits, tickets = Cashier.handover(entry.registration.ledger)  # the entries taken
        orchestrator = OrchestratorHandle.launch(
            # LATE: a remote player re-enters when he asks, paid from his wallet (`reenter`)
            dataclasses.replace(entry.config.with_players(len(players)), reentry_auto=False),
            players,
            deposits=deposits,
            tickets=tickets,  # SAT-3
            tournament_id=entry.tournament_id,
            seed=seed,
            out_dir=str(out),
            tables=tables,
            store=StoreSettings(url=settings.store_url, run_id=run_id),
        )
        await orchestrator.start()
        return orchestrator

    def _follow(self, entry: Entry) -> None:
        assert entry.orchestrator is not None
        follow = self._follow_events(entry, entry.orchestrator)
        entry.follower = asyncio.get_running_loop().create_task(follow)

    async def _follow_events(self, entry: Entry, orchestrator: OrchestratorHandle) -> None:
        """Copy the orchestrator's event log here for watchers, tell players their places,
        feed the tournament metrics."""
        seen = entry.events[-1]["seq"] if entry.events else 0
        while True:
            # Ended before this poll, not after it: an operator's cancel lands while the poll
            # is out, and its roll-forward (the wallets' money) must still be read.
            ended = entry.state in ("finished", "cancelled")
            fresh = await orchestrator.events_since(seen)
            self._took(entry, fresh)
            self._settle(entry)
            self._write_banks(entry)
            if self._metrics is not None:  # the tournament metrics (orchestrator.views.metrics)
                self._metrics.follow(entry.tournament_id, fresh)
                timings = await orchestrator.timings_since_last_call()
                self._metrics.observe_timings(entry.tournament_id, timings)
            if fresh:
                seen = fresh[-1]["seq"]
                async with entry.changed:
                    entry.changed.notify_all()
            if ended and not fresh:
                break
            await asyncio.sleep(EVENT_POLL_SECONDS)
        self._settle(entry)  # a wallet that failed at the last poll
        self._write_banks(entry)
        with contextlib.suppress(Exception):  # every table done; the actor may go
            await orchestrator.complete()
        await self._export(entry)
        async with entry.changed:
            entry.changed.notify_all()

    async def _export(self, entry: Entry) -> None:
        """The tournament's files in the data folder, from the store (`export_run`), before
        its watchers are let go; a store that fails leaves them to `mtt export`."""
        out = self._settings.data_dir / entry.tournament_id
        try:
            stream = entry.stream or find_stream(self._store, entry.tournament_id)
            await asyncio.to_thread(export_run, self._store, stream, out)
        except (StoreError, OSError) as exc:
            log.error("%s: its files were not exported to %s: %s", entry.tournament_id, out, exc)


def _check_player(player: str) -> None:
    if not PLAYER_PATTERN.match(player):
        raise InvalidRequest(
            "a player name is 1..32 letters, digits, '_', '.' or '-', starting with a "
            f"letter or digit, not {player!r:.60}"
        )


def _chips_added(kind: str, chips: int) -> pb.ServerMessage:
    return pb.ServerMessage(chips_added=pb.ChipsAdded(kind=kind, chips=chips))


def _records(events: Sequence[Event], *, after: int, ts: float) -> list[EventRecord]:
    """Events decided here (registration's), as the log records them."""
    return [codec.record(e, seq=after + k, ts=ts) for k, e in enumerate(events, start=1)]


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """The core's refusals as front-door errors (nothing changed: the core checks first)."""
    try:
        yield
    except PACKAGE_ERRORS as exc:
        raise refusal(exc) from exc
