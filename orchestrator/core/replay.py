"""Rebuilding the tournament core from its event log (DESIGN.md "Failure model"). Pure.

The orchestrator takes a decision in steps: the start, a finished hand, a poll that changed
something, a table's actor ready (START-1), a table's loss and its restart, and the commands
(pause, resume, cancel, a late registration, a sanction, a rebuy asked for). Each step's events
are logged as one batch, led by an event that names the step's input (`hand_finished` carries
the whole report, `table_polled` and `table_ready` the table, `hand_voided` or `table_lost` and
`table_restarted` theirs, `player_registered` the late registrant, `warning_issued`, `penalty`
and `player_disqualified` the sanction, `rebuy_requested` the player). Each step draws from its
own RNG, seeded by the run's seed and the log position it starts at (`step_rng`), and reads the
time that is logged with it (`ts`), so replaying the steps in log order takes the same decisions
again: `rebuild` does that, and checks every replayed step's events against the logged ones,
field by field, before going on.

Snapshots are the core pickled at a step boundary (`snapshot` / `rebuild(snapshot=...)`); the
store holding them is as trusted as the log itself.
"""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import Event, HandVoided
from orchestrator.core.sanctions import SanctionKind
from orchestrator.core.tournament import Tournament
from orchestrator.core.typed_json import from_json
from orchestrator.errors import RecoveryError
from table_worker.protocol import HandPlayer, HandPot, HandReport, HandTiming

__all__ = ["SHELL_EVENTS", "STEP_EVENTS", "load_snapshot", "rebuild", "snapshot", "step_rng"]

# Logged by the orchestrator's shell, not decided by the core: skipped by a replay.
SHELL_EVENTS = frozenset({"node_lost"})

_ENVELOPE = ("seq", "ts", "cause", "v")  # the record's, not the event's (`core.codec`)


def step_rng(seed: int, seq: int) -> random.Random:
    """The RNG of the step that starts after log position `seq` (0 for the start). A step
    that logs nothing may draw from it freely: the next step starts from the same seed."""
    return random.Random(f"{seed}:{seq}")


def snapshot(tournament: Tournament) -> bytes:
    return pickle.dumps(tournament, protocol=pickle.HIGHEST_PROTOCOL)


def load_snapshot(state: bytes) -> Tournament:
    try:
        tournament = pickle.loads(state)  # our own store: as trusted as the log
    except Exception as exc:  # any unpickling failure means the snapshot is unusable
        raise RecoveryError(f"the snapshot cannot be loaded: {exc!r}") from exc
    if not isinstance(tournament, Tournament):
        raise RecoveryError(f"the snapshot holds a {type(tournament).__name__}, not a tournament")
    return tournament


def rebuild(
    config: TournamentConfig,
    players: Sequence[str],
    *,
    deposits: Mapping[str, int],
    tournament_id: str,
    seed: int,
    records: Sequence[dict[str, Any]],
    base: tuple[int, Tournament] | None = None,
) -> Tournament:
    """The core as it was after the last of `records`: from `base` (a snapshot taken after
    seq `base[0]`, with `records` its tail) or from the start (`records` the whole log;
    `players` and `deposits` as the start was given them).
    `RecoveryError` naming the seq where a replayed step differs from the log."""
    at = 0
    if base is None:
        if not records or records[0].get("seq") != 1:
            raise RecoveryError("the log does not begin at seq 1: nothing to rebuild from")
        tournament, step = Tournament.start(
            config,
            players,
            deposits=deposits,
            tournament_id=tournament_id,
            now=records[0]["ts"],
            rng=step_rng(seed, 0),
        )
        at = _check(step.events, records, 0)
    else:
        after, tournament = base
        if records and records[0].get("seq") != after + 1:
            raise RecoveryError(f"the log's tail does not follow the snapshot at seq {after}")
    while at < len(records):
        record = records[at]
        if record["type"] in SHELL_EVENTS:
            at += 1
            continue
        replay = _STEPS.get(record["type"])
        if replay is None:
            raise RecoveryError(
                f"seq {record['seq']}: a {record['type']!r} event does not begin a step"
            )
        try:
            events = replay(tournament, record, step_rng(seed, record["seq"] - 1))
        except RecoveryError:
            raise
        except Exception as exc:  # the core refused its own logged input: say where
            raise RecoveryError(f"seq {record['seq']}: replaying the step failed: {exc}") from exc
        at = _check(events, records, at)
    return tournament


def _hand_finished(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    report = HandReport(
        table=record["table"],
        hand=record["hand"],
        button=record["button"],
        players=tuple(
            HandPlayer(p["player"], p["seat"], p["start"], p["end"]) for p in record["players"]
        ),
        timing=HandTiming(
            seconds=record.get("seconds", 0.0),
            deck_wait_seconds=record.get("deck_wait_seconds", 0.0),
            fouled_decks=record.get("fouled_decks", 0),
        ),
        pots=from_json(record.get("pots", []), tuple[HandPot, ...], "hand_finished.pots"),
    )
    return t.apply_hand(report, now=record["ts"], rng=rng).events


def _polled(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.poll(record["table"], now=record["ts"], rng=rng).events


def _ready(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.table_ready(record["table"], now=record["ts"]).events


def _lost(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.table_lost(record["table"])


def _restarted(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    # The loss is logged before (`hand_voided` or `table_lost`); a log written before losses
    # between hands were logged holds none: take it again (it is idempotent).
    lost = t.table_lost(record["table"])
    if any(isinstance(event, HandVoided) for event in lost):
        raise RecoveryError(f"seq {record['seq']}: table {record['table']} had a hand to void")
    return t.table_restarted(record["table"], node=record["node"]).events


def _paused(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.pause(now=record["ts"]).events


def _resumed(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.resume(now=record["ts"]).events


def _cancelled(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.cancel(record["reason"], now=record["ts"]).events


def _registered(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.register_late(record["player"], now=record["ts"], rng=rng).events


def _sanction(
    kind: SanctionKind,
) -> Callable[[Tournament, dict[str, Any], random.Random], list[Event]]:
    def replay(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
        return t.sanction(
            kind,
            record["player"],
            judge=record["judge"],
            reason=record["reason"],
            now=record["ts"],
            hands=record.get("hands", 0),
        ).events

    return replay


def _rebuy_requested(t: Tournament, record: dict[str, Any], rng: random.Random) -> list[Event]:
    return t.request_rebuy(record["player"], now=record["ts"]).events


# The event that leads each kind of step -> the core call that takes the step again. A new
# kind of step (an operator's command) needs its line here, or a restart refuses its log.
_STEPS: dict[str, Callable[[Tournament, dict[str, Any], random.Random], list[Event]]] = {
    "hand_finished": _hand_finished,
    "table_polled": _polled,
    "table_ready": _ready,  # START-1: a table's actor answered
    "hand_voided": _lost,  # a table lost in a hand
    "table_lost": _lost,  # a table lost between hands
    "table_restarted": _restarted,
    "tournament_paused": _paused,
    "tournament_resumed": _resumed,
    "tournament_cancelled": _cancelled,
    "player_registered": _registered,  # a late registration (the start's are in its step)
    "warning_issued": _sanction(SanctionKind.WARNING),
    "penalty": _sanction(SanctionKind.PENALTY),
    "player_disqualified": _sanction(SanctionKind.DISQUALIFICATION),
    "rebuy_requested": _rebuy_requested,
}


# The types of event that lead a step when they carry no `cause` (the audit reads steps so).
STEP_EVENTS = frozenset(_STEPS)


def _check(events: list[Event], records: Sequence[dict[str, Any]], at: int) -> int:
    """The replayed step's events must be the logged ones from `at` on; where they end."""
    logged = [r for r in records[at : at + len(events)]]
    for k, event in enumerate(events):
        decided = json.loads(json.dumps({"type": event.EVENT_TYPE, **event.fields()}))
        if k >= len(logged):
            raise RecoveryError(f"replaying the log decided more than it holds: {decided}")
        kept = {key: value for key, value in logged[k].items() if key not in _ENVELOPE}
        if decided != kept:
            raise RecoveryError(
                f"seq {logged[k]['seq']}: the log holds {kept} but replaying decided {decided}"
            )
    if not events and at < len(records):
        raise RecoveryError(f"seq {records[at]['seq']}: replaying the step decided nothing")
    return at + len(events)
