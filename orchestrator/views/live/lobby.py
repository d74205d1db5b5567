"""The live lobby and clock as a fold over the event log (DESIGN.md contracts); pure.

`Lobby.apply(event)` takes the log's events in seq order and keeps what an operator looks
at: tables with their seats, stacks and button, the field, places, the level and its clock,
pauses and breaks, the prize pool, the balancing procedure (TDA-2: under the ``tda`` policy,
the order tables break in, shown from before the start), and a feed of what happened. It reads
no clock: `clock()` is told `now`. It remembers which tables changed and what is new since
`take_changes()` was last called, so a server can push only that.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import EventRecord
from orchestrator.core.levels import blind_level
from orchestrator.core.payouts import prize_table
from orchestrator.core.tda import TDA_PROCEDURE, break_order

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
    kind: str  # elimination, move, table, final, level, break, pause, finish, cancel, prize
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
    config: TournamentConfig
    seq: int = 0  # the last event applied
    gap: bool = False  # an event was missing: the view may be wrong until a full reload
    tournament: str = ""
    started_at: float | None = None
    tables: dict[int, dict[int, str]] = field(default_factory=dict)  # table -> seat -> player
    buttons: dict[int, int] = field(default_factory=dict)
    stacks: dict[str, int] = field(default_factory=dict)  # players still in
    seats: dict[str, tuple[int, int]] = field(default_factory=dict)  # player -> (table, seat)
    places: dict[str, int] = field(default_factory=dict)
    entries: int = 0  # paid entries, re-entries included (REG-1)
    field_size: int = 0  # different players
    prize_pool: int = 0  # cents (REG-1: the buy-ins)
    prizes: dict[int, int] = field(default_factory=dict)  # place -> amount, once awarded
    hands: int = 0
    level: int = 0
    level_hands: dict[int, int] = field(default_factory=dict)  # per table (START-2)
    level_started_at: float = 0.0  # a break's end when the level follows one
    break_until: float | None = None
    paused_at: float | None = None
    final_table: int | None = None
    hand_for_hand: bool = False
    winner: str | None = None
    cancelled: str | None = None
    feed: deque[FeedItem] = field(default_factory=lambda: deque(maxlen=FEED_LENGTH))
    _changes: Changes = field(default_factory=Changes)

    # --- the fold -------------------------------------------------------------------------

    def apply(self, event: EventRecord) -> None:
        seq = int(event.get("seq", self.seq + 1))
        if seq <= self.seq:
            return  # already applied (a source may repeat itself)
        if seq != self.seq + 1:
            self.gap = True
        self.seq = seq
        handler = _HANDLERS.get(str(event.get("type")))
        if handler is not None:
            handler(self, event)

    def take_changes(self) -> Changes:
        changes, self._changes = self._changes, Changes()
        return changes

    def _say(self, event: EventRecord, kind: str, text: str) -> None:
        item = FeedItem(int(event["seq"]), float(event["ts"]), kind, text)
        self.feed.append(item)
        self._changes.feed.append(item)

    def _seat(self, player: str, table: int, seat: int) -> None:
        self.tables.setdefault(table, {})[seat] = player
        self.seats[player] = (table, seat)
        self._changes.tables.add(table)

    def _unseat(self, player: str) -> None:
        table, seat = self.seats.pop(player, (0, 0))
        if self.tables.get(table, {}).get(seat) == player:
            del self.tables[table][seat]
            self._changes.tables.add(table)

    def _on_tournament_started(self, e: EventRecord) -> None:
        self.tournament = e["tournament"]
        self.started_at = float(e["ts"])

    def _on_player_registered(self, e: EventRecord) -> None:
        self.entries += 1
        self.field_size += e.get("entry", 1) == 1
        self.prize_pool += e["buy_in"]

    def _on_player_unregistered(self, e: EventRecord) -> None:
        self.entries -= 1
        self.field_size -= 1
        self.prize_pool -= self.config.buy_in

    def _on_table_opened(self, e: EventRecord) -> None:
        self.tables.setdefault(e["table"], {})
        self._changes.tables.add(e["table"])
        # START-2: a table joining counts as many hands as the slowest (core.pace)
        self.level_hands[e["table"]] = min(self.level_hands.values(), default=0)

    def _on_player_seated(self, e: EventRecord) -> None:
        self._unseat(e["player"])  # a shoot-out seats everyone again in each phase (SO-1)
        self._seat(e["player"], e["table"], e["seat"])
        self.stacks[e["player"]] = e["stack"]

    def _on_player_reentered(self, e: EventRecord) -> None:
        self.places.pop(e["player"], None)
        self._on_player_seated(e)
        self._say(e, "entry", f"{e['player']} re-enters at table {e['table']}")

    def _on_button_assigned(self, e: EventRecord) -> None:
        self.buttons[e["table"]] = e["seat"]
        self._changes.tables.add(e["table"])

    def _on_hand_finished(self, e: EventRecord) -> None:
        table = e["table"]
        self.hands += 1
        self.level_hands[table] = self.level_hands.get(table, 0) + 1
        self.buttons[table] = e["button"]
        for p in e["players"]:
            if p["player"] in self.stacks:
                self.stacks[p["player"]] = p["end"]
        self._changes.tables.add(table)

    def _on_player_eliminated(self, e: EventRecord) -> None:
        player = e["player"]
        self._unseat(player)
        self.stacks.pop(player, None)
        self.places[player] = e["place"]
        self._changes.places[player] = e["place"]
        self._say(
            e, "elimination", f"{player} is out in {ordinal(e['place'])} place (table {e['table']})"
        )

    def _on_player_moved(self, e: EventRecord) -> None:
        self._unseat(e["player"])
        self._seat(e["player"], e["to_table"], e["to_seat"])
        self.stacks[e["player"]] = e["stack"]
        why = "table closed" if e["reason"] == "close" else "balancing"
        self._say(
            e,
            "move",
            f"{e['player']} moves from table {e['from_table']} to table {e['to_table']} "
            f"seat {e['to_seat']} ({why})",
        )

    def _on_table_closed(self, e: EventRecord) -> None:
        for player in list(self.tables.pop(e["table"], {}).values()):
            self.seats.pop(player, None)
        self.buttons.pop(e["table"], None)
        self.level_hands.pop(e["table"], None)
        self._changes.tables.add(e["table"])
        self._say(e, "table", f"table {e['table']} closes")

    def _on_final_table(self, e: EventRecord) -> None:
        self.final_table = e["table"]
        self._say(e, "final", f"final table at table {e['table']}: {len(e['players'])} players")

    def _on_rebuy(self, e: EventRecord) -> None:
        self._add_chips(e["player"], e["chips"])
        self._say(e, "entry", f"{e['player']} rebuys {e['chips']:,} chips")

    def _on_addon(self, e: EventRecord) -> None:
        self._add_chips(e["player"], e["chips"])
        self._say(e, "entry", f"{e['player']} adds on {e['chips']:,} chips")

    def _on_phase_started(self, e: EventRecord) -> None:
        tables = f"{e['tables']} table" + ("s" if e["tables"] != 1 else "")
        self._say(e, "level", f"phase {e['phase']} starts at {tables}")

    def _on_player_qualified(self, e: EventRecord) -> None:
        self._say(e, "entry", f"{e['player']} qualifies for phase {e['phase']}")

    def _on_hand_voided(self, e: EventRecord) -> None:
        self._say(e, "table", f"hand {e['hand']} at table {e['table']} is void")

    def _on_node_lost(self, e: EventRecord) -> None:
        tables = ", ".join(str(t) for t in e["tables"]) or "none"
        self._say(e, "table", f"a machine was lost (tables {tables})")

    def _on_table_restarted(self, e: EventRecord) -> None:
        self._say(e, "table", f"table {e['table']} deals again on another machine")

    def _on_chips_removed(self, e: EventRecord) -> None:
        self._add_chips(e["player"], -e["chips"])

    def _add_chips(self, player: str, chips: int) -> None:
        if player in self.stacks:
            self.stacks[player] += chips
            if player in self.seats:
                self._changes.tables.add(self.seats[player][0])

    def _on_level_started(self, e: EventRecord) -> None:
        self.level = e["level"]
        if e["level"] > 1:  # hands beyond the level's length carry into the next (START-2)
            length = self.config.level_length
            self.level_hands = {t: hands - length for t, hands in self.level_hands.items()}
        ts = float(e["ts"])
        # The core starts the level after a break (orchestrator.core.tournament `_advance_level`).
        self.level_started_at = max(ts, self.break_until or ts)
        if e["level"] > 1:
            blinds = _blinds(e["small_blind"], e["big_blind"], e["ante"])
            self._say(e, "level", f"level {e['level']}: blinds {blinds}")

    def _on_play_started(self, e: EventRecord) -> None:
        """START-1: every table deals from here; the clock stood still until now."""
        self.level_started_at += float(e.get("held_seconds", 0.0))
        self._say(e, "table", f"shuffle up and deal: {len(e['tables'])} tables start")

    def _on_break_started(self, e: EventRecord) -> None:
        self.break_until = float(e["ts"]) + 60 * e["minutes"]
        self._say(e, "break", f"break of {e['minutes']} minutes")

    def _on_tournament_paused(self, e: EventRecord) -> None:
        self.paused_at = float(e["ts"])
        self._say(e, "pause", "the clock is paused")

    def _on_tournament_resumed(self, e: EventRecord) -> None:
        self.paused_at = None
        self.level_started_at += float(e["paused_seconds"])
        if self.break_until is not None:
            self.break_until += float(e["paused_seconds"])
        self._say(e, "pause", "the clock runs again")

    def _on_hand_for_hand(self, e: EventRecord) -> None:
        self.hand_for_hand = bool(e["active"])
        if e["active"]:
            self._say(e, "level", f"hand-for-hand play with {e['players']} players left")
        else:
            self._say(e, "level", "hand-for-hand play ends: in the money")

    def _on_prize_awarded(self, e: EventRecord) -> None:
        self.prizes[e["place"]] = e["amount"]
        self.places.setdefault(e["player"], e["place"])
        self._changes.places[e["player"]] = e["place"]

    def _on_tournament_finished(self, e: EventRecord) -> None:
        self.winner = e["winner"]
        self._say(e, "finish", f"{e['winner']} wins the tournament")

    def _on_tournament_cancelled(self, e: EventRecord) -> None:
        self.cancelled = str(e["reason"])
        self.paused_at = None
        self._say(e, "cancel", f"the tournament is cancelled: {e['reason']}")

    # --- views ----------------------------------------------------------------------------

    @property
    def status(self) -> str:
        if self.cancelled is not None:
            return "cancelled"
        if self.winner is not None:
            return "finished"
        if self.started_at is None:
            return "waiting"
        return "paused" if self.paused_at is not None else "running"

    def payouts(self) -> list[int]:
        """The prize of each paid place (index 0 is first), as the core will award them."""
        if self.prizes:
            return [self.prizes[p] for p in sorted(self.prizes)]
        if not self.prize_pool:
            return []
        return prize_table(
            self.prize_pool,
            percent=self.config.payout_percent,
            entries=self.entries,
            field_size=self.field_size,
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
            "procedure": list(TDA_PROCEDURE),
            "break_order": list(break_order(self.tables)),
        }

    def ranking(self, limit: int = 10) -> list[tuple[str, int]]:
        """The chip count leaders; equal stacks by name, so the order is stable."""
        return sorted(self.stacks.items(), key=lambda item: (-item[1], item[0]))[:limit]

    def table_view(self, table: int) -> dict[str, Any] | None:
        seats = self.tables.get(table)
        if seats is None:
            return None
        return {
            "table": table,
            "button": self.buttons.get(table),
            "final": table == self.final_table,
            "seats": [[s, p, self.stacks.get(p, 0)] for s, p in sorted(seats.items())],
        }

    def clock(self, now: float) -> dict[str, Any]:
        """The clock screen's numbers at `now`: level and blinds, what is left of the level
        (seconds for a timed level, hands for one counted in hands), the next level or break,
        the field, the average stack, the prize pool and payouts, the balancing procedure."""
        config = self.config
        level = max(1, self.level)
        blinds = blind_level(config, level)
        upcoming = blind_level(config, level + 1)
        paused_for = now - self.paused_at if self.paused_at is not None else 0.0
        seconds_left: float | None = None
        hands_left: int | None = None
        if config.level_unit == "minutes":
            ends = self.level_started_at + 60 * config.level_length + paused_for
            seconds_left = max(0.0, ends - max(now, self.level_started_at))
        else:
            playing = [h for t, h in self.level_hands.items() if len(self.tables.get(t, {})) >= 2]
            hands_left = max(0, config.level_length - min(playing, default=0))  # the slowest
        on_break = self.break_until is not None and now < self.break_until + paused_for
        break_next = next((b.minutes for b in config.breaks if b.after_level == level), None)
        players_left = len(self.stacks)
        return {
            "tournament": config.name,
            "status": self.status,
            "now": now,
            "level": self.level,
            "blinds": [blinds.small_blind, blinds.big_blind, blinds.ante],
            "level_unit": config.level_unit,
            "level_length": config.level_length,
            "seconds_left": seconds_left,
            "hands_left": hands_left,
            "next_blinds": [upcoming.small_blind, upcoming.big_blind, upcoming.ante],
            "break_after_level": break_next,
            "break_seconds_left": (self.break_until or 0) + paused_for - now if on_break else None,
            "players_left": players_left,
            "entries": self.entries,
            "tables": len(self.tables),
            "hands": self.hands,
            "average_stack": sum(self.stacks.values()) // max(1, players_left),
            "prize_pool": self.prize_pool,
            "payouts": self.payouts(),
            "final_table": self.final_table,
            "hand_for_hand": self.hand_for_hand,
            "balancing": self.balancing(),
            "winner": self.winner,
            "cancelled": self.cancelled,
            "gap": self.gap,
        }


_HANDLERS = {
    name.removeprefix("_on_"): method
    for name, method in vars(Lobby).items()
    if name.startswith("_on_") and callable(method)
}


def _blinds(small: int, big: int, ante: int) -> str:
    return f"{small:,}/{big:,}" + (f" ante {ante:,}" if ante else "")
