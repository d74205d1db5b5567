"""A tournament's core rebuilt from its store (DESIGN.md "Failure model"), the one way a
restarted orchestrator actor, `mtt cancel --store`, `mtt resume` and the exports all do it:
the latest snapshot and the log's tail, or, when the snapshot cannot be used (unreadable,
newer than the log, or its tail does not replay), the whole log, which alone holds everything:
its first record is the opening one (`core.replay.open_tournament`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.core.events import EventRecord, TournamentOpened
from orchestrator.core.replay import load_snapshot, opening, rebuild_from_log
from orchestrator.core.tournament import Tournament
from orchestrator.errors import RecoveryError, StoreCorrupted, StoreError, StoreUnavailable
from orchestrator.shell.store import Store

__all__ = ["Rebuilt", "rebuild_from_store"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Rebuilt:
    tournament: Tournament
    opened: TournamentOpened  # what the start was given
    records: list[EventRecord]  # the log read: the snapshot's tail, or the whole log
    after: int  # the seq `records` follow: the snapshot's, or 0 with the whole log


def rebuild_from_store(
    store: Store,
    stream: str,
    *,
    given: TournamentOpened | None = None,
    records: Sequence[EventRecord] | None = None,
) -> Rebuilt | None:
    """The core after the last record of `stream`'s log; None when the log is empty (the
    tournament never started). `records` is the whole log when the caller has read it already
    (`export.read_log`). `given` is what its start was given, for a log of release 1, which
    has no opening record; a log with one is rebuilt from it. `RecoveryError` names the
    stream and the seq where a replayed step differs from the log."""
    first = list(records[:1]) if records is not None else store.read(stream, after=0, limit=1)
    if not first:
        return None
    opened = opening(first) or given
    if opened is None:
        raise RecoveryError(
            f"{stream}: its log has no opening record (release 1 wrote none), and what its "
            "start was given is not known here"
        )
    found = _snapshot(store, stream)
    if found is not None:
        after, state = found
        last = store.last_seq(stream) if records is None else len(records)
        if after > last:  # a snapshot is saved only once the log holds it: records were lost
            raise StoreCorrupted(
                stream, last + 1, f"the log ends at seq {last} but its snapshot is at seq {after}"
            )
        tail = store.read(stream, after=after) if records is None else list(records[after:])
        try:
            base = (after, load_snapshot(state))
            return Rebuilt(rebuild_from_log(tail, base=base, opened=opened), opened, tail, after)
        except RecoveryError as exc:
            log.warning(
                "%s: the snapshot after seq %d cannot be used (%s); rebuilding from the log",
                stream,
                after,
                exc,
            )
    whole = store.read(stream) if records is None else list(records)
    try:
        return Rebuilt(rebuild_from_log(whole, opened=opened), opened, whole, 0)
    except RecoveryError as exc:
        raise RecoveryError(f"{stream}: {exc}") from exc


def _snapshot(store: Store, stream: str) -> tuple[int, bytes] | None:
    """The latest snapshot, or None when there is none or it cannot be read (the log alone
    rebuilds); a store that is away is not a broken snapshot, and passes."""
    try:
        return store.load_snapshot(stream)
    except (StoreUnavailable, StoreCorrupted):
        raise
    except StoreError as exc:  # sqlite3: "database disk image is malformed", ...
        log.warning("%s: its snapshot cannot be read (%s); rebuilding from the log", stream, exc)
        return None
