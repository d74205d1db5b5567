"""The `mtt` command line: parses arguments and hands them to the packages' own commands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from orchestrator.cli import competition as competition_cli
from orchestrator.cli import loadtest as loadtest_cli
from orchestrator.cli import report as report_cli
from orchestrator.cli import run as run_cli
from orchestrator.cli import serve as frontdoor_cli
from orchestrator.cli import table as table_cli
from rng_service import cli as rng_cli


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mtt", description="Distributed multi-table poker tournament orchestrator."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = commands.add_parser("bench", help="measure throughput").add_subparsers(
        dest="bench", required=True, metavar="TARGET"
    )
    table_cli.register(commands, bench)
    rng_cli.register(commands, bench)
    run_cli.register(commands, bench)
    competition_cli.register(commands, bench)
    frontdoor_cli.register(commands)
    loadtest_cli.register(commands)
    report_cli.register(commands, bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
