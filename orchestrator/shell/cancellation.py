"""CRASH-2 by hand, for a tournament whose orchestrator cannot run any more.

`mtt cancel --store URL` takes the tournament's ownership lease (refused while a live
orchestrator holds it: cancel through it then), rebuilds the core from the store's log (its
snapshot and the log's tail, or the log alone) exactly as a restarted orchestrator would
(`shell.recovery`), cancels it: hands in
progress voided, prizes already won paid, everyone still in rolled forward through the ledger,
and appends that step to the store's log; when the run's folder is on this machine it exports
the run there again (`export.export_run`: events.jsonl, hands, results.json). A later restart
of the orchestrator replays the cancellation and closes every table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.errors import TournamentStateError, UnknownTournament
from orchestrator.shell.eventlog import EventLog, event_time
from orchestrator.shell.export import export_run, read_log, rebuild_run
from orchestrator.shell.store import Store

__all__ = ["Cancelled", "cancel_in_store", "find_stream"]

OPERATOR = "mtt-cancel"  # the lease owner while the command works
LEASE_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Cancelled:
    stream: str
    events: list[dict[str, Any]]  # the cancellation step as logged
    results: dict[str, object]
    folder: Path | None  # the run folder written to, if it is on this machine


def find_stream(store: Store, name: str) -> str:
    """The log named `name`: a stream (`tournament/run`) or a tournament id with one run."""
    streams = store.tournaments()
    if name in streams:
        return name
    runs = sorted(s for s in streams if s.partition("/")[0] == name)
    if len(runs) == 1:
        return runs[0]
    if not runs:
        raise UnknownTournament(f"no tournament {name!r} in the store")
    raise UnknownTournament(f"{name!r} has several runs in the store; name one: {runs}")


def cancel_in_store(store: Store, stream: str, reason: str, *, now: float) -> Cancelled:
    """CRASH-2 on the stored tournament `stream`; the store is unchanged when it refuses."""
    if not reason.strip():
        raise TournamentStateError("a cancellation needs a reason")
    meta = store.meta(stream)
    if not store.acquire(stream, OPERATOR, LEASE_SECONDS):
        raise TournamentStateError(
            f"{stream} is run by {store.owner(stream)!r}: cancel through it (the front door or "
            "the live view), or wait until its lease expires"
        )
    try:
        tournament = rebuild_run(store, stream, read_log(store, stream))
        ts = event_time(now)
        step = tournament.cancel(reason, now=ts)
        log = EventLog(store, stream)
        log.resume([], after=store.last_seq(stream))
        records = log.append(step.events, ts=ts)
        results = tournament.results(seconds=ts - tournament.started_at)
        out = meta.get("out")
        folder = Path(out) if out and Path(out).is_dir() else None
        if folder is not None:
            export_run(store, stream, folder, force=True)  # the run's own folder
        return Cancelled(stream, records, results, folder)
    finally:
        store.release(stream, OPERATOR)
