"""`mtt report DIR`: argument parsing; the work is in `orchestrator.report`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


def _report(args: argparse.Namespace) -> int:
    from orchestrator.report import UnreadableRun, build_report

    try:
        page = build_report(args.dir, args.out if args.out is not None else args.dir / "report")
    except UnreadableRun as exc:
        print(f"mtt report: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {page}")
    return 0
