"""Invariants every tournament's event log keeps (DESIGN.md contracts, ELIM-1, FO-*).

The checks themselves live in `orchestrator.views.audit` (one implementation, shared with
`mtt replay`); this helper fails a test with every violation listed."""

from __future__ import annotations

from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.views.audit import audit_events


def check_log(cfg: TournamentConfig, log: list[dict[str, Any]]) -> None:
    violations = audit_events(log, buy_in=cfg.buy_in, fee=cfg.fee)
    assert not violations, "\n".join(map(str, violations))
