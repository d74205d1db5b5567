"""`mtt loadtest`: parse arguments, run the fleet, print the report."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from orchestrator.cli.args import positive_int
    from table_worker.bots import BOT_POLICIES

    p = commands.add_parser(
        "loadtest",
        help="a fleet of bots playing a front door over gRPC",
        description="Register N bots in a tournament on a running `mtt serve`, connect them "
        "gradually, start, play for S seconds, then cancel the tournament and report actions/s, "
        "hands/s, action round-trip p50/p95/p99, timeouts, errors and reconnects. The operator "
        "credential comes from --operator-credential-file or $MTT_OPERATOR_TOKEN.",
    )
    p.add_argument("--target", required=True, help="HOST:PORT of `mtt serve`")
    p.add_argument("--bots", type=positive_int, required=True, help="bots to register")
    p.add_argument("--duration", type=float, required=True, help="seconds of play measured")
    p.add_argument("--policy", choices=sorted(BOT_POLICIES), default="strength")
    p.add_argument("--json", type=Path, default=None, help="also write the report here")
    p.add_argument("--config", type=Path, default=None, help="tournament TOML (default: deep)")
    p.add_argument("--tournament", default="", help="join this tournament (registration open)")
    p.add_argument("--ramp", type=float, default=None, help="seconds to connect every bot")
    p.add_argument("--operator-credential-file", default=None)
    p.add_argument("--tls-ca", type=Path, default=None, help="PEM CA: connect with TLS")
    p.set_defaults(handler=_loadtest)


def _loadtest(args: argparse.Namespace) -> int:
    import grpc

    from loadtest.fleet import DEFAULT_CONFIG, FleetOptions, format_report, run_fleet
    from orchestrator.frontdoor.auth import load_operator_credential
    from orchestrator.frontdoor.errors import FrontDoorError

    try:
        options = FleetOptions(
            target=args.target,
            bots=args.bots,
            duration=args.duration,
            policy=args.policy,
            operator_credential=load_operator_credential(args.operator_credential_file),
            tournament=args.tournament,
            config=args.config.read_text() if args.config else DEFAULT_CONFIG,
            ramp_seconds=args.ramp,
            tls_ca=args.tls_ca.read_bytes() if args.tls_ca else None,
        )
        report = asyncio.run(run_fleet(options, say=lambda line: print(line, flush=True)))
    except (FrontDoorError, OSError) as exc:
        print(f"mtt loadtest: {exc}", file=sys.stderr)
        return 2
    except grpc.aio.AioRpcError as exc:
        print(f"mtt loadtest: {exc.code().name}: {exc.details()}", file=sys.stderr)
        return 1
    print(format_report(report), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(report) + "\n")
    return 0 if report["errors"] == 0 else 1
