"""`mtt run`: one whole tournament of bots on Ray, from config to results.

The driver starts what the run needs (the deck service as a child process, supervised and
dying with the driver, `shell.decks`; local Ray on 127.0.0.1), creates the orchestrator,
which creates one actor per table, and follows the run's log in the store (`RunFollower`: the
progress line, the metrics, the live view), wherever the actors run. When the run ends it
writes the run's files (events.jsonl, hands/, results.json, side-events/) from the store
(`shell.export`): no actor writes a file. It refuses an output folder holding an earlier
run's files unless told (`force`). `mtt resume` (`shell.resume`) uses the same parts to carry
a run on from the store.
"""

from __future__ import annotations

import itertools
import logging
import os
import random
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import psutil
from prometheus_client import CollectorRegistry, start_http_server

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import EventRecord
from orchestrator.core.tournament import Tournament
from orchestrator.errors import OrchestratorError
from orchestrator.shell.decks import Decks, deck_service, watched_deck_service
from orchestrator.shell.errors import first_line
from orchestrator.shell.export import check_folder
from orchestrator.shell.placement import uncovered
from orchestrator.shell.run_control import StoreEventSource
from orchestrator.shell.simulation import LateBots, entry_deposits, late_bot_names
from orchestrator.shell.store import open_store
from orchestrator.views.metrics import TournamentMetrics

if TYPE_CHECKING:
    from orchestrator.shell.orchestrators import OrchestratorHandle

__all__ = [
    "DEFAULT_BOTS",
    "MetricsEndpoint",
    "ProgressLine",
    "RunFollower",
    "RunOptions",
    "RunSummary",
    "UiOptions",
    "deck_service",
    "decks_for",
    "elapsed",
    "live_view",
    "local_ray",
    "prepare_folder",
    "run_tournament",
    "say",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class UiOptions:
    """The live view (`mtt run --ui-port`): where it listens, the operator credential its
    actions need (None: read-only), and whether the run waits for the operator's start."""

    port: int
    host: str = "127.0.0.1"
    operator_token: str | None = None
    wait_for_start: bool = False
    linger: float = 0.0  # seconds the view stays up after the tournament ends


DEFAULT_BOTS = ("strength", "random", "station")  # `mtt run`'s bots' policies


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    out: Path
    seed: int
    store: str | None = None  # the event log's and the used decks' store; default: SQLite
    # in the run's folder
    ray_address: str | None = None
    bots: tuple[str, ...] = DEFAULT_BOTS  # the pool each bot's policy is drawn from, by a
    # seeded hash of his name (table_worker.bots.policy_for)
    ray_logs: bool = True  # forward Ray's worker logs to this terminal
    nodes: int = 1  # > 1: a multi-node Ray cluster simulated on this machine (chaos drills)
    kill_node_after: float | None = None  # seconds of play (from the first hand played, so a
    # slow start-up on a loaded machine does not move the kill into it): then kill a worker
    # node hosting tables, once every node holds its warm spares or `SPARES_PATIENCE` later
    deck: str | None = None  # a running deck service's address; default: start one
    metrics: MetricsEndpoint | None = None  # tournament metrics on HTTP /metrics
    deck_metrics_port: int | None = None  # the deck service's own /metrics
    ui: UiOptions | None = None  # serve the live clock and lobby while the run lasts
    force: bool = False  # overwrite an earlier run's files in `out`
    measure_tables: bool = False  # sample the table actors' memory (`mtt bench tournament`)


@dataclass(frozen=True, slots=True, kw_only=True)
class MetricsEndpoint:
    """Where `mtt run` serves the tournament's Prometheus metrics; `linger` keeps serving
    that many seconds after the tournament ends, so a scrape sees its last values."""

    port: int
    host: str = "127.0.0.1"
    linger: float = 0.0


@dataclass(frozen=True, slots=True)
class RunSummary:
    results: dict[str, Any]
    seconds: float
    hands: int
    report_seconds: list[tuple[float, float]]  # (wall, CPU) per hand report
    peak_memory_mb: float  # the most memory the run's processes held at once (system-wide)
    node_killed_at: float | None = None  # unix seconds: the chaos drill killed a node then
    spares_ready_at_kill: int = 0  # the warm spares ready to take when it did
    # The killed node's tables beyond the spares ready on the other nodes then: they restart
    # as new processes (0: the spares could take them all).
    tables_beyond_spares: int = 0
    table_memory: TableMemory | None = None  # the table actors' memory, when measured


LOCAL_RAY_VARIABLE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray on 127.0.0.1 only


def keep_ray_on_this_machine() -> None:
    """Before Ray starts here: with RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 every Ray process
    binds and connects on 127.0.0.1 only (DESIGN.md); otherwise Ray picks the machine's
    address. Only a default: a pod that sets it (deploy/k8s) keeps its own value.

    Ray reads the variable once, when `ray` is first imported; a command that imported it
    before this call (`mtt run` does, through the actors' modules) would bind the machine's
    address (seen: the GCS and raylets listening on every interface), so the value read then
    is set again from the variable's."""
    value = os.environ.setdefault(LOCAL_RAY_VARIABLE, "0")
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None:
        setattr(constants, "ENABLE_RAY_CLUSTER", value.lower() in ("true", "1"))  # noqa: B010


def ask_for_token_auth() -> None:
    """Before this driver starts a cluster of its own, and before Ray is imported (it reads
    the mode then): Ray's token authentication on, said explicitly. Ray turns it on by
    default too, and then says so on the terminal at every start. Only a default, as above;
    a process that imported Ray already leaves the choice to Ray."""
    if "ray" not in sys.modules:
        os.environ.setdefault("RAY_AUTH_MODE", "token")


# Ray runs its workers at nice 15 by default. On a machine this driver shares with them (its
# own cluster), a hundred table processes at 15 still outweigh one process at 0 (CFS weights
# 36 each against 1,024), and `mtt serve`'s front door waited for them: 1,000 bots flat out,
# p99 50-66 ms at 15 and 9.7 ms at 19 (docs/BENCHMARKS.md). The workers keep their order
# among themselves; a cluster of its own (an operator's) keeps Ray's settings.
WORKER_NICENESS = 19


def ray_system_config(workers: int) -> dict[str, int]:
    """Ray's system settings (`_system_config`) for a cluster this driver starts to host
    `workers` actors (0: not known), one worker process each, most started at once. Ray
    starts as many workers at a time as the node has CPUs and warns, on the terminal, once
    four times that many exist: one actor per table trips it on any tournament of a few
    tables. Starting them together costs the same CPU, so the limit follows the tables
    instead. Every worker runs after this driver's own processes (`WORKER_NICENESS`)."""
    config = {"worker_niceness": WORKER_NICENESS}
    if workers:
        config["worker_maximum_startup_concurrency"] = max(os.cpu_count() or 1, workers)
    return config


def actors_for(config: TournamentConfig) -> int:
    """The actors a tournament starts with: one per table, the orchestrator, one spare."""
    return -(-config.players // config.max_per_table) + 2


HEAD = "mtt_head"  # a resource only the head node has: the orchestrator stays there
# How the simulated cluster's GCS checks its nodes: a node that fails 3 checks in a row, 100 ms
# apart, is dead (~0.3 s; Ray's default, 5 checks 3 s apart, takes ~15 s). A check fails at
# once on a node that is gone and only after `health_check_timeout_ms` (10 s) on one that is
# slow, so a loaded node is not declared dead for being slow. docs/OPERATIONS.md, "Losing a
# table or a node", has the same settings for a production cluster.
DRILL_HEALTH_CHECKS = {"health_check_period_ms": 100, "health_check_failure_threshold": 3}
SPARES_PATIENCE = 5.0  # seconds of play a drill's kill waits past its time for the spares
RUN_NAMESPACE = "mtt-run"  # `mtt run`'s named (detached) actors live here


@contextmanager
def simulated_cluster(nodes: int) -> Iterator[Any]:
    """A head node and `nodes - 1` worker nodes, all processes on 127.0.0.1 (DESIGN.md), with
    Ray connected to it; yields the `ray.cluster_utils.Cluster` so a drill can kill nodes.
    Ray's worker start-up limit stays its default (one at a time per one-CPU node): the
    drills' timings assume it, and nothing of the nodes' logs reaches the terminal."""
    keep_ray_on_this_machine()
    ask_for_token_auth()
    import ray
    from ray.cluster_utils import Cluster

    def head() -> Any:
        return Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 1,
                "resources": {HEAD: 1},
                "_system_config": DRILL_HEALTH_CHECKS,
            },
        )

    cluster = _start_ray(head)
    try:
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=1)
        ray.init(
            address=cluster.address,
            logging_level=logging.WARNING,
            log_to_driver=False,
            namespace=RUN_NAMESPACE,
        )
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


def kill_due(played: float, *, kill_after: float, ready: int, wanted: int) -> bool:
    """Whether a chaos drill kills its node now, `played` seconds into play with `ready` of
    the `wanted` warm spares up: `kill_after` seconds in, once every spare is up (a drill of
    the spares measures taking them, not their start), but never more than `SPARES_PATIENCE`
    later (a field may play out meanwhile, and then no node would die)."""
    if played < kill_after:
        return False
    return ready >= wanted or played >= kill_after + SPARES_PATIENCE


def kill_a_table_node(cluster: Any, table_nodes: dict[int, str]) -> tuple[str, float] | None:
    """Kill, without warning, the worker node hosting the most tables; its id and when the
    kill began (unix seconds: the node dies from its first signal), or None."""
    counts: dict[str, int] = {}
    for node in table_nodes.values():
        counts[node] = counts.get(node, 0) + 1
    workers = {n.node_id: n for n in cluster.list_all_nodes() if not n.head}
    targets = sorted((c, node) for node, c in counts.items() if node in workers)
    if not targets:
        return None
    node = targets[-1][1]
    began = time.time()
    cluster.remove_node(workers[node], allow_graceful=False)
    return node, began


@contextmanager
def live_view(
    config: TournamentConfig, store: str, stream: str, ui: UiOptions | None
) -> Iterator[Any]:
    """The live view over the run's log in the store (`stream`) while the block lasts, so it
    shows a run whose actors are on another machine too; yields its `RunControl` (None
    without `ui`)."""
    if ui is None:
        yield None
        return
    from orchestrator.shell.run_control import RunControl
    from orchestrator.views.live import create_app, serve_ui

    control = RunControl(wait_for_start=ui.wait_for_start)
    source = StoreEventSource(store, stream)
    app = create_app(source, config, control=control, operator_token=ui.operator_token)
    try:
        with serve_ui(app, host=ui.host, port=ui.port) as url:
            print(f"live view: {url}/ (clock), {url}/lobby", flush=True)
            yield control
            if ui.linger > 0:
                print(f"\nthe live view stays up for {ui.linger:.0f}s (Ctrl-C ends it)", flush=True)
                with suppress(KeyboardInterrupt):
                    time.sleep(ui.linger)
    finally:
        source.close()


def say(line: str) -> None:
    """One line for the operator about the parts around the tables (the deck service), on its
    own line below the progress line."""
    print(f"\n{line}", flush=True)


class StoreGuard:
    """The driver's own look at the run's store: its epoch when the run began (the used-deck
    store's, one for both at a URL, written by the first opener), and `check()`, which raises
    `StoreLost` once the store no longer holds it (a Redis restarted empty)."""

    def __init__(self, url: str) -> None:
        self._store = open_store(url)
        self.epoch = self._store.decks.epoch

    def check(self) -> None:
        self._store.check_epoch(self.epoch)

    def __enter__(self) -> StoreGuard:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._store.close()


@contextmanager
def decks_for(options: RunOptions, store: str) -> Iterator[Decks]:
    """The run's deck service: the one given (`--deck`), watched; else a child process on the
    run's store, supervised. Yields it."""
    if options.deck:
        with watched_deck_service(options.deck, say=say) as watched:
            yield watched
        return
    with deck_service(store, metrics_port=options.deck_metrics_port, say=say) as service:
        yield service


def prepare_folder(out: Path, *, force: bool) -> None:
    """A run's folder: refused when it holds an earlier run's files, unless `force` (then
    they go; the store keeps every run's log, `mtt export` writes its files again)."""
    out.mkdir(parents=True, exist_ok=True)
    if not force:
        check_folder(out)
        return
    for stale in ("events.jsonl", "results.json"):
        (out / stale).unlink(missing_ok=True)
    shutil.rmtree(out / "side-events", ignore_errors=True)
    for old in (out / "hands").glob("*.phhs"):
        old.unlink()


@contextmanager
def exported(store: str, stream: str, out: Path) -> Iterator[None]:
    """When the run ends, its files from the store (`export.export_run`): all of them once it
    is over, what the store holds so far when it is interrupted (Ctrl-C). Nothing wrote them
    while it ran."""
    from orchestrator.shell.export import export_run

    def export() -> None:
        opened = open_store(store)
        try:
            export_run(opened, stream, out)
        finally:
            opened.close()

    try:
        yield
    except KeyboardInterrupt:
        export()
        raise
    export()


RAY_START_ATTEMPTS = 2
_T = TypeVar("_T")


def _start_ray(start: Callable[[], _T]) -> _T:
    """Start a Ray of our own on this machine. Its own processes (GCS, raylet) may miss their
    start-up deadline on a loaded machine: Ray is started once more, said in one line. What a
    failed attempt started is killed either way (`_abandon`)."""
    for attempt in range(1, RAY_START_ATTEMPTS + 1):
        try:
            return start()
        except Exception as exc:
            _abandon(exc)
            text = str(exc)
            timed_out = "timed out during startup" in text or "Timed out waiting for file" in text
            if attempt == RAY_START_ATTEMPTS or not timed_out:
                raise
            say(f"local Ray did not start in time ({first_line(exc)}); starting it again")
    raise AssertionError("unreachable")


def _abandon(failed: BaseException) -> None:
    """Kill what a failed start of Ray left running. The node that timed out never reached
    Ray's own bookkeeping (its constructor raised), so `ray.shutdown()` knows nothing of its
    GCS or raylet: the half-built node is found in the failure's frames, and its processes
    are killed and waited for."""
    import ray
    from ray._private.node import Node

    frame = failed.__traceback__
    while frame is not None:
        node = frame.tb_frame.f_locals.get("self")
        if isinstance(node, Node):
            node.kill_all_processes(check_alive=False, allow_graceful=False, wait=True)
        frame = frame.tb_next
    ray.shutdown()


@contextmanager
def local_ray(
    address: str | None,
    *,
    logs: bool = True,
    namespace: str | None = None,
    workers: int = 0,
) -> Iterator[Any]:
    """Local Ray bound to 127.0.0.1 only (DESIGN.md), or an existing cluster by address; a
    `namespace` lets a later driver find this one's named (detached) actors. `workers`: the
    actors a local cluster will host (`ray_system_config`; 0: not known); an existing
    cluster keeps its own settings."""
    keep_ray_on_this_machine()
    local = not address or address == "local"
    if local:
        ask_for_token_auth()
    import ray

    if ray.is_initialized():
        yield
        return

    def init() -> None:
        ray.init(
            address=address or "local",
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=logs,
            configure_logging=True,
            namespace=namespace,
            _system_config=ray_system_config(workers) if local else None,
        )

    if local:
        _start_ray(init)
    else:
        init()
    try:
        yield
    finally:
        ray.shutdown()


def run_tournament(
    config: TournamentConfig,
    options: RunOptions,
    *,
    progress: Callable[[dict[str, Any]], None] | None = None,
    tickets: Mapping[str, int] | None = None,
    players: Sequence[str] | None = None,
) -> RunSummary:
    """Run `config` to its end with bots; `tickets`: players who won a seat in a satellite
    (SAT-3) enter by their tickets, before the bots (`shell.satellite.run_satellite`); the
    bots are p00001, p00002, ... unless `players` names them (an event's flights and Day 2:
    `shell.event_run`)."""
    if options.ray_address is None:
        ask_for_token_auth()  # before Ray is imported
    from orchestrator.shell.actor import StoreSettings
    from orchestrator.shell.orchestrators import OrchestratorHandle
    from orchestrator.shell.tables import TableSettings

    out = options.out
    prepare_folder(out, force=options.force)
    store = options.store or f"sqlite:///{(out / 'store.db').resolve()}"
    tickets = dict(tickets or {})
    if players is None:  # the bots, beside any ticket holders
        names = (f"p{k:05d}" for k in itertools.count(1))
        players = list(itertools.islice((n for n in names if n not in tickets), config.players))
    players = [*tickets, *players]
    # The bots bring the money for every entry they may take; the late ones register while
    # late registration is open, at hands drawn from the run's seed (logged when they do).
    late_bots = LateBots.draw(config, random.Random(f"{options.seed}:late"))
    deposits = entry_deposits(config, players + late_bot_names(config))
    deposits.update(dict.fromkeys(tickets, 0))  # SAT-3: their ticket pays, not their cash
    tournament_id = f"{config.name}-{options.seed}"
    run_id = uuid.uuid4().hex[:12]
    stream = f"{tournament_id}/{run_id}"
    # Registration problems (capacity, skill range) surface here as typed errors, before
    # any process starts.
    Tournament.start(
        config,
        players,
        deposits=deposits,
        tournament_id=tournament_id,
        now=0.0,
        rng=random.Random(options.seed),
        tickets=tickets,
    )
    cluster_context = (
        simulated_cluster(options.nodes)
        if options.nodes > 1
        else local_ray(
            options.ray_address,
            logs=options.ray_logs,
            namespace=RUN_NAMESPACE,
            workers=actors_for(config),
        )
    )
    follower = RunFollower(
        tournament_id,
        StoreEventSource(store, stream),
        options.metrics,
        progress,
        measure_tables=options.measure_tables,
    )
    with (
        StoreGuard(store) as guard,
        live_view(config, store, stream, options.ui) as control,
        exported(store, stream, out),
        decks_for(options, store) as decks,
        cluster_context as cluster,
        follower,
    ):
        if control is not None and not control.started.is_set():
            print("waiting for the operator to start the tournament", flush=True)
            while not control.started.wait(0.5):
                pass
        follower.restart_clock()
        settings = TableSettings(
            deck_target=decks.target,
            bots=options.bots,
            seed=options.seed,
        )
        orchestrator = OrchestratorHandle.launch(
            config,
            players,
            deposits=deposits,
            tournament_id=tournament_id,
            seed=options.seed,
            out_dir=str(out),
            tables=settings,
            store=StoreSettings(url=store, run_id=run_id, epoch=guard.epoch),
            resources={HEAD: 0.001} if cluster is not None else None,
            tickets=tickets,
        )
        orchestrator.start().get()
        if control is not None:
            control.orchestrator = orchestrator
        killed_at: float | None = None
        spares_at_kill = beyond_spares = 0
        playing_since: float | None = None  # the follower's clock at the first hand played

        def every_poll() -> None:
            nonlocal killed_at, spares_at_kill, beyond_spares, playing_since
            guard.check()  # a store that lost its data stops the run (RNG-3)
            decks.check()
            if late_bots.waiting:
                _register_late_bots(orchestrator, late_bots)
            if cluster is None or options.kill_node_after is None or killed_at is not None:
                return
            status = orchestrator.status().get()
            if playing_since is None and status["hands"]:
                playing_since = follower.seconds()
            if playing_since is None:
                return
            played = follower.seconds() - playing_since
            wanted, ready = config.spare_tables * options.nodes, status["spares_ready"]
            if not kill_due(played, kill_after=options.kill_node_after, ready=ready, wanted=wanted):
                return
            table_nodes = orchestrator.table_nodes().get()
            killed = kill_a_table_node(cluster, table_nodes)
            if killed is None:
                return
            (lost, killed_at), spares_at_kill = killed, ready
            spares_on = status["spares_ready_on"]
            beyond_spares = uncovered(table_nodes.values(), spares_on, node=lost)
            if progress is not None:
                short = "" if ready >= wanted else f" (after waiting {SPARES_PATIENCE:g}s for them)"
                hosted = sum(node == lost for node in table_nodes.values())
                beyond = f", {beyond_spares} beyond the others' spares" if ready else ""
                print(
                    f"\nchaos drill: killed node {lost[:12]} at {played:.1f}s of play, hosting "
                    f"{hosted} tables{beyond}, {ready} of {wanted} warm spares ready{short}",
                    flush=True,
                )

        outcome = follower.follow(
            orchestrator,
            every_poll=every_poll,
            interval=lambda: LATE_POLL if late_bots.waiting else 0.5,
        )
        report_seconds = orchestrator.report_seconds().get()
        if control is not None:
            control.orchestrator = None  # over: operator commands are refused from now on
        orchestrator.kill()
    return RunSummary(
        outcome["results"],
        follower.seconds(),
        outcome["hands"],
        report_seconds,
        follower.peak_mb,
        node_killed_at=killed_at,
        spares_ready_at_kill=spares_at_kill,
        tables_beyond_spares=beyond_spares,
        table_memory=follower.table_memory,
    )


LATE_POLL = 0.05  # seconds between looks at the hand count while late bots are to come


def _register_late_bots(orchestrator: OrchestratorHandle, late_bots: LateBots) -> None:
    """Register the late bots whose hand has come (REG-1; the orchestrator logs each as a
    step). One refused (registration closed already, the tournament over) stays out."""
    hands = orchestrator.status().get()["hands"]
    for bot in late_bots.due(hands):
        try:
            orchestrator.register_late(bot).get()
        except OrchestratorError as exc:
            logging.getLogger(__name__).warning("late bot %s not registered: %s", bot, exc)


@dataclass(slots=True)
class TableMemory:
    """The table actors' memory during a run, from the processes this driver's Ray started
    (Ray titles a table actor's process `ray::Table...`; a warm spare is one too): resident
    (RSS) and unique
    (USS: what its exit would free) per process, in MiB, at the sample that found the most
    table processes (the run's widest moment). Sampled every `every` seconds: reading a
    process's unique memory walks its whole memory map."""

    every: float = 5.0
    rss_mb: list[float] = field(default_factory=list)
    uss_mb: list[float] = field(default_factory=list)
    _next: float = 0.0

    def sample(self, now: float) -> None:
        if now < self._next:
            return
        self._next = now + self.every
        rss, uss = [], []
        # This run's Ray (its raylets, their workers) descends from this driver: another
        # run's table actors on the same machine are not counted.
        for process in psutil.Process().children(recursive=True):
            with suppress(psutil.Error):  # gone meanwhile (a table closed)
                command = process.cmdline() or [""]
                if not command[0].startswith(TABLE_PROCESS):
                    continue
                memory = process.memory_full_info()
                rss.append(memory.rss / 2**20)
                uss.append(memory.uss / 2**20)
        if len(rss) >= len(self.rss_mb):
            self.rss_mb, self.uss_mb = rss, uss

    def figures(self) -> dict[str, float]:
        """Per table actor: mean and largest RSS and USS (MiB), and how many were measured."""

        def mean(values: list[float]) -> float:
            return round(sum(values) / len(values), 1) if values else 0.0

        return {
            "table_actors_measured": len(self.rss_mb),
            "table_rss_mb_mean": mean(self.rss_mb),
            "table_rss_mb_max": round(max(self.rss_mb, default=0.0), 1),
            "table_uss_mb_mean": mean(self.uss_mb),
            "table_uss_mb_max": round(max(self.uss_mb, default=0.0), 1),
        }


TABLE_PROCESS = "ray::Table"  # Ray's title for a process hosting `table_worker.actor.Table`


class RunFollower:
    """What the driver of a run (`mtt run`, `mtt resume`) does while its orchestrator plays:
    follow the run's log in the store (`StoreEventSource`), feed the progress line and the
    tournament metrics (`mtt run --metrics-port`: `orchestrator.views.metrics`, on HTTP) from
    it and from the orchestrator's timings, and measure the run's memory."""

    def __init__(
        self,
        tournament_id: str,
        events: StoreEventSource,
        endpoint: MetricsEndpoint | None,
        progress: Callable[[dict[str, Any]], None] | None,
        *,
        measure_tables: bool = False,
    ) -> None:
        self._tournament = tournament_id
        self.table_memory = TableMemory() if measure_tables else None
        self._events = events
        self._endpoint = endpoint
        self._progress = progress
        self._registry = CollectorRegistry()
        self._metrics = TournamentMetrics(self._registry)
        self._server: Any = None
        self._seen = 0
        self._baseline = psutil.virtual_memory().used
        self._peak = self._baseline
        self._started = time.time()

    @property
    def peak_mb(self) -> float:
        """The most memory the machine's processes held at once beyond the start, in MiB."""
        return (self._peak - self._baseline) / 2**20

    def restart_clock(self) -> None:
        self._started = time.time()

    def seconds(self) -> float:
        return time.time() - self._started

    def __enter__(self) -> RunFollower:
        if self._endpoint is not None:
            self._server, self._thread = start_http_server(
                self._endpoint.port, addr=self._endpoint.host, registry=self._registry
            )
        return self

    def follow(
        self,
        orchestrator: OrchestratorHandle,
        *,
        every_poll: Callable[[], None] | None = None,
        interval: Callable[[], float] = lambda: 0.5,
    ) -> dict[str, Any]:
        """Poll until the orchestrator's `complete()` answers (every `interval()` seconds);
        its answer."""
        done = orchestrator.complete()
        while not done.ready(timeout=interval()):
            self._peak = max(self._peak, psutil.virtual_memory().used)
            if self.table_memory is not None:
                self.table_memory.sample(self.seconds())
            if every_poll is not None:
                every_poll()
            if self._progress is None and self._endpoint is None:
                continue
            events = self._fresh(pages=10)
            self._export(orchestrator, events)
            if self._progress is not None:
                status = orchestrator.status().get()
                self._progress(status | {"seconds": self.seconds(), "events": events})
        outcome = done.get()
        if self._endpoint is not None:
            while events := self._fresh(pages=1):
                self._export(orchestrator, events)
            self._export(orchestrator, [])
        return outcome

    def _fresh(self, *, pages: int) -> list[EventRecord]:
        """The run's records after those seen, a few pages at most (the log in the store)."""
        fresh: list[EventRecord] = []
        for _ in range(pages):
            page = self._events.read_since(self._seen)
            if not page:
                break
            self._seen = page[-1]["seq"]
            fresh += page
        return fresh

    def _export(self, orchestrator: OrchestratorHandle, events: list[EventRecord]) -> None:
        if self._endpoint is None:
            return
        self._metrics.follow(self._tournament, events)
        timings = orchestrator.timings_since_last_call().get()
        self._metrics.observe_timings(self._tournament, timings)

    def __exit__(self, *exc_info: object) -> None:
        self._events.close()
        if self._server is None or self._endpoint is None:
            return
        if exc_info[0] is None:
            time.sleep(self._endpoint.linger)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


class ProgressLine:
    """`mtt run`'s progress, one line: players left of the entries, tables, the level and its
    blinds (small/big/ante), hands and hands/s, time elapsed (PAUSED while paused), and the
    final table once it forms. On a terminal the line is rewritten in place every `every`
    seconds; into a file or a pipe a new line every five times that."""

    def __init__(self, stream: TextIO, *, every: float = 1.0) -> None:
        self._stream = stream
        self._every = every
        self._last = 0.0
        self._tty = stream.isatty()
        self._width = 0  # of the line on screen, blanked out by a shorter one

    def __call__(self, status: dict[str, Any]) -> None:
        now = time.monotonic()
        if any(e["type"] == "final_table" for e in status.get("events", ())):
            self._last = 0.0
        if now - self._last < (self._every if self._tty else 5 * self._every):
            return
        self._last = now
        small, big, ante = status["blinds"]
        seconds = max(status["seconds"], 1e-9)
        line = (  # under 80 columns for a field of thousands
            f"{status['players_left']:>5,}/{status['entries']:,} players"
            f" | {status['tables']:>3,} tables"
            f" | level {status['level']} {small}/{big}{f'/{ante}' if ante else ''}"
            f" | {status['hands']:>7,} hands {status['hands'] / seconds:>4,.0f}/s"
            f" | {elapsed(seconds)}" + (" | PAUSED" if status.get("paused") else "")
        )
        for event in status.get("events", ()):
            if event["type"] == "final_table":
                self._clear()
                self._stream.write(f"final table {event['table']}: {', '.join(event['players'])}\n")
        if self._tty:
            self._stream.write("\r" + line.ljust(self._width))
            self._width = len(line)
        else:
            self._stream.write(line + "\n")
        self._stream.flush()

    def _clear(self) -> None:
        if self._tty and self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._width = 0


def elapsed(seconds: float) -> str:
    """Wall time as a clock: `m:ss`, `h:mm:ss` from an hour.

    >>> elapsed(7.4), elapsed(83), elapsed(3725)
    ('0:07', '1:23', '1:02:05')
    """
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
