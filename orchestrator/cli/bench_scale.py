"""`mtt bench scale`: argument parsing and the sweep's table; the bench is
`orchestrator.shell.bench_scale`."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.cli.args import positive_float, positive_int, print_figures

SWEEP = (1_000, 10_000, 100_000)
RECORD_FIELD = 253_698  # PokerStars, 2015: the largest online field on record
# The figures whose growth the sweep's table shows, and how each is read.
GROWTH = (
    "hands",
    "reports_per_s",
    "core_p50_ms",
    "core_p99_ms",
    "commit_p50_ms",
    "commit_p99_ms",
    "peak_rss_mb",
    "bytes_per_player",
    "wall_seconds",
)


def register(bench: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    scale = bench.add_parser(
        "scale",
        help="a whole tournament of N players through the real core and durable store, "
        "tables simulated in process",
        description="Play one tournament to its winner through the tournament core (balancing, "
        "places, money) and the durable store with group commit, as the orchestrator actor "
        "does, with the tables simulated in this process (no Ray). Prints reports/s, each "
        "report's core step and durable commit (p50, p99), peak memory, memory per player and "
        "wall time. --sweep runs N = 1,000, 10,000, 100,000 (and --record 253,698), each in a "
        "process of its own, and prints how each figure grows (log-log slopes). --calibrate "
        "plays the fast hand model and the real engine on the same small field and prints "
        "the ratio of their hands.",
    )
    scale.add_argument("--players", type=positive_int, default=1000, help="entries (1000)")
    scale.add_argument(
        "--config",
        type=Path,
        default=Path("examples/online-regular-1000.toml"),
        help="TOML file, a freeze-out (%(default)s)",
    )
    scale.add_argument("--backend", choices=("sqlite", "redis"), default="sqlite")
    scale.add_argument(
        "--pace",
        choices=("flat", "online"),
        default="flat",
        help="flat: each table deals as soon as answered; online: hands last a random time "
        "around --hand-seconds (flat)",
    )
    scale.add_argument(
        "--hand-seconds",
        type=positive_float,
        default=0.5,
        help="online pace: a hand's median seconds (0.5)",
    )
    scale.add_argument(
        "--hands",
        choices=("model", "engine"),
        default="model",
        help="model: the calibrated fast hand model; engine: the real engine and bots (model)",
    )
    scale.add_argument(
        "--waits",
        choices=("long", "backoff"),
        default="long",
        help="a waiting table: long: held until it may deal, as the actor does; backoff: the "
        "old path, asking again after 20 ms doubling to 250 ms (long)",
    )
    scale.add_argument(
        "--compare",
        action="store_true",
        help="run the field with both waits, one after the other, and print the ratio",
    )
    scale.add_argument("--seed", type=int, default=1, help="RNG seed (1)")
    scale.add_argument(
        "--store",
        help="an existing store's URL (default: a SQLite file in a temporary folder, or a "
        "private redis-server with appendfsync always)",
    )
    scale.add_argument("--sweep", action="store_true", help="N = 1,000, 10,000, 100,000")
    scale.add_argument(
        "--record", action="store_true", help="with --sweep: also N = 253,698 (the record)"
    )
    scale.add_argument(
        "--sizes",
        type=_sizes,
        help="with --sweep: these field sizes instead, comma-separated (1000,10000,30000)",
    )
    scale.add_argument(
        "--calibrate",
        action="store_true",
        help="the fast model against the engine at --players (use a few hundred), 3 seeds",
    )
    scale.add_argument("--json", action="store_true", help="one JSON object on stdout")
    scale.set_defaults(handler=_bench_scale)


def _bench_scale(args: argparse.Namespace) -> int:
    from orchestrator.core.config_toml import load_config
    from orchestrator.shell.bench_scale import ScaleOptions, bench_scale, calibrate

    config = load_config(args.config).with_players(args.players)
    if args.calibrate:
        print_figures(calibrate(config), as_json=args.json)
        return 0
    if args.sweep:
        return _sweep(args)
    options = ScaleOptions(
        config=config,
        backend=args.backend,
        pace=args.pace,
        hands=args.hands,
        seed=args.seed,
        hand_seconds=args.hand_seconds,
        store_url=args.store,
        waits=args.waits,
    )
    if not args.compare:
        print_figures(bench_scale(options), as_json=args.json)
        return 0
    long, backoff = (bench_scale(replace(options, waits=w)) for w in ("long", "backoff"))
    ratio = round(long["reports_per_s"] / backoff["reports_per_s"], 2)
    print_figures(
        {"long": long, "backoff": backoff, "reports_per_s_ratio": ratio}, as_json=args.json
    )
    return 0


def _sizes(text: str) -> tuple[int, ...]:
    """argparse type: field sizes, comma-separated, each at least 2, smallest first."""
    try:
        sizes = tuple(sorted(int(part) for part in text.split(",")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not whole numbers: {text!r}") from None
    if not sizes or sizes[0] < 2:
        raise argparse.ArgumentTypeError(f"each size must be at least 2: {text!r}")
    return sizes


def _sweep(args: argparse.Namespace) -> int:
    """Each N in a process of its own (peak memory is per process), smallest first."""
    sizes = args.sizes or SWEEP
    if args.record:
        sizes = (*sizes, RECORD_FIELD)
    runs: list[dict[str, Any]] = []
    for players in sizes:
        command = [sys.executable, "-m", "orchestrator.cli.main", "bench", "scale", "--json"]
        command += ["--players", str(players), "--config", str(args.config)]
        command += ["--backend", args.backend, "--pace", args.pace, "--hands", args.hands]
        command += ["--seed", str(args.seed), "--hand-seconds", str(args.hand_seconds)]
        if args.store:
            command += ["--store", args.store]
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        if done.returncode:
            print(f"mtt bench scale: N = {players} failed:\n{done.stderr}", file=sys.stderr)
            return done.returncode
        runs.append(json.loads(done.stdout))
        if not args.json:
            print(f"N = {players:,}: {done.stdout.strip()}", flush=True)
    if args.json:
        print(json.dumps({"runs": runs, "slopes": growth(runs)}))
    else:
        print(growth_table(runs))
    return 0


def growth(runs: list[dict[str, Any]]) -> dict[str, list[float | None]]:
    """Each figure's log-log slope between successive runs: d log(figure) / d log(N); 1 is
    linear in the field, 0 flat (None where a figure is zero).

    >>> growth([{"players": 10, "hands": 100}, {"players": 100, "hands": 1000}])["hands"]
    [1.0]
    """
    slopes: dict[str, list[float | None]] = {}
    for key in GROWTH:
        row: list[float | None] = []
        for small, big in itertools.pairwise(runs):
            if key not in small or key not in big:
                continue
            a, b = small[key], big[key]
            ratio = math.log(big["players"] / small["players"])
            row.append(round(math.log(b / a) / ratio, 2) if a > 0 and b > 0 else None)
        slopes[key] = row
    return slopes


def growth_table(runs: list[dict[str, Any]]) -> str:
    """The figures by N, and their log-log slopes between successive N."""
    sizes = [f"{run['players']:,}" for run in runs]
    spans = " ".join(f"{a}->{b}" for a, b in itertools.pairwise(sizes))
    width = max(map(len, GROWTH))
    header = "  ".join(f"{s:>10}" for s in sizes)
    lines = [f"{'N':>{width}}  {header}  | slope {spans}"]
    slopes = growth(runs)
    for key in GROWTH:
        values = "  ".join(f"{run[key]:>10}" for run in runs)
        slope = " ".join(f"{s if s is not None else '-':>6}" for s in slopes[key])
        lines.append(f"{key:>{width}}  {values}  | {slope}")
    return "\n".join(lines)
