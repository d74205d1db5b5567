"""`mtt resume`: carry on, from the store, a tournament whose driver, Ray head or machine died
(DESIGN.md "Failure model").

The store holds the run: its registry entry (folder, seed), its snapshots and its log. Resuming:

1. reads the run's log whole (`export.read_log`: a gap or a record the store cannot read
   is refused, naming the tournament and the seq) and rebuilds the core from it, as its
   orchestrator will, to know the config and whether anything is left to play;
2. takes the run over: waits for the lost orchestrator's ownership lease to lapse (a live one
   renews it: then the tournament is not lost, and resuming is refused) and writes the run's
   folder from the store so far, for the new tables to append their hands to. On a cluster
   given (`--ray-address`) its orchestrator may still be alive there (only the driver died):
   then it is found by name and followed, and this step is skipped;
3. starts a deck service on the same store (the used decks are there: no deck is dealt
   twice) and Ray, and launches the run's orchestrator actor again with the same run id: it
   finds its log, rebuilds itself (snapshot + tail) and, finding no live table actor,
   restarts every table, voiding the hand each was playing (TDA: stacks back to the start of
   that hand, `Tournament.table_lost`). Side events not yet over are launched again first,
   the same way, so it finds them by name;
4. follows it to the end like `mtt run` (progress line, live view, metrics), then writes the
   run's folder again from the store (`export_run`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.core.config import TournamentConfig
from orchestrator.errors import RecoveryError, TournamentStateError
from orchestrator.shell.driver import (
    DEFAULT_BOTS,
    RUN_NAMESPACE,
    MetricsEndpoint,
    RunFollower,
    RunOptions,
    StoreGuard,
    UiOptions,
    actors_for,
    decks_for,
    live_view,
    local_ray,
    say,
)
from orchestrator.shell.export import (
    Exported,
    check_folder,
    export_run,
    find_run,
    open_existing_store,
    read_log,
    rebuild_run,
    side_streams,
)
from orchestrator.shell.run_control import StoreEventSource
from orchestrator.shell.store import Store

if TYPE_CHECKING:
    from orchestrator.shell.orchestrators import OrchestratorHandle

__all__ = ["ResumeOptions", "Resumed", "resume_tournament"]

FRONT_DOOR_SUFFIX = ".frontdoor"  # the front door's own log of a tournament it runs
LEASE_PATIENCE = 45.0  # seconds to wait for a lost orchestrator's lease (30 s) to lapse


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeOptions:
    store: str
    tournament: str  # its id (the newest run), or a run's stream `tournament/run`
    out: Path | None = None  # default: the run's own folder (the store's registry)
    ray_address: str | None = None
    deck: str | None = None  # a running deck service on the same store; default: start one
    force: bool = False  # `out` may hold another run's files
    bots: tuple[str, ...] = DEFAULT_BOTS  # as `mtt run` plays them
    metrics: MetricsEndpoint | None = None
    ui: UiOptions | None = None
    lease_patience: float = LEASE_PATIENCE


@dataclass(frozen=True, slots=True)
class Resumed:
    stream: str
    results: dict[str, Any]
    hands: int  # the tournament's, all of them
    seconds: float  # since the resume
    exported: Exported
    was_over: bool  # finished or cancelled before: only its files were written
    followed: bool  # its orchestrator was alive on the cluster: followed, not relaunched


def resume_tournament(
    options: ResumeOptions, *, progress: Callable[[dict[str, Any]], None] | None = None
) -> Resumed:
    store = open_existing_store(options.store)
    try:
        return _resume(store, options, progress)
    finally:
        store.close()


def _resume(
    store: Store, options: ResumeOptions, progress: Callable[[dict[str, Any]], None] | None
) -> Resumed:
    # STEP 1: the run, read whole and rebuilt, as its orchestrator will rebuild it.
    stream = find_run(store, options.tournament)
    tournament_id, _, run_id = stream.partition("/")
    if f"{tournament_id}{FRONT_DOOR_SUFFIX}" in store.tournaments():
        raise TournamentStateError(
            f"{tournament_id} was started by the front door: restart `mtt serve` on this "
            "store, which takes its running tournaments over"
        )
    meta = store.meta(stream)
    records = read_log(store, stream)
    if not records:
        raise RecoveryError(f"{stream}: its log is empty, nothing to resume (run it again)")
    core = rebuild_run(store, stream, records)
    out = options.out or Path(str(meta.get("out") or tournament_id))
    if core.finished or core.cancelled is not None:
        exported = export_run(store, stream, out, force=options.force)
        results = core.results(seconds=0.0)
        return Resumed(stream, results, core.hands, 0.0, exported, True, False)
    seed = int(meta["seed"])
    if not options.force:
        check_folder(out, first_record=records[0])  # refused before anything starts
    sides = _unfinished_sides(store, stream, records)
    local = not options.ray_address or options.ray_address == "local"
    # STEP 2: the run taken over (on a cluster given, once its orchestrator is not found there).
    if local:  # a cluster of our own: the run's orchestrator cannot be alive in it
        _take_over(store, stream, [stream, *sides.values()], out, options)
    # STEP 3: the deck service on the same store, Ray, the orchestrator.
    follower = RunFollower(
        tournament_id, StoreEventSource(options.store, stream), options.metrics, progress
    )
    deck_options = RunOptions(out=out, seed=seed, deck=options.deck)
    with (
        live_view(core.config, options.store, stream, options.ui) as control,
        StoreGuard(options.store) as guard,
        decks_for(deck_options, options.store) as decks,
        local_ray(options.ray_address, namespace=RUN_NAMESPACE, workers=actors_for(core.config)),
        follower,
    ):
        from orchestrator.shell.orchestrators import OrchestratorHandle

        # Its orchestrator, followed where it lives, else launched again from the log.
        orchestrator = None if local else OrchestratorHandle.find(tournament_id)
        followed = orchestrator is not None
        if orchestrator is None:
            if not local:
                _take_over(store, stream, [stream, *sides.values()], out, options)
            say(
                f"resuming {stream} from seq {records[-1]['seq']} ({core.hands} hands "
                f"played): the hands in progress are voided, every table restarts"
            )
            for event, side in sides.items():
                _launch(
                    core.config.side_event_config(event),
                    list(_side_players(records, event)),
                    tournament_id=side.partition("/")[0],
                    seed=seed + event,
                    out=out / "side-events" / str(event),
                    deck_target=decks.target,
                    options=options,
                    run_id=run_id,
                    epoch=guard.epoch,
                ).start()
            orchestrator = _launch(
                core.config,
                [],
                tournament_id=tournament_id,
                seed=seed,
                out=out,
                deck_target=decks.target,
                options=options,
                run_id=run_id,
                epoch=guard.epoch,
            )
        else:
            say(f"{stream}'s orchestrator is alive on the cluster: following it to the end")
        follower.restart_clock()
        orchestrator.start().get()
        if control is not None:
            control.orchestrator = orchestrator

        def every_poll() -> None:
            guard.check()  # a store that lost its data stops the run (RNG-3)
            decks.check()

        outcome = follower.follow(orchestrator, every_poll=every_poll)
        if control is not None:
            control.orchestrator = None
        orchestrator.kill()
    # STEP 4: the run's folder, from the store.
    exported = export_run(store, stream, out, force=True)
    return Resumed(
        stream,
        outcome["results"],
        outcome["hands"],
        follower.seconds(),
        exported,
        False,
        followed,
    )


def _unfinished_sides(store: Store, stream: str, records: list[dict[str, Any]]) -> dict[int, str]:
    """The side events the run started that are not over (their own logs say)."""
    known = set(store.tournaments())
    sides: dict[int, str] = {}
    for event, side in side_streams(stream, records).items():
        kinds = {r["type"] for r in read_log(store, side)} if side in known else set()
        if not kinds & {"tournament_finished", "tournament_cancelled"}:
            sides[event] = side
    return sides


def _side_players(records: list[dict[str, Any]], event: int) -> tuple[str, ...]:
    started = next(r for r in records if r["type"] == "side_event_started" and r["event"] == event)
    return tuple(started["players"])


def _take_over(
    store: Store, stream: str, streams: list[str], out: Path, options: ResumeOptions
) -> None:
    """Once no orchestrator holds the run: its folder written from the store so far (a hand
    a crash cut off left out), for the new tables and the new orchestrator to go on with."""
    _wait_for_leases(store, streams, options.lease_patience)
    for note in export_run(store, stream, out, force=True).notes:
        say(f"note: {note}")


def _wait_for_leases(store: Store, streams: list[str], patience: float) -> None:
    """Until no orchestrator holds these runs' leases: a lost one's lapses within its TTL; a
    live one renews it, and then the tournament is not lost (`TournamentStateError`)."""
    deadline = time.monotonic() + patience
    told = False
    while held := [(s, owner) for s in streams if (owner := store.owner(s)) is not None]:
        stream, owner = held[0]
        if time.monotonic() > deadline:
            raise TournamentStateError(
                f"{stream} is still run by {owner!r}, which keeps renewing its lease: the "
                "tournament is not lost (give its cluster with --ray-address to follow it)"
            )
        if not told:
            say(f"waiting for the lost orchestrator's lease on {stream} to lapse")
            told = True
        time.sleep(1.0)


def _launch(
    config: TournamentConfig,
    players: list[str],
    *,
    tournament_id: str,
    seed: int,
    out: Path,
    deck_target: str,
    options: ResumeOptions,
    run_id: str,
    epoch: str,
) -> OrchestratorHandle:
    """A run's orchestrator actor, launched with the run's id: it finds its log and rebuilds
    itself from it (`orchestrator.shell.actor`)."""
    from orchestrator.shell.actor import StoreSettings
    from orchestrator.shell.orchestrators import OrchestratorHandle
    from orchestrator.shell.simulation import entry_deposits, late_bot_names
    from orchestrator.shell.tables import TableSettings

    out.mkdir(parents=True, exist_ok=True)
    return OrchestratorHandle.launch(
        config,
        players,
        # What `mtt run` funded its bots with (the rebuild starts from the stored start).
        deposits=entry_deposits(config, players + late_bot_names(config)),
        tournament_id=tournament_id,
        seed=seed,
        out_dir=str(out),
        tables=TableSettings(deck_target=deck_target, bots=options.bots, seed=seed),
        store=StoreSettings(url=options.store, run_id=run_id, epoch=epoch),
    )
