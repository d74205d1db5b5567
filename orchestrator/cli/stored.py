"""`mtt export`: a run from the store, the tournament's only record. Argument parsing; the
work is in `orchestrator.shell.run_export`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orchestrator.shell.run_export import Exported

__all__ = ["print_notes", "register", "summary"]

STORE_HELP = "the store URL the run used (redis://host:port/db or sqlite:///path.db)"
TOURNAMENT_HELP = "the tournament's id (NAME-SEED: its newest run), or one run's TOURNAMENT/RUN"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser(
        "export",
        help="write a run's files from the store",
        description="Write the files of a tournament's newest run from the store into DIR, as "
        "`mtt run --out` leaves them (DESIGN.md contracts): events.jsonl (the store's log, line "
        "for line), hands/*.phhs, results.json and side-events/N/. A log with a gap or a record "
        "the store cannot read is refused, naming the tournament and the seq. Exit 0 written, "
        "2 not found, unreadable, or DIR holds another run's files (without --force).",
    )
    export.add_argument("--store", required=True, metavar="URL", help=STORE_HELP)
    export.add_argument("tournament", help=TOURNAMENT_HELP)
    export.add_argument("dir", type=Path, help="the folder to write")
    export.add_argument("--force", action="store_true", help="overwrite another run's files in DIR")
    export.set_defaults(handler=_export)


def summary(exported: Exported, indent: str = "") -> list[str]:
    """What an export wrote, a line per run (its side events indented below)."""
    state = (
        "finished"
        if exported.finished
        else "cancelled"
        if exported.cancelled
        else f"not over: the log ends at seq {exported.events}"
    )
    lines = [
        f"{indent}{exported.stream}: {exported.events} events, {exported.hands} of "
        f"{exported.logged_hands} hand histories, results.json ({state}) in {exported.folder}/"
    ]
    for side in exported.side_events:
        lines += summary(side, indent + "  ")
    return lines


def print_notes(exported: Exported) -> None:
    """What an export left out, and a word when hand histories are missing, on stderr."""
    for note in _notes(exported):
        print(f"note: {note}", file=sys.stderr)
    if not exported.complete:
        print(
            "note: hand histories are missing: until the store holds them, they are the files "
            "the tables wrote on their own machines",
            file=sys.stderr,
        )


def _notes(exported: Exported) -> list[str]:
    return [*exported.notes, *(n for side in exported.side_events for n in _notes(side))]


def _export(args: argparse.Namespace) -> int:
    from orchestrator.shell.run_export import export_run, find_run, open_existing_store

    store = open_existing_store(args.store)  # StoreError: one line, exit 2 (orchestrator.cli.main)
    try:
        exported = export_run(store, find_run(store, args.tournament), args.dir, force=args.force)
    finally:
        store.close()
    print("\n".join(summary(exported)))
    print_notes(exported)
    return 0
