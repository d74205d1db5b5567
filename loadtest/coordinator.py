"""A whole load test: the coordinator creates the tournament (or joins one), starts K generator
processes (`loadtest.generator`) each playing a share of the bots, walks them through the
phases together (connect along the ramp, start, warm up, measure, stop), cancels the tournament
it created, and merges their records into one report.

Merging is exact: latency histograms have fixed buckets and add (`loadtest.histogram`), the
actions per second add by second of the shared measured window, hands are a union (bots of one
table in two generators see the same hand), counts and errors by status add.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from loadtest.errors import GeneratorError, ProfileError
from loadtest.fleet import DEFAULT_CONFIG, channel
from loadtest.generator import (
    GeneratorPlan,
    Link,
    Metadata,
    PipeLink,
    QueueLink,
    bearer,
    bot_name,
    drive,
    main,
    shares,
)
from loadtest.histogram import LatencyHistogram
from loadtest.profile import LoadProfile
from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc

__all__ = ["FleetOptions", "format_report", "merge_records", "run_fleet"]

LEAD_SECONDS = 0.5  # from a phase's message to its epoch: every generator has it by then
WALLET_CONCURRENCY = 32  # CreateAccount calls in flight while the wallets open
BOT_WALLET_CENTS = 10**9  # each bot's wallet: far more than any entry it may take


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetOptions:
    target: str
    bots: int
    duration: float
    operator_credential: str
    policy: str = "strength"
    tournament: str = ""  # join this one (created, registration open) instead of creating one
    config: str = DEFAULT_CONFIG
    tls_ca: bytes | None = None
    seed: int = 1
    processes: int = 1
    profile: LoadProfile = field(default_factory=LoadProfile)

    def __post_init__(self) -> None:
        late = [s.at for s in self.profile.reconnect_storms if s.at >= self.duration]
        if late:
            raise ProfileError(
                f"reconnect_storm.at {late} is not within the measured {self.duration} s"
            )


async def _gather(links: Sequence[Link], kind: str) -> list[tuple[Any, ...]]:
    messages = await asyncio.gather(*(link.recv() for link in links))
    for message in messages:
        if message[0] != kind:
            raise GeneratorError(f"expected {kind!r} from every generator, got {message[0]!r}")
    return list(messages)


async def _broadcast(links: Sequence[Link], message: tuple[Any, ...]) -> None:
    for link in links:
        await link.send(message)


async def open_wallets(
    operator: pb_grpc.OperatorServiceAsyncStub, credential: Metadata, bots: int
) -> list[str]:
    """Each bot's wallet, as the operator opens a player's (REG-1: his entries come out of
    it); the credentials the bots register with, by bot number. A wallet an earlier fleet
    opened shows its credential no more: "" (the operator registers that bot for it)."""
    limit = asyncio.Semaphore(WALLET_CONCURRENCY)

    async def open_one(k: int) -> str:
        async with limit:
            try:
                wallet = await operator.CreateAccount(
                    pb.CreateAccountRequest(account=bot_name(k), balance=BOT_WALLET_CENTS),
                    metadata=credential,
                )
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                return ""
        return str(wallet.credential)

    return list(await asyncio.gather(*(open_one(k) for k in range(bots))))


async def run_fleet(options: FleetOptions, *, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the fleet; the merged report (`merge_records`, with the run's own keys)."""
    lane = channel(options.target, options.tls_ca)
    operator = pb_grpc.OperatorServiceStub(lane)
    credential = bearer(options.operator_credential)
    processes: list[multiprocessing.process.BaseProcess] = []
    local: list[asyncio.Task[None]] = []
    links: list[Link] = []
    try:
        tournament = options.tournament
        if not tournament:
            info = await operator.CreateTournament(
                pb.CreateTournamentRequest(config_toml=options.config), metadata=credential
            )
            tournament = info.tournament_id
            await operator.OpenRegistration(
                pb.TournamentRef(tournament_id=tournament), metadata=credential
            )
        say(f"opening {options.bots} bots' wallets")
        wallets = await open_wallets(operator, credential, options.bots)
        plans = [
            GeneratorPlan(
                target=options.target,
                tls_ca=options.tls_ca,
                tournament=tournament,
                bots=options.bots,
                mine=mine,
                wallets=tuple(wallets[k] for k in mine),
                operator_credential=options.operator_credential,
                duration=options.duration,
                policy=options.policy,
                seed=options.seed,
                profile=options.profile,
            )
            for mine in shares(options.bots, options.processes)
        ]
        if options.processes == 1:
            there: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
            back: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
            local.append(asyncio.create_task(drive(plans[0], QueueLink(there, back))))
            links.append(QueueLink(back, there))
        else:
            spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked gRPC
            for plan in plans:
                ours, theirs = spawn.Pipe()
                process = spawn.Process(target=main, args=(plan, theirs), daemon=True)
                process.start()
                processes.append(process)
                links.append(PipeLink(ours, process.is_alive))
        await _gather(links, "ready")
        ramp = options.profile.ramp_for(options.bots)
        say(
            f"tournament {tournament}: {options.bots} bots in {options.processes} generator(s),"
            f" registration {options.profile.registration}, connecting over {ramp:.0f} s"
        )
        await _broadcast(links, ("go", time.time() + LEAD_SECONDS))
        connected = await _gather(links, "connected")
        registered = sum(m[1] for m in connected)
        welcomed = sum(m[2] for m in connected)
        say(f"{registered} registered, {welcomed} connected; starting")
        await operator.StartTournament(
            pb.TournamentRef(tournament_id=tournament), metadata=credential
        )
        warm_started = time.monotonic()
        await _broadcast(links, ("started",))
        await _gather(links, "warm")
        say(f"tables dealing after {time.monotonic() - warm_started:.0f} s; measuring")
        await _broadcast(links, ("measure", time.time() + LEAD_SECONDS))
        records = [m[1] for m in await _gather(links, "result")]
        if not options.tournament:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await operator.CancelTournament(
                    pb.CancelRequest(tournament_id=tournament, reason="load test over"),
                    metadata=credential,
                )
        await _broadcast(links, ("stop",))
        await asyncio.gather(*local)
    finally:
        for task in local:
            task.cancel()
        await asyncio.gather(*local, return_exceptions=True)
        for started in processes:
            started.join(timeout=30)
            if started.is_alive():
                started.terminate()
        await lane.close()
    report = merge_records(records, seconds=options.duration)
    profile = options.profile
    report |= {
        "tournament": tournament,
        "processes": options.processes,
        "profile": {
            "think_medians": dict(profile.think.medians),
            "think_sigma": profile.think.sigma,
            "bank_share": profile.think.bank_share,
            "bank_use": profile.think.bank_use,
            "ramp_seconds": ramp,
            "registration": profile.registration,
            "storm_seconds": profile.storm_seconds,
            "reconnect_storms": [[s.at, s.share] for s in profile.reconnect_storms],
        },
    }
    return report


def merge_records(records: Sequence[dict[str, Any]], *, seconds: float) -> dict[str, Any]:
    """One report from the generators' records: exact merges, then the figures."""
    histogram = LatencyHistogram.merge_all(
        LatencyHistogram.from_json(r["histogram"]) for r in records
    )
    per_second = [0] * max(1, round(seconds))
    for record in records:
        for second, count in record["per_second"].items():
            per_second[min(int(second), len(per_second) - 1)] += count
    hands = {tuple(hand) for record in records for hand in record["hands"]}
    problems: dict[str, int] = {}
    for record in records:
        for what, count in record["problems"].items():
            problems[what] = problems.get(what, 0) + count

    def total(key: str) -> int:
        return sum(int(record[key]) for record in records)

    return {
        "bots": total("bots"),
        "seconds": round(seconds, 3),
        "actions_per_s": round(histogram.count / seconds, 1),
        "hands_per_s": round(len(hands) / seconds, 2),
        "p50_ms": round(1000 * histogram.quantile(0.50), 3),
        "p95_ms": round(1000 * histogram.quantile(0.95), 3),
        "p99_ms": round(1000 * histogram.quantile(0.99), 3),
        "max_ms": round(1000 * histogram.largest, 3),
        "timeouts": total("timeouts"),
        "errors": total("errors"),
        "reconnects": total("reconnects"),
        "resumes": total("resumes"),
        "storm_drops": total("storm_drops"),
        "bank_decisions": total("bank_decisions"),
        "registered": total("registered"),
        "welcomed": total("welcomed"),
        "actions": total("actions"),
        "hands": len(hands),
        "problems": problems,
        "actions_per_second": per_second,
        "histogram": histogram.to_json(),
        "generators": [
            {key: record[key] for key in ("bots", "registered", "welcomed", "actions", "errors")}
            for record in records
        ],
    }


def format_report(report: dict[str, Any]) -> str:
    return (
        f"{report['bots']} bots ({report['processes']} generator(s)) for"
        f" {report['seconds']:.1f} s on {report['tournament']}\n"
        f"  actions/s {report['actions_per_s']:>9,.1f}   hands/s {report['hands_per_s']:>7,.2f}\n"
        f"  action round trip p50 {report['p50_ms']:.2f} ms  p95 {report['p95_ms']:.2f} ms"
        f"  p99 {report['p99_ms']:.2f} ms  max {report['max_ms']:.2f} ms\n"
        f"  timeouts {report['timeouts']}  errors {report['errors']}"
        f"  reconnects {report['reconnects']} (storm drops {report['storm_drops']},"
        f" resumed {report['resumes']})  into the time bank {report['bank_decisions']}"
        + (f"  ({report['problems']})" if report["problems"] else "")
    )
