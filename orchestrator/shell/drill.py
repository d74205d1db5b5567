"""`mtt bench failover`: the node-loss chaos drill, many times, seeded, with its figures.

Each run plays a tournament on a 3-node cluster simulated on 127.0.0.1, kills the worker node
hosting the most tables a set time into play (once every node holds its warm spares, when
the config keeps any, or a few seconds later: `driver.SPARES_PATIENCE`), then audits the
run's files offline (chips, places, every non-voided hand replayed in pokerkit, decks,
ledger). A run succeeds when the tournament finished with one winner, the lost tables were
restarted, and the audit is clean. Its log says where the restart's time went
(`restart_phases`). `compare` sets the runs without warm spare table actors beside those
with them.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.shell.driver import DEFAULT_BOTS, RunOptions, run_tournament
from orchestrator.views.audit import audit_run

__all__ = ["DrillRun", "RestartPhases", "compare", "drill", "restart_phases", "summary"]


@dataclass(frozen=True, slots=True)
class DrillRun:
    seed: int
    succeeded: bool
    tables_lost: int
    hands_voided: int
    restart_seconds: float  # Ray reporting the first actor dead -> the last restart logged
    node_loss_logged: bool
    violations: int
    # From the drill's kill (its first signal to the node) to the last of the node's tables
    # dealing again: its first hand's first card, after its restart was logged and its first
    # deck came (a table told to close or wait at its restart counts at its restart).
    death_to_dealing_seconds: float = 0.0
    death_to_detected_seconds: float = 0.0  # the kill -> the first of its tables' loss logged
    death_to_restart_logged_seconds: float = 0.0  # the kill -> the last `table_restarted`
    spares_ready: int = 0  # warm spares ready to take at the kill
    spares_wanted: int = 0  # every node's
    # The killed node's tables that the spares ready on the other nodes could not take
    # (they started new processes); always all of them without spares.
    tables_beyond_spares: int = 0
    startup_seconds: float = 0.0  # `tournament_started` -> `play_started` (START-1)


NODES = 3  # the head (the orchestrator, tables) and two worker nodes (tables)


def drill(
    config: TournamentConfig,
    *,
    seeds: range,
    kill_after: float,
    bots: tuple[str, ...] = DEFAULT_BOTS,
) -> list[DrillRun]:
    runs = []
    for seed in seeds:
        with tempfile.TemporaryDirectory(prefix="mtt-drill-") as folder:
            out = Path(folder)
            options = RunOptions(
                out=out,
                seed=seed,
                nodes=NODES,
                kill_node_after=kill_after,
                ray_logs=False,
                bots=bots,
            )
            done = run_tournament(config, options)
            events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
            report = audit_run(out)
        finished = any(e["type"] == "tournament_finished" for e in events)
        phases = restart_phases(events, killed=done.node_killed_at)
        runs.append(
            DrillRun(
                seed=seed,
                succeeded=finished and bool(phases.tables) and not report.violations,
                tables_lost=len(phases.tables),
                hands_voided=sum(e["type"] == "hand_voided" for e in events),
                restart_seconds=phases.restart_seconds,
                node_loss_logged=any(e["type"] == "node_lost" for e in events),
                violations=len(report.violations),
                death_to_dealing_seconds=phases.dealing,
                death_to_detected_seconds=phases.detected,
                death_to_restart_logged_seconds=phases.restart_logged,
                spares_ready=done.spares_ready_at_kill,
                spares_wanted=config.spare_tables * NODES,
                tables_beyond_spares=done.tables_beyond_spares,
                startup_seconds=phases.startup,
            )
        )
    return runs


@dataclass(frozen=True, slots=True)
class RestartPhases:
    """Where a drill's time went, from its log (`killed`: when the node was killed)."""

    tables: frozenset[int]  # restarted
    restart_seconds: float  # the first loss logged -> the last restart logged
    detected: float  # the kill -> the first loss logged (Ray reported an actor dead)
    restart_logged: float  # the kill -> the last restart logged
    dealing: float  # the kill -> the last restarted table's first card
    startup: float  # the tournament's start -> play started (START-1)


def restart_phases(events: list[dict[str, Any]], *, killed: float | None) -> RestartPhases:
    """The drill's phases: a loss is logged when Ray reports the table's actor dead; a
    restart, once the void is durable and the new actor (a spare taken, or a new process)
    answered; a restarted table deals its first card `seconds - deck_wait_seconds` before
    its first report (its `hand_finished`), once it has its first deck.

    >>> log = [{"type": "tournament_started", "ts": 0.0}, {"type": "play_started", "ts": 2.0},
    ...        {"type": "hand_voided", "table": 3, "ts": 11.0},
    ...        {"type": "table_restarted", "table": 3, "ts": 11.5},
    ...        {"type": "hand_finished", "table": 3, "ts": 12.0, "seconds": 0.4,
    ...         "deck_wait_seconds": 0.1}]
    >>> phases = restart_phases(log, killed=10.0)
    >>> phases.detected, phases.restart_logged, phases.dealing, phases.startup
    (1.0, 1.5, 1.7, 2.0)
    """
    restarted_at: dict[int, float] = {}
    dealt_at: dict[int, float] = {}
    for e in events:
        if e["type"] == "table_restarted":
            restarted_at[e["table"]] = e["ts"]
            dealt_at.pop(e["table"], None)
        elif e["type"] == "hand_finished" and e["table"] in restarted_at:
            first_card = e["ts"] - e.get("seconds", 0.0) + e.get("deck_wait_seconds", 0.0)
            dealt_at.setdefault(e["table"], first_card)
    losses = [e["ts"] for e in events if e["type"] in ("hand_voided", "table_lost")]
    started = [e["ts"] for e in events if e["type"] == "tournament_started"]
    play = [e["ts"] for e in events if e["type"] == "play_started"]
    startup = round(play[0] - started[0], 2) if started and play else 0.0
    if not restarted_at or not losses:
        return RestartPhases(frozenset(), 0.0, 0.0, 0.0, 0.0, startup)
    last_restart = max(restarted_at.values())
    last_deal = max(dealt_at.get(t, at) for t, at in restarted_at.items())

    def after(ts: float) -> float:
        return round(ts - killed, 2) if killed is not None else 0.0

    return RestartPhases(
        tables=frozenset(restarted_at),
        restart_seconds=round(last_restart - min(losses), 2),
        detected=after(min(losses)),
        restart_logged=after(last_restart),
        dealing=after(last_deal),
        startup=startup,
    )


def summary(runs: list[DrillRun]) -> dict[str, object]:
    done = [r for r in runs if r.tables_lost]
    deaths = sorted(r.death_to_dealing_seconds for r in done)
    logged = sorted(r.death_to_restart_logged_seconds for r in done)
    return {
        "runs": len(runs),
        "succeeded": sum(r.succeeded for r in runs),
        "tables_lost_per_node": round(sum(r.tables_lost for r in done) / max(1, len(done)), 2),
        "hands_voided_per_node_loss": round(
            sum(r.hands_voided for r in done) / max(1, len(done)), 2
        ),
        "node_losses_logged": sum(r.node_loss_logged for r in runs),
        "restart_seconds_max": max((r.restart_seconds for r in done), default=0.0),
        "restart_seconds_mean": mean([r.restart_seconds for r in done]),
        "death_to_dealing_p50": percentile(deaths, 0.50),
        "death_to_dealing_p95": percentile(deaths, 0.95),
        "death_to_dealing_max": max(deaths, default=0.0),
        # where the time went: Ray reporting the first actor dead, the restarts logged
        "death_to_detected_mean": mean([r.death_to_detected_seconds for r in done]),
        "death_to_restart_logged_p95": percentile(logged, 0.95),
        "kills_with_every_spare_ready": sum(
            r.spares_ready >= r.spares_wanted for r in runs if r.tables_lost
        ),
        # kills whose every table a spare on another node could take
        "kills_covered_by_spares": sum(r.tables_beyond_spares == 0 for r in done),
        "startup_seconds_mean": mean([r.startup_seconds for r in runs]),
        "runs_detail": [asdict(r) for r in runs],
    }


def compare(old: list[DrillRun], spares: list[DrillRun], *, spare_tables: int) -> dict[str, object]:
    """The two paths side by side: each one's figures prefixed by its name, every run's
    success counted together, and how many times faster the spares bring a node's tables
    back (the old path's p50 and p95 over theirs)."""
    figures: dict[str, object] = {
        "runs": len(old) + len(spares),
        "succeeded": sum(r.succeeded for r in old + spares),
        "spare_tables": spare_tables,
    }
    for name, runs in (("no_spares", old), ("spares", spares)):
        for key, value in summary(runs).items():
            figures[f"{name}_{key}"] = value
    for p in ("p50", "p95"):
        before = figures[f"no_spares_death_to_dealing_{p}"]
        after = figures[f"spares_death_to_dealing_{p}"]
        assert isinstance(before, float) and isinstance(after, float)
        figures[f"speedup_{p}"] = round(before / after, 2) if after else 0.0
    figures["runs_detail"] = {
        "no_spares": figures.pop("no_spares_runs_detail"),
        "spares": figures.pop("spares_runs_detail"),
    }
    return figures


def mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank `p` percentile of sorted `values` (0.0 for none).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.95)
    (3.0, 4.0)
    """
    return values[min(len(values) - 1, int(p * len(values)))] if values else 0.0
