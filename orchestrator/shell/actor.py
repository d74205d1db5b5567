"""The orchestrator actor: the tournament core behind Ray, with the event log in front.

The write path. A call decides its step and stages it with no await in between, so the core
sees reports one at a time in the order they are logged, and each step draws from its own RNG
(`core.replay.step_rng`), so the log replays to the same decisions. Staging numbers the step's
events and queues them, with the finished hand's history from the report, in the event log
(`shell.eventlog`); the call then waits until the log is durable up to its step. One committer
task writes everything queued since its last write in one store call (one transaction, one
fsync) in a thread, so the event loop goes on deciding the reports that arrive meanwhile; they
go in the next call. Once its batch is durable each call carries out its step's directives and
answers its table (write-ahead: nothing is carried out, and no table hears of a decision,
before the store holds it). Followers see only durable events. Every few thousand events the
core is pickled at a step boundary (while the batch is being written) and saved by a task of
its own once the log holds it: no report waits for it. The actor writes no file: the run's
files are exports of the store (`shell.export`), written by the driver.

The actor is named and detached, and Ray restarts it when it dies: the constructor then finds
the tournament's log in the store, rebuilds the core from it (snapshot + tail, or the whole
log when the snapshot cannot be used: `shell.recovery`), and the first
call re-attaches to the live table actors (named `{tournament}-table-{table}-{generation}`,
detached too) or restarts the tables it cannot find. Tables' calls that failed with the old
actor are retried by Ray against the new one (`max_task_retries`), and a repeated report is
answered from the core (idempotent per table and hand). It holds the tournament's ownership
lease while it runs. It creates a table actor for every table the core opens and closes none
by force: a table ends its own loop when its directive says close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import ray

from orchestrator.core.config import TournamentConfig
from orchestrator.core.deals import bot_accepts
from orchestrator.core.events import Event, HandFinished, NodeLost, TournamentOpened
from orchestrator.core.replay import open_tournament, snapshot, step_rng
from orchestrator.core.sanctions import SanctionKind
from orchestrator.core.tournament import Directive, OpenTable, StartSideEvent, Step
from orchestrator.errors import (
    DealError,
    FundingTakenError,
    LeaseLost,
    LedgerError,
    RecordError,
    RecoveryError,
    RegistrationError,
    ReportError,
    SanctionError,
    StoreUnavailable,
    TournamentExists,
    TournamentStateError,
)
from orchestrator.shell.errors import first_line
from orchestrator.shell.eventlog import SNAPSHOT_EVERY, EventLog, SnapshotPacer, event_time
from orchestrator.shell.export import side_event_id, stream_name
from orchestrator.shell.long_poll import LongPolls
from orchestrator.shell.orchestrators import Answer, OrchestratorHandle, orchestrator_name
from orchestrator.shell.recovery import rebuild_from_store
from orchestrator.shell.simulation import entry_deposits
from orchestrator.shell.store import Store, StoredHand, open_store
from orchestrator.shell.tables import TableFleet, TableLost, TableReplica, TableSettings
from orchestrator.views.metrics import OrchestratorTimings
from table_worker.protocol import HandReport, TableDirective

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreSettings:
    """Where the run's log lives: the store's URL and this run's id (a rerun of the same
    tournament and seed starts a log of its own: `export.stream_name`)."""

    url: str
    run_id: str
    snapshot_every: int = SNAPSHOT_EVERY  # events between snapshots of the core
    epoch: str | None = None  # the store's when the run began: a store without it lost its data


class Orchestrator:
    def __init__(
        self,
        config: TournamentConfig,
        players: list[str],
        *,
        deposits: dict[str, int],
        tournament_id: str,
        seed: int,
        out_dir: str,
        tables: TableSettings,
        store: StoreSettings,
        tickets: dict[str, int] | None = None,
    ) -> None:
        """`deposits`: the money (cents) each player, and each who may register late, brings
        (`shell.simulation.entry_deposits` for bots); `tickets`: the satellite tickets (cents)
        the players who won one enter with (SAT-3)."""
        self._tournament_id = tournament_id
        self._settings = tables
        self._store_settings = store
        self._config = config
        self._seed = seed
        self._out = Path(out_dir)
        self._side_events: list[Answer[dict[str, Any]]] = []  # their completions (RB-6)
        self._changed = asyncio.Event()  # a table's loop ended
        self._polls = LongPolls()  # the waiting tables' polls, held until they may deal
        self._watchers: set[asyncio.Task[None]] = set()  # held: the loop keeps weak refs
        self._fleet = TableFleet(tournament_id, tables, spares=config.spare_tables)
        self._lost: dict[str, set[int]] = {}  # node -> tables restarted because it died
        self._node_checks: dict[str, asyncio.Task[None]] = {}
        self._attaching: asyncio.Task[None] | None = None  # see _ready
        self._results: dict[str, Any] | None = None
        # Wall and CPU time per report, bounded so nothing grows per hand.
        self._report_seconds: deque[tuple[float, float]] = deque(maxlen=100_000)
        # (report, decision) wall seconds since the metrics exporter last asked; bounded too.
        self._timings: deque[tuple[float, float]] = deque(maxlen=100_000)
        self._stream = stream_name(tournament_id, store.run_id)
        self._owner = orchestrator_name(tournament_id)  # a restart of this actor is the owner
        self._store: Store = open_store(store.url, epoch=store.epoch)
        if store.epoch is not None:  # a restart on a store that lost its data stops here
            _patiently(lambda: self._store.check_epoch(store.epoch or ""))
        _patiently(self._take_lease)
        self._log = EventLog(self._store, self._stream)
        self._snapshot_pace = SnapshotPacer(store.snapshot_every)
        opened = TournamentOpened(
            tournament=tournament_id,
            config=config,
            players=tuple(players),
            deposits=dict(deposits),
            seed=seed,
            tickets=dict(tickets or {}),
        )
        rebuilt = _patiently(lambda: rebuild_from_store(self._store, self._stream, given=opened))
        self._recovered = rebuilt is not None
        global _crashes
        crashes = _crashes = CrashBook(self._store, self._stream, at=lambda: self._log.durable_seq)
        if rebuilt is not None:  # Ray restarted us: the log has the truth
            self._tournament = rebuilt.tournament
            self._log.resume(rebuilt.records, after=rebuilt.after)
            _patiently(lambda: crashes.check(self._log.seq))
            self._opening: tuple[Directive, ...] = ()
        else:
            with contextlib.suppress(TournamentExists):  # by our incarnation that just died
                _patiently(
                    lambda: self._store.register(
                        self._stream,
                        {
                            "tournament": tournament_id,
                            "run": store.run_id,
                            "out": str(self._out),  # where its files are exported
                            "seed": seed,
                        },
                    )
                )
            now = event_time(time.time())
            # The log's first record holds all the start is given: the log alone rebuilds.
            self._tournament, step = open_tournament(opened, now=now)
            self._log.append(step.events, ts=now)
            self._opening = step.directives
            self._save_snapshot()  # a restart then replays none of a big field's start

    def _take_lease(self) -> None:
        if not self._store.acquire(self._stream, self._owner, LEASE_SECONDS):
            raise LeaseLost(
                f"tournament {self._stream!r} is run by {self._store.owner(self._stream)!r}"
            )

    async def _ready(self) -> None:
        """Once per incarnation, at the first call: open the first tables, or after a restart
        find the live table actors (restarting the tables that have none), and keep the
        lease. Every call waits for it: after a restart the tables' retried reports, the
        driver's `complete` and its status polls arrive together, and one that went on while
        the tables were still being found would see no table (`complete` would answer with a
        tournament half played)."""
        if self._attaching is None:
            self._attaching = asyncio.get_running_loop().create_task(self._attach())
        await self._attaching

    async def _attach(self) -> None:
        self._self = ray.get_runtime_context().current_actor
        self._fleet.bind(self._self)
        self._spawn(self._keep_lease())
        if not self._recovered:
            self._carry_out(self._opening)
        else:
            in_play = sorted(t for t in self._tournament.tables if self._in_play(t))
            missing = await self._fleet.recover(in_play)  # the spares found join the pool
            for table in in_play:
                if table in missing:
                    self._spawn(self._restart(table))
                else:
                    self._spawn(self._follow(self._fleet.replicas[table]))
            self._reattach_side_events()
        # The spares are asked for right after the tables' actors, which each node then starts
        # first (START-1 waits for the tables alone), so they are up soon after play starts.
        await self._fleet.refill_spares()
        self._spawn(self._keep_spares())

    def _spawn(self, work: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(work)
        self._watchers.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        """A background task (a table followed, restarted, a node checked) that failed would
        leave its table unwatched and the tournament waiting for it forever, maybe with the
        core half-way through a step: crash, and Ray rebuilds this actor from the log."""
        self._watchers.discard(task)
        if not task.cancelled() and (failure := task.exception()) is not None:
            _crash(f"the background task {task.get_coro()!r} failed", failure)

    async def _keep_lease(self) -> None:
        """Renew the ownership lease; if someone else holds it, take no further decision."""
        while self._results is None:
            await asyncio.sleep(LEASE_SECONDS / 3)
            try:
                renew = self._store.acquire  # in a thread: the committer may hold the store
                if not await asyncio.to_thread(renew, self._stream, self._owner, LEASE_SECONDS):
                    self._lease_lost = True
                    return
            except StoreUnavailable:
                continue  # the store is away: decisions wait for it anyway (write-ahead)

    _lease_lost = False

    async def _keep_spares(self) -> None:
        """Keep each node's warm spare table actors while the tournament plays; then they go."""
        while self._results is None and not self._tournament.finished:
            await asyncio.sleep(SPARE_SECONDS)
            await self._fleet.refill_spares()
        self._fleet.let_spares_go()

    async def start(self) -> int:
        """Create the opening tables' actors and set them playing; returns how many."""
        await self._ready()
        return len(self._fleet.replicas)

    def _open_table(self, directive: TableDirective, replica: TableReplica | None = None) -> None:
        replica = replica or self._fleet.create(directive.table)
        self._fleet.play(replica, directive)
        self._spawn(self._watch(replica))

    async def _watch(self, replica: TableReplica) -> None:
        """Follow one table actor's loop; when the actor or its node dies, or its loop fails,
        the table restarts on a live node with its hand in progress voided (the CRASH
        decision). A deck service that is away is no failure: the table waits for it at its
        hand boundary, as long as it takes (`table_worker.actor`), and is not restarted."""
        try:
            await self._fleet.ready(replica)
            await self._table_ready(replica.table)
            await self._fleet.played(replica)
        except TableLost as lost:
            if self._current(replica) and self._in_play(replica.table):
                _log_loss(lost)
                await self._restart(replica.table)
                return
        self._closed(replica)

    async def _follow(self, replica: TableReplica) -> None:
        """Follow a table actor found after a restart (its run loop's result belonged to the old
        orchestrator): alive while it answers and plays, done once its table is closed.
        One that is not playing (its loop failed, or the old orchestrator died before the
        loop's call reached it) is replaced like a dead one."""
        try:
            await self._fleet.ready(replica)
            await self._table_ready(replica.table)
            while self._in_play(replica.table):
                await self._fleet.still_playing(replica)
                await asyncio.sleep(FOLLOW_SECONDS)
        except TableLost as lost:
            if self._current(replica) and self._in_play(replica.table):
                _log_loss(lost)
                await self._restart(replica.table)
                return
        self._fleet.draining(replica)
        await asyncio.sleep(FOLLOW_SECONDS)  # let it take its close directive and finish
        self._closed(replica)

    async def _table_ready(self, table: int) -> None:
        """START-1: the table's actor answered; the core hears it as a logged step (once per
        table: a repeat decides nothing), and play starts when every table has."""
        if not self._in_play(table):
            return
        now = event_time(time.time())
        step = _decide(lambda: self._tournament.table_ready(table, now=now))
        if step.events:
            await self._record(step, now)

    def _current(self, replica: TableReplica) -> bool:
        return self._fleet.replicas.get(replica.table) is replica

    def _closed(self, replica: TableReplica) -> None:
        self._fleet.close(replica)
        self._changed.set()

    def _in_play(self, table: int) -> bool:
        """Open and still to play: the final table stays open once the tournament is won."""
        return table in self._tournament.tables and not self._tournament.finished

    async def _restart(self, table: int) -> None:
        started = time.perf_counter()
        replica = self._fleet.replicas[table]
        lost_node = self._fleet.lost(replica)
        if lost_node:
            self._lost.setdefault(lost_node, set()).add(table)
            if lost_node not in self._node_checks:  # one check per node, aside
                self._node_checks[lost_node] = self._spawn(self._log_node_loss(lost_node))
        # The next actor (a warm spare taken, or a new one started) while the void becomes
        # durable: neither deals before its restart is logged, below.
        replacing = asyncio.ensure_future(self._fleet.replacement(table, avoid=lost_node))
        if self._in_play(table):
            self._stage(self._tournament.table_lost(table), time.time())  # the hand is void
            await self._durable()
        voided, attempts = time.perf_counter(), 0
        while True:  # a new actor may land on a node that is dying too: then try again
            attempts += 1
            replica = await replacing
            spare = bool(replica.node)  # a spare's node is known when it is taken
            try:
                node = replica.node or await self._fleet.ready(replica)
                break
            except TableLost:
                await asyncio.sleep(RESTART_BACKOFF)
                replacing = asyncio.ensure_future(self._fleet.replacement(table, avoid=lost_node))
        placed = time.perf_counter()
        if not self._in_play(table):  # closed meanwhile (or the tournament ended)
            self._closed(replica)
            return
        step = self._tournament.table_restarted(table, node=node)
        await self._record(step, time.time())  # logged before the new actor deals
        logged = time.perf_counter()
        assert step.reply is not None
        self._open_table(step.reply, replica)
        logging.getLogger(__name__).warning(
            "table %d restarted %.3fs after its loss was seen: void durable at %.3fs, new "
            "actor ready at %.3fs (%d attempts, %s), restart durable at %.3fs",
            table,
            time.perf_counter() - started,
            voided - started,
            placed - started,
            attempts,
            "a spare" if spare else "a new process",
            logged - started,
        )

    async def _log_node_loss(self, node: str) -> None:
        """`node_lost` once Ray reports the node dead (a lone actor's death is not one),
        naming the tables whose actors died with it: those restarted because of it so far,
        and those still mapped to it (their deaths are on the way)."""
        if await self._fleet.node_died(node):
            still = {t for t, n in self._fleet.hosted().items() if n == node}
            tables = tuple(sorted(self._lost.get(node, set()) | still))
            self._stage([NodeLost(node=node, tables=tables)], time.time())
            await self._durable()

    async def table_nodes(self) -> dict[int, str]:
        """Which node hosts each open table (for chaos drills and operators): not a closed
        table whose actor is still finishing its last hand (it is never restarted, so a
        drill that killed its node for it would test no restart)."""
        await self._ready()
        return {t: node for t, node in self._fleet.hosted().items() if self._in_play(t)}

    async def _record(self, step: Step, now: float, hands: tuple[StoredHand, ...] = ()) -> None:
        """Log a step's events (write-ahead: durable before anything is carried out), then
        carry out its directives: tables to open, side events to start."""
        self._stage(step.events, now, hands)
        await self._durable()
        self._carry_out(step.directives)

    def _carry_out(self, directives: tuple[Directive, ...]) -> None:
        for directive in directives:
            if isinstance(directive, OpenTable):
                if directive.table not in self._fleet.replicas:
                    self._open_table(directive.first)
            else:
                self._start_side_event(directive)

    def _stage(self, events: list[Event], now: float, hands: tuple[StoredHand, ...] = ()) -> None:
        """Queue a step's events and hands for the next group commit (no await: steps are
        staged in the order they are decided); a snapshot when one is due (`SnapshotPacer`:
        every `snapshot_every` events, at most 5% of the time)."""
        if self._lease_lost:
            raise LeaseLost(f"tournament {self._stream!r}: the lease went to another owner")
        self._log.stage(events, ts=now, hands=hands)
        tournament = self._tournament
        self._polls.stepped(
            events, tournament.wake_mark(), tournament.slowest(), tournament.idle_wakes()
        )
        if self._snapshot_pace.staged(len(events)) and self._snapshots:
            # Taken when the loop next turns, a step boundary (no step awaits inside): the
            # encoding runs while this step's batch is being written, not before its reply.
            asyncio.get_running_loop().call_soon(self._take_snapshot)

    def _take_snapshot(self) -> None:
        """The core as the last staged step left it, saved once the log holds that step."""
        state = self._snapshot_state()
        if state is not None:
            self._log.offer_snapshot(self._log.seq, state)

    def _snapshot_state(self) -> bytes | None:
        """The core's state as a snapshot; None, and no more snapshots, for state the snapshot
        codec cannot write (a bug, not fatal: the log alone rebuilds the tournament)."""
        try:
            return self._snapshot_pace.take(lambda: snapshot(self._tournament))
        except RecordError as exc:
            logging.getLogger(__name__).error("no more snapshots of %s: %s", self._stream, exc)
            self._snapshots = False
            return None

    async def _durable(self) -> None:
        """Wait until every step staged so far is in the store."""
        try:
            await self._log.durable()
        except Exception as exc:  # RecoveryError, a conflict: the core is ahead of its log
            _crash("the event log refused a step", exc)

    def _save_snapshot(self) -> None:
        """A snapshot now, from the constructor (nothing else is writing yet)."""
        state = self._snapshot_state()
        if state is None:
            return
        with contextlib.suppress(StoreUnavailable):  # the next one tries again; the log
            self._store.save_snapshot(self._stream, self._log.seq, state)  # alone rebuilds

    _snapshots = True  # until the snapshot codec fails on the core's state

    def _side_event_name(self, event: int) -> str:
        return side_event_id(self._tournament_id, event)

    def _start_side_event(self, event: StartSideEvent) -> None:
        """RB-6: a side event is a tournament of its own (registration, ledger, log, tables)
        run by its own orchestrator beside this one."""
        out = self._out / "side-events" / str(event.event)  # where `export_run` puts it
        settings = TableSettings(
            deck_target=self._settings.deck_target,
            bots=self._settings.bots,
            seed=self._seed + event.event,
        )
        side_id = self._side_event_name(event.event)
        config = self._config.side_event_config(event.event)
        side = OrchestratorHandle.launch(
            config,
            list(event.players),
            deposits=entry_deposits(config, event.players),  # the bots all bring it (RB-6)
            tournament_id=side_id,
            seed=self._seed + event.event,
            out_dir=str(out),
            tables=settings,
            store=self._store_settings,
        )
        side.start()
        self._side_events.append(side.complete())

    def _reattach_side_events(self) -> None:
        """After a restart: wait again for the side events started before it (detached,
        they live on; one not found is started now, from its own log if it has one)."""
        for event in range(1, self._tournament.side_events + 1):
            side = OrchestratorHandle.find(self._side_event_name(event))
            if side is None:
                continue  # finished and gone: its files are written
            self._side_events.append(side.complete())

    async def hands_played(self) -> int:
        """Wait for every table's loop to end (tables opened meanwhile included); the hands
        the tournament played (reports applied)."""
        await self._ready()
        while self._fleet.replicas:
            await self._changed.wait()
            self._changed.clear()
        return self._tournament.hands

    async def complete(self) -> dict[str, Any]:
        """Wait for the tournament and its side events to end; return the results (as
        `export_run` writes them to results.json) with the hands played (side events'
        included). Asked again (after a restart), it answers the same."""
        hands = await self.hands_played()
        self._fleet.let_spares_go()
        if self._results is not None:
            return self._results
        sides: list[dict[str, Any]] = []
        while len(sides) < len(self._side_events):
            sides = list(await asyncio.gather(*self._side_events))
        # A last snapshot: an export, `mtt cancel` or a restart rebuilds from it at once.
        self._take_snapshot()
        try:
            await self._log.settle()
        except Exception as exc:  # as in _durable: the core is ahead of its log
            _crash("the event log refused a step", exc)
        last = self._log.last_ts if self._log.last_ts is not None else time.time()
        results = self._tournament.results(seconds=last - self._tournament.started_at)
        self._results = {
            "results": results,
            "hands": hands,
            "side_event_hands": sum(side["hands"] for side in sides),
            "side_events": len(sides),
        }
        with contextlib.suppress(StoreUnavailable):  # then the lease expires by itself
            await asyncio.to_thread(self._store.release, self._stream, self._owner)
        return self._results

    async def report_hand(self, report: HandReport) -> TableDirective:
        await self._ready()
        started, cpu_started = time.perf_counter(), time.thread_time()
        now = event_time(time.time())
        rng = step_rng(self._seed, self._log.seq)
        step = _decide(lambda: self._tournament.apply_hand(report, now=now, rng=rng))
        decided = time.perf_counter()
        self._stage(step.events, now, _history(report, step))
        cpu = time.thread_time() - cpu_started  # the report's own work: decide and stage
        await self._durable()
        self._carry_out(step.directives)
        handled = time.perf_counter()
        self._report_seconds.append((handled - started, cpu))
        self._timings.append((handled - started, decided - started))
        assert step.reply is not None
        return step.reply

    async def poll(self, table: int) -> TableDirective:
        """A waiting table asks again; answered when it may deal (a long poll, `LongPolls`),
        or after `HOLD_SECONDS` with "wait" (it asks again)."""
        await self._ready()

        def decide() -> Step:
            now = event_time(time.time())
            rng = step_rng(self._seed, self._log.seq)
            step = _decide(lambda: self._tournament.poll(table, now=now, rng=rng))
            self._stage(step.events, now)
            return step

        async def durable(step: Step) -> None:
            await self._durable()
            self._carry_out(step.directives)

        release_at = partial(self._tournament.release_at, table)
        step = await self._polls.poll(table, decide, durable, release_at)
        assert step.reply is not None
        return step.reply

    async def pause(self) -> None:
        """Stop the clock: tables finish their hand in progress, then wait."""
        await self._ready()
        await self._command(self._tournament.pause)

    async def resume(self) -> None:
        await self._ready()
        await self._command(self._tournament.resume)

    async def cancel(self, reason: str) -> None:
        """CRASH-2 by the operator: hands in progress voided, everyone still in rolled forward
        through the ledger, every table closed at its next boundary; `complete()` returns."""
        await self._ready()
        await self._command(lambda *, now: self._tournament.cancel(reason, now=now))

    async def register_late(self, player: str, deposit: int = 0, key: str = "") -> None:
        """REG-1 during late registration: the player (funded at the start, or now with
        `deposit` cents, paid from his wallet under `key`) pays his entry and takes a random
        seat; refused (the error raised here) once registration closed."""
        await self._ready()
        rng = step_rng(self._seed, self._log.seq)
        await self._command(
            lambda *, now: self._tournament.register_late(
                player, now=now, rng=rng, deposit=deposit, key=key
            )
        )

    async def withdraw_funding(self, key: str) -> None:
        """LATE: the front door gives back the payment `key` (`Tournament.withdraw_funding`);
        `FundingTakenError` raised here if the run took it. Answered once it is durable."""
        await self._ready()
        try:
            await self._command(lambda *, now: self._tournament.withdraw_funding(key, now=now))
        except FundingTakenError:
            await self._durable()  # the step that took it may still be on its way to the store
            raise

    async def sanction(
        self, kind: SanctionKind, player: str, *, judge: str, reason: str, hands: int = 0
    ) -> None:
        """SAN-1/SAN-2: a judge's warning, penalty (`hands` sat out) or disqualification."""
        await self._ready()
        kind = SanctionKind(kind)  # refuse an unknown kind here, before the core
        await self._command(
            lambda *, now: self._tournament.sanction(
                kind, player, judge=judge, reason=reason, now=now, hands=hands
            )
        )

    async def request_rebuy(self, player: str) -> None:
        """RB-3: a player's rebuy, taken at his next hand boundary."""
        await self._ready()
        await self._command(lambda *, now: self._tournament.request_rebuy(player, now=now))

    async def propose_deal(
        self, kind: str, left: int = 0, bots: Sequence[str] | None = None
    ) -> None:
        """DEAL-1 at the final table's boundary: play pauses and the deal is put to every player
        still in. The `bots` among them (None: all, as in `mtt run`) answer at once by
        `[deal] bots_accept`, each answer its own logged step; the last acceptance pays it."""
        await self._ready()
        await self._command(lambda *, now: self._tournament.propose_deal(kind, left=left, now=now))
        rule = self._tournament.config.deal_bots_accept
        vote = self._tournament.play.deal_vote
        if vote is None:
            return
        for player in vote.waiting_for:
            if self._tournament.play.deal_vote is not vote:
                break  # refused: play resumed
            if bots is None or player in bots:
                await self.answer_deal(player, bot_accepts(rule, vote.deal, player))

    async def answer_deal(self, player: str, accept: bool) -> None:
        """DEAL-1: a player's answer to the deal proposed."""
        await self._ready()
        await self._command(lambda *, now: self._tournament.answer_deal(player, accept, now=now))

    async def _command(self, command: Callable[..., Step]) -> None:
        now = event_time(time.time())
        await self._record(_decide(lambda: command(now=now)), now)

    async def events_since(self, seq: int) -> list[dict[str, Any]]:
        return self._log.since(seq)

    async def status(self) -> dict[str, Any]:
        t = self._tournament
        stacks = t.stacks.values()
        level = t.level
        return {
            "players_left": t.active_players,
            "entries": t.entries,
            "tables": len(t.tables),
            "level": t.clock.level,
            "blinds": (level.small_blind, level.big_blind, level.ante),
            "hands": t.hands,
            "average_stack": sum(stacks) // max(1, len(stacks)),
            "largest_stack": max(stacks, default=0),
            "finished": t.finished,
            "paused": t.paused_at is not None,
            "cancelled": t.cancelled,
            "spares": len(self._fleet.spares.spares),  # asked for: starting or ready
            "spares_ready": sum(s.ready for s in self._fleet.spares.spares),  # warm, to take
            "spares_ready_on": self._fleet.spares_ready_on(),  # by node
        }

    async def standings(self) -> list[dict[str, Any]]:
        """Every player: stack (0 once out), place (0 while playing), prize in cents."""
        t = self._tournament
        prizes = t.prizes()
        playing = [
            {"player": p, "stack": stack, "place": 0, "prize": 0}
            for p, stack in t.stacks.items()
            if p not in t.places
        ]
        placed = [
            {"player": p, "stack": 0, "place": place, "prize": prizes[place - 1]}
            if place <= len(prizes)
            else {"player": p, "stack": 0, "place": place, "prize": 0}
            for p, place in t.places.items()
        ]
        return playing + placed

    async def timings_since_last_call(self) -> OrchestratorTimings:
        """Report handling and decision seconds of the reports since the previous call
        (the metrics exporter's; `orchestrator.views.metrics`)."""
        timings, self._timings = self._timings, deque(maxlen=self._timings.maxlen)
        return OrchestratorTimings(
            report_seconds=tuple(r for r, _ in timings),
            decision_seconds=tuple(d for _, d in timings),
        )

    async def report_seconds(self) -> list[tuple[float, float]]:
        """Per hand report (`mtt bench`): wall seconds until it was answered (its batch
        durable included), CPU seconds of its own work (the core's decision, staging)."""
        return list(self._report_seconds)


LEASE_SECONDS = 30.0  # the ownership lease's TTL; renewed every third of it
FOLLOW_SECONDS = 0.5  # a found table actor is asked this often whether it lives
SPARE_SECONDS = 1.0  # how often the warm spares are topped up
RESTART_BACKOFF = 0.2  # seconds between attempts to start a table's new actor
STORE_PATIENCE = 60.0  # seconds a restarting orchestrator waits for its store


def _log_loss(lost: TableLost) -> None:
    """Why a table is restarted, in one line (its actor died, its node, or its loop failed)."""
    cause = f": {first_line(lost.__cause__)}" if lost.__cause__ is not None else ""
    logging.getLogger(__name__).warning("%s%s; restarting it", lost, cause)


def _history(report: HandReport, step: Step) -> tuple[StoredHand, ...]:
    """The report's hand history, to store with its step if the step applied the hand (a
    repeated, refused or voided report's step has no `hand_finished` for it)."""
    applied = any(
        isinstance(e, HandFinished) and (e.table, e.hand) == (report.table, report.hand)
        for e in step.events
    )
    if not applied or not report.history:
        return ()
    return (StoredHand(report.table, report.hand, report.history),)


def _decide(step: Callable[[], Step]) -> Step:
    """Take one step of the core. Its refusals (a report that does not match the hand dealt,
    a command the state, the registration or the judges refuse) are raised before it changes
    anything and go back to the caller; any other failure may leave it half-way through a step
    that no log holds."""
    try:
        return step()
    except (
        ReportError,
        TournamentStateError,
        RegistrationError,
        LedgerError,
        SanctionError,
        DealError,
    ):
        raise
    except Exception as exc:  # the top of the step: the core's state is unknown now
        _crash("the tournament core failed in a step", exc)


class CrashBook:
    """The orchestrator's crashes, in the store beside its log (stream `{run}.crashes`, one
    record per crash with the log's seq at the time), so a restart knows whether its
    predecessors got anywhere: Ray restarts the actor for ever (no budget, any number of
    kills), but a failure that comes back on every rebuild, with no step taken in between,
    ends the run after `CRASH_LOOP` of them instead of looping."""

    def __init__(self, store: Store, stream: str, *, at: Callable[[], int]) -> None:
        self._store = store
        self._stream = f"{stream}.crashes"
        self._at = at  # the log's durable seq: where a restart rebuilds to

    def record(self, reason: str) -> None:
        """Best effort: the store may be what failed."""
        with contextlib.suppress(Exception):
            last = self._store.last_seq(self._stream)
            crash = {"seq": last + 1, "ts": time.time(), "type": "crash", "at": self._at()}
            self._store.append(self._stream, [crash | {"reason": reason}])

    def check(self, at: int) -> None:
        """`RecoveryError` when the last `CRASH_LOOP` crashes all came at seq `at`."""
        last = self._store.last_seq(self._stream)
        crashes = self._store.read(self._stream, after=max(0, last - CRASH_LOOP))
        if len(crashes) == CRASH_LOOP and all(c.get("at") == at for c in crashes):
            raise RecoveryError(
                f"the orchestrator crashed {CRASH_LOOP} times at seq {at} with no step taken "
                f"in between (last: {crashes[-1].get('reason')}): not restarted again; its "
                "log holds every step taken, fix the cause and `mtt resume`"
            )


CRASH_LOOP = 5  # crashes at one log position in a row that end the run
_crashes: CrashBook | None = None  # this process's orchestrator's (one actor per process)


def _crash(reason: str, failure: BaseException) -> NoReturn:
    """Die with the reason logged and recorded: Ray restarts this actor (a crash, not an
    exit), and the new one rebuilds the core from the log, which holds every step that was
    taken whole."""
    logging.getLogger(__name__).error("%s; restarting from the log", reason, exc_info=failure)
    if _crashes is not None:
        _crashes.record(f"{reason}: {failure!r}")
    logging.shutdown()
    os._exit(1)


def _patiently(call: Callable[[], _T]) -> _T:
    """A store call made while (re)starting: the store may be coming back too."""
    deadline = time.monotonic() + STORE_PATIENCE
    while True:
        try:
            return call()
        except StoreUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
