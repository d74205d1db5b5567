"""The orchestrator actor: the tournament core behind Ray, with the event log in front.

Every call runs to completion before the next (no awaits inside), so the core sees reports
one at a time in the order recorded; each step's events are written to the log before the
directive goes back to the table (write-ahead).
"""

from __future__ import annotations

import random
import time
from collections import deque
from pathlib import Path
from typing import Any

import ray

from orchestrator.config import TournamentConfig
from orchestrator.eventlog import EventLog
from orchestrator.tournament import HandReport, TableDirective, Tournament


class Orchestrator:
    def __init__(
        self,
        config: TournamentConfig,
        players: list[str],
        *,
        tournament_id: str,
        seed: int,
        out_dir: str,
    ) -> None:
        self._rng = random.Random(seed)
        self._log = EventLog(Path(out_dir) / "events.jsonl")
        now = time.time()
        self._tournament, step = Tournament.start(
            config, players, tournament_id=tournament_id, now=now, rng=self._rng
        )
        self._log.append(step.events, ts=now)
        # Wall and CPU time per report, bounded so nothing grows per hand.
        self._report_seconds: deque[tuple[float, float]] = deque(maxlen=100_000)

    async def first_hands(self) -> list[TableDirective]:
        return self._tournament.first_hands()

    async def hand_finished(self, report: HandReport) -> TableDirective:
        started, cpu_started = time.perf_counter(), time.thread_time()
        now = time.time()
        step = self._tournament.hand_finished(report, now=now, rng=self._rng)
        self._log.append(step.events, ts=now)
        self._report_seconds.append(
            (time.perf_counter() - started, time.thread_time() - cpu_started)
        )
        assert step.directive is not None
        return step.directive

    async def poll(self, table: int) -> TableDirective:
        now = time.time()
        step = self._tournament.poll(table, rng=self._rng)
        self._log.append(step.events, ts=now)
        assert step.directive is not None
        return step.directive

    async def events_since(self, seq: int) -> list[dict[str, Any]]:
        return self._log.since(seq)

    async def status(self) -> dict[str, Any]:
        t = self._tournament
        stacks = t.stacks.values()
        level = t.level
        return {
            "players_left": t.active_players,
            "entries": t.entries,
            "tables": len(t.tables),
            "level": t.clock.level,
            "blinds": (level.small_blind, level.big_blind, level.ante),
            "hands": t.hands,
            "average_stack": sum(stacks) // max(1, len(stacks)),
            "largest_stack": max(stacks, default=0),
            "finished": t.finished,
        }

    async def report_seconds(self) -> list[tuple[float, float]]:
        """(wall, CPU) seconds the core and the log took per hand report (`mtt bench`)."""
        return list(self._report_seconds)

    async def results(self, seconds: float) -> dict[str, object]:
        return self._tournament.results(seconds=seconds)

    async def close(self) -> None:
        self._log.close()


# Typed as Any: Ray's decorator hides the class behind its own proxy type.
OrchestratorActor: Any = ray.remote(num_cpus=0)(Orchestrator)
