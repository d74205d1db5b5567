"""The live lobby and clock over the event log's read model (DESIGN.md contracts); pure.

`Lobby.apply(record)` takes the log's records in seq order into its read model
(`orchestrator.views.read_model`: tables with their seats, stacks and button, the field,
places, the level and its clock, pauses and breaks, the prize pool) and keeps what only the
lobby shows: a feed of what happened, the clock screen by the tournament's config, and the
balancing procedure (TDA-2: under the ``tda`` policy, the order tables break in, shown from
before the start). It
reads no clock: `clock()` is told `now`. It remembers which tables changed and what is new
since `take_changes()` was last called, so a server can push only that.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import (
    Addon,
    BountyWon,
    BreakStarted,
    Day2Started,
    DealAnswered,
    DealPaid,
    DealProposed,
    Event,
    EventRecord,
    FinalTable,
    FlightBagged,
    FlightBagging,
    HandForHand,
    HandVoided,
    LevelStarted,
    NodeLost,
    PhaseStarted,
    PlayerEliminated,
    PlayerMoved,
    PlayerQualified,
    PlayerReentered,
    PlayStarted,
    Rebuy,
    TableClosed,
    TableRestarted,
    TicketAwarded,
    TournamentCancelled,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
)
from orchestrator.core.levels import blind_level
from orchestrator.core.payouts import prize_table
from orchestrator.core.tda import break_order, procedure
from orchestrator.views.amounts import money
from orchestrator.views.read_model import ReadModel

__all__ = ["Changes", "FeedItem", "Lobby", "ordinal"]

FEED_LENGTH = 200


def ordinal(n: int) -> str:
    """A place in words.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 102, 111)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '102nd', '111th']
    """
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True, slots=True)
class FeedItem:
    seq: int
    ts: float
    kind: str  # elimination, move, table, final, level, break, pause, finish, cancel, prize, deal
    text: str


@dataclass(slots=True)
class Changes:
    """What changed since the last `take_changes()`: tables to redraw (closed ones included,
    then absent from `Lobby.tables`), new feed items, new places."""

    tables: set[int] = field(default_factory=set)
    feed: list[FeedItem] = field(default_factory=list)
    places: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Lobby:
    """The read model (`views.read_model`) and what the lobby adds to it: the feed, the clock
    screen by the config, the tables and the ranking as the page shows them."""

    config: TournamentConfig
    model: ReadModel = field(default_factory=ReadModel)
    feed: deque[FeedItem] = field(default_factory=lambda: deque(maxlen=FEED_LENGTH))
    _said: list[FeedItem] = field(default_factory=list)  # feed items since take_changes()

    def __post_init__(self) -> None:
        if self.model.config is None:  # a log without its opening record
            self.model.config = self.config

    # --- the fold -------------------------------------------------------------------------

    def apply(self, record: EventRecord) -> None:
        read = self.model.apply_record(record)
        if read is not None:
            text = _feed_text(read.event)
            if text is not None:
                item = FeedItem(read.seq, read.ts, *text)
                self.feed.append(item)
                self._said.append(item)

    def take_changes(self) -> Changes:
        touched = self.model.take_touched()
        said, self._said = self._said, []
        return Changes(touched.tables, said, touched.places)

    # --- the model as the lobby shows it --------------------------------------------------

    @property
    def seq(self) -> int:
        return self.model.seq

    @property
    def gap(self) -> bool:
        return self.model.gap

    @property
    def tables(self) -> dict[int, dict[int, str]]:
        return self.model.tables

    @property
    def seats(self) -> dict[str, tuple[int, int]]:
        return self.model.seats

    @property
    def stacks(self) -> dict[str, int]:
        return self.model.stacks

    @property
    def places(self) -> dict[str, int]:
        return self.model.places

    @property
    def prize_pool(self) -> int:
        return self.model.prize_pool

    @property
    def status(self) -> str:
        return self.model.status

    # --- views ----------------------------------------------------------------------------

    def payouts(self) -> list[int]:
        """The prize of each paid place (index 0 is first), as the core will award them."""
        m = self.model
        rules = self.config.satellite
        if rules is not None and m.prize_pool:  # SAT-1: the seats, then the cash remainder
            seats, remainder = divmod(m.prize_pool, rules.seat_value)
            return [rules.seat_value] * seats + ([remainder] if remainder else [])
        if m.prizes:
            return [m.prizes[p] for p in sorted(m.prizes)]
        if not m.prize_pool:
            return []
        return prize_table(
            m.prize_pool,
            percent=self.config.payout_percent,
            entries=m.entries,
            field_size=m.field_size,
            paid_percent=self.config.paid_percent,
        )

    def balancing(self) -> dict[str, Any]:
        """The tournament's balancing policy; under ``tda`` the procedure published before the
        start and the open tables in the order they break, the next first (TDA-2)."""
        policy = self.config.policy
        if policy != "tda":
            return {"policy": policy, "procedure": [], "break_order": []}
        return {
            "policy": policy,
            "procedure": list(procedure(self.config.tda_breaks)),
            "break_order": list(break_order(self.tables)),
        }

    def ranking(self, limit: int = 10) -> list[tuple[str, int]]:
        """The chip count leaders; equal stacks by name, so the order is stable."""
        return sorted(self.model.stacks.items(), key=lambda item: (-item[1], item[0]))[:limit]

    def table_view(self, table: int) -> dict[str, Any] | None:
        m = self.model
        seats = m.tables.get(table)
        if seats is None:
            return None
        knockout = self.config.knockout
        heads = knockout is not None and knockout.kind != "mystery"  # KO-4 has none on a head
        return {
            "table": table,
            "button": m.buttons.get(table),
            "final": table == m.final_table,
            # [seat, player, stack], and the cents on his head in a knockout (KO-1, KO-2)
            "seats": [
                [s, p, m.stacks.get(p, 0), *([m.bounty_on.get(p, 0)] if heads else [])]
                for s, p in sorted(seats.items())
            ],
        }

    def clock(self, now: float) -> dict[str, Any]:
        """The clock screen's numbers at `now`: level and blinds, what is left of the level
        (seconds for a timed level, hands for one counted in hands), the next level or break,
        the field, the average stack, the prize pool and payouts, the balancing procedure."""
        config, m = self.config, self.model
        level = max(1, m.level)
        blinds = blind_level(config, level)
        upcoming = blind_level(config, level + 1)
        paused_for = now - m.paused_at if m.paused_at is not None else 0.0
        seconds_left: float | None = None
        hands_left: int | None = None
        if config.level_unit == "minutes":
            ends = m.level_started_at + 60 * config.level_length + paused_for
            seconds_left = max(0.0, ends - max(now, m.level_started_at))
        else:
            playing = [h for t, h in m.level_hands.items() if len(m.tables.get(t, {})) >= 2]
            hands_left = max(0, config.level_length - min(playing, default=0))  # the slowest
        on_break = m.break_until is not None and now < m.break_until + paused_for
        break_next = next((b.minutes for b in config.breaks if b.after_level == level), None)
        players_left = m.players_left
        return {
            "tournament": config.name,
            "status": m.status,
            "now": now,
            "level": m.level,
            "blinds": [blinds.small_blind, blinds.big_blind, blinds.ante],
            "level_unit": config.level_unit,
            "level_length": config.level_length,
            "seconds_left": seconds_left,
            "hands_left": hands_left,
            "next_blinds": [upcoming.small_blind, upcoming.big_blind, upcoming.ante],
            "break_after_level": break_next,
            "break_seconds_left": (m.break_until or 0) + paused_for - now if on_break else None,
            "players_left": players_left,
            "entries": m.entries,
            "tables": len(m.tables),
            "hands": m.hands,
            "average_stack": m.chips // max(1, players_left),
            "prize_pool": m.prize_pool,
            "payouts": self.payouts(),
            "final_table": m.final_table,
            "hand_for_hand": m.hand_for_hand,
            "balancing": self.balancing(),
            "winner": m.winner,
            "tickets": dict(m.tickets),  # SAT-3: the seats won, by player
            "cancelled": m.cancelled,
            "gap": m.gap,
        }


def _feed_text(event: Event) -> tuple[str, str] | None:
    """What the feed says of an event, by kind (None: nothing)."""
    match event:
        case PlayerReentered():
            return "entry", f"{event.player} re-enters at table {event.table}"
        case PlayerEliminated():
            place = ordinal(event.place)
            return "elimination", f"{event.player} is out in {place} place (table {event.table})"
        case PlayerMoved():
            why = "table closed" if event.reason == "close" else "balancing"
            return "move", (
                f"{event.player} moves from table {event.from_table} to table "
                f"{event.to_table} seat {event.to_seat} ({why})"
            )
        case TableClosed():
            return "table", f"table {event.table} closes"
        case BountyWon():
            won = f"{event.cash / 100:,.2f}" + (
                f" and {event.added / 100:,.2f} on his own head" if event.added else ""
            )
            return "elimination", f"{event.player} wins {won} of {event.eliminated}'s bounty"
        case PlayStarted():
            return "table", f"shuffle up and deal: {len(event.tables)} tables start"
        case FinalTable():
            return "final", f"final table at table {event.table}: {len(event.players)} players"
        case Rebuy():
            return "entry", f"{event.player} rebuys {event.chips:,} chips"
        case Addon():
            return "entry", f"{event.player} adds on {event.chips:,} chips"
        case PhaseStarted():
            tables = f"{event.tables} table" + ("s" if event.tables != 1 else "")
            return "level", f"phase {event.phase} starts at {tables}"
        case PlayerQualified():
            return "entry", f"{event.player} qualifies for phase {event.phase}"
        case HandVoided():
            return "table", f"hand {event.hand} at table {event.table} is void"
        case NodeLost():
            tables = ", ".join(str(t) for t in event.tables) or "none"
            return "table", f"a machine was lost (tables {tables})"
        case TableRestarted():
            return "table", f"table {event.table} deals again on another machine"
        case LevelStarted() if event.level > 1:
            blinds = _blinds(event.small_blind, event.big_blind, event.ante)
            return "level", f"level {event.level}: blinds {blinds}"
        case BreakStarted():
            return "break", f"break of {event.minutes} minutes"
        case TournamentPaused():
            return "pause", "the clock is paused"
        case TournamentResumed():
            return "pause", "the clock runs again"
        case DealProposed():  # DEAL-1, DEAL-2: the proposal, player by player
            shares = ", ".join(
                f"{p} {money(a)}" for p, a in zip(event.players, event.amounts, strict=True)
            )
            left = f", {money(event.left)} left to play for" if event.left else ""
            return "deal", f"{event.kind.replace('_', ' ')} deal proposed: {shares}{left}"
        case DealAnswered():
            answer = "accepts the deal" if event.accepted else "declines the deal: play resumes"
            return "deal", f"{event.player} {answer}"
        case DealPaid():  # DEAL-3
            return "deal", f"the deal pays {event.player} {money(event.amount)}"
        case HandForHand(active=True):
            return "level", f"hand-for-hand play with {event.players} players left"
        case HandForHand():
            return "level", "hand-for-hand play ends: in the money"
        case FlightBagging():  # FL-1
            return "level", f"the flight bags with {event.players} left: last hands"
        case FlightBagged():  # FL-1
            return "finish", f"the flight bags {event.players} players at level {event.level}"
        case Day2Started():  # FL-3
            return "level", f"day 2 starts at level {event.level}: {event.entries} entries' pool"
        case TicketAwarded():
            to = f" to {event.target}" if event.target else ""
            return "finish", f"{event.player} wins a seat{to} (place {event.place})"
        case TournamentFinished():
            return "finish", f"{event.winner} wins the tournament"
        case TournamentCancelled():
            return "cancel", f"the tournament is cancelled: {event.reason}"
    return None


def _blinds(small: int, big: int, ante: int) -> str:
    return f"{small:,}/{big:,}" + (f" ante {ante:,}" if ante else "")
