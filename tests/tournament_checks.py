"""Invariants every tournament's event log keeps (DESIGN.md contracts, ELIM-1, FO-*), and the
fixtures the core's tests share.

The checks themselves live in `orchestrator.views.audit` (one implementation, shared with
`mtt replay`); this helper fails a test with every violation listed."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import TournamentOpened
from orchestrator.core.replay import open_tournament, snapshot
from orchestrator.core.tournament import OpenTable, Step, Tournament
from orchestrator.shell.eventlog import EventLog
from orchestrator.shell.simulation import entry_deposits, late_bot_names
from orchestrator.shell.store import Store
from orchestrator.views.audit import audit_events
from table_worker.protocol import HandPlayer, HandReport, NextHand, TableDirective


def check_log(cfg: TournamentConfig, log: list[dict[str, Any]]) -> None:
    buy_in, fee = cfg.registration_price
    violations = audit_events(log, buy_in=buy_in, fee=fee)
    assert not violations, "\n".join(map(str, violations))


def opened_tables(step: Step) -> dict[int, TableDirective]:
    """The tables a step opened, with their first directives (what the shell starts)."""
    return {d.table: d.first for d in step.directives if isinstance(d, OpenTable)}


def begin(tournament: Tournament, *steps: Step, now: float = 0.0) -> dict[int, TableDirective]:
    """START-1 as the orchestrator actor takes it: the tables `steps` opened (the start's, a
    late registrant's) wait until every one's actor is ready (`table_ready`), then each polls
    and is dealt its first hand. Their directives, by table."""
    tables = {t: d for step in steps for t, d in opened_tables(step).items()}
    assert all(directive.wait for directive in tables.values()), "a table dealt before START-1"
    for table in sorted(tables):
        tournament.table_ready(table, now=now)
    directives: dict[int, TableDirective] = {}
    for table in sorted(tables):
        step = tournament.poll(table, now=now, rng=random.Random(table))
        assert step.reply is not None
        directives[table] = step.reply
    return directives


def funds(cfg: TournamentConfig, players: Sequence[str]) -> dict[str, int]:
    """The deposits `mtt run` gives its bots: every entry's price, for the players and the
    late bots of `cfg` (`Tournament.start(..., deposits=...)`)."""
    return entry_deposits(cfg, [*players, *late_bot_names(cfg)])


def quiet(spec: NextHand, *, won: int = 0) -> HandReport:
    """A report of `spec` in which nobody's stack changed (all folded to the big blind, the
    blinds given back), or, with `won`, the first seat took that many chips from the second."""
    ends = {p: c for _, p, c in spec.seats}
    if won:
        first, second = spec.seats[0][1], spec.seats[1][1]
        ends[first] += won
        ends[second] -= won
    return HandReport(
        spec.table,
        spec.hand,
        spec.blinds.button,
        tuple(HandPlayer(p, seat, stack, ends[p]) for seat, p, stack in spec.seats),
    )


def open_logged(
    store: Store,
    stream: str,
    opened: TournamentOpened,
    *,
    now: float,
    snapshot_it: bool = True,
) -> tuple[Tournament, EventLog, dict[int, TableDirective]]:
    """A run's start as the orchestrator actor logs it into `store`: the opening record and the
    start's events, the opening snapshot (unless not `snapshot_it`), then every table's actor
    ready (START-1). The core, its log, and the opened tables' first directives."""
    log = EventLog(store, stream)
    tournament, step = open_tournament(opened, now=now)
    log.append(step.events, ts=now)
    if snapshot_it:
        store.save_snapshot(stream, log.seq, snapshot(tournament))
    ready = opened_tables(step)
    for table in sorted(ready):
        log.append(tournament.table_ready(table, now=now).events, ts=now)
    return tournament, log, ready
