"""`mtt run EVENT.toml`: a multi-day event of bots (FL-1..FL-3), each day its own Ray run.

The flights play one after another, then Day 2, each through `run_tournament` as a tournament of
its own: its own stream in the one store, its own Ray session (so each starts as START-1 says,
every table seated and ready before the first hand), its own files. Between the days the pure
core decides (`core.flights`): the best bag of each player goes forward (FL-2) and Day 2 starts
with them (FL-3). The folder:

    OUT/flights/<flight>/   each flight's events.jsonl, hands/, results.json (its bags)
    OUT/day2/               Day 2's files
    OUT/results.json        the event's: places and prizes over every entry of every flight
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_event import EventPlan
from orchestrator.core.flights import FlightResult, day2_start, event_results, flight_result
from orchestrator.errors import TournamentStateError
from orchestrator.shell.driver import RunOptions, RunSummary, run_tournament

__all__ = ["EventSummary", "event_players", "run_event"]


@dataclass(frozen=True, slots=True)
class EventSummary:
    results: dict[str, Any]  # the event's results.json
    days: tuple[tuple[str, RunSummary], ...]  # each flight's run, then Day 2's


def event_players(plan: EventPlan) -> list[list[str]]:
    """Each flight's bots: new entrants are p00001, p00002, ... across the event, and the first
    `multi_entries` of the first flight enter every later flight too (FL-2).

    >>> from orchestrator.core.config_event import parse_event
    >>> plan = parse_event({"event": {"bag_at_share": 0.5, "multi_entries": 1},
    ...     "flights": [{"players": 3}, {"players": 3}], "levels": {"blinds": [[1, 2]]},
    ...     "payouts": {"percent": [100]}, "tournament": {"starting_stack": 100}})
    >>> event_players(plan)
    [['p00001', 'p00002', 'p00003'], ['p00001', 'p00004', 'p00005']]
    """
    flights: list[list[str]] = []
    made = 0
    for k, flight in enumerate(plan.flights):
        again = flights[0][: plan.multi_entries] if k else []
        fresh = [f"p{made + n:05d}" for n in range(1, flight.players - len(again) + 1)]
        made += len(fresh)
        flights.append(again + fresh)
    return flights


def run_event(
    plan: EventPlan,
    options: RunOptions,
    *,
    progress: Callable[[dict[str, Any]], None] | None = None,
    say: Callable[[str], None] = print,
) -> EventSummary:
    """Every flight, then Day 2, to the event's winner; the event's results.json in `out`."""
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    if (out / "results.json").exists() and not options.force:
        raise TournamentStateError(
            f"{out}/results.json holds an earlier event's results: choose another --out, or "
            "--force to overwrite them"
        )
    store = options.store or f"sqlite:///{(out / 'store.db').resolve()}"
    days: list[tuple[str, RunSummary]] = []
    flights: list[FlightResult] = []
    for k, (flight, players) in enumerate(zip(plan.flights, event_players(plan), strict=True)):
        folder = out / "flights" / flight.name
        say(f"flight {flight.name}: {len(players)} players, writing to {folder}/")
        day = _run_day(
            plan.flight_config(flight),
            options,
            folder,
            store=store,
            seed=options.seed + k,
            players=players,
            progress=progress,
            say=say,
        )
        days.append((flight.name, day))
        flights.append(flight_result(flight.name, day.results))
        say(f"\nflight {flight.name} bagged {len(flights[-1].bags)} at level {flights[-1].level}")
    start, void = day2_start(flights)
    if len(start.stacks) < 2:
        raise TournamentStateError(
            f"FL-3: only {len(start.stacks)} player bagged in the flights: Day 2 cannot be seated"
        )
    say(f"day 2: {len(start.stacks)} players from level {start.level}, {len(void)} bags void")
    day2 = _run_day(
        plan.day2_config(start),
        options,
        out / "day2",
        store=store,
        seed=options.seed + len(plan.flights),
        players=[player for player, _ in start.stacks],
        progress=progress,
        say=say,
    )
    days.append(("day2", day2))
    results = event_results(
        plan.name,
        flights,
        day2.results,
        void=void,
        hands=sum(day.hands for _, day in days),
        seconds=sum(day.seconds for _, day in days),
    )
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return EventSummary(results, tuple(days))


def _run_day(
    config: TournamentConfig,
    options: RunOptions,
    out: Path,
    *,
    store: str,
    seed: int,
    players: list[str],
    progress: Callable[[dict[str, Any]], None] | None,
    say: Callable[[str], None],
) -> RunSummary:
    """One day of the event as a run of its own, in the event's store; a day already played
    to its end with this seed (its results.json, after `mtt resume` of an interrupted day) is
    read back instead, so running the event's command again carries on after it."""
    done = out / "results.json"
    results = json.loads(done.read_text(encoding="utf-8")) if done.is_file() else {}
    if results.get("tournament") == f"{config.name}-{seed}" and not options.force:
        say(f"{config.name} is over already: read from {done}")
        day = RunSummary(results, float(results["seconds"]), int(results["hands"]), [], 0.0)
    else:
        day = run_tournament(
            config,
            replace(options, out=out, store=store, seed=seed),
            progress=progress,
            players=players,
        )
    if "cancelled" in day.results:
        raise TournamentStateError(f"{config.name} was cancelled ({day.results['cancelled']})")
    return day
