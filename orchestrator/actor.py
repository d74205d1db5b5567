"""The orchestrator actor: the tournament core behind Ray, with the event log in front.

Every call runs to completion before the next (no awaits inside), so the core sees reports
one at a time in the order recorded; each step's events are written to the log before the
directive goes back to the table (write-ahead). It creates a table actor for every table the
core opens (at the start, and later for a shoot-out's next phase) and closes none by force:
a table ends its own loop when its directive says close.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ray

from orchestrator.config import TournamentConfig
from orchestrator.eventlog import EventLog
from orchestrator.events import Event, NodeLost, SideEventStarted, TableOpened
from orchestrator.metrics import OrchestratorTimings
from orchestrator.tournament import HandReport, Step, TableDirective, Tournament

if TYPE_CHECKING:
    from table_worker.remote import GatewaySettings


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSettings:
    """What every table actor of this run is created with."""

    deck_target: str
    hands_dir: str
    policies: tuple[str, ...]
    seed: int
    gateway: GatewaySettings | None = None  # remote players' seats (the front door)


class Orchestrator:
    def __init__(
        self,
        config: TournamentConfig,
        players: list[str],
        *,
        tournament_id: str,
        seed: int,
        out_dir: str,
        tables: TableSettings,
    ) -> None:
        self._tournament_id = tournament_id
        self._settings = tables
        self._config = config
        self._seed = seed
        self._out = Path(out_dir)
        self._started_at = time.time()
        self._side_events: list[Any] = []  # ObjectRefs of side events' completion (RB-6)
        # An async actor may run calls out of order: completion waits for the start.
        self._started = asyncio.Event()
        self._changed = asyncio.Event()  # a table's loop ended
        self._watchers: set[asyncio.Task[None]] = set()  # held: the loop keeps weak refs
        self._played = 0
        self._nodes: dict[int, str] = {}  # table -> node of its current actor
        self._generation: dict[int, int] = {}  # restarts give each actor a new name
        self._node_checks: dict[str, asyncio.Task[None]] = {}
        self._runs: dict[int, Any] = {}  # table -> ObjectRef of its run loop
        self._rng = random.Random(seed)
        self._log = EventLog(Path(out_dir) / "events.jsonl")
        now = time.time()
        self._tournament, step = Tournament.start(
            config, players, tournament_id=tournament_id, now=now, rng=self._rng
        )
        self._log.append(step.events, ts=now)
        # Wall and CPU time per report, bounded so nothing grows per hand.
        self._report_seconds: deque[tuple[float, float]] = deque(maxlen=100_000)
        # (report, decision) wall seconds since the metrics exporter last asked; bounded too.
        self._timings: deque[tuple[float, float]] = deque(maxlen=100_000)

    async def start(self, handle: Any) -> int:
        """Create the opening tables' actors and set them playing; returns how many."""
        self._self = handle
        for directive in self._tournament.first_hands():
            self._open_table(directive)
        self._started.set()
        return len(self._runs)

    def _new_table_actor(self, table: int) -> Any:
        from table_worker.actor import TableActor  # the table module loads in table processes

        settings = self._settings
        self._generation[table] = self._generation.get(table, 0) + 1
        name = f"{self._tournament_id}-table-{table}-{self._generation[table]}"
        return TableActor.options(name=name, scheduling_strategy="SPREAD").remote(
            tournament_id=self._tournament_id,
            table=table,
            orchestrator=self._self,
            deck_target=settings.deck_target,
            hands_dir=settings.hands_dir,
            policies=settings.policies,
            seed=settings.seed,
            gateway=settings.gateway,
        )

    def _open_table(self, directive: TableDirective, actor: Any = None) -> None:
        actor = actor if actor is not None else self._new_table_actor(directive.table)
        node = actor.node.remote()  # asked first: a table actor runs one call at a time
        run = actor.run.remote(directive)
        self._runs[directive.table] = run
        watcher = asyncio.get_running_loop().create_task(self._watch(directive.table, node, run))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def _watch(self, table: int, node: Any, run: Any) -> None:
        """Follow one table actor's loop; when the actor or its node dies, the table restarts
        on a live node with its hand in progress voided (the CRASH decision)."""
        try:
            self._nodes[table] = await node
            played = await run  # awaited first: `x += await y` would read x before the wait
            self._played += played
        except ray.exceptions.RayActorError:
            if self._runs.get(table) is run and table in self._tournament.tables:
                await self._restart(table)
                return
        if self._runs.get(table) is run:
            del self._runs[table]
        self._changed.set()

    async def _restart(self, table: int) -> None:
        lost_node = self._nodes.get(table, "")
        if lost_node and lost_node not in self._node_checks:  # one check per node, aside
            on_it = tuple(
                sorted(t for t, n in self._nodes.items() if n == lost_node and t in self._runs)
            )
            check = asyncio.get_running_loop().create_task(self._log_node_loss(lost_node, on_it))
            self._node_checks[lost_node] = check
        if table in self._tournament.tables:
            self._record(self._tournament.table_lost(table), time.time())  # the hand is void
        while True:  # a new actor may land on a node that is dying too: then try again
            actor = self._new_table_actor(table)
            try:
                node = await actor.node.remote()
                break
            except ray.exceptions.RayActorError:
                await asyncio.sleep(RESTART_BACKOFF)
        if table not in self._tournament.tables:  # closed meanwhile (or the tournament ended)
            self._runs.pop(table, None)
            self._changed.set()
            return
        step = self._tournament.table_restarted(table, node=node)
        self._record(step.events, time.time())  # logged before the new actor deals
        assert step.directive is not None
        self._open_table(step.directive, actor)

    async def _log_node_loss(self, node: str, tables: tuple[int, ...]) -> None:
        """`node_lost` once Ray reports the node dead (a lone actor's death is not one)."""
        if await _node_died(node):
            self._log.append([NodeLost(node=node, tables=tables)], ts=time.time())

    async def table_nodes(self) -> dict[int, str]:
        """Which node hosts each open table (for chaos drills and operators)."""
        return {t: n for t, n in self._nodes.items() if t in self._runs}

    def _record(self, events: list[Event], now: float) -> None:
        self._log.append(events, ts=now)  # write-ahead: before anything is carried out
        for event in events:
            if (
                isinstance(event, TableOpened)
                and event.table not in self._runs
                and event.table in self._tournament.tables  # not closed again meanwhile
            ):
                self._open_table(self._tournament.opening_directive(event.table))
            elif isinstance(event, SideEventStarted):
                self._start_side_event(event)

    def _start_side_event(self, event: SideEventStarted) -> None:
        """RB-6: a side event is a tournament of its own (registration, ledger, log, tables)
        run by its own orchestrator beside this one."""
        out = self._out / "side-events" / str(event.event)
        out.mkdir(parents=True, exist_ok=True)
        settings = TableSettings(
            deck_target=self._settings.deck_target,
            hands_dir=str(out / "hands"),
            policies=self._settings.policies,
            seed=self._seed + event.event,
        )
        side_id = f"{self._tournament_id}-side{event.event}"
        side = OrchestratorActor.options(name=f"{side_id}-orchestrator").remote(
            self._config.side_event_config(event.event),
            list(event.players),
            tournament_id=side_id,
            seed=self._seed + event.event,
            out_dir=str(out),
            tables=settings,
        )
        side.start.remote(side)
        self._side_events.append(side.complete.remote())

    async def hands_played(self) -> int:
        """Wait for every table's loop to end (tables opened meanwhile included); the hands
        they played in all."""
        await self._started.wait()
        while self._runs:
            await self._changed.wait()
            self._changed.clear()
        return self._played

    async def complete(self) -> dict[str, Any]:
        """Wait for the tournament and its side events to end; write results.json; return the
        results with the hands played (side events' included)."""
        hands = await self.hands_played()
        sides: list[dict[str, Any]] = []
        while len(sides) < len(self._side_events):
            sides = list(await asyncio.gather(*self._side_events))
        seconds = time.time() - self._started_at
        results = self._tournament.results(seconds=seconds)
        (self._out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        self._log.close()
        return {
            "results": results,
            "hands": hands,
            "side_event_hands": sum(side["hands"] for side in sides),
            "side_events": len(sides),
        }

    async def hand_finished(self, report: HandReport) -> TableDirective:
        started, cpu_started = time.perf_counter(), time.thread_time()
        now = time.time()
        step = self._tournament.hand_finished(report, now=now, rng=self._rng)
        decided = time.perf_counter()
        self._record(step.events, now)
        handled = time.perf_counter()
        self._report_seconds.append((handled - started, time.thread_time() - cpu_started))
        self._timings.append((handled - started, decided - started))
        assert step.directive is not None
        return step.directive

    async def poll(self, table: int) -> TableDirective:
        now = time.time()
        step = self._tournament.poll(table, rng=self._rng)
        self._record(step.events, now)
        assert step.directive is not None
        return step.directive

    async def pause(self) -> None:
        """Stop the clock: tables finish their hand in progress, then wait."""
        self._command(self._tournament.pause)

    async def resume(self) -> None:
        self._command(self._tournament.resume)

    async def cancel(self, reason: str) -> None:
        """CRASH-2 by the operator: hands in progress voided, everyone still in rolled forward
        through the ledger, every table closed at its next boundary; `complete()` returns."""
        self._command(lambda *, now: self._tournament.cancel(reason, now=now))

    def _command(self, command: Callable[..., Step]) -> None:
        now = time.time()
        self._record(command(now=now).events, now)  # refused commands raise, logging nothing

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
        (the metrics exporter's; `orchestrator.metrics`)."""
        timings, self._timings = self._timings, deque(maxlen=self._timings.maxlen)
        return OrchestratorTimings(
            report_seconds=tuple(r for r, _ in timings),
            decision_seconds=tuple(d for _, d in timings),
        )

    async def report_seconds(self) -> list[tuple[float, float]]:
        """(wall, CPU) seconds the core and the log took per hand report (`mtt bench`)."""
        return list(self._report_seconds)


# Typed as Any: Ray's decorator hides the class behind its own proxy type.
OrchestratorActor: Any = ray.remote(num_cpus=0)(Orchestrator)


RESTART_BACKOFF = 0.2  # seconds between attempts to start a table's new actor
NODE_DEATH_WAIT = 10.0  # Ray notices a dead node within seconds, later on a loaded machine


async def _node_died(node: str) -> bool:
    """Whether the node is (or within a few seconds is reported) dead, not just one actor."""
    deadline = time.monotonic() + NODE_DEATH_WAIT
    while time.monotonic() < deadline:
        nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
        if not any(n["NodeID"] == node and n["Alive"] for n in nodes):
            return True
        await asyncio.sleep(0.2)
    return False
