"""Invariants every tournament's event log keeps (DESIGN.md contracts, ELIM-1, FO-*).

The checks themselves live in `orchestrator.views.audit` (one implementation, shared with
`mtt replay`); this helper fails a test with every violation listed."""

from __future__ import annotations

from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.core.tournament import OpenTable, Step
from orchestrator.views.audit import audit_events
from table_worker.protocol import TableDirective


def check_log(cfg: TournamentConfig, log: list[dict[str, Any]]) -> None:
    violations = audit_events(log, buy_in=cfg.buy_in, fee=cfg.fee)
    assert not violations, "\n".join(map(str, violations))


def opened_tables(step: Step) -> dict[int, TableDirective]:
    """The tables a step opened, with their first directives (what the shell starts)."""
    return {d.table: d.first for d in step.directives if isinstance(d, OpenTable)}
