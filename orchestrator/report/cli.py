"""`mtt report DIR`: argument parsing; the work is in `orchestrator.report`."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    report = commands.add_parser(
        "report",
        help="a run's files as one HTML report with charts",
        description="Turn the files `mtt run --out DIR` wrote into one self-contained HTML "
        "page (charts inlined) and PNG charts: players remaining, stacks against the big "
        "blind, hands per table, the final table's chip counts, places and prizes, and a "
        "per-player fairness audit. Exit 2 when a file is missing or unreadable.",
    )
    report.add_argument("dir", type=Path, help="the run's output folder")
    report.add_argument(
        "--out", type=Path, help="where to write report.html and the PNGs (default: DIR/report)"
    )
    report.set_defaults(handler=_report)

    view = bench.add_parser(
        "view",
        help="the operator's view over a finished run: lobby fold, snapshot, report",
        description="Fold a run's events.jsonl into the live lobby (events/s, best of 3), "
        "time and size its snapshot with every opening table seated, and time `mtt report`.",
    )
    view.add_argument("dir", type=Path, help="a run's output folder")
    view.add_argument("--json", action="store_true", help="one JSON object on stdout")
    view.set_defaults(handler=_bench_view)


def _report(args: argparse.Namespace) -> int:
    from orchestrator.report import UnreadableRun, build_report

    try:
        page = build_report(args.dir, args.out if args.out is not None else args.dir / "report")
    except UnreadableRun as exc:
        print(f"mtt report: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {page}")
    return 0


def _bench_view(args: argparse.Namespace) -> int:
    from orchestrator.audit import read_events
    from orchestrator.config import parse_config
    from orchestrator.report import UnreadableRun, build_report
    from orchestrator.ui.app import LiveLobby
    from orchestrator.ui.lobby import Lobby

    try:
        events = read_events(args.dir / "events.jsonl")
    except UnreadableRun as exc:
        print(f"mtt bench view: {exc}", file=sys.stderr)
        return 2
    # The fold needs a config only for the clock and payouts; the log's own blinds suffice.
    config = parse_config({"tournament": {}, "levels": {"blinds": [[1, 2]]}})
    fold = float("inf")
    for _ in range(3):
        lobby, started = Lobby(config), time.perf_counter()
        for event in events:
            lobby.apply(event)
        fold = min(fold, time.perf_counter() - started)
    opening = Lobby(config)
    for event in events:
        if event.get("type") == "hand_finished":
            break
        opening.apply(event)
    live = LiveLobby(opening, _NoEvents())
    started = time.perf_counter()
    snapshot = json.dumps(live.snapshot(), separators=(",", ":"))
    snapshot_ms = 1000 * (time.perf_counter() - started)
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        build_report(args.dir, Path(out))
        report_s = time.perf_counter() - started
    figures = {
        "events": len(events),
        "fold_events_per_s": round(len(events) / fold),
        "opening_tables": len(opening.tables),
        "opening_players": len(opening.stacks),
        "snapshot_bytes": len(snapshot),
        "snapshot_ms": round(snapshot_ms, 2),
        "report_s": round(report_s, 2),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>18}  {value}")
    return 0


class _NoEvents:
    async def events_since(self, seq: int) -> list[dict[str, object]]:
        return []
