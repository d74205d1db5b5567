"""`mtt play` and `mtt bench engine`: argument parsing only; the work is in the library."""

from __future__ import annotations

import argparse
import json
import random
import secrets
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

from orchestrator.cli.args import positive_int
from table_worker.bench import bench_engine
from table_worker.engine import Betting
from table_worker.phh import write_phhs
from table_worker.render import render_hand
from table_worker.session import PlayedHand, TableConfig, play_table


def _table_size(text: str) -> int:
    value = int(text)
    if not 2 <= value <= 10:
        raise argparse.ArgumentTypeError(f"a table seats 2..10 players (FO-1), not {text}")
    return value


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    play = commands.add_parser(
        "play",
        help="play hands at one table of bots and write them as PHH",
        description="Play N hands between bots at one table (button moving, busted bots "
        "buying back in) and write them in the Poker Hand History format.",
    )
    play.add_argument("--hands", type=positive_int, required=True, help="hands to play")
    play.add_argument("--players", type=_table_size, default=6, help="players, 2..10 (6)")
    play.add_argument("--limit", choices=["no", "fixed"], default="no", help="betting (no)")
    play.add_argument("--seed", type=int, help="RNG seed (default: random, printed)")
    play.add_argument("--out", type=Path, required=True, help="the .phhs file to write")
    play.add_argument(
        "--bots", default="strength,random,station", help="bot policies, seat by seat, cycled"
    )
    play.add_argument("--blinds", default="50/100", help="small/big blind (50/100)")
    play.add_argument("--ante", type=int, default=0, help="ante per player (0)")
    play.add_argument(
        "--big-blind-ante",
        action="store_true",
        help="the ante is one ante for the table, posted by the big blind (BBA-1)",
    )
    play.add_argument("--stack", type=positive_int, default=10_000, help="starting stack")
    play.add_argument("--show", action="store_true", help="print every hand as it is played")
    play.set_defaults(handler=_play)

    engine = bench.add_parser(
        "engine",
        help="hands/s of the hand engine, side by side with pokerkit",
        description="Play N hands between random bots with our engine, replay the same "
        "hands through pokerkit in the same run, and print both rates and the ratio.",
    )
    engine.add_argument("--hands", type=positive_int, default=2000, help="hands (2000)")
    engine.add_argument("--players", type=_table_size, default=9, help="players (9)")
    engine.add_argument("--seed", type=int, default=1, help="RNG seed (1)")
    engine.add_argument("--json", action="store_true", help="one JSON object on stdout")
    engine.set_defaults(handler=_bench_engine)


def _play(args: argparse.Namespace) -> int:
    try:
        small, big = (int(part) for part in args.blinds.split("/"))
        config = TableConfig(
            players=args.players,
            starting_stack=args.stack,
            small_blind=small,
            big_blind=big,
            ante=args.ante,
            big_blind_ante=args.big_blind_ante,
            betting=Betting(args.limit),
            policies=tuple(args.bots.split(",")),
        )
    except ValueError as exc:
        print(f"mtt play: {exc}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    hands = play_table(config, args.hands, random.Random(seed))

    def shown(played: Iterator[PlayedHand]) -> Iterator[PlayedHand]:
        for hand in played:
            print(render_hand(hand), flush=True)
            yield hand

    try:
        count = write_phhs(args.out, shown(hands) if args.show else hands)
    except (ValueError, OSError) as exc:
        print(f"mtt play: {exc}", file=sys.stderr)
        return 2
    print(f"{count} hands (seed {seed}) written to {args.out}")
    return 0


def _bench_engine(args: argparse.Namespace) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns on some legal showdowns
        result = bench_engine(hands=args.hands, players=args.players, seed=args.seed)
    if args.json:
        print(json.dumps(result.as_dict()))
        return 0
    print(f"hand engine, {result.hands} hands, {result.players}-handed random bots")
    print(f"  mtt      {result.mtt_hands_per_s:>10,.0f} hands/s (bots deciding + engine)")
    print(f"  pokerkit {result.pokerkit_hands_per_s:>10,.0f} hands/s (replaying the same hands)")
    print(f"  ratio    {result.ratio:>10.1f}x   peak RSS {result.peak_rss_mb} MB")
    print(
        f"  mtt, the hands kept for pokerkit {result.mtt_kept_hands_per_s:,.0f} hands/s "
        f"(ratio {result.ratio_kept:.1f}x)"
    )
    return 0
