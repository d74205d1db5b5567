"""`mtt rng serve` and `mtt bench rng`: parse arguments, call the library."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence

__all__ = ["STORE_LOST", "main", "register"]

STORE_LOST = 3  # `mtt rng serve`'s exit status when its store lost its data (`DeckStoreLost`)

DEFAULT_STORE = "sqlite:///rng-used-decks.db"
JSON_KEYS = (
    "generator_decks_per_s",
    "systemrandom_decks_per_s",
    "ratio",
    "e2e_decks_per_s",
    "redis_bytes_per_deck",
)


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add the deck service's commands to `mtt`."""
    rng = commands.add_parser("rng", help="the deck service").add_subparsers(
        dest="rng", required=True, metavar="ACTION"
    )
    serve = rng.add_parser(
        "serve",
        help="run the gRPC deck service until SIGTERM",
        description="Serve unbiased, never-repeated, committed decks over gRPC (RNG-1..RNG-3).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=7070, help="gRPC port (0 = any free port)")
    serve.add_argument(
        "--epoch",
        help="the epoch the store must hold (the one it had when the run began, as the "
        "service's first start said it): a store that lost its data is refused, exit 3",
    )
    serve.add_argument(
        "--store",
        default=DEFAULT_STORE,
        help="used-deck store: redis://host:port/db or sqlite:///path.db (default: %(default)s)",
    )
    serve.add_argument(
        "--metrics-port", type=int, default=None, help="serve Prometheus /metrics on this port"
    )
    serve.set_defaults(handler=_serve)

    b = bench.add_parser(
        "rng",
        help="deck generator and end-to-end deck service throughput",
        description="Generator decks/s vs random.SystemRandom().shuffle, then end-to-end decks/s "
        "through gRPC with Redis dedup, and Redis bytes per stored deck.",
    )
    b.add_argument("--decks", type=int, default=1_000_000, help="decks end to end (and stored)")
    b.add_argument(
        "--store",
        default=None,
        help="store URL to use, redis://... or sqlite:///... (default: a private redis-server)",
    )
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.set_defaults(handler=_bench)


def _serve(args: argparse.Namespace) -> int:
    from rng_service.errors import DeckStoreError, DeckStoreLost
    from rng_service.server import DeckServer, serve
    from rng_service.store import open_store

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        store = open_store(args.store, epoch=args.epoch)
    except DeckStoreError as exc:
        print(f"mtt rng serve: {exc}", file=sys.stderr)
        return STORE_LOST if isinstance(exc, DeckStoreLost) else 2
    lost: list[str] = []

    async def run() -> None:
        # Built in the running loop: a grpc.aio server belongs to the loop it was made in.
        server = DeckServer(store, host=args.host, port=args.port, metrics_port=args.metrics_port)
        ready = asyncio.Event()
        task = asyncio.create_task(serve(server, ready))
        await ready.wait()
        metrics = f", metrics on {args.host}:{server.metrics_bound}" if server.metrics_bound else ""
        print(
            f"deck service on {server.target} (store {args.store}, epoch {server.epoch}){metrics}",
            flush=True,
        )
        await task
        lost.extend([server.lost] if server.lost else [])

    asyncio.run(run())
    if lost:
        print(f"mtt rng serve: stopped: {lost[0]}", file=sys.stderr, flush=True)
        return STORE_LOST
    print("deck service stopped", flush=True)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from rng_service.bench import format_report, run_bench

    report = run_bench(decks=args.decks, store_url=args.store, progress=not args.json)
    if args.json:  # the contract: exactly these keys (the text report shows more)
        print(json.dumps({key: report[key] for key in JSON_KEYS}), flush=True)
    else:
        print(format_report(report), flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m rng_service ...`: the deck service's commands alone (no table or Ray code)."""
    parser = argparse.ArgumentParser(prog="python -m rng_service")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    bench = commands.add_parser("bench", help="measure throughput").add_subparsers(
        dest="bench", required=True, metavar="TARGET"
    )
    register(commands, bench)
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code
