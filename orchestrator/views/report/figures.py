"""What `mtt report` shows, computed from a run's files as plain data; pure, no charts.

`run_figures(events, hands, results)` reads the event log (DESIGN.md contracts) through the
codec and folds it once, in order, into the read model (`orchestrator.views.read_model`) and
what only the report draws; it reads the hand histories only for who posted each big blind.
Every series is what a chart or a table of the report draws, so tests check numbers, not
pictures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from orchestrator.core import codec
from orchestrator.core.codec import Recorded
from orchestrator.core.events import (
    EventRecord,
    FinalTable,
    HandFinished,
    LevelStarted,
    PlayerMoved,
    PlayerReentered,
    PlayerSeated,
    RegistrationClosed,
    TournamentStarted,
)
from orchestrator.errors import RecordError, UnreadableRun
from orchestrator.views.audit import PhhSection
from orchestrator.views.read_model import ReadModel

__all__ = [
    "FinalTableHands",
    "PlayerFairness",
    "RunFigures",
    "StackPoint",
    "run_figures",
    "short_handed_below",
]


@dataclass(frozen=True, slots=True)
class StackPoint:
    """The field after one finished hand: seconds since the start, hands played so far,
    players still in, and the average and largest stack in big blinds of the level then."""

    seconds: float
    hands: int
    players_left: int
    average_bb: float
    largest_bb: float


@dataclass(frozen=True, slots=True)
class FinalTableHands:
    """The final table's chip counts: `stacks[k][player]` after its hand `hands[k]`."""

    table: int
    players: tuple[str, ...]
    hands: tuple[int, ...]
    stacks: tuple[dict[str, int], ...]


@dataclass(slots=True)
class PlayerFairness:
    """One player's share of the tournament's burdens: moves (FO-4, FO-5, CLOSE-1, BAL-1),
    big blinds posted against orbits played (an orbit at a table of n players is n hands,
    so 1.0 is a fair share), and hands dealt short-handed while balancing could act."""

    player: str
    hands: int = 0
    moves_balance: int = 0
    moves_close: int = 0
    big_blinds: int = 0
    orbits: float = 0.0
    short_handed: int = 0

    @property
    def moves(self) -> int:
        return self.moves_balance + self.moves_close

    @property
    def big_blinds_per_orbit(self) -> float | None:
        return self.big_blinds / self.orbits if self.orbits else None


@dataclass(slots=True)
class RunFigures:
    tournament: str
    structure: str
    max_per_table: int
    entries: int
    prize_pool: int
    hands: int
    seconds: float
    places: list[dict[str, Any]]
    timeline: list[StackPoint] = field(default_factory=list)
    hands_per_table: dict[int, int] = field(default_factory=dict)
    final_table: FinalTableHands | None = None
    players: dict[str, PlayerFairness] = field(default_factory=dict)
    levels: list[tuple[int, int, int, int]] = field(default_factory=list)  # level, sb, bb, ante
    short_handed_limit: int = 0
    cancelled: str | None = None  # the reason, when an operator or CRASH-2 cancelled it
    bagged: int | None = None  # FL-1: a Day 1 flight, over with this many bags (no winner)

    @property
    def winner(self) -> str | None:
        first = [p["player"] for p in self.places if p.get("place") == 1]
        return first[0] if first and self.cancelled is None else None


def short_handed_below(max_per_table: int) -> int:
    """BAL-1's "short" table: fewer than floor(0.7 * seats) players.

    >>> short_handed_below(10), short_handed_below(9), short_handed_below(6)
    (7, 6, 4)
    """
    return 7 * max_per_table // 10


def run_figures(
    events: Sequence[EventRecord],
    hands: Iterable[PhhSection],
    results: dict[str, Any],
    *,
    max_points: int = 2000,
) -> RunFigures:
    """The report's figures; `max_points` bounds the timeline (every k-th hand is kept, and the
    last). Raises UnreadableRun naming the record and field when the log cannot be read."""
    try:
        log = [codec.decode_record(e) for e in events]
    except RecordError as exc:
        raise UnreadableRun(f"events.jsonl: a record the report cannot read: {exc}") from exc
    try:
        figures = _fold(log, max_points)
        logged = {(r.event.table, r.event.hand) for r in log if isinstance(r.event, HandFinished)}
        _big_blinds(figures, hands, logged)
        figures.places = [
            {"place": p["place"], "player": p["player"], "prize": p.get("prize", 0)}
            | ({"bounties": p["bounties"]} if "bounties" in p else {})  # KO-5: a knockout's
            | ({"ticket": p["ticket"]} if "ticket" in p else {})  # SAT-3: a satellite's seats
            for p in results.get("places", [])
        ]
        if "flight" in results:  # FL-1: a flight ends with bags, not a winner
            figures.bagged = len(results["flight"]["bagged"])
        figures.prize_pool = int(results.get("prize_pool", figures.prize_pool))
        figures.seconds = float(results.get("seconds", figures.seconds))
    except (KeyError, TypeError, ValueError) as exc:
        raise UnreadableRun(f"the run's files lack what the report reads: {exc!r}") from exc
    return figures


def _fold(log: Sequence[Recorded], max_points: int) -> RunFigures:
    started = next((r for r in log if isinstance(r.event, TournamentStarted)), None)
    if started is None or not isinstance(started.event, TournamentStarted):
        raise UnreadableRun("events.jsonl: no tournament_started event")
    start = started.event
    total_hands = sum(isinstance(r.event, HandFinished) for r in log)
    every = max(1, math.ceil(total_hands / max_points))
    figures = RunFigures(
        tournament=start.tournament,
        structure=start.structure,
        max_per_table=start.max_per_table,
        entries=0,
        prize_pool=0,
        hands=total_hands,
        seconds=0.0,
        places=[],
        short_handed_limit=short_handed_below(start.max_per_table),
    )
    model = ReadModel()  # the field, stacks, tables and level as they were
    final: FinalTableHands | None = None
    played = 0

    def player(name: str) -> PlayerFairness:
        found = figures.players.get(name)
        if found is None:
            found = figures.players[name] = PlayerFairness(name)
        return found

    # The field after a hand is known once what the hand caused (eliminations, a new level)
    # is logged too: just before the next hand_finished, or at the end.
    pending: tuple[float, int] | None = None

    def sample(ts: float, hands: int) -> None:
        if hands % every == 0 or hands == total_hands:  # at most `max_points` points
            left, big_blind = model.players_left, max(1, model.big_blind)
            figures.timeline.append(
                StackPoint(
                    seconds=ts - started.ts,
                    hands=hands,
                    players_left=left,
                    average_bb=model.chips / max(1, left) / big_blind,
                    largest_bb=max(model.stacks.values(), default=0) / big_blind,
                )
            )

    # STEP 1: one pass over the log, in order, beside the read model: entries, moves, levels,
    # the final table's hands and the hands each player played
    for record in log:
        match event := record.event:
            case PlayerSeated() | PlayerReentered():
                if isinstance(event, PlayerReentered) or event.player not in figures.players:
                    figures.entries += 1  # a shoot-out seats its players again in every phase
                player(event.player)
            case PlayerMoved():
                mover = player(event.player)
                if event.reason == "close":
                    mover.moves_close += 1
                else:
                    mover.moves_balance += 1
            case LevelStarted():
                figures.levels.append((event.level, event.small_blind, event.big_blind, event.ante))
            case FinalTable():
                final = FinalTableHands(event.table, event.players, (), ())
            case RegistrationClosed():
                figures.prize_pool = event.prize_pool
            case HandFinished():
                if pending is not None:
                    sample(*pending)
                played += 1
                # STEP 2: hands short-handed (BAL-1) while another table could send players
                short = len(event.players) < figures.short_handed_limit and len(model.tables) >= 2
                for p in event.players:
                    fairness = player(p.player)
                    fairness.hands += 1
                    fairness.short_handed += short
                if final is not None and event.table == final.table:
                    ends = {p.player: p.end for p in event.players}
                    final = FinalTableHands(
                        final.table,
                        final.players,
                        (*final.hands, event.hand),
                        (*final.stacks, ends),
                    )
                pending = (record.ts, played)
        model.apply(record.event, ts=record.ts)
    if pending is not None:
        sample(*pending)
    figures.final_table = final
    figures.hands_per_table = dict(model.hands_per_table)
    figures.cancelled = model.cancelled
    if log:
        figures.seconds = log[-1].ts - started.ts
    return figures


def _big_blinds(
    figures: RunFigures, hands: Iterable[PhhSection], logged: set[tuple[int, int]]
) -> None:
    """Who posted each hand's big blind (the largest forced bet in `blinds_or_straddles`, which
    holds for a dead small blind too, HE-9), and the orbits each player sat through. Only
    hands the log has a hand_finished for count, each once."""
    counted: set[tuple[int, int]] = set()
    for section in hands:
        f = section.fields
        names: list[str] = list(f["players"])
        blinds: list[int] = list(f["blinds_or_straddles"])
        if len(blinds) == 2:  # heads-up PHH lists the blinds reversed (phh.blinds_by_position)
            blinds.reverse()
        key = (f["table"], f["hand"])
        if key in counted or key not in logged or not names:
            continue
        counted.add(key)
        for name in names:
            figures.players.setdefault(name, PlayerFairness(name)).orbits += 1 / len(names)
        if blinds and max(blinds) > 0:
            poster = names[blinds.index(max(blinds))]
            figures.players[poster].big_blinds += 1
