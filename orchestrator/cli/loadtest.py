"""`mtt loadtest`: parse arguments, run the fleet, print (and write) the report."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from loadtest.profile import LoadProfile

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from loadtest.think import ACTION_TYPES
    from orchestrator.cli.args import positive_int
    from table_worker.bots import BOT_POLICIES

    p = commands.add_parser(
        "loadtest",
        help="a fleet of bots playing a front door over gRPC",
        description="Register N bots in a tournament on a running `mtt serve`, connect them "
        "along a ramp, start, play for S seconds, then cancel the tournament and report actions/s "
        "over time, hands/s, the action round trip's histogram and p50/p95/p99, timeouts, errors "
        "by status and reconnects. Bots think before answering (a profile or flags: --pace, "
        "--think), may register in a storm and drop their streams in reconnect storms; "
        "--processes splits them among generator processes (default: one per 500 bots) whose "
        "results merge exactly. The operator credential comes from --operator-credential-file "
        "or $MTT_OPERATOR_TOKEN.",
    )
    p.add_argument("--target", required=True, help="HOST:PORT of `mtt serve`")
    p.add_argument("--bots", type=positive_int, required=True, help="bots to register")
    p.add_argument("--duration", type=float, required=True, help="seconds of play measured")
    p.add_argument("--policy", choices=sorted(BOT_POLICIES), default="strength")
    p.add_argument("--json", type=Path, default=None, help="also write the report here")
    p.add_argument("--html", type=Path, default=None, help="also write an HTML report here")
    p.add_argument("--config", type=Path, default=None, help="tournament TOML (default: deep)")
    p.add_argument("--tournament", default="", help="join this tournament (registration open)")
    p.add_argument("--processes", type=positive_int, default=None,
                   help="generator processes (default: one per 500 bots)")  # fmt: skip
    p.add_argument("--seed", type=int, default=1, help="seeds the bots, think times and storms")
    p.add_argument("--profile", type=Path, default=None, help="load profile TOML (flags win)")
    p.add_argument("--pace", choices=("flat", "online"), default=None,
                   help="think times: none (flat) or the online medians")  # fmt: skip
    p.add_argument("--think", action="append", default=[], metavar="TYPE=SECONDS",
                   help=f"median think seconds of a type ({', '.join(ACTION_TYPES)})")  # fmt: skip
    p.add_argument("--think-sigma", type=float, default=None, help="lognormal shape")
    p.add_argument("--bank-share", type=float, default=None,
                   help="share of answers thought into the time bank (TB-1)")  # fmt: skip
    p.add_argument("--bank-use", type=float, default=None, help="at most this share of the bank")
    p.add_argument("--ramp", type=float, default=None, help="seconds to connect every bot")
    p.add_argument("--registration", choices=("ramp", "storm"), default=None,
                   help="register as each bot arrives, or all in a storm first")  # fmt: skip
    p.add_argument("--storm-seconds", type=float, default=None, help="the storm's length")
    p.add_argument("--reconnect-storm", action="append", default=[], metavar="AT:SHARE",
                   help="SHARE of the bots drop and reconnect AT s into the window")  # fmt: skip
    p.add_argument("--operator-credential-file", default=None)
    p.add_argument("--tls-ca", type=Path, default=None, help="PEM CA: connect with TLS")
    p.set_defaults(handler=_loadtest)


def _profile(args: argparse.Namespace) -> LoadProfile:
    """The profile file's (or the default) with the flags applied over it."""
    from dataclasses import replace

    from loadtest.errors import ProfileError
    from loadtest.profile import PACES, LoadProfile, parse_profile
    from loadtest.schedule import ReconnectStorm

    profile = parse_profile(args.profile.read_text()) if args.profile else LoadProfile()
    think = PACES[args.pace]() if args.pace else profile.think
    medians = dict(think.medians)
    for item in args.think:
        name, _, seconds = item.partition("=")
        try:
            medians[name] = float(seconds)
        except ValueError:
            raise ProfileError(f"--think {item!r}: TYPE=SECONDS, e.g. fold=1.0") from None
    think_changes = {
        key: value
        for key, value in (
            ("sigma", args.think_sigma),
            ("bank_share", args.bank_share),
            ("bank_use", args.bank_use),
        )
        if value is not None
    }
    profile = replace(profile, think=replace(think, medians=medians, **think_changes))
    if args.ramp is not None:
        profile = replace(profile, ramp_seconds=args.ramp)
    if args.registration is not None:
        profile = replace(profile, registration=args.registration)
    if args.storm_seconds is not None:
        profile = replace(profile, storm_seconds=args.storm_seconds)
    storms = list(profile.reconnect_storms)
    for item in args.reconnect_storm:
        at, _, share = item.partition(":")
        try:
            storms.append(ReconnectStorm(at=float(at), share=float(share)))
        except ValueError:
            raise ProfileError(f"--reconnect-storm {item!r}: AT:SHARE, e.g. 20:0.1") from None
    return replace(profile, reconnect_storms=tuple(storms))


def _loadtest(args: argparse.Namespace) -> int:
    import grpc

    from loadtest.coordinator import FleetOptions, format_report, run_fleet
    from loadtest.errors import LoadTestError
    from loadtest.fleet import DEFAULT_CONFIG
    from loadtest.generator import generators_for
    from loadtest.html_report import render_html
    from orchestrator.frontdoor.auth import load_operator_credential
    from orchestrator.frontdoor.errors import FrontDoorError

    try:
        profile = _profile(args)
        options = FleetOptions(
            target=args.target,
            bots=args.bots,
            duration=args.duration,
            policy=args.policy,
            operator_credential=load_operator_credential(args.operator_credential_file),
            tournament=args.tournament,
            config=args.config.read_text() if args.config else DEFAULT_CONFIG,
            tls_ca=args.tls_ca.read_bytes() if args.tls_ca else None,
            seed=args.seed,
            processes=args.processes or generators_for(args.bots),
            profile=profile,
        )
        report = asyncio.run(run_fleet(options, say=lambda line: print(line, flush=True)))
    except (FrontDoorError, LoadTestError, OSError) as exc:
        print(f"mtt loadtest: {exc}", file=sys.stderr)
        return 2
    except grpc.aio.AioRpcError as exc:
        print(f"mtt loadtest: {exc.code().name}: {exc.details()}", file=sys.stderr)
        return 1
    print(format_report(report), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(report) + "\n")
    if args.html is not None:
        command = shlex.join(["mtt", *sys.argv[1:]])
        args.html.write_text(render_html(report, command=command))
    return 0 if report["errors"] == 0 else 1
