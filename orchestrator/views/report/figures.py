"""What `mtt report` shows, computed from a run's files as plain data; pure, no charts.

`run_figures(events, hands, results)` folds the event log (DESIGN.md contracts) once, in
order, and reads the hand histories only for who posted each big blind. Every series is
what a chart or a table of the report draws, so tests check numbers, not pictures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from orchestrator.core.events import EventRecord
from orchestrator.errors import UnreadableRun
from orchestrator.views.audit import PhhSection

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
    last). Raises UnreadableRun naming the event when a field the report reads is missing."""
    try:
        figures = _fold(events, max_points)
        logged = {(e["table"], e["hand"]) for e in events if e["type"] == "hand_finished"}
        _big_blinds(figures, hands, logged)
        figures.places = [
            {"place": p["place"], "player": p["player"], "prize": p.get("prize", 0)}
            | ({"bounties": p["bounties"]} if "bounties" in p else {})  # KO-5: a knockout's
            for p in results.get("places", [])
        ]
        figures.prize_pool = int(results.get("prize_pool", figures.prize_pool))
        figures.seconds = float(results.get("seconds", figures.seconds))
    except (KeyError, TypeError, ValueError) as exc:
        raise UnreadableRun(f"the run's files lack what the report reads: {exc!r}") from exc
    return figures


def _fold(events: Sequence[EventRecord], max_points: int) -> RunFigures:
    started = next((e for e in events if e["type"] == "tournament_started"), None)
    if started is None:
        raise UnreadableRun("events.jsonl: no tournament_started event")
    total_hands = sum(e["type"] == "hand_finished" for e in events)
    every = max(1, math.ceil(total_hands / max_points))
    figures = RunFigures(
        tournament=started["tournament"],
        structure=started.get("structure", "freezeout"),
        max_per_table=started["max_per_table"],
        entries=0,
        prize_pool=0,
        hands=total_hands,
        seconds=0.0,
        places=[],
        short_handed_limit=short_handed_below(started["max_per_table"]),
    )
    start_ts = float(started["ts"])
    stacks: dict[str, int] = {}  # players still in
    chips = 0  # the sum of `stacks`
    big_blind = 1
    open_tables: set[int] = set()
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
            left = len(stacks)
            figures.timeline.append(
                StackPoint(
                    seconds=ts - start_ts,
                    hands=hands,
                    players_left=left,
                    average_bb=chips / max(1, left) / big_blind,
                    largest_bb=max(stacks.values(), default=0) / big_blind,
                )
            )

    # STEP 1: one pass over the log, in order: the field, stacks, tables and levels as they were
    for e in events:
        kind = e["type"]
        if kind in ("player_seated", "player_reentered"):
            if kind == "player_reentered" or e["player"] not in figures.players:
                figures.entries += 1  # a shoot-out seats its players again in every phase
            chips += e["stack"] - stacks.get(e["player"], 0)
            stacks[e["player"]] = e["stack"]
            player(e["player"])
        elif kind in ("rebuy", "addon", "chips_removed"):
            sign = -1 if kind == "chips_removed" else 1
            stacks[e["player"]] = stacks.get(e["player"], 0) + sign * e["chips"]
            chips += sign * e["chips"]
        elif kind == "player_eliminated":
            chips -= stacks.pop(e["player"], 0)
        elif kind == "player_moved":
            mover = player(e["player"])
            if e["reason"] == "close":
                mover.moves_close += 1
            else:
                mover.moves_balance += 1
        elif kind == "table_opened":
            open_tables.add(e["table"])
        elif kind == "table_closed":
            open_tables.discard(e["table"])
        elif kind == "level_started":
            big_blind = max(1, e["big_blind"])
            figures.levels.append((e["level"], e["small_blind"], e["big_blind"], e["ante"]))
        elif kind == "final_table":
            final = FinalTableHands(e["table"], tuple(e["players"]), (), ())
        elif kind == "tournament_cancelled":
            figures.cancelled = str(e.get("reason", ""))
        elif kind == "hand_finished":
            if pending is not None:
                sample(*pending)
            played += 1
            table = e["table"]
            figures.hands_per_table[table] = figures.hands_per_table.get(table, 0) + 1
            seated = e["players"]
            # STEP 2: hands short-handed (BAL-1) while another table could send players
            short = len(seated) < figures.short_handed_limit and len(open_tables) >= 2
            for p in seated:
                record = player(p["player"])
                record.hands += 1
                record.short_handed += short
                if p["player"] in stacks:
                    chips += p["end"] - stacks[p["player"]]
                    stacks[p["player"]] = p["end"]
            if final is not None and table == final.table:
                ends = {p["player"]: p["end"] for p in seated}
                final = FinalTableHands(
                    final.table, final.players, (*final.hands, e["hand"]), (*final.stacks, ends)
                )
            pending = (float(e["ts"]), played)
        elif kind == "registration_closed":
            figures.prize_pool = e["prize_pool"]
    if pending is not None:
        sample(*pending)
    figures.final_table = final
    if events:
        figures.seconds = float(events[-1]["ts"]) - start_ts
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
