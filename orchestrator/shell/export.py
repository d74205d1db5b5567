"""A run's folder written from the store, the tournament's only record (DESIGN.md "Stores",
"Files exported by `mtt export`"): at the end of `mtt run`, when the front door's tournament
ends, by `mtt cancel --store`, `mtt export`, and through it `mtt replay --store`,
`mtt report --store` and `mtt resume`. Never by an actor.

A run is one stream of the store, `{tournament}/{run}` (`stream_name`), with a registry entry
(`meta`: the run's `out` folder, its `seed`, ...). `find_run` resolves a tournament id to its
newest run. `read_log` reads a whole log in pages and refuses one with a gap, or with a record
the store cannot read (a corrupted or truncated SQLite file), naming the stream and the seq
(`StoreCorrupted`). `export_run(store, stream, folder)` writes:

- `events.jsonl`: the store's records, line for line, one compact JSON object a line;
- `hands/table-NNNN.phhs`: each table's stored hand histories in hand order (the PHH sections
  the table wrote), only those of the `hand_finished` records written (a voided hand has none);
  an empty file for a table that opened and dealt no hand;
- `results.json`, once the tournament has finished or been cancelled: from the core rebuilt
  from the store (snapshot + tail, or the log alone), as a restarted orchestrator rebuilds it;
- `side-events/N/`: each side event the log started (RB-6), from its own stream of the run.

Each file is written whole under a temporary name and renamed into place, so a reader sees the
old file or the new one.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.core.events import EventRecord
from orchestrator.core.replay import opening
from orchestrator.core.tournament import Tournament
from orchestrator.errors import (
    FolderInUse,
    RecoveryError,
    StoreCorrupted,
    StoreError,
    StoreUnavailable,
    UnknownTournament,
)
from orchestrator.shell.recovery import rebuild_from_store
from orchestrator.shell.store import Store, StoredHand, open_store

__all__ = [
    "Exported",
    "check_folder",
    "earlier_run_files",
    "encode_line",
    "export_run",
    "find_run",
    "hands_file",
    "open_existing_store",
    "read_hands",
    "read_log",
    "rebuild_run",
    "side_event_id",
    "side_streams",
    "stream_name",
    "temporary_export",
]

PAGE = 5000  # records per read of the store
_SQLITE = "sqlite:///"


def open_existing_store(url: str) -> Store:
    """The store at `url` for reading a run back: a SQLite file that does not exist is an
    error here (opening one creates it), not an empty store."""
    if url.startswith(_SQLITE) and not Path(url[len(_SQLITE) :]).is_file():
        raise StoreError(f"{url[len(_SQLITE) :]}: no such store file")
    return open_store(url)


def encode_line(record: EventRecord) -> str:
    """One line of events.jsonl, exactly as the orchestrator's event log writes it."""
    return json.dumps(record, separators=(",", ":")) + "\n"


# --- finding a run and reading its log ---------------------------------------------------


def find_run(store: Store, name: str) -> str:
    """The stream of tournament `name`'s newest run (the one whose log began last), or `name`
    itself when it names a stream (`tournament/run`); `UnknownTournament` if none."""
    streams = store.tournaments()
    if "/" in name and name in streams:
        return name
    runs = [s for s in streams if s.partition("/")[0] == name and s.partition("/")[2]]
    if not runs:
        known = sorted({s.partition("/")[0] for s in streams if "/" in s})
        holds = ", ".join(known[:5]) + (", ..." if len(known) > 5 else "") if known else "none"
        raise UnknownTournament(f"no tournament {name!r} in the store (it holds {holds})")
    return max(runs, key=lambda stream: (_began(store, stream), stream))


def _began(store: Store, stream: str) -> float:
    first = store.read(stream, limit=1)
    return float(first[0]["ts"]) if first else 0.0


def read_log(store: Store, stream: str, *, after: int = 0) -> list[EventRecord]:
    """The log after seq `after`, whole: seqs `after + 1`, `after + 2`, ... without a gap.
    `StoreCorrupted` names the stream and the seq where it breaks: a gap, or a record the store
    cannot read; `StoreUnavailable` passes (the store is away, not broken)."""
    records: list[EventRecord] = []
    expected = after + 1
    while True:
        try:
            page = store.read(stream, after=expected - 1, limit=PAGE)
        except (StoreUnavailable, StoreCorrupted):
            raise
        except StoreError:  # sqlite3: "database disk image is malformed", ...
            page = _read_up_to_the_break(store, stream, expected)
        for record in page:
            if record["seq"] != expected:
                raise StoreCorrupted(
                    stream,
                    expected,
                    f"missing: the log goes from seq {expected - 1} to {record['seq']} (a gap)",
                )
            expected += 1
        records += page
        if len(page) < PAGE:
            return records


def _read_up_to_the_break(store: Store, stream: str, first: int) -> list[EventRecord]:
    """A page the store cannot read, one record at a time: those before the break, then
    `StoreCorrupted` naming the seq where it is."""
    records: list[EventRecord] = []
    for seq in range(first, first + PAGE):
        try:
            records += store.read(stream, after=seq - 1, limit=1)
        except (StoreUnavailable, StoreCorrupted):
            raise
        except StoreError as exc:
            raise StoreCorrupted(stream, seq, f"the store cannot read on: {exc}") from exc
    return records


def rebuild_run(store: Store, stream: str, records: Sequence[EventRecord]) -> Tournament:
    """The core after the last of `records` (the whole log, as `read_log` gives it), rebuilt
    as a restarted orchestrator rebuilds it (`shell.recovery`). `RecoveryError` names the
    stream and the seq."""
    rebuilt = rebuild_from_store(store, stream, records=records)
    if rebuilt is None:
        raise RecoveryError(f"{stream}: its log is empty, nothing to rebuild")
    return rebuilt.tournament


def side_streams(stream: str, records: Sequence[EventRecord]) -> dict[int, str]:
    """The streams of the side events (RB-6) a run's log started: event -> stream."""
    tournament, _, run = stream.partition("/")
    return {
        int(r["event"]): stream_name(side_event_id(tournament, int(r["event"])), run)
        for r in records
        if r["type"] == "side_event_started"
    }


# --- hand histories ---------------------------------------------------------------------


def stream_name(tournament_id: str, run_id: str) -> str:
    """The store's log of one run of a tournament."""
    return f"{tournament_id}/{run_id}"


def side_event_id(tournament_id: str, event: int) -> str:
    """The tournament id of side event `event` of `tournament_id` (RB-6); its log is
    `stream_name(side_event_id(...), run)`, the run of the event it came from."""
    return f"{tournament_id}-side{event}"


def hands_file(table: int) -> str:
    return f"table-{table:04d}.phhs"


def read_hands(store: Store, stream: str) -> Iterator[StoredHand]:
    """The run's hand histories as the store holds them (each committed with its hand's
    events), by table then hand, a page at a time."""
    after: tuple[int, int] | None = None
    while page := store.read_hands(stream, after, PAGE):
        yield from page
        after = (page[-1].table, page[-1].hand)


# --- the folder -----------------------------------------------------------------------------


def earlier_run_files(folder: Path) -> list[str]:
    """What of a run's files `folder` holds (events.jsonl, results.json, hands, side events)."""
    found = [name for name in ("events.jsonl", "results.json") if (folder / name).is_file()]
    hands = len(list((folder / "hands").glob("*.phhs")))
    if hands:
        found.append(f"hands/ ({hands} PHH file{'s' if hands != 1 else ''})")
    if (folder / "side-events").is_dir():
        found.append("side-events/")
    return found


def check_folder(folder: Path, *, first_record: EventRecord | None = None) -> None:
    """`FolderInUse` when `folder` holds an earlier run's files, unless they are the files of
    the run whose first record is `first_record` (writing them again loses nothing)."""
    found = earlier_run_files(folder)
    if not found:
        return
    if first_record is not None and _first_line(folder / "events.jsonl") == encode_line(
        first_record
    ):
        return
    raise FolderInUse(
        f"{folder} holds an earlier run's files ({', '.join(found)}): choose another folder, "
        "or pass --force to overwrite them (a run's store keeps its log: mtt export writes "
        "its files again)"
    )


def _first_line(path: Path) -> str:
    try:
        with path.open(encoding="utf-8") as file:
            return file.readline()
    except (OSError, UnicodeDecodeError):
        return ""


@dataclass(slots=True)
class Exported:
    """What `export_run` wrote for one run (its side events in `side_events`)."""

    stream: str
    folder: Path
    events: int
    hands: int  # hand histories written
    logged_hands: int  # hand_finished in the log
    finished: bool
    cancelled: bool
    results: bool  # results.json written (the tournament is over)
    notes: list[str] = field(default_factory=list)
    side_events: list[Exported] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every logged hand has its history, here and in every side event."""
        return self.hands == self.logged_hands and all(s.complete for s in self.side_events)


def export_run(store: Store, stream: str, folder: Path, *, force: bool = False) -> Exported:
    """Write the run's files into `folder` from the store (see the module's docstring).
    Refuses (`FolderInUse`) a folder that holds another run's files unless `force`."""
    records = read_log(store, stream)
    if not records:
        raise RecoveryError(f"{stream}: its log is empty, there is nothing to export")
    if not force:
        check_folder(folder, first_record=records[0])
    tournament = _rebuilt(store, stream, records)
    over = tournament is not None and (tournament.finished or tournament.cancelled is not None)
    logged = {(r["table"], r["hand"]) for r in records if r["type"] == "hand_finished"}
    by_table: dict[int, dict[int, StoredHand]] = {
        r["table"]: {} for r in records if r["type"] == "table_opened"
    }
    notes: list[str] = []
    for hand in read_hands(store, stream):
        if (hand.table, hand.hand) in logged:  # stored after the log was read: not yet
            by_table.setdefault(hand.table, {})[hand.hand] = hand
    folder.mkdir(parents=True, exist_ok=True)
    hands_dir = folder / "hands"
    hands_dir.mkdir(exist_ok=True)
    written = {hands_file(table) for table in by_table}
    for table, hands in by_table.items():
        text = "".join(hands[number].text for number in sorted(hands))
        _write(hands_dir / hands_file(table), text)
    for stale in hands_dir.glob("*.phhs"):
        if stale.name not in written:
            stale.unlink()
    _write(folder / "events.jsonl", "".join(encode_line(r) for r in records))
    if tournament is not None and over:
        results = tournament.results(seconds=_seconds(records, tournament.started_at))
        _write(folder / "results.json", json.dumps(results, indent=2) + "\n")
    else:  # a live or interrupted run: no results yet (a stale file would lie)
        (folder / "results.json").unlink(missing_ok=True)
    kinds = {r["type"] for r in records}
    exported = Exported(
        stream=stream,
        folder=folder,
        events=len(records),
        hands=sum(len(hands) for hands in by_table.values()),
        logged_hands=len(logged),
        finished="tournament_finished" in kinds,
        cancelled="tournament_cancelled" in kinds,
        results=over,
        notes=notes,
    )
    known = set(store.tournaments())
    for event, side in side_streams(stream, records).items():
        if side not in known:
            exported.notes.append(f"side event {event}: no stream {side} in the store")
            continue
        exported.side_events.append(
            export_run(
                store,
                side,
                folder / "side-events" / str(event),
                force=True,  # inside the run's own folder
            )
        )
    return exported


def _rebuilt(store: Store, stream: str, records: Sequence[EventRecord]) -> Tournament | None:
    """The core the log leaves, or None for a log without its opening record (a bare log has
    no config to rebuild with: its events and hands are still exported)."""
    if opening(records[:1]) is None:
        return None
    return rebuild_run(store, stream, records)


def _seconds(records: Sequence[EventRecord], started_at: float) -> float:
    """The tournament's length: as `tournament_finished` says, else up to its last record."""
    for record in reversed(records):
        if record["type"] == "tournament_finished":
            return float(record["seconds"])
    return float(records[-1]["ts"]) - started_at


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a reader never sees half a file, a crash leaves the old one."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8", newline="\n")
    os.replace(partial, path)


@contextmanager
def temporary_export(url: str, tournament: str) -> Iterator[Exported]:
    """The newest run of `tournament` in the store at `url` exported to a temporary folder
    for the block (`mtt replay --store`, `mtt report --store`); gone afterwards."""
    store = open_existing_store(url)
    try:
        stream = find_run(store, tournament)
        with tempfile.TemporaryDirectory(prefix="mtt-export-") as folder:
            yield export_run(store, stream, Path(folder), force=True)
    finally:
        store.close()
