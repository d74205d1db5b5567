"""`mtt client`: a person plays his seat of a running `mtt serve` from a terminal
(`orchestrator.frontdoor.player_client`). The token is the one Register returned, the first
line of `--token FILE`; the front door's modules load only when the command runs, so the other
commands need no gRPC (`orchestrator.cli.main.user_errors`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from orchestrator.cli.ctl import DEFAULT_TARGET, check_target

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    client = commands.add_parser(
        "client",
        help="play your seat of a running `mtt serve` in this terminal",
        description="A terminal table view of your seat: stacks, board, pot, your cards, the "
        "action clock and your time bank; type f fold, k check, c call, r N raise to N, a "
        "all-in, s sit out, back, q quit (h for help). Each hand's deck commitment is shown "
        "before the deal and checked against the deck revealed after it. Exit 0 on q, 2 when "
        "the front door refuses the token (one line on stderr), 130 on Ctrl-C.",
    )
    client.add_argument(
        "--target",
        default=DEFAULT_TARGET,
        metavar="HOST:PORT",
        help="the front door (default %(default)s)",
    )
    client.add_argument("--tournament", required=True, metavar="ID", help="the tournament's id")
    client.add_argument(
        "--token", required=True, metavar="FILE", help="its first line is your player token"
    )
    client.add_argument("--tls-ca", metavar="FILE", help="PEM CA of a TLS front door")
    client.set_defaults(handler=_client)


def _client(args: argparse.Namespace) -> int:
    from orchestrator.frontdoor.auth import load_player_token
    from orchestrator.frontdoor.errors import InvalidRequest
    from orchestrator.frontdoor.player_client import run_in_terminal

    check_target(args.target, "--target")
    token = load_player_token(args.token)
    tls_ca = None
    if args.tls_ca:
        try:
            tls_ca = Path(args.tls_ca).read_bytes()
        except OSError as exc:
            raise InvalidRequest(f"cannot read the TLS CA {args.tls_ca}: {exc.strerror}") from exc
    run_in_terminal(target=args.target, token=token, tournament=args.tournament, tls_ca=tls_ca)
    return 0
