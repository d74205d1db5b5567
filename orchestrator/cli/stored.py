"""`mtt export` and `mtt resume`: a run from the store, the tournament's only record. Argument
parsing; the work is in `orchestrator.shell.export` and `orchestrator.shell.resume`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.cli.args import port_number
from orchestrator.errors import TournamentStateError

if TYPE_CHECKING:
    from orchestrator.shell.export import Exported

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

    resume = commands.add_parser(
        "resume",
        help="carry on a tournament whose driver, Ray head or machine died, from the store",
        description="Rebuild a tournament from the store its run used and play it to the end: "
        "a deck service on the same store (no deck repeats), Ray (local, or --ray-address), the "
        "run's orchestrator rebuilt from its log, every table restarted with the hand it was "
        "playing voided (stacks back to the start of that hand); then its files are written "
        "from the store (as mtt export). Waits for the lost orchestrator's lease to lapse "
        "(30 s at most). Exit 0 finished, 3 cancelled, 1 refused (its orchestrator is alive "
        "elsewhere), 2 not found or unreadable.",
    )
    resume.add_argument("--store", required=True, metavar="URL", help=STORE_HELP)
    resume.add_argument("tournament", help=TOURNAMENT_HELP)
    resume.add_argument("--ray-address", help="an existing Ray cluster (default: local)")
    resume.add_argument(
        "--out", type=Path, help="where its files go (default: the run's own folder)"
    )
    resume.add_argument(
        "--deck", metavar="HOST:PORT", help="a running deck service on the same store"
    )
    resume.add_argument(
        "--force", action="store_true", help="--out may hold another run's files: overwrite"
    )
    resume.add_argument(
        "--metrics-port", type=port_number, help="serve the tournament's /metrics on this port"
    )
    resume.add_argument("--ui-port", type=port_number, help="serve the live view on this port")
    resume.add_argument("--ui-host", default="127.0.0.1", help="its address (127.0.0.1)")
    resume.add_argument(
        "--operator-token-file", type=Path, metavar="FILE", help="the operator credential"
    )
    resume.set_defaults(handler=_resume, wait_for_start=False, ui_linger=0.0)


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
    from orchestrator.shell.export import export_run, find_run, open_existing_store

    store = open_existing_store(args.store)  # StoreError: one line, exit 2 (orchestrator.cli.main)
    try:
        exported = export_run(store, find_run(store, args.tournament), args.dir, force=args.force)
    finally:
        store.close()
    print("\n".join(summary(exported)))
    print_notes(exported)
    return 0


def _resume(args: argparse.Namespace) -> int:
    from orchestrator.cli.run import ui_options
    from orchestrator.shell.driver import MetricsEndpoint, ProgressLine
    from orchestrator.shell.resume import ResumeOptions, resume_tournament

    options = ResumeOptions(
        store=args.store,
        tournament=args.tournament,
        out=args.out,
        ray_address=args.ray_address,
        deck=args.deck,
        force=args.force,
        metrics=None if args.metrics_port is None else MetricsEndpoint(port=args.metrics_port),
        ui=ui_options(args),
    )
    try:
        done = resume_tournament(options, progress=ProgressLine(sys.stdout))
    except TournamentStateError as exc:
        print(f"mtt resume: refused: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nstopped; `mtt resume --store {args.store} ...` again", file=sys.stderr)
        return 130
    results = done.results
    if done.was_over:
        print(f"{done.stream} was over already; its files are written again")
    elif "cancelled" in results:
        print(f"\n{done.stream} was cancelled ({results['cancelled']}) after {done.hands} hands")
    else:
        winner = results["places"][0]
        print(
            f"\n{winner['player']} wins {done.stream} after {done.hands} hands "
            f"({done.seconds:.1f}s since the resume); prize pool {results['prize_pool']}"
        )
    print("\n".join(summary(done.exported)))
    print_notes(done.exported)
    return 3 if "cancelled" in results else 0
