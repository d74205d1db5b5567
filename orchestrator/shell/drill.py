"""`mtt bench failover`: the node-loss chaos drill, many times, seeded, with its figures.

Each run plays a tournament on a 3-node cluster simulated on 127.0.0.1, kills the worker node
hosting the most tables a set time into play (once every node holds its warm spares, when
the config keeps any), then audits the run's files offline (chips,
places, every non-voided hand replayed in pokerkit, decks, ledger). A run succeeds when the
tournament finished with one winner, the lost tables were restarted, and the audit is clean.
`compare` sets the runs without warm spare table actors beside those with them.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from orchestrator.core.config import TournamentConfig
from orchestrator.shell.driver import DEFAULT_BOTS, RunOptions, run_tournament
from orchestrator.views.audit import audit_run

__all__ = ["DrillRun", "compare", "drill", "summary"]


@dataclass(frozen=True, slots=True)
class DrillRun:
    seed: int
    succeeded: bool
    tables_lost: int
    hands_voided: int
    restart_seconds: float  # Ray reporting the first actor dead -> the last table dealing again
    node_loss_logged: bool
    violations: int
    # the drill killing the node -> the last of its tables dealing again (its restart logged,
    # which its new actor hears before it deals)
    death_to_dealing_seconds: float = 0.0


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
                out=out, seed=seed, nodes=3, kill_node_after=kill_after, ray_logs=False, bots=bots
            )
            done = run_tournament(config, options)
            events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
            report = audit_run(out)
        lost = [e for e in events if e["type"] == "node_lost"]
        restarted = [e for e in events if e["type"] == "table_restarted"]
        tables = {e["table"] for e in restarted}
        restarts = [e["ts"] for e in restarted]
        voided = [e["ts"] for e in events if e["type"] in ("hand_voided", "table_restarted")]
        finished = any(e["type"] == "tournament_finished" for e in events)
        killed = done.node_killed_at
        runs.append(
            DrillRun(
                seed=seed,
                succeeded=finished and bool(restarted) and not report.violations,
                tables_lost=len(tables),
                hands_voided=sum(e["type"] == "hand_voided" for e in events),
                restart_seconds=round(max(restarts) - min(voided), 2) if restarts else 0.0,
                node_loss_logged=bool(lost),
                violations=len(report.violations),
                death_to_dealing_seconds=(
                    round(max(restarts) - killed, 2) if restarts and killed else 0.0
                ),
            )
        )
    return runs


def summary(runs: list[DrillRun]) -> dict[str, object]:
    done = [r for r in runs if r.tables_lost]
    deaths = sorted(r.death_to_dealing_seconds for r in done)
    return {
        "runs": len(runs),
        "succeeded": sum(r.succeeded for r in runs),
        "tables_lost_per_node": round(sum(r.tables_lost for r in done) / max(1, len(done)), 2),
        "hands_voided_per_node_loss": round(
            sum(r.hands_voided for r in done) / max(1, len(done)), 2
        ),
        "node_losses_logged": sum(r.node_loss_logged for r in runs),
        "restart_seconds_max": max((r.restart_seconds for r in done), default=0.0),
        "restart_seconds_mean": round(sum(r.restart_seconds for r in done) / max(1, len(done)), 2),
        "death_to_dealing_p50": percentile(deaths, 0.50),
        "death_to_dealing_p95": percentile(deaths, 0.95),
        "death_to_dealing_max": max(deaths, default=0.0),
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


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank `p` percentile of sorted `values` (0.0 for none).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.95)
    (3.0, 4.0)
    """
    return values[min(len(values) - 1, int(p * len(values)))] if values else 0.0
