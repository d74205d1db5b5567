"""`mtt bench failover`: the node-loss chaos drill, many times, seeded, with its figures.

Each run plays a tournament on a 3-node cluster simulated on 127.0.0.1, kills the worker node
hosting the most tables after a few seconds, then audits the run's files offline (chips,
places, every non-voided hand replayed in pokerkit, decks, ledger). A run succeeds when the
tournament finished with one winner, the lost tables were restarted, and the audit is clean.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from orchestrator.core.config import TournamentConfig
from orchestrator.shell.driver import RunOptions, run_tournament
from orchestrator.views.audit import audit_run

__all__ = ["DrillRun", "drill"]


@dataclass(frozen=True, slots=True)
class DrillRun:
    seed: int
    succeeded: bool
    tables_lost: int
    hands_voided: int
    restart_seconds: float  # Ray reporting the first actor dead -> the last table dealing again
    node_loss_logged: bool
    violations: int


def drill(config: TournamentConfig, *, seeds: range, kill_after: float) -> list[DrillRun]:
    runs = []
    for seed in seeds:
        with tempfile.TemporaryDirectory(prefix="mtt-drill-") as folder:
            out = Path(folder)
            options = RunOptions(
                out=out, seed=seed, nodes=3, kill_node_after=kill_after, ray_logs=False
            )
            run_tournament(config, options)
            events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
            report = audit_run(out)
        lost = [e for e in events if e["type"] == "node_lost"]
        restarted = [e for e in events if e["type"] == "table_restarted"]
        tables = {e["table"] for e in restarted}
        restarts = [e["ts"] for e in restarted]
        voided = [e["ts"] for e in events if e["type"] in ("hand_voided", "table_restarted")]
        finished = any(e["type"] == "tournament_finished" for e in events)
        runs.append(
            DrillRun(
                seed=seed,
                succeeded=finished and bool(restarted) and not report.violations,
                tables_lost=len(tables),
                hands_voided=sum(e["type"] == "hand_voided" for e in events),
                restart_seconds=round(max(restarts) - min(voided), 2) if restarts else 0.0,
                node_loss_logged=bool(lost),
                violations=len(report.violations),
            )
        )
    return runs


def summary(runs: list[DrillRun]) -> dict[str, object]:
    done = [r for r in runs if r.tables_lost]
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
        "runs_detail": [asdict(r) for r in runs],
    }
