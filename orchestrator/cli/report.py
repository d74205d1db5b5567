"""`mtt report DIR`: argument parsing; the work is in `orchestrator.views.report`."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from orchestrator.cli.args import positive_int, print_figures


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    report = commands.add_parser(
        "report",
        help="a run's files as one HTML report with charts",
        description="Turn the files `mtt run --out DIR` wrote into one self-contained HTML "
        "page (charts inlined) and PNG charts: players remaining, stacks against the big "
        "blind, hands per table, the final table's chip counts, places and prizes, and a "
        "per-player fairness audit. With --store, of a tournament's newest run exported from "
        "the store. Exit 2 when a file is missing or unreadable.",
    )
    report.add_argument(
        "dir", metavar="DIR | TOURNAMENT", help="the run's output folder (with --store: its id)"
    )
    report.add_argument(
        "--store",
        metavar="URL",
        help="report on TOURNAMENT from this store instead (exported to a temporary folder)",
    )
    report.add_argument(
        "--out",
        type=Path,
        help="where to write report.html and the PNGs (default: DIR/report; with --store, "
        "TOURNAMENT-report)",
    )
    report.set_defaults(handler=_report)

    view = bench.add_parser(
        "view",
        help="the operator's view over a finished run: lobby fold, snapshot, report",
        description="Fold a run's events.jsonl (or a synthetic opening) into the live lobby "
        "(events/s, best of 3), time and size its snapshot with every opening table seated "
        "and the update after hands at a tenth of the tables, and time `mtt report`.",
    )
    view.add_argument("dir", type=Path, nargs="?", help="a run's output folder")
    view.add_argument(
        "--players",
        type=positive_int,
        default=10_000,
        help="without DIR: a synthetic opening of this many players at 10-seat tables (10000)",
    )
    view.add_argument("--json", action="store_true", help="one JSON object on stdout")
    view.set_defaults(handler=_bench_view)


def _report(args: argparse.Namespace) -> int:
    from orchestrator.views.event_audit import is_event_folder
    from orchestrator.views.report import build_event_report, build_report

    if args.store is None:
        run = Path(args.dir)
        out = args.out if args.out is not None else run / "report"
        build = build_event_report if is_event_folder(run) else build_report  # FL-1..FL-3
        page = build(run, out)
    else:
        from orchestrator.cli.stored import print_notes
        from orchestrator.shell.export import temporary_export

        out = args.out if args.out is not None else Path(args.dir.replace("/", "-") + "-report")
        with temporary_export(args.store, args.dir) as exported:
            print_notes(exported)
            page = build_report(exported.folder, out)
    print(f"report written to {page}")
    return 0


def _bench_view(args: argparse.Namespace) -> int:
    from orchestrator.core.config_toml import parse_config
    from orchestrator.views.audit import read_events
    from orchestrator.views.live.app import LiveLobby
    from orchestrator.views.live.lobby import Lobby
    from orchestrator.views.report import build_report

    if args.dir is None:
        events = _synthetic_log(args.players)
    else:
        events = read_events(args.dir / "events.jsonl")  # UnreadableRun: exit 2 (cli.main)
    # The fold needs a config only for the clock and payouts; the log's own blinds suffice.
    config = parse_config({"tournament": {}, "levels": {"blinds": [[1, 2]]}})
    fold = float("inf")
    for _ in range(3):
        lobby, started = Lobby(config), time.perf_counter()
        for event in events:
            lobby.apply(event)
        fold = min(fold, time.perf_counter() - started)
    # STEP 2: a snapshot with every opening table seated (the largest a browser is sent), then
    # one update after the next hands at a tenth of the tables.
    opening = Lobby(config)
    rest = iter(events)
    later: list[dict[str, object]] = []
    for event in rest:
        if event.get("type") == "hand_finished":
            later = [event, *rest]
            break
        opening.apply(event)
    live = LiveLobby(opening, _NoEvents())
    started = time.perf_counter()
    snapshot = json.dumps(live.snapshot(), separators=(",", ":"))
    snapshot_ms = 1000 * (time.perf_counter() - started)
    opening.take_changes()
    hands = max(1, len(opening.tables) // 10)
    for event in later:
        opening.apply(event)
        hands -= event.get("type") == "hand_finished"
        if not hands:
            break
    started = time.perf_counter()
    update = json.dumps(live.update(), separators=(",", ":"))
    update_ms = 1000 * (time.perf_counter() - started)
    figures: dict[str, object] = {
        "events": len(events),
        "fold_events_per_s": round(len(events) / fold),
        "opening_tables": len(live.lobby.tables),
        "snapshot_bytes": len(snapshot),
        "snapshot_ms": round(snapshot_ms, 2),
        "update_bytes": len(update),
        "update_ms": round(update_ms, 2),
    }
    if args.dir is not None:
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            build_report(args.dir, Path(out))
            figures["report_s"] = round(time.perf_counter() - started, 2)
    print_figures(figures, as_json=args.json)
    return 0


def _synthetic_log(players: int) -> list[dict[str, object]]:
    """An opening seating of `players` at 10-seat tables, then one hand at every table, as the
    log records it."""
    from orchestrator.core import codec
    from orchestrator.core.events import (
        ButtonAssigned,
        Event,
        HandFinished,
        LevelStarted,
        PlayerRegistered,
        PlayerSeated,
        TableOpened,
        TournamentStarted,
    )
    from table_worker.protocol import HandPlayer

    events: list[Event] = []
    names = [f"p{k:05d}" for k in range(players)]
    for name in names:
        events.append(PlayerRegistered(player=name, entry=1, buy_in=10000, fee=0))
    tables = [names[k : k + 10] for k in range(0, players, 10)]
    events.append(
        TournamentStarted(
            tournament="bench",
            players=players,
            tables=len(tables),
            max_per_table=10,
            structure="freezeout",
            policy="equilibrium",
            starting_stack=10000,
        )
    )
    events.append(LevelStarted(level=1, small_blind=25, big_blind=50, ante=0))
    for table, seated in enumerate(tables, start=1):
        events.append(TableOpened(table=table))
        for seat, name in enumerate(seated, start=1):
            events.append(PlayerSeated(player=name, table=table, seat=seat, stack=10000))
        events.append(ButtonAssigned(table=table, seat=1))
    for table, seated in enumerate(tables, start=1):
        seats = tuple(
            HandPlayer(name, seat, 10000, 10000) for seat, name in enumerate(seated, start=1)
        )
        events.append(HandFinished(table=table, hand=1, button=2, players=seats))
    return [codec.record(e, seq=k, ts=0.0) for k, e in enumerate(events, start=1)]


class _NoEvents:
    async def events_since(self, seq: int) -> list[dict[str, object]]:
        return []
