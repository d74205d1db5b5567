"""Tournament metrics for Prometheus, fed by the event stream (DESIGN.md "Metrics").

`TournamentMetrics` follows the log's records as `Orchestrator.events_since(seq)` returns them
(and as events.jsonl holds them), each tournament's in its read model
(`orchestrator.views.read_model`), and keeps prometheus-client metrics on the registry it is
given, one `tournament` label per tournament, so one process can follow several. Nothing here reads
Ray or a clock: the process that follows the stream (`mtt run --metrics-port`, `mtt serve`)
feeds it events and the orchestrator's own timings (`Orchestrator.timings_since_last_call`).

    registry = CollectorRegistry()
    metrics = TournamentMetrics(registry)
    metrics.follow("t1", events)            # any number of times, in seq order
    metrics.observe_timings("t1", timings)  # report handling and decision seconds

Every histogram of a latency has a bucket at its objective (DESIGN.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from orchestrator.core.events import (
    Event,
    HandFinished,
    HandVoided,
    LevelStarted,
    NodeLost,
    PlayerEliminated,
    PlayerMoved,
    TableRestarted,
    TournamentCancelled,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
)
from orchestrator.views.read_model import ReadModel

__all__ = [
    "HAND_REPORT_OBJECTIVE_SECONDS",
    "MOVE_REASONS",
    "OrchestratorTimings",
    "TournamentMetrics",
]

# docs/BENCHMARKS.md: "p99 report handling under 2 ms" (the orchestrator's work per report).
HAND_REPORT_OBJECTIVE_SECONDS = 0.002
_FAST_BUCKETS = (0.0002, 0.0005, 0.001, HAND_REPORT_OBJECTIVE_SECONDS, 0.005, 0.01, 0.05, 0.25, 1.0)
MOVE_REASONS = ("balance", "close")  # player_moved.reason (DESIGN.md)
# A bot hand takes milliseconds, a human hand a minute or two.
_HAND_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0)
# A table takes its deck from a prefetched buffer: waiting over 10 ms means the buffer ran dry.
DECK_WAIT_OBJECTIVE_SECONDS = 0.010
_DECK_WAIT_BUCKETS = (0.0001, 0.001, DECK_WAIT_OBJECTIVE_SECONDS, 0.05, 0.25, 1.0, 5.0, 30.0)


@dataclass(frozen=True, slots=True)
class OrchestratorTimings:
    """What only the orchestrator actor sees, per hand report since the last call: the
    whole handling (core decision plus the write-ahead log append) and the core's decision
    alone (places, balancing, table closing: `Tournament.apply_hand`)."""

    report_seconds: tuple[float, ...] = ()
    decision_seconds: tuple[float, ...] = ()


class TournamentMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        t = ("tournament",)
        self.hands = Counter("mtt_hands_total", "Hands dealt and reported", t, registry=registry)
        self.hand_seconds = Histogram(
            "mtt_hand_duration_seconds",
            "Time a table took to play a hand (deck taken to report sent)",
            t,
            buckets=_HAND_BUCKETS,
            registry=registry,
        )
        self.deck_wait = Histogram(
            "mtt_table_deck_wait_seconds",
            "Time a table waited for its next deck from its prefetch buffer",
            t,
            buckets=_DECK_WAIT_BUCKETS,
            registry=registry,
        )
        self.fouled = Counter(
            "mtt_fouled_decks_total",
            "Decks the tables refused as fouled (not 52 distinct cards, or commitment mismatch)",
            t,
            registry=registry,
        )
        self.players = Gauge("mtt_players_remaining", "Players still in", t, registry=registry)
        self.tables = Gauge("mtt_tables_open", "Tables open", t, registry=registry)
        self.level = Gauge("mtt_level", "Current blind level", t, registry=registry)
        self.big_blind = Gauge("mtt_big_blind", "Current big blind (chips)", t, registry=registry)
        self.levels = Counter("mtt_levels_total", "Blind levels started", t, registry=registry)
        self.moves = Counter(
            "mtt_player_moves_total",
            "Players moved between tables, by reason (balance, close)",
            ("tournament", "reason"),
            registry=registry,
        )
        self.pending = Gauge(
            "mtt_player_moves_pending",
            "Players moved but not yet seen playing at their new table",
            t,
            registry=registry,
        )
        self.eliminations = Counter(
            "mtt_eliminations_total", "Players eliminated", t, registry=registry
        )
        self.voided = Counter("mtt_hands_voided_total", "Hands voided", t, registry=registry)
        self.restarts = Counter(
            "mtt_table_restarts_total", "Table actors restarted", t, registry=registry
        )
        self.node_losses = Counter(
            "mtt_node_losses_total", "Ray nodes lost while hosting tables", t, registry=registry
        )
        self.finished = Gauge(
            "mtt_tournament_finished", "1 once the tournament has a winner", t, registry=registry
        )
        self.paused = Gauge(
            "mtt_tournament_paused", "1 while an operator has paused it", t, registry=registry
        )
        self.cancelled = Gauge(
            "mtt_tournament_cancelled", "1 once it is cancelled (CRASH-2)", t, registry=registry
        )
        self.events = Counter(
            "mtt_events_total", "Events logged, by type", ("tournament", "type"), registry=registry
        )
        self.report_seconds = Histogram(
            "mtt_hand_report_seconds",
            "Orchestrator time to handle one hand report (decision and write-ahead log)",
            t,
            buckets=_FAST_BUCKETS,
            registry=registry,
        )
        self.decision_seconds = Histogram(
            "mtt_balancing_decision_seconds",
            "Core decision time per hand report: places, balancing, table closing",
            t,
            buckets=_FAST_BUCKETS,
            registry=registry,
        )
        self._followed: dict[str, ReadModel] = {}

    def follow(self, tournament: str, events: Iterable[Mapping[str, Any]]) -> None:
        """Update the metrics with the tournament's next records; one already seen (seq at or
        below the last one followed) is skipped, so overlapping polls count once. The gauges
        are the tournament's read model (`views.read_model`)."""
        model = self._followed.get(tournament)
        if model is None:
            model = self._followed[tournament] = ReadModel()
            self._start_at_zero(tournament)
        for record in events:
            if int(record["seq"]) <= model.seq:
                continue
            self.events.labels(tournament, str(record.get("type"))).inc()
            read = model.apply_record(record)
            if read is not None:
                self._count(tournament, read.event)
        self.players.labels(tournament).set(model.players_left - len(model.leaving))
        self.tables.labels(tournament).set(0 if model.winner is not None else len(model.tables))
        self.pending.labels(tournament).set(len(model.pending_moves))

    def _start_at_zero(self, tournament: str) -> None:
        """Export every counter and histogram of a new tournament at zero, so rates, sums and
        alerts see 0 rather than no series until the first failure."""
        for metric in (
            self.hands, self.hand_seconds, self.deck_wait, self.fouled, self.levels,
            self.eliminations, self.voided, self.restarts, self.node_losses,
            self.report_seconds, self.decision_seconds,
        ):  # fmt: skip
            metric.labels(tournament)
        for reason in MOVE_REASONS:
            self.moves.labels(tournament, reason)
        for gauge in (self.finished, self.paused, self.cancelled):
            gauge.labels(tournament).set(0)

    def _count(self, tournament: str, event: Event) -> None:
        """The counters an event moves."""
        match event:
            case HandFinished():
                self.hands.labels(tournament).inc()
                self.hand_seconds.labels(tournament).observe(event.seconds)
                self.deck_wait.labels(tournament).observe(event.deck_wait_seconds)
                self.fouled.labels(tournament).inc(event.fouled_decks)
            case PlayerEliminated():
                self.eliminations.labels(tournament).inc()
            case PlayerMoved():
                self.moves.labels(tournament, event.reason).inc()
            case LevelStarted():
                self.levels.labels(tournament).inc()
                self.level.labels(tournament).set(event.level)
                self.big_blind.labels(tournament).set(event.big_blind)
            case HandVoided():
                self.voided.labels(tournament).inc()
            case TableRestarted():
                self.restarts.labels(tournament).inc()
            case NodeLost():
                self.node_losses.labels(tournament).inc()
            case TournamentPaused() | TournamentResumed():
                self.paused.labels(tournament).set(isinstance(event, TournamentPaused))
            case TournamentCancelled():
                self.cancelled.labels(tournament).set(1)
                self.paused.labels(tournament).set(0)
            case TournamentFinished():
                self.finished.labels(tournament).set(1)

    def observe_timings(self, tournament: str, timings: OrchestratorTimings) -> None:
        for seconds in timings.report_seconds:
            self.report_seconds.labels(tournament).observe(seconds)
        for seconds in timings.decision_seconds:
            self.decision_seconds.labels(tournament).observe(seconds)
