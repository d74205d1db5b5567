"""The `mtt` command line: parses arguments and hands them to the packages' own commands.

One place turns errors into exit codes (DESIGN.md: "2 on bad input with a one-line message,
never a traceback for a user's mistake"): every command runs inside
`orchestrator.shell.errors.foreign_errors()`, so Ray's, redis's and sqlite3's errors come out
as the package's, and any error of a package's own family (`user_errors()`) that a command did
not turn into its own exit code is one line on stderr, `mtt COMMAND: what went wrong`, and
exit 2. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from orchestrator.cli import bench_scale as bench_scale_cli
from orchestrator.cli import bench_store as bench_store_cli
from orchestrator.cli import client as client_cli
from orchestrator.cli import competition as competition_cli
from orchestrator.cli import ctl as ctl_cli
from orchestrator.cli import loadtest as loadtest_cli
from orchestrator.cli import report as report_cli
from orchestrator.cli import run as run_cli
from orchestrator.cli import serve as frontdoor_cli
from orchestrator.cli import stored as stored_cli
from orchestrator.cli import table as table_cli
from orchestrator.competition.swiss.errors import CompetitionError
from orchestrator.errors import PACKAGE_ERRORS
from orchestrator.shell.errors import foreign_errors
from rng_service import cli as rng_cli
from rng_service.errors import RngError

__all__ = ["build_parser", "main", "user_errors"]

FRONT_DOOR_ERRORS = "orchestrator.frontdoor.errors"  # imported by the commands that use it


def user_errors() -> tuple[type[Exception], ...]:
    """Every package's error family: the orchestrator's (`PACKAGE_ERRORS`), the competitions',
    the deck service's, and the front door's once a command has loaded it (an error of a
    module never imported cannot have been raised, and gRPC stays unloaded for the others)."""
    front_door = sys.modules.get(FRONT_DOOR_ERRORS)
    extra = (front_door.FrontDoorError,) if front_door is not None else ()
    return (*PACKAGE_ERRORS, CompetitionError, RngError, *extra)


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
    bench_store_cli.register(bench)
    bench_scale_cli.register(bench)
    stored_cli.register(commands)
    competition_cli.register(commands, bench)
    frontdoor_cli.register(commands)
    ctl_cli.register(commands)
    client_cli.register(commands)
    loadtest_cli.register(commands)
    report_cli.register(commands, bench)
    _name_commands(parser)
    return parser


def _name_commands(parser: argparse.ArgumentParser) -> None:
    """Each command's parser sets `command_name` ("mtt bench view"), which opens its
    messages."""
    parser.set_defaults(command_name=parser.prog)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _name_commands(sub)


def one_line(exc: BaseException) -> str:
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip())


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with foreign_errors():
            code: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except user_errors() as exc:
        print(f"{args.command_name}: {one_line(exc) or type(exc).__name__}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
