"""Every Ray call on table actors, and the state of each (one wrapper per remote thing).

The orchestrator actor decides when a table starts, is followed, is restarted or is let go;
this module is how: it names, places, creates, finds, asks and kills table actors, and keeps
one `TableReplica` per table with an explicit `TableState`, the way Ray Serve keeps its
replicas in `ActorReplicaWrapper`. Nothing else in the package calls Ray on a table.

    STARTING ──ready──> RUNNING ──table closed──> DRAINING ──loop ended──> CLOSED
        │                  │
        └───────died───────┴──> LOST ──new actor──> RESTARTING ──ready──> RUNNING

Table actors are named `{tournament}-table-{table}-{generation}` and detached, so they outlive
an orchestrator that dies and a restarted one finds them by name; each restart takes the next
generation, so a name is never reused.

Warm spares (`SparePool`): each live node keeps a few started, empty table actors, named
`{tournament}-spare-{id}` (detached too). A lost table is re-seated on a spare (`take`), so
its restart costs no process start. The pool is asked for as soon as the opening tables'
actors are (each node's Ray starts worker processes in the order they are asked for, so a
node's spares start after its tables), and refills in the background, never while a restart
is under way (its process start, or its call to a spare, comes first). A restarted
orchestrator asks each spare it finds which table it plays, if any (`seated`).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from orchestrator.shell.placement import least_loaded, spares_to_cover
from table_worker.protocol import TableDirective

if TYPE_CHECKING:
    from table_worker.remote import GatewaySettings

__all__ = [
    "Spare",
    "SparePool",
    "TableFleet",
    "TableLost",
    "TableReplica",
    "TableSettings",
    "TableState",
    "publish_gateway",
]

NODE_DEATH_WAIT = 10.0  # Ray notices a dead node within seconds, later on a loaded machine
SPARE_TAKE_SECONDS = 10.0  # a spare that does not answer `take` in this long is let go (its
# node may be dying too; a loaded machine answers in well under this)
SPARE_FIND_SECONDS = 5.0  # a restarted orchestrator waits this long for a spare's answer


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSettings:
    """What every table actor of this run is created with."""

    deck_target: str
    bots: tuple[str, ...]  # the bots' policies, by player (`table_worker.bots`)
    seed: int
    gateway: GatewaySettings | None = None  # remote players' seats (the front door)


class TableState(StrEnum):
    STARTING = "starting"  # created, not known to be up yet
    RUNNING = "running"  # playing its loop
    DRAINING = "draining"  # its table is closed: it takes its close directive and ends
    LOST = "lost"  # its actor or node died; a new actor is to be made
    RESTARTING = "restarting"  # a new actor is being made after a loss
    CLOSED = "closed"  # its loop ended and its actor is gone


RESTARTS = (TableState.LOST, TableState.RESTARTING)  # a restart is under way


class TableLost(Exception):
    """The table's actor, its node or its run loop failed."""


@dataclass(slots=True)
class TableReplica:
    """One table's current actor, as this orchestrator knows it."""

    table: int
    generation: int
    state: TableState
    actor: Any = None  # the Ray actor handle
    loop: Any = None  # the ObjectRef of its run loop, when this orchestrator started it
    node: str = ""  # the node it runs on, once known
    placed: str = ""  # the node it was pinned to when created ("": Ray chose)


@dataclass(slots=True, eq=False)
class Spare:
    """A started table actor with no table yet, on `node` ("": not known yet)."""

    actor: Any
    node: str
    ready: bool = False  # it answered: taking it costs one call


@dataclass(slots=True)
class SparePool:
    """The warm spares of one tournament's fleet: `size` per live node, none on a node that
    lost a table (until Ray declares it dead it still takes actors, which then wait there)."""

    size: int
    spares: list[Spare] = field(default_factory=list)
    lost_nodes: set[str] = field(default_factory=set)

    def add(self, actor: Any, node: str) -> Spare:
        spare = Spare(actor, node)
        self.spares.append(spare)
        return spare

    def missing(self, node: str) -> int:
        """How many spares `node` lacks (those still starting count as there)."""
        return max(0, self.size - sum(s.node == node for s in self.spares))

    def take(self, avoid: str, hosted: list[str]) -> Spare | None:
        """A ready spare off the pool, not on `avoid` nor a node that lost a table, on the
        node hosting the fewest of `hosted` (each table's node); None when there is none."""
        usable = [
            s for s in self.spares if s.ready and s.node != avoid and s.node not in self.lost_nodes
        ]
        if not usable:
            return None
        spare = min(usable, key=lambda s: (hosted.count(s.node), s.node))
        self.spares.remove(spare)
        return spare

    def drop(self, spare: Spare) -> None:
        if spare in self.spares:
            self.spares.remove(spare)

    def gone(self, live: set[str]) -> list[Spare]:
        """Off the pool: the spares known to be on a node no longer live."""
        dead = [s for s in self.spares if s.node and s.node not in live]
        for spare in dead:
            self.spares.remove(spare)
        return dead

    def clear(self) -> list[Spare]:
        spares, self.spares = self.spares, []
        return spares


class TableFleet:
    """The table actors of one tournament: `replicas` holds every table not yet closed."""

    def __init__(self, tournament_id: str, settings: TableSettings, *, spares: int = 0) -> None:
        """`spares`: the warm spare table actors each live node keeps (0: none, a lost
        table's restart starts a new actor)."""
        self._tournament_id = tournament_id
        self._settings = settings
        self._orchestrator: Any = None
        self.replicas: dict[int, TableReplica] = {}
        self.spares = SparePool(spares)
        self._starting: set[asyncio.Task[None]] = set()  # spares waited for
        self._warned_short = False  # the pool was said to be too small for the tables

    def bind(self, orchestrator: Any) -> None:
        """The orchestrator actor's own handle, which the tables report to."""
        self._orchestrator = orchestrator

    def name(self, table: int, generation: int) -> str:
        return f"{self._tournament_id}-table-{table}-{generation}"

    def hosted(self) -> dict[int, str]:
        """Which node hosts each table not yet closed (where known, or pinned to)."""
        return {t: r.node or r.placed for t, r in self.replicas.items() if r.node or r.placed}

    def spares_ready_on(self) -> dict[str, int]:
        """How many warm spares are ready to take on each node."""
        ready: dict[str, int] = {}
        for spare in self.spares.spares:
            if spare.ready and spare.node:
                ready[spare.node] = ready.get(spare.node, 0) + 1
        return ready

    # --- creating and finding -------------------------------------------------------------

    def create(self, table: int, *, avoid: str = "") -> TableReplica:
        """A new actor for `table` (the next generation) on the live node hosting the fewest
        tables (`placement.least_loaded`), never `avoid` (the node just lost: until Ray
        declares it dead it still takes actors, which then wait there to fail). An opening
        table is pinned there (hard affinity), so no node holds more than its share and the
        others' spares can take its tables (CRASH decision); a restart only prefers it (soft:
        if that node dies too, Ray places the actor elsewhere)."""
        previous = self.replicas.get(table)
        generation = (previous.generation if previous else 0) + 1
        strategy: Any = "SPREAD"
        target = self._emptiest_live_node(avoid)
        if target is not None:
            strategy = NodeAffinitySchedulingStrategy(node_id=target, soft=bool(avoid))
        actor = self._start_actor(self.name(table, generation), strategy, table=table)
        state = TableState.RESTARTING if previous is not None else TableState.STARTING
        replica = TableReplica(table, generation, state, actor=actor, placed=target or "")
        self.replicas[table] = replica
        return replica

    async def replacement(self, table: int, *, avoid: str) -> TableReplica:
        """The lost `table`'s next actor: a warm spare taken on a live node other than `avoid`
        (the one hosting the fewest tables), or, with none left, a new actor (`create`)."""
        previous = self.replicas.get(table)
        generation = (previous.generation if previous else 0) + 1
        hosted = list(self.hosted().values())
        while (spare := self.spares.take(avoid, hosted)) is not None:
            try:
                node = await asyncio.wait_for(
                    spare.actor.take.remote(table, generation), SPARE_TAKE_SECONDS
                )
            except (ray.exceptions.RayActorError, TimeoutError):
                _kill(spare.actor)  # dead, or on a node that is dying: the next one
                continue
            replica = TableReplica(table, generation, TableState.RESTARTING, spare.actor, node=node)
            self.replicas[table] = replica
            return replica
        return self.create(table, avoid=avoid)

    def _start_actor(self, name: str, strategy: Any, *, table: int | None) -> Any:
        """Start a table actor (`table` None: a spare). Detached: it outlives an orchestrator
        that dies, to be found again by name. Two threads: `run` holds one for the table's
        life, so `node` still answers."""
        from table_worker.actor import TableActor  # the table module loads in table processes

        settings = self._settings
        return TableActor.options(
            name=name,
            lifetime="detached",
            max_concurrency=2,
            scheduling_strategy=strategy,
        ).remote(
            tournament_id=self._tournament_id,
            table=table,
            orchestrator=self._orchestrator,
            deck_target=settings.deck_target,
            bots=settings.bots,
            seed=settings.seed,
            gateway=settings.gateway,
        )

    # --- warm spares ----------------------------------------------------------------------

    async def refill_spares(self) -> None:
        """Top every live node's spares up to the pool's size, and let go those on nodes that
        died. Not while a restart is under way: its new actor's process start, or its call to
        a spare, and its two writes come first. During the start-up they are asked for after
        the opening tables' actors, which each node then starts first."""
        if self.spares.size == 0 or any(r.state in RESTARTS for r in self.replicas.values()):
            return
        live = {n["NodeID"] for n in await asyncio.to_thread(_nodes) if n["Alive"]}
        if self.spares.size == 0:  # let go meanwhile: the tournament ended
            return
        self._say_if_spares_fall_short(len(live))
        for spare in self.spares.gone(live):
            _kill(spare.actor)
        for node in sorted(live - self.spares.lost_nodes):
            for _ in range(self.spares.missing(node)):
                name = f"{self._tournament_id}-spare-{uuid.uuid4().hex[:12]}"
                strategy = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
                self._await_spare(
                    self.spares.add(self._start_actor(name, strategy, table=None), node)
                )

    def _say_if_spares_fall_short(self, nodes: int) -> None:
        """Warn once when the pool is too small for the tables: a node's loss would then
        start some of its tables as new processes (seconds each, not one call)."""
        needed = spares_to_cover(len(self.replicas), nodes=nodes)
        if self.spares.size < needed and not self._warned_short:
            self._warned_short = True
            logging.getLogger(__name__).warning(
                "%d warm spares per node cannot take the tables of a lost node: %d tables over "
                "%d nodes need %d per node ([cluster] spare_tables)",
                self.spares.size,
                len(self.replicas),
                nodes,
                needed,
            )

    def _await_spare(self, spare: Spare) -> None:
        task = asyncio.get_running_loop().create_task(self._spare_up(spare))
        self._starting.add(task)  # held: the loop keeps only weak references to tasks
        task.add_done_callback(self._starting.discard)

    async def _spare_up(self, spare: Spare) -> None:
        """A spare joins the pool once it answers; one that dies starting is let go."""
        try:
            spare.node = await spare.actor.node.remote()
        except ray.exceptions.RayActorError:
            self.spares.drop(spare)
            return
        spare.ready = True

    def let_spares_go(self) -> None:
        """The tournament is over: its spares go (detached, they would outlive the run)."""
        self.spares.size = 0
        for spare in self.spares.clear():
            _kill(spare.actor)

    async def recover(self, tables: list[int]) -> list[int]:
        """After a restart of the orchestrator: take over each table's newest live actor, by
        name or among the spares (which say what they play), and keep the spares not taken;
        returns the tables that have none (to be restarted)."""
        prefix = f"{self._tournament_id}-table-"
        newest: dict[int, tuple[int, Any]] = {}  # table -> (generation, its actor if a spare)
        spares: list[str] = []
        for name in ray.util.list_named_actors():
            table, _, generation = name.removeprefix(prefix).partition("-")
            if name.startswith(prefix) and table.isdigit() and generation.isdigit():
                if int(generation) > newest.get(int(table), (0, None))[0]:
                    newest[int(table)] = (int(generation), None)
            elif name.startswith(f"{self._tournament_id}-spare-"):
                spares.append(name)
        for name in spares:
            actor = _actor_named(name)
            try:
                seated = await asyncio.wait_for(actor.seated.remote(), SPARE_FIND_SECONDS)
            except (ray.exceptions.RayActorError, TimeoutError, AttributeError):
                _kill(actor)
                continue
            if seated is None:
                self._await_spare(self.spares.add(actor, ""))
                continue
            outrun = newest.get(seated[0], (0, None))
            if seated[1] > outrun[0]:
                newest[seated[0]] = (seated[1], actor)
                actor = outrun[1]
            _kill(actor)  # a table's older actor, taken before a later restart
        missing = []
        for table in tables:
            generation, actor = newest.get(table, (0, None))
            if generation and actor is None:
                actor = _actor_named(self.name(table, generation))
            if actor is None:
                self.replicas[table] = TableReplica(table, generation, TableState.LOST)
                missing.append(table)
            else:
                self.replicas[table] = TableReplica(table, generation, TableState.STARTING, actor)
        return missing

    # --- asking ---------------------------------------------------------------------------

    async def ready(self, replica: TableReplica) -> str:
        """Wait until the actor is up; the node it runs on."""
        try:
            replica.node = await replica.actor.node.remote()
        except ray.exceptions.RayActorError as exc:
            raise TableLost(f"table {replica.table}'s actor died starting") from exc
        return replica.node

    def play(self, replica: TableReplica, directive: TableDirective) -> None:
        """Set the actor playing from `directive` until its table closes."""
        replica.loop = replica.actor.run.remote(directive)
        replica.state = TableState.RUNNING

    async def played(self, replica: TableReplica) -> None:
        """Wait for the run loop this orchestrator started to end (its table closed)."""
        try:
            await replica.loop
        except (ray.exceptions.RayActorError, ray.exceptions.RayTaskError) as exc:
            raise TableLost(f"table {replica.table}'s actor or its loop failed") from exc

    async def still_playing(self, replica: TableReplica) -> None:
        """For an actor found after a restart (its loop's result belonged to the old
        orchestrator): `TableLost` unless it answers and plays."""
        try:
            playing = await replica.actor.running.remote()
        except ray.exceptions.RayActorError as exc:
            raise TableLost(f"table {replica.table}'s actor died") from exc
        if not playing:
            raise TableLost(f"table {replica.table}'s actor is alive but not playing")
        replica.state = TableState.RUNNING

    def draining(self, replica: TableReplica) -> None:
        replica.state = TableState.DRAINING

    # --- ending ---------------------------------------------------------------------------

    def lost(self, replica: TableReplica) -> str:
        """The actor failed: kill it if it lives on; the node it was on ("" if unknown),
        which gets no more spares."""
        _kill(replica.actor)
        replica.state, replica.loop = TableState.LOST, None
        node, replica.node, replica.placed = replica.node or replica.placed, "", ""
        if node:
            self.spares.lost_nodes.add(node)
        return node

    def close(self, replica: TableReplica) -> None:
        """Its table is over: the actor goes (detached, it would outlive the run)."""
        _kill(replica.actor)
        replica.state = TableState.CLOSED
        if self.replicas.get(replica.table) is replica:
            del self.replicas[replica.table]

    # --- nodes ----------------------------------------------------------------------------

    async def node_died(self, node: str) -> bool:
        """Whether the node is (or within a few seconds is reported) dead, not just one
        actor."""
        deadline = time.monotonic() + NODE_DEATH_WAIT
        while time.monotonic() < deadline:
            if not any(n["NodeID"] == node and n["Alive"] for n in _nodes()):
                return True
            await asyncio.sleep(0.2)
        return False

    def _emptiest_live_node(self, avoid: str) -> str | None:
        live = [n["NodeID"] for n in _nodes() if n["Alive"] and n["NodeID"] != avoid]
        return least_loaded(live, self.hosted().values())


def publish_gateway(book: str, target: str, secret: str) -> None:
    """Write where the front door's table gateway is now into the gateway book named `book`
    (a detached actor, created by the first front door), which tables look up when their
    gateway stops answering (`table_worker.actor.GatewayBook`)."""
    from table_worker.actor import GatewayBookActor

    actor = GatewayBookActor.options(name=book, lifetime="detached", get_if_exists=True).remote()
    ray.get(actor.publish.remote(target, secret))


def _nodes() -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
    return nodes


def _kill(actor: Any) -> None:
    if actor is not None:
        ray.kill(actor)


def _actor_named(name: str) -> Any:
    try:
        return ray.get_actor(name)
    except ValueError:
        return None
