"""A run's folder, written from the store (DESIGN.md "Files exported by `mtt export`").

    export_run(store, stream, out_dir) -> Exported

The store is the tournament's only record; the files are its export, written by whoever asks
for them (the end of `mtt run`, `mtt serve --data-dir` when a tournament ends, `mtt cancel
--store`, `mtt export`), never by an actor. For the log `stream` (`tournament/run`):
- `events.jsonl`: every record of the log, in seq order, one compact JSON object a line.
- `hands/table-NNNN.phhs`: each table's stored hand histories in hand order, each the PHH
  section the table wrote (`[hand]`, its fields, a blank line), so the file is the `.phhs`
  document the table used to append to; an empty file for a table opened that dealt no hand.
  Only the hands of the `hand_finished` records written to `events.jsonl` (a live tournament's
  export is consistent as of its log); a voided hand never has one.
- `results.json`, once the tournament has finished or been cancelled: the core rebuilt from
  the store (snapshot and tail), its results, `seconds` from the start to the last logged event.
- `side-events/N/`: the same for each side event the log started (RB-6), from its own log.

Each file is written whole under a temporary name and renamed into place, so a reader sees the
old file or the new one. Stale `hands/table-*.phhs` that this export does not write are
removed (a folder holds one run). Reads a page at a time: memory stays flat in the log's size.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from orchestrator.core.replay import load_snapshot, rebuild
from orchestrator.core.tournament import Tournament
from orchestrator.errors import RecoveryError, UnknownTournament
from orchestrator.shell.store import Store

__all__ = [
    "Exported",
    "export_run",
    "hands_file",
    "rebuild_from_store",
    "side_event_id",
    "stream_name",
]

PAGE = 5000  # records or hands read per store call


def stream_name(tournament_id: str, run_id: str) -> str:
    """The store's log of one run of a tournament."""
    return f"{tournament_id}/{run_id}"


def side_event_id(tournament_id: str, event: int) -> str:
    """The tournament id of side event `event` of `tournament_id` (RB-6); its log is
    `stream_name(side_event_id(...), run)`, the run of the event it came from."""
    return f"{tournament_id}-side{event}"


def hands_file(table: int) -> str:
    return f"table-{table:04d}.phhs"


@dataclass(frozen=True, slots=True)
class Exported:
    """What an export wrote: the folder, counts, whether results.json is among the files, and
    each side event's own export."""

    stream: str
    folder: Path
    events: int
    hands: int
    tables: int
    results: bool
    side_events: list[Exported] = field(default_factory=list)


def export_run(store: Store, stream: str, out_dir: str | Path) -> Exported:
    """Write the run's files for the log `stream` into `out_dir` (created if needed), and its
    side events' into `out_dir/side-events/N/`. `StoreError`s pass through as they are."""
    out = Path(out_dir)
    (out / "hands").mkdir(parents=True, exist_ok=True)
    played: set[tuple[int, int]] = set()
    opened: set[int] = set()
    sides: list[int] = []
    count, last_ts = 0, None
    with _replacing(out / "events.jsonl") as file:
        for record in _records(store, stream):
            file.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += 1
            last_ts = record["ts"]
            kind = record["type"]
            if kind == "hand_finished":
                played.add((record["table"], record["hand"]))
            elif kind == "table_opened":
                opened.add(record["table"])
            elif kind == "side_event_started":
                sides.append(record["event"])
    hands, tables = _write_hands(store, stream, out / "hands", played, opened)
    results = _write_results(store, stream, out / "results.json", last_ts)
    tournament_id, _, run = stream.partition("/")
    side_exports = [
        export_run(
            store,
            stream_name(side_event_id(tournament_id, event), run),
            out / "side-events" / str(event),
        )
        for event in sides
    ]
    return Exported(stream, out, count, hands, tables, results, side_exports)


def _records(store: Store, stream: str) -> Iterator[dict[str, Any]]:
    after = 0
    while page := store.read(stream, after=after, limit=PAGE):
        yield from page
        after = page[-1]["seq"]


def _write_hands(
    store: Store,
    stream: str,
    folder: Path,
    played: set[tuple[int, int]],
    opened: set[int],
) -> tuple[int, int]:
    """Each table's file, in table order, hands in hand order; returns (hands, files)."""
    written: set[str] = set()
    hands = 0
    file: _NewFile | None = None
    after: tuple[int, int] | None = None
    try:
        while page := store.read_hands(stream, after, PAGE):
            after = (page[-1].table, page[-1].hand)
            for hand in page:
                if (hand.table, hand.hand) not in played:
                    continue  # stored after the log was read: the next export has it
                name = hands_file(hand.table)
                if name not in written:
                    if file is not None:
                        file.done()
                    file = _NewFile(folder / name)
                    written.add(name)
                assert file is not None
                file.write(hand.text)
                hands += 1
        if file is not None:
            file.done()
    finally:
        if file is not None:
            file.abandon()
    for table in opened:
        if hands_file(table) not in written:
            _NewFile(folder / hands_file(table)).done()
            written.add(hands_file(table))
    for stale in folder.glob("table-*.phhs"):
        if stale.name not in written:
            stale.unlink()
    return hands, len(written)


def _write_results(store: Store, stream: str, path: Path, last_ts: float | None) -> bool:
    """results.json of a tournament that has ended; a stale one is removed otherwise."""
    tournament = None
    if last_ts is not None:
        # Not registered, or no opening snapshot: no config to give results with.
        with contextlib.suppress(RecoveryError, UnknownTournament):
            tournament = rebuild_from_store(store, stream)
    if tournament is None or not (tournament.finished or tournament.cancelled is not None):
        path.unlink(missing_ok=True)
        return False
    assert last_ts is not None
    results = tournament.results(seconds=last_ts - tournament.started_at)
    with _replacing(path) as file:
        file.write(json.dumps(results, indent=2) + "\n")
    return True


def rebuild_from_store(store: Store, stream: str) -> Tournament:
    """The core as the store's log leaves it: its latest snapshot (the opening one holds the
    config) and the tail after it, replayed (`core.replay.rebuild`). `RecoveryError` when the
    store has no snapshot or no seed to rebuild from, or the log does not replay."""
    meta = store.meta(stream)
    found = store.load_snapshot(stream)
    if found is None or "seed" not in meta:
        raise RecoveryError(f"{stream} has no opening snapshot to rebuild from")
    after, base = found[0], load_snapshot(found[1])
    return rebuild(
        base.config,
        [],
        deposits={},  # the start is in the snapshot
        tournament_id=base.tournament_id,
        seed=int(meta["seed"]),
        records=store.read(stream, after=after),
        base=(after, base),
    )


class _NewFile:
    """A file written under a temporary name, renamed over `path` once `done`; `abandon`
    (after a failure) leaves `path` as it was."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._partial = path.with_name(f".{path.name}.partial")
        self._file: IO[str] = open(self._partial, "w", encoding="utf-8", newline="\n")  # noqa: SIM115

    def write(self, text: str) -> None:
        self._file.write(text)

    def done(self) -> None:
        if not self._file.closed:
            self._file.close()
            os.replace(self._partial, self._path)

    def abandon(self) -> None:
        if not self._file.closed:
            self._file.close()
            self._partial.unlink(missing_ok=True)


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[_NewFile]:
    new = _NewFile(path)
    try:
        yield new
        new.done()
    finally:
        new.abandon()
