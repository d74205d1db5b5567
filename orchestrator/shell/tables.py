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
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from table_worker.protocol import TableDirective

if TYPE_CHECKING:
    from table_worker.remote import GatewaySettings

__all__ = [
    "TableFleet",
    "TableLost",
    "TableReplica",
    "TableSettings",
    "TableState",
    "publish_gateway",
]

NODE_DEATH_WAIT = 10.0  # Ray notices a dead node within seconds, later on a loaded machine


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


class TableFleet:
    """The table actors of one tournament: `replicas` holds every table not yet closed."""

    def __init__(self, tournament_id: str, settings: TableSettings) -> None:
        self._tournament_id = tournament_id
        self._settings = settings
        self._orchestrator: Any = None
        self.replicas: dict[int, TableReplica] = {}

    def bind(self, orchestrator: Any) -> None:
        """The orchestrator actor's own handle, which the tables report to."""
        self._orchestrator = orchestrator

    def name(self, table: int, generation: int) -> str:
        return f"{self._tournament_id}-table-{table}-{generation}"

    def hosted(self) -> dict[int, str]:
        """Which node hosts each table not yet closed (where known)."""
        return {t: r.node for t, r in self.replicas.items() if r.node}

    # --- creating and finding -------------------------------------------------------------

    def create(self, table: int, *, avoid: str = "") -> TableReplica:
        """A new actor for `table` (the next generation), spread over the nodes, or after a
        loss on the live node hosting the fewest tables, never `avoid` (the node just lost:
        until Ray declares it dead it still takes actors, which then wait there to fail)."""
        from table_worker.actor import TableActor  # the table module loads in table processes

        previous = self.replicas.get(table)
        generation = (previous.generation if previous else 0) + 1
        strategy: Any = "SPREAD"
        target = self._emptiest_live_node(avoid) if avoid else None
        if target is not None:  # soft: if it dies too, Ray places the actor elsewhere
            strategy = NodeAffinitySchedulingStrategy(node_id=target, soft=True)
        settings = self._settings
        # Detached: it outlives an orchestrator that dies, to be found again by name. Two
        # threads: `run` holds one for the table's life, so `node` still answers.
        actor = TableActor.options(
            name=self.name(table, generation),
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
        state = TableState.RESTARTING if previous is not None else TableState.STARTING
        replica = TableReplica(table, generation, state, actor=actor)
        self.replicas[table] = replica
        return replica

    def recover(self, tables: list[int]) -> list[int]:
        """After a restart of the orchestrator: take over each table's newest live actor, by
        name (one call to Ray); returns the tables that have none (to be restarted)."""
        prefix = f"{self._tournament_id}-table-"
        newest: dict[int, int] = {}
        for name in ray.util.list_named_actors():
            table, _, generation = name.removeprefix(prefix).partition("-")
            if name.startswith(prefix) and table.isdigit() and generation.isdigit():
                newest[int(table)] = max(newest.get(int(table), 0), int(generation))
        missing = []
        for table in tables:
            generation = newest.get(table, 0)
            actor = _actor_named(self.name(table, generation)) if generation else None
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
        """The actor failed: kill it if it lives on; the node it was on ("" if unknown)."""
        _kill(replica.actor)
        replica.state, replica.loop = TableState.LOST, None
        node, replica.node = replica.node, ""
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
        hosted = list(self.hosted().values())
        return min(live, key=lambda node: (hosted.count(node), node), default=None)


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
