"""`mtt bench store`: argument parsing; the bench is `orchestrator.shell.bench_store`."""

from __future__ import annotations

import argparse

from orchestrator.cli.args import positive_int, print_figures


def register(bench: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    store = bench.add_parser(
        "store",
        help="durable hand reports per second: group commit against one store call per step",
        description="N simulated tables report hands through the orchestrator's write path "
        "(one report in flight per table); reports made durable per second with group commit "
        "and with one store call (one fsync) per report, on the same backend in the same run, "
        "and their ratio.",
    )
    store.add_argument("--backend", choices=("sqlite", "redis"), default="sqlite")
    store.add_argument("--tables", type=positive_int, default=100, help="tables (100)")
    store.add_argument("--seconds", type=float, default=3.0, help="seconds each path runs (3)")
    store.add_argument(
        "--store",
        help="an existing store's URL (default: a SQLite file in a temporary folder, or a "
        "private redis-server with appendfsync always)",
    )
    store.add_argument("--json", action="store_true", help="one JSON object on stdout")
    store.set_defaults(handler=_bench_store)


def _bench_store(args: argparse.Namespace) -> int:
    from orchestrator.shell.bench_store import bench_store

    if args.seconds <= 0:
        raise SystemExit("mtt bench store: --seconds must be above zero")
    figures = bench_store(
        args.backend, tables=args.tables, seconds=args.seconds, store_url=args.store
    )
    print_figures(figures, as_json=args.json)
    return 0
