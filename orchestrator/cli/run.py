"""`mtt run` and `mtt bench tournament`: argument parsing; the work is in the driver
(`orchestrator.shell.driver`)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.cli.args import port_number, positive_int, print_figures
from orchestrator.core.config_event import EventPlan, load_plan
from orchestrator.core.config_toml import load_config
from orchestrator.errors import ConfigError

if TYPE_CHECKING:
    from orchestrator.core.config import TournamentConfig
    from orchestrator.shell.driver import RunOptions, UiOptions


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    run = commands.add_parser(
        "run",
        help="run one whole tournament of bots on Ray",
        description="Run one tournament with built-in bots to its winner: every table a Ray "
        "actor, decks from the deck service, every decision in events.jsonl.",
    )
    run.add_argument(
        "config",
        type=Path,
        help="the tournament's TOML file, or a multi-day event's ([event] and [[flights]])",
    )
    run.add_argument("--players", type=positive_int, help="entries (default: the config's)")
    run.add_argument("--seed", type=int, help="RNG seed (default: random, printed)")
    run.add_argument(
        "--bots",
        type=bot_mix,
        default=RUN_BOTS,
        metavar="MIX",
        help="the bots' policies and weights, e.g. tag=70,lag=15,station=10,random=5, or a list "
        f"weighed alike (default {RUN_BOTS}); each player's is drawn from the seed",
    )
    run.add_argument("--out", type=Path, default=Path("out/run"), help="output folder")
    run.add_argument(
        "--target",
        type=Path,
        metavar="TARGET.toml",
        help="a satellite's target tournament, instead of the one its [satellite] target "
        "names (SAT-3: the ticket holders play it after the satellite, in OUT/target/)",
    )
    run.add_argument(
        "--force",
        action="store_true",
        help="overwrite an earlier run's files in the output folder (refused without it; the "
        "store keeps that run's log either way, and mtt export writes its files again)",
    )
    run.add_argument(
        "--store",
        help="store URL for the event log and the used decks, redis://host:port/db or "
        "sqlite:///path.db (default: sqlite store.db in the output folder)",
    )
    run.add_argument("--ray-address", help="an existing Ray cluster (default: local)")
    run.add_argument(
        "--nodes",
        type=positive_int,
        default=1,
        help="simulate a cluster of K Ray nodes on this machine (chaos drills)",
    )
    run.add_argument(
        "--kill-node-after",
        type=float,
        metavar="SECONDS",
        help="with --nodes: kill a worker node hosting tables after this many seconds of play "
        "(from the first hand played), once every node holds its warm spares or a few "
        "seconds later (it says so)",
    )
    run.add_argument(
        "--metrics-port",
        type=port_number,
        help="serve the tournament's Prometheus /metrics on this port (0 = any free port)",
    )
    run.add_argument(
        "--metrics-host", default="127.0.0.1", help="address for /metrics (%(default)s)"
    )
    run.add_argument(
        "--metrics-linger",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="keep serving /metrics this long after the tournament ends (a last scrape)",
    )
    run.add_argument(
        "--deck-metrics-port",
        type=port_number,
        help="the deck service started for the run serves its /metrics on this port",
    )
    ui = run.add_argument_group(
        "live view",
        "A web clock (/) and lobby (/lobby) pushed live while the run lasts. Operator actions "
        "(start, pause, resume, cancel) need the credential: --operator-token-file, else "
        f"${TOKEN_ENV}, else a random one printed at the start.",
    )
    ui.add_argument("--ui-port", type=port_number, metavar="PORT", help="serve the live view here")
    ui.add_argument("--ui-host", default="127.0.0.1", help="its address (127.0.0.1)")
    ui.add_argument(
        "--operator-token-file", type=Path, metavar="FILE", help="the operator credential"
    )
    ui.add_argument(
        "--ui-linger",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="keep the view up this long after the end, for the winner on the wall (0)",
    )
    ui.add_argument(
        "--wait-for-start",
        action="store_true",
        help="seat nobody until an operator presses Start in the lobby",
    )
    run.set_defaults(handler=_run)

    replay = commands.add_parser(
        "replay",
        help="audit a finished run offline from its files",
        description="Audit the files `mtt run --out DIR` wrote (side events too), or with "
        "--store a tournament's newest run exported from the store: event-log invariants, chip "
        "conservation, places and prizes, every hand replayed in pokerkit, deck commitments "
        "and dealing order. Exit 0 when clean, 1 on any violation, 2 when a file is missing "
        "or unreadable (it names the file and where it breaks).",
    )
    replay.add_argument(
        "dir", metavar="DIR | TOURNAMENT", help="the run's output folder (with --store: its id)"
    )
    replay.add_argument(
        "--store",
        metavar="URL",
        help="audit TOURNAMENT from this store instead (exported to a temporary folder)",
    )
    replay.set_defaults(handler=_replay)

    cancel = commands.add_parser(
        "cancel",
        help="cancel a tournament whose orchestrator cannot run, and roll it forward (CRASH-2)",
        description="CRASH-2 by hand, from the store the run used: rebuild the tournament from "
        "its log, void the hands in progress, pay the prizes already won and roll everyone "
        "still in forward through the ledger; the step is appended to the log (and to the run "
        "folder's events.jsonl and results.json when it is on this machine). Refused while a "
        "live orchestrator holds the tournament: cancel through it then (the front door or "
        "the live view). Exit 0 cancelled, 1 refused, 2 not found or unreadable.",
    )
    cancel.add_argument("tournament", help="the tournament's id, or id/run when it has several")
    cancel.add_argument("--reason", required=True, help="why, for the log and the players")
    cancel.add_argument("--store", required=True, help="the store URL the run used")
    cancel.set_defaults(handler=_cancel)

    tournament = bench.add_parser(
        "tournament",
        help="a whole tournament's wall time, hands/s and report handling time",
        description="Run a tournament of bots end to end and measure it.",
    )
    tournament.add_argument(
        "--config",
        type=Path,
        default=Path("examples/online-regular-1000.toml"),
        help="TOML file (%(default)s)",
    )
    tournament.add_argument("--players", type=positive_int, default=1000, help="entries (1000)")
    tournament.add_argument(
        "--bots", type=bot_mix, default=FIELD_BOTS, metavar="MIX", help="as mtt run's (%(default)s)"
    )
    tournament.add_argument("--seed", type=int, default=1, help="RNG seed (1)")
    tournament.add_argument("--out", type=Path, default=Path("out/bench-tournament"))
    tournament.add_argument("--json", action="store_true", help="one JSON object on stdout")
    tournament.set_defaults(handler=_bench)

    metrics = bench.add_parser(
        "metrics",
        help="how fast the metrics exporter follows an event log, and the scrape it serves",
        description="Feed a run's events.jsonl to the tournament metrics exporter in polls of "
        "1,000 events (as `mtt run --metrics-port` does) and time it; render one scrape.",
    )
    metrics.add_argument("events", type=Path, help="a run's events.jsonl")
    metrics.add_argument("--repeat", type=positive_int, default=5, help="passes over the log (5)")
    metrics.add_argument("--json", action="store_true", help="one JSON object on stdout")
    metrics.set_defaults(handler=_bench_metrics)

    failover = bench.add_parser(
        "failover",
        help="the node-loss chaos drill, many seeded runs, with its figures",
        description="Run tournaments on a 3-node cluster simulated on this machine, kill a "
        "node hosting tables in each, audit every run; print successes, hands voided per node "
        "loss and the time from the node's death until its tables deal again: each seed twice, "
        "without warm spare table actors (a new actor per lost table) and with them, and the "
        "ratio of the two.",
    )
    failover.add_argument("--runs", type=positive_int, default=20, help="seeded runs (20)")
    failover.add_argument(
        "--first-seed",
        type=positive_int,
        default=1,
        help="the first run's seed (1): a long measurement split into seed ranges",
    )
    failover.add_argument("--players", type=positive_int, default=80, help="entries (80)")
    failover.add_argument(
        "--kill-after",
        type=float,
        default=1.0,
        help="seconds of play, once every node holds its spares or a few seconds later (1)",
    )
    failover.add_argument(
        "--spare-tables",
        type=positive_int,
        default=2,
        help="warm spares per node for the spares path (2)",
    )
    failover.add_argument("--json", action="store_true", help="one JSON object on stdout")
    failover.set_defaults(handler=_bench_failover)


TOKEN_ENV = "MTT_OPERATOR_TOKEN"
RUN_BOTS = "strength,random,station"
FIELD_BOTS = "tag=70,lag=15,station=10,random=5"  # a field that plays like a real one


def bot_mix(text: str) -> tuple[str, ...]:
    """argparse type: a mix of bot policies (`table_worker.bots.parse_mix`) as the pool each
    player's policy is drawn from."""
    from table_worker.bots import mix_pool, parse_mix

    try:
        return mix_pool(parse_mix(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _print_play_styles(out: Path, pool: tuple[str, ...], seed: int) -> None:
    """How the bots played, from the run's hand histories (`orchestrator.views.play_style`)."""
    import tomllib

    from orchestrator.views.play_style import format_play_styles, play_styles, read_hands
    from table_worker.bots import policy_for

    try:
        rows = play_styles(read_hands(out / "hands"), lambda p: policy_for(p, pool, seed))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        print(f"(how the bots played: cannot read {out}/hands: {exc})")
        return
    print(f"\nhow the bots played ({out}/hands/*.phhs):\n{format_play_styles(rows)}")


def ui_options(args: argparse.Namespace) -> UiOptions | None:
    """The live view's options from `--ui-port` and its group (`mtt run`, `mtt resume`)."""
    from orchestrator.shell.driver import UiOptions

    if args.ui_port is None:
        if args.wait_for_start:
            raise ConfigError("--wait-for-start needs --ui-port (the Start button is there)")
        return None
    if args.operator_token_file is not None:
        try:
            token = args.operator_token_file.read_text().strip()
        except OSError as exc:
            raise ConfigError(f"cannot read {args.operator_token_file}: {exc}") from exc
        if not token:
            raise ConfigError(f"{args.operator_token_file} holds no credential")
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
        if not token:
            token = secrets.token_urlsafe(16)
            print(f"operator credential for this run: {token}")
    return UiOptions(
        port=args.ui_port,
        host=args.ui_host,
        operator_token=token,
        wait_for_start=args.wait_for_start,
        linger=args.ui_linger,
    )


def _run(args: argparse.Namespace) -> int:
    from orchestrator.shell.driver import MetricsEndpoint, ProgressLine, RunOptions, run_tournament
    from orchestrator.shell.satellite import load_target

    # A ConfigError (like every package error) is one line and exit 2: orchestrator.cli.main.
    plan = load_plan(args.config)
    if isinstance(plan, EventPlan):
        return _run_event(plan, args)
    config = plan
    if args.players is not None:
        config = config.with_players(args.players)
    target = load_target(config, args.config, given=args.target)  # SAT-3: then its target
    ui = ui_options(args)
    if args.kill_node_after is not None and args.nodes < 2:
        raise ConfigError("--kill-node-after needs --nodes 2 or more")
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    print(f"{config.name}: {config.players} players, seed {seed}, writing to {args.out}/")
    metrics = (
        MetricsEndpoint(port=args.metrics_port, host=args.metrics_host, linger=args.metrics_linger)
        if args.metrics_port is not None
        else None
    )
    options = RunOptions(
        out=args.out,
        seed=seed,
        store=args.store,
        ray_address=args.ray_address,
        nodes=args.nodes,
        kill_node_after=args.kill_node_after,
        ui=ui,
        metrics=metrics,
        deck_metrics_port=args.deck_metrics_port,
        bots=args.bots,
        force=args.force,
    )
    if target is not None:
        return _run_satellite(config, target, options, args)
    try:
        summary = run_tournament(config, options, progress=ProgressLine(sys.stdout))
    except KeyboardInterrupt:
        print(f"\nstopped; the event log so far is in {args.out}/events.jsonl", file=sys.stderr)
        return 130
    results = summary.results
    if "cancelled" in results:
        print(
            f"\n{config.name} was cancelled ({results['cancelled']}) after {summary.hands} hands"
            f" in {summary.seconds:.1f}s; the refunds and the roll-forward are in its event log"
        )
        print(_where(args.out))
        return 3
    winner = results["places"][0]
    seats = results.get("satellite")  # SAT-2: a satellite without a target to play
    print(
        f"\n{seats['seats']} seats of {seats['seat_value']} cents won in {config.name}"
        if seats
        else f"\n{winner['player']} wins {config.name}",
        f"after {summary.hands} hands in {summary.seconds:.1f}s; "
        f"prize pool {results['prize_pool']}",
    )
    print(_where(args.out))
    if args.kill_node_after is not None and summary.node_killed_at is None:
        print(
            f"chaos drill: no node was killed, the field was over before "
            f"{args.kill_node_after:g}s of play: deeper stacks, longer levels or an earlier "
            "--kill-node-after"
        )
    _print_play_styles(args.out, args.bots, seed)
    return 0


def _run_event(plan: EventPlan, args: argparse.Namespace) -> int:
    """FL-1..FL-3: every flight, then Day 2, each its own Ray run (`shell.event_run`)."""
    from orchestrator.shell.driver import ProgressLine, RunOptions
    from orchestrator.shell.event_run import run_event

    if args.players is not None:
        raise ConfigError("--players: an event's [[flights]] set their players")
    if args.nodes > 1 or args.ui_port is not None or args.metrics_port is not None:
        raise ConfigError("an event runs without --nodes, --ui-port and --metrics-port (yet)")
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    print(
        f"{plan.name}: {len(plan.flights)} flights, {plan.entries} entries, seed {seed}, "
        f"writing to {args.out}/"
    )
    options = RunOptions(
        out=args.out,
        seed=seed,
        store=args.store,
        ray_address=args.ray_address,
        deck_metrics_port=args.deck_metrics_port,
        bots=args.bots,
        force=args.force,
    )
    try:
        summary = run_event(plan, options, progress=ProgressLine(sys.stdout))
    except KeyboardInterrupt:
        print(f"\nstopped; each day's event log so far is under {args.out}/", file=sys.stderr)
        return 130
    results = summary.results
    winner = results["places"][0]
    print(
        f"\n{winner['player']} wins {plan.name} after {results['hands']} hands over "
        f"{len(summary.days)} days in {results['seconds']:.1f}s; prize pool "
        f"{results['prize_pool']}, {len(results['void'])} bags void (FL-2)"
    )
    rows = [("results", f"{args.out}/results.json")]
    rows += [(f"flight {day}", f"{args.out}/flights/{day}/") for day, _ in summary.days[:-1]]
    rows += [("day 2", f"{args.out}/day2/"), ("audit", f"mtt replay {args.out}")]
    rows += [("report", f"mtt report {args.out}  (writes {args.out}/report/report.html)")]
    print("\n".join(f"  {name:<15} {where}" for name, where in rows))
    return 0


def _run_satellite(
    config: TournamentConfig,
    target: TournamentConfig,
    options: RunOptions,
    args: argparse.Namespace,
) -> int:
    """SAT-1..SAT-3: the satellite to its seats, then its target with the ticket holders."""
    from orchestrator.shell.driver import ProgressLine
    from orchestrator.shell.satellite import run_satellite

    try:
        run = run_satellite(config, target, options, progress=ProgressLine(sys.stdout))
    except KeyboardInterrupt:
        print(f"\nstopped; the event logs so far are in {args.out}/", file=sys.stderr)
        return 130
    satellite = run.satellite.results
    if "cancelled" in satellite or run.target is None:
        print(f"\n{config.name} was cancelled: no seats, no target run")
        print(_where(args.out))
        return 3
    seats = satellite["satellite"]
    print(
        f"{config.name}: {seats['seats']} seats of {seats['seat_value']} cents after "
        f"{run.satellite.hands} hands in {run.satellite.seconds:.1f}s"
    )
    print(_where(args.out))
    results = run.target.results
    if "cancelled" in results:
        print(f"\n{target.name} was cancelled ({results['cancelled']})")
        print(_where(run.target_out))
        return 3
    winner = results["places"][0]
    print(
        f"\n{winner['player']} wins {target.name} after {run.target.hands} hands in "
        f"{run.target.seconds:.1f}s; prize pool {results['prize_pool']}"
    )
    print(_where(run.target_out))
    return 0


def _where(out: Path) -> str:
    """Where a finished run's files are, and the command that makes its report."""
    hands = len(list((out / "hands").glob("*.phhs")))
    rows = [
        ("results", f"{out}/results.json"),
        ("event log", f"{out}/events.jsonl"),
        ("hand histories", f"{out}/hands/ ({hands} PHH file{'s' if hands != 1 else ''})"),
    ]
    if (out / "side-events").is_dir():
        rows.append(("side events", f"{out}/side-events/"))
    rows.append(("report", f"mtt report {out}  (writes {out}/report/report.html)"))
    return "\n".join(f"  {name:<15} {where}" for name, where in rows)


def _replay(args: argparse.Namespace) -> int:
    from orchestrator.views.audit import audit_run
    from orchestrator.views.event_audit import audit_event, is_event_folder

    if args.store is None and is_event_folder(Path(args.dir)):  # FL-1..FL-3: every day
        report = audit_event(Path(args.dir))
    elif args.store is None:
        report = audit_run(Path(args.dir))  # UnreadableRun: exit 2 (orchestrator.cli.main)
    else:
        from orchestrator.cli.stored import print_notes
        from orchestrator.shell.export import temporary_export

        with temporary_export(args.store, args.dir) as exported:
            print(f"{exported.stream}, exported from {args.store}")
            print_notes(exported)
            report = audit_run(exported.folder)
    for violation in report.violations:
        print(violation)
    print(report.verdict())
    return 1 if report.violations else 0


def _cancel(args: argparse.Namespace) -> int:
    import time

    from orchestrator.errors import TournamentStateError
    from orchestrator.shell.cancellation import cancel_in_store, find_stream
    from orchestrator.shell.store import open_store

    store = open_store(args.store)  # StoreError, RecoveryError: exit 2 (orchestrator.cli.main)
    try:
        stream = find_stream(store, args.tournament)
        done = cancel_in_store(store, stream, args.reason, now=time.time())
    except TournamentStateError as exc:
        print(f"mtt cancel: refused: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()
    rolled = [e for e in done.events if e["type"] == "roll_forward_paid"]
    paid = sum(e["equal_share"] + e["chip_share"] for e in rolled)
    print(
        f"{stream} cancelled ({args.reason}): {len(rolled)} players rolled forward with "
        f"{paid} cents of the prize pool; events {done.events[0]['seq']}.."
        f"{done.events[-1]['seq']} appended to the store's log"
        + (f" and to {done.folder}/events.jsonl" if done.folder else "")
    )
    return 0


def _bench(args: argparse.Namespace) -> int:
    from orchestrator.shell.driver import RunOptions, run_tournament

    config = load_config(args.config).with_players(args.players)
    # A benchmark's folder is scratch: each run overwrites the last.
    options = RunOptions(
        out=args.out,
        seed=args.seed,
        ray_logs=not args.json,
        bots=args.bots,
        force=True,
        measure_tables=True,
    )
    summary = run_tournament(config, options)
    wall = sorted(w for w, _ in summary.report_seconds)
    cpu = sorted(c for _, c in summary.report_seconds)

    def ms(values: list[float], p: float) -> float:
        return (
            round(1000 * values[min(len(values) - 1, int(p * len(values)))], 3) if values else 0.0
        )

    play = _play_seconds(args.out / "events.jsonl")
    report = {
        "config": config.name,
        "players": args.players,
        "seconds": round(summary.seconds, 2),
        # START-1: from the orchestrator's launch until every table is ready and play starts
        # (the tables' actors started meanwhile), then play itself
        "startup_seconds": round(summary.seconds - play, 2),
        "play_seconds": round(play, 2),
        "hands": summary.hands,  # per tournament: the structure and the bots set it
        "hands_per_s": round(summary.hands / summary.seconds, 1),
        "play_hands_per_s": round(summary.hands / play, 1) if play else 0.0,
        "report_p50_ms": ms(wall, 0.50),
        "report_p99_ms": ms(wall, 0.99),
        "report_cpu_p50_ms": ms(cpu, 0.50),
        "report_cpu_p99_ms": ms(cpu, 0.99),
        "peak_rss_mb": round(summary.peak_memory_mb, 1),
        "driver_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        **(summary.table_memory.figures() if summary.table_memory else {}),
    }
    print_figures(report, as_json=args.json)
    return 0


def _play_seconds(events: Path) -> float:
    """From the first `play_started` (START-1: every table ready) to the last event, by the
    run's exported log."""
    started = last = None
    with events.open() as lines:
        for line in lines:
            record = json.loads(line)
            if started is None and record["type"] == "play_started":
                started = record["ts"]
            last = record["ts"]
    return float(last - started) if started is not None and last is not None else 0.0


def _bench_metrics(args: argparse.Namespace) -> int:
    from prometheus_client import CollectorRegistry, generate_latest

    from orchestrator.views.metrics import TournamentMetrics

    try:
        lines = args.events.read_text().splitlines()
        events = [json.loads(line) for line in lines if line]
    except (OSError, ValueError) as exc:
        print(f"mtt bench metrics: cannot read {args.events}: {exc}", file=sys.stderr)
        return 2
    best = float("inf")
    for _ in range(args.repeat):
        registry = CollectorRegistry()
        exporter = TournamentMetrics(registry)
        started = time.perf_counter()
        for start in range(0, len(events), 1000):
            exporter.follow("bench", events[start : start + 1000])
        best = min(best, time.perf_counter() - started)
    started = time.perf_counter()
    scrape = generate_latest(registry)
    report = {
        "events": len(events),
        "events_per_s": round(len(events) / best),
        "scrape_bytes": len(scrape),
        "scrape_ms": round(1000 * (time.perf_counter() - started), 2),
    }
    print_figures(report, as_json=args.json)
    return 0


def _bench_failover(args: argparse.Namespace) -> int:
    from orchestrator.core.config_toml import parse_config
    from orchestrator.shell.drill import DrillRun, compare, drill

    def config(spares: int) -> TournamentConfig:
        return parse_config(
            {
                "tournament": {
                    "name": "drill",
                    "players": args.players,
                    "max_per_table": 8,
                    "starting_stack": 4000,
                    "buy_in": 100,
                },
                "levels": {
                    "unit": "hands",
                    "length": 12,
                    "blinds": [[10, 20], [15, 30], [25, 50], [50, 100], [100, 200]],
                },
                "cluster": {"spare_tables": spares},
            }
        )

    # The old path (a new actor per lost table) and warm spares, seed by seed in turn, so
    # the machine's load falls on both alike. A field that plays like a real one: its
    # tables last, so the node dies with several on it.
    bots = bot_mix(FIELD_BOTS)
    old: list[DrillRun] = []
    spares: list[DrillRun] = []
    for seed in range(args.first_seed, args.first_seed + args.runs):
        one = range(seed, seed + 1)
        old += drill(config(0), seeds=one, kill_after=args.kill_after, bots=bots)
        spares += drill(config(args.spare_tables), seeds=one, kill_after=args.kill_after, bots=bots)
        for path, run in (("no spares", old[-1]), ("spares", spares[-1])):
            print(  # on stderr: stdout holds the figures alone
                f"seed {seed} {path}: {run.tables_lost} tables lost"
                + (f" ({run.tables_beyond_spares} beyond the spares)" if run.spares_wanted else "")
                + f", dealing again {run.death_to_dealing_seconds} s after the node's death "
                f"(loss seen {run.death_to_detected_seconds} s, restarts logged "
                f"{run.death_to_restart_logged_seconds} s), "
                + ("clean" if run.succeeded else f"FAILED ({run.violations} violations)"),
                file=sys.stderr,
                flush=True,
            )
    figures = compare(old, spares, spare_tables=args.spare_tables)
    print_figures(figures, as_json=args.json, hide=("runs_detail",))
    clean = figures["succeeded"] == 2 * args.runs
    return 0 if clean or args.json else 1
