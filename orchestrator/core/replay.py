"""Rebuilding the tournament core from its event log (DESIGN.md "Failure model"). Pure.

The log begins with the opening record (`tournament_opened`: the config, the players, the
deposits and the seed the start was given; `open_tournament` takes the start that way), so
the log alone rebuilds the tournament (`rebuild_from_log`). Logs of release 1 begin with the
start's own events: `rebuild` takes what the start was given from its caller instead.

The orchestrator takes a decision in steps: the start, a finished hand, a poll that changed
something, a table's actor ready (START-1), a table's loss and its restart, and the commands
(pause, resume, cancel, a late registration, a sanction, a rebuy asked for, a payment given
back). Each step's events are logged as one batch, led by an event that names the step's input
(`hand_finished` carries the whole report, `table_polled` and `table_ready` the table,
`hand_voided` or `table_lost` and `table_restarted` theirs, `player_registered` the late
registrant (`player_funded` one the start did not fund), `warning_issued`, `penalty` and
`player_disqualified` the sanction, `rebuy_requested` the player, `funding_withdrawn` the
payment). Each step draws from its own RNG, seeded by the run's seed and the log position it
starts at (`step_rng`), and reads the time that is logged with it
(`ts`), so replaying the steps in log order takes the same decisions again: `rebuild` does
that, reading every record through the codec (`core.codec`), and checks every replayed step's
events against the logged ones before going on.

Snapshots are the core's state at a step boundary as versioned JSON (`snapshot` /
`load_snapshot`, through `core.state_codec`), never a pickle: a snapshot an older release
wrote is upcast, and one that cannot be read is no loss, since the log alone rebuilds all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from orchestrator.core import codec
from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import (
    DealAnswered,
    DealProposed,
    Event,
    EventRecord,
    FundingWithdrawn,
    HandFinished,
    HandVoided,
    PenaltyGiven,
    PlayerDisqualified,
    PlayerFunded,
    PlayerRegistered,
    RebuyRequested,
    TableRestarted,
    TournamentCancelled,
    TournamentOpened,
    WarningIssued,
)
from orchestrator.core.sanctions import SanctionKind
from orchestrator.core.state_codec import decode_snapshot, encode_snapshot
from orchestrator.core.tournament import Step, Tournament
from orchestrator.errors import RecordError, RecoveryError
from table_worker.protocol import HandReport, HandTiming

__all__ = [
    "SHELL_EVENTS",
    "STEP_EVENTS",
    "load_snapshot",
    "open_tournament",
    "opening",
    "rebuild",
    "rebuild_from_log",
    "snapshot",
    "step_rng",
]

# Logged by the orchestrator's shell, not decided by the core: skipped by a replay.
SHELL_EVENTS = frozenset({"node_lost"})


def step_rng(seed: int, seq: int) -> random.Random:
    """The RNG of the step that starts after log position `seq` (0 for the start). A step
    that logs nothing may draw from it freely: the next step starts from the same seed."""
    return random.Random(f"{seed}:{seq}")


def open_tournament(opened: TournamentOpened, *, now: float) -> tuple[Tournament, Step]:
    """The start as the log keeps it: the opening record first, then the start's events (the
    start draws from `step_rng(seed, 0)`)."""
    tournament, step = Tournament.start(
        opened.config,
        opened.players,
        deposits=opened.deposits,
        tournament_id=opened.tournament,
        now=now,
        rng=step_rng(opened.seed, 0),
        tickets=opened.tickets,
    )
    return tournament, Step([opened, *step.events], step.reply, step.directives)


def opening(records: Sequence[EventRecord]) -> TournamentOpened | None:
    """The opening record of a log that begins with one (release 1 wrote none)."""
    if not records or records[0].get("type") != TournamentOpened.EVENT_TYPE:
        return None
    try:
        opened = codec.decode(records[0])
    except RecordError as exc:
        raise RecoveryError(f"seq 1: the opening record cannot be read: {exc}") from exc
    assert isinstance(opened, TournamentOpened)
    return opened


def snapshot(tournament: Tournament) -> bytes:
    """The core's state as versioned JSON (`core.state_codec`)."""
    document = encode_snapshot(tournament)
    return json.dumps(document, separators=(",", ":"), allow_nan=False).encode()


def load_snapshot(state: bytes) -> Tournament:
    try:
        tournament = decode_snapshot(json.loads(state))
    except Exception as exc:  # any failure to read it means the snapshot is unusable
        raise RecoveryError(f"the snapshot cannot be loaded: {exc!r}") from exc
    if not isinstance(tournament, Tournament):
        raise RecoveryError(f"the snapshot holds a {type(tournament).__name__}, not a tournament")
    return tournament


def rebuild_from_log(
    records: Sequence[EventRecord],
    *,
    base: tuple[int, Tournament] | None = None,
    opened: TournamentOpened | None = None,
) -> Tournament:
    """The core from its log alone: `records` the whole log, whose first record is the opening
    one; or with `base` (a snapshot taken after seq `base[0]`) its tail, and `opened` the log's
    opening record (it holds the seed)."""
    opened = opened or opening(records)
    if opened is None:
        raise RecoveryError(
            "the log does not begin with its opening record (a log of release 1): the "
            "config, players and deposits of its start are needed to rebuild it"
        )
    return rebuild(
        opened.config,
        opened.players,
        deposits=opened.deposits,
        tournament_id=opened.tournament,
        seed=opened.seed,
        records=records,
        base=base,
    )


def rebuild(
    config: TournamentConfig,
    players: Sequence[str],
    *,
    deposits: Mapping[str, int],
    tournament_id: str,
    seed: int,
    records: Sequence[EventRecord],
    base: tuple[int, Tournament] | None = None,
) -> Tournament:
    """The core as it was after the last of `records`: from `base` (a snapshot taken after
    seq `base[0]`, with `records` its tail) or from the start (`records` the whole log;
    `players` and `deposits` as the start was given them, which its opening record, when the
    log has one, must hold too).
    `RecoveryError` naming the seq where a replayed step differs from the log."""
    at = 0
    if base is None:
        if not records or records[0].get("seq") != 1:
            raise RecoveryError("the log does not begin at seq 1: nothing to rebuild from")
        first = _read(records[0])
        if isinstance(first.event, TournamentOpened):
            given = TournamentOpened(
                tournament=tournament_id,
                config=config,
                players=tuple(players),
                deposits=dict(deposits),
                seed=seed,
                tickets=dict(first.event.tickets),  # SAT-3: as the start was given them
            )
            tournament, step = open_tournament(given, now=first.ts)
        else:  # release 1: the log begins with the start's own events
            tournament, step = Tournament.start(
                config,
                players,
                deposits=deposits,
                tournament_id=tournament_id,
                now=first.ts,
                rng=step_rng(seed, 0),
            )
        at = _check(step.events, records, 0)
    else:
        after, tournament = base
        if records and records[0].get("seq") != after + 1:
            raise RecoveryError(f"the log's tail does not follow the snapshot at seq {after}")
    while at < len(records):
        kind = records[at].get("type")
        if kind in SHELL_EVENTS:
            at += 1
            continue
        replay = _STEPS.get(str(kind))
        if replay is None:
            raise RecoveryError(
                f"seq {records[at].get('seq')}: a {kind!r} event does not begin a step"
            )
        read = _read(records[at])
        try:
            events = replay(tournament, read.event, read.ts, step_rng(seed, read.seq - 1))
        except RecoveryError:
            raise
        except Exception as exc:  # the core refused its own logged input: say where
            raise RecoveryError(f"seq {read.seq}: replaying the step failed: {exc}") from exc
        at = _check(events, records, at)
    return tournament


def _read(stored: EventRecord) -> codec.Recorded:
    try:
        return codec.decode_record(stored)
    except RecordError as exc:
        raise RecoveryError(f"seq {stored.get('seq')}: the record cannot be read: {exc}") from exc


# The core call that takes a step again, from the event that leads the step and its time.
_Replay = Callable[[Tournament, Any, float, random.Random], list[Event]]


def _hand_finished(t: Tournament, e: HandFinished, ts: float, rng: random.Random) -> list[Event]:
    timing = HandTiming(
        seconds=e.seconds, deck_wait_seconds=e.deck_wait_seconds, fouled_decks=e.fouled_decks
    )
    report = HandReport(
        table=e.table, hand=e.hand, button=e.button, players=e.players, timing=timing, pots=e.pots
    )
    return t.apply_hand(report, now=ts, rng=rng).events


def _polled(t: Tournament, e: Any, ts: float, rng: random.Random) -> list[Event]:
    return t.poll(e.table, now=ts, rng=rng).events


def _ready(t: Tournament, e: Any, ts: float, rng: random.Random) -> list[Event]:
    return t.table_ready(e.table, now=ts).events


def _lost(t: Tournament, e: Any, ts: float, rng: random.Random) -> list[Event]:
    return t.table_lost(e.table)


def _restarted(t: Tournament, e: TableRestarted, ts: float, rng: random.Random) -> list[Event]:
    # The loss is logged before (`hand_voided` or `table_lost`); a log written before losses
    # between hands were logged holds none: take it again (it is idempotent).
    if any(isinstance(event, HandVoided) for event in t.table_lost(e.table)):
        raise RecoveryError(f"table {e.table} had a hand to void before its restart")
    return t.table_restarted(e.table, node=e.node).events


def _paused(t: Tournament, e: Any, ts: float, rng: random.Random) -> list[Event]:
    return t.pause(now=ts).events


def _resumed(t: Tournament, e: Any, ts: float, rng: random.Random) -> list[Event]:
    return t.resume(now=ts).events


def _cancelled(t: Tournament, e: TournamentCancelled, ts: float, rng: random.Random) -> list[Event]:
    return t.cancel(e.reason, now=ts).events


def _registered(t: Tournament, e: PlayerRegistered, ts: float, rng: random.Random) -> list[Event]:
    return t.register_late(e.player, now=ts, rng=rng).events


def _funded(t: Tournament, e: PlayerFunded, ts: float, rng: random.Random) -> list[Event]:
    return t.register_late(e.player, now=ts, rng=rng, deposit=e.amount, key=e.key).events


def _withdrawn(t: Tournament, e: FundingWithdrawn, ts: float, rng: random.Random) -> list[Event]:
    return t.withdraw_funding(e.key, now=ts).events


def _sanction(kind: SanctionKind) -> _Replay:
    def replay(
        t: Tournament,
        e: WarningIssued | PenaltyGiven | PlayerDisqualified,
        ts: float,
        rng: random.Random,
    ) -> list[Event]:
        hands = e.hands if isinstance(e, PenaltyGiven) else 0
        return t.sanction(
            kind, e.player, judge=e.judge, reason=e.reason, now=ts, hands=hands
        ).events

    return replay


def _rebuy_requested(
    t: Tournament, e: RebuyRequested, ts: float, rng: random.Random
) -> list[Event]:
    return t.request_rebuy(e.player, now=ts).events


def _deal_proposed(t: Tournament, e: DealProposed, ts: float, rng: random.Random) -> list[Event]:
    return t.propose_deal(e.kind, left=e.left, now=ts).events


def _deal_answered(t: Tournament, e: DealAnswered, ts: float, rng: random.Random) -> list[Event]:
    return t.answer_deal(e.player, e.accepted, now=ts).events


# The event that leads each kind of step -> the core call that takes the step again, given
# that event as the codec reads it. A new kind of step (an operator's command) needs its line
# here, or a restart refuses its log.
_STEPS: dict[str, _Replay] = {
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
    "player_funded": _funded,  # a late registration the start did not fund (REG-1)
    "funding_withdrawn": _withdrawn,  # LATE: a payment the front door gave back
    "warning_issued": _sanction(SanctionKind.WARNING),
    "penalty": _sanction(SanctionKind.PENALTY),
    "player_disqualified": _sanction(SanctionKind.DISQUALIFICATION),
    "rebuy_requested": _rebuy_requested,
    "deal_proposed": _deal_proposed,  # DEAL-1
    "deal_answered": _deal_answered,
}

_NOT_SHOWN = ("seq", "ts", "v", "cause")

# The types of event that lead a step when they carry no `cause` (the audit reads steps so).
STEP_EVENTS = frozenset(_STEPS)


def _check(events: list[Event], records: Sequence[EventRecord], at: int) -> int:
    """The replayed step's events must be the logged ones from `at` on, as the codec reads
    them; where they end."""
    logged = records[at : at + len(events)]
    for k, event in enumerate(events):
        decided = {key: v for key, v in codec.encode(event).items() if key not in _NOT_SHOWN}
        if k >= len(logged):
            raise RecoveryError(f"replaying the log decided more than it holds: {decided}")
        if _read(logged[k]).event != event:
            kept = {key: v for key, v in logged[k].items() if key not in _NOT_SHOWN}
            raise RecoveryError(
                f"seq {logged[k]['seq']}: the log holds {kept} but replaying decided {decided}"
            )
    if not events and at < len(records):
        raise RecoveryError(f"seq {records[at]['seq']}: replaying the step decided nothing")
    return at + len(events)
