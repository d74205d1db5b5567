"""`mtt replay` of a multi-day event's folder (FL-1..FL-3, `mtt run EVENT.toml`): every day's
run audited as any run is (`views.audit.audit_run`), then the event as a whole:

- FL-2: each Day 2 player is seated with the largest of his bags, and every other bag is void
  (listed in the event's results.json);
- FL-3: Day 2's pool is the flights' pools to the cent, and the money of every entry of every
  flight with the overlay is the commission plus the prizes paid on Day 2 (entries = pool +
  commission + overlay - paid, the pool left at 0); GTD-1: the overlay of the event's guarantee
  is paid on Day 2 only (docs/OPERATIONS.md), the guarantee's shortfall of every entry's pool;
- FL-3: the event's places are 1..N over the N different players of all flights, each once,
  Day 2's players above every Day 1 bust in Day 2's own order, and only Day 2 is paid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.core.events import EventRecord
from orchestrator.views.audit import AuditReport, UnreadableRun, Violation, audit_run, read_results
from orchestrator.views.audit import read_events as read_log

__all__ = ["audit_event", "is_event_folder"]


def is_event_folder(folder: Path) -> bool:
    """Whether `folder` holds a multi-day event's runs (`shell.event_run`'s layout)."""
    return (folder / "day2").is_dir() and (folder / "flights").is_dir()


def audit_event(folder: Path) -> AuditReport:
    """Every day's audit, then the event's; raises UnreadableRun like `audit_run`."""
    results = read_results(folder / "results.json")
    flights = [row.get("flight") for row in results.get("flights", [])]
    if not flights or not all(isinstance(name, str) for name in flights):
        raise UnreadableRun(f"{folder}/results.json lists no flights")
    report = AuditReport()
    logs: list[list[EventRecord]] = []
    for where in [f"flights/{name}" for name in flights] + ["day2"]:
        day = audit_run(folder / where)
        report.violations += [replace(v, where=f"{where}/{v.where}") for v in day.violations]
        report.runs += day.runs
        report.hands += day.hands
        report.decks += day.decks
        logs.append(read_log(folder / where / "events.jsonl"))
    *flight_logs, day2 = logs
    report.violations += _bags(flight_logs, day2, results)
    report.violations += _money(flight_logs, day2)
    report.violations += _places(flight_logs, day2, results)
    report.players = len(results.get("places", []))
    return report


def _bags(
    flights: Sequence[list[EventRecord]], day2: list[EventRecord], results: dict[str, Any]
) -> list[Violation]:
    """FL-2: only each player's largest bag goes forward; the others are void."""
    bags: dict[str, list[int]] = {}
    for log in flights:
        for e in log:
            if e["type"] == "stack_bagged":
                bags.setdefault(e["player"], []).append(e["chips"])
    seated = {e["player"]: e["stack"] for e in day2 if e["type"] == "player_seated"}
    v: list[Violation] = []
    if seated != {player: max(chips) for player, chips in bags.items()}:
        v.append(Violation("FL-2", "day2/events.jsonl", "Day 2's stacks are not the best bags"))
    void = Counter(row["player"] for row in results.get("void", []))
    if void != Counter({p: len(chips) - 1 for p, chips in bags.items() if len(chips) > 1}):
        v.append(Violation("FL-2", "results.json", "the void bags are not the smaller ones"))
    return v


def _money(flights: Sequence[list[EventRecord]], day2: list[EventRecord]) -> list[Violation]:
    """FL-3: the flights' pools make Day 2's; the entries' money is the commission plus the
    prizes, to the cent."""

    def total(logs: Sequence[list[EventRecord]], kind: str, key: str) -> int:
        return sum(e[key] for log in logs for e in log if e["type"] == kind)

    v: list[Violation] = []
    carried = total(flights, "flight_bagged", "pool")
    received = total([day2], "day2_started", "pool")
    if carried != received:
        v.append(Violation("FL-3", "day2/events.jsonl", f"{received} received, {carried} bagged"))
    entries = total(flights, "player_registered", "buy_in") + total(
        flights, "player_registered", "fee"
    )
    commission = total(flights, "player_registered", "fee")
    paid = total([day2], "prize_awarded", "amount")
    overlay = total([day2], "overlay_paid", "overlay")
    if entries + overlay != commission + paid:
        v.append(
            Violation(
                "FL-3",
                "results.json",
                f"entries {entries} + overlay {overlay} != commission {commission} + prizes "
                f"paid {paid}",
            )
        )
    if total(flights, "overlay_paid", "overlay"):
        v.append(Violation("GTD-1", "flights", "a flight paid an overlay: the event's is Day 2's"))
    for e in day2:
        if e["type"] == "overlay_paid" and e["entries_pool"] != carried:
            v.append(Violation("GTD-1", "day2/events.jsonl", "the overlay is not over every entry"))
    return v


def _places(
    flights: Sequence[list[EventRecord]], day2: list[EventRecord], results: dict[str, Any]
) -> list[Violation]:
    """FL-3: one place for each player of the event, 1..N, Day 2's first and only they paid."""
    players = {e["player"] for log in flights for e in log if e["type"] == "player_registered"}
    rows = results.get("places", [])
    v: list[Violation] = []
    if sorted(row["place"] for row in rows) != list(range(1, len(players) + 1)):
        v.append(Violation("FL-3", "results.json", f"places are not 1..{len(players)}"))
    if sorted(row["player"] for row in rows) != sorted(players):
        v.append(Violation("FL-3", "results.json", "not every player of the flights placed once"))
    on_day2 = {e["player"]: e["place"] for e in day2 if e["type"] == "player_eliminated"}
    on_day2 |= {e["winner"]: 1 for e in day2 if e["type"] == "tournament_finished"}
    prizes = Counter[str]()
    for e in day2:
        if e["type"] == "prize_awarded":
            prizes[e["player"]] += e["amount"]
    for row in rows:
        expected = on_day2.get(row["player"])
        if expected is not None and row["place"] != expected:
            v.append(
                Violation("FL-3", "results.json", f"{row['player']} placed {expected} on Day 2")
            )
        if expected is None and row["place"] <= len(on_day2):
            v.append(
                Violation("FL-3", "results.json", f"{row['player']} busted on Day 1 above Day 2")
            )
        if row["prize"] != prizes[row["player"]]:
            v.append(Violation("FL-3", "results.json", f"{row['player']}'s prize is not Day 2's"))
    return v
