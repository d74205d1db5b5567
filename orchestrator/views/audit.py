"""Audit a finished run offline from its files (DESIGN.md "Contracts"; `mtt replay DIR`).

Two layers, so tests can audit what they hold in memory and the CLI what is on disk:
- readers (`read_events`, `read_results`, `read_hand_files`) turn files into plain data and
  raise `UnreadableRun`, naming the file and line, when a file is missing or cannot be parsed;
- checks (`audit_events`, `audit_hands`, `audit_hands_against_log`, `audit_results`,
  `audit_unique_decks`) are pure functions of that data and return `Violation` records,
  never assert, so one audit reports everything wrong with a run at once.

`audit_run(folder)` puts them together for a run's folder and its side events (RB-6).
The event log's checks include playing in step: no table deals before `play_started`
(START-1), and under the equilibrium policy no table leaves its boundary 2+ players above the
shortest table (FO-2, balance at every boundary).
Rule labels are RULES.md IDs where one applies, otherwise the contract they come from.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orchestrator.core.bounties import eliminators_pot
from orchestrator.core.events import EventRecord
from orchestrator.core.replay import SHELL_EVENTS, STEP_EVENTS
from orchestrator.core.typed_json import from_json
from orchestrator.errors import RecordError, UnreadableRun
from rng_service.commit import verify_commitment
from table_worker.cards import cards_text, parse_cards, validate_deck
from table_worker.errors import InvalidDeck
from table_worker.oracle import replay_phhs
from table_worker.protocol import HandPot

__all__ = [
    "AuditReport",
    "HandRecord",
    "HandsAudit",
    "PhhSection",
    "UnreadableRun",
    "Violation",
    "audit_events",
    "audit_hands",
    "audit_hands_against_log",
    "audit_results",
    "audit_run",
    "audit_unique_decks",
    "read_events",
    "read_hand_files",
    "read_results",
]

Seat = tuple[str, int, int, int]  # (player, seat, start, end)
Kind = type | tuple[type, ...]


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which rule, where in the run's files, and what was found."""

    rule: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: [{self.rule}] {self.detail}"


# --- readers --------------------------------------------------------------------------------


def read_events(path: Path) -> list[EventRecord]:
    """events.jsonl as a list of objects; UnreadableRun names the first bad line."""
    text = _read_text(path)
    events: list[EventRecord] = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UnreadableRun(f"{path}:{number}: not a JSON line ({exc.msg})") from None
        if not isinstance(event, dict):
            raise UnreadableRun(f"{path}:{number}: not a JSON object")
        events.append(event)
    return events


def read_results(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise UnreadableRun(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(results, dict):
        raise UnreadableRun(f"{path}: not a JSON object")
    return results


@dataclass(frozen=True, slots=True)
class PhhSection:
    """One hand of a `.phhs` file: its own TOML text (replayable alone) and its fields."""

    file: str  # relative to the run's folder, e.g. "hands/table-0001.phhs"
    line: int  # of the section's header
    text: str
    fields: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


_HEADER = re.compile(r"^\[[^\]\n]+\][ \t]*$", re.MULTILINE)


def read_hand_files(folder: Path, *, relative_to: Path | None = None) -> list[PhhSection]:
    """Every hand of every `*.phhs` in `folder`, in file order then section order."""
    if not folder.is_dir():
        raise UnreadableRun(f"{folder}: no hands folder")
    base = relative_to if relative_to is not None else folder.parent
    sections: list[PhhSection] = []
    for path in sorted(folder.glob("*.phhs")):
        text = _read_text(path)
        starts = [m.start() for m in _HEADER.finditer(text)]
        try:
            tomllib.loads(text)  # the whole file first: its error names the right line
        except tomllib.TOMLDecodeError as exc:
            where = _breaks(text, starts, exc)
            raise UnreadableRun(f"{path}: not valid PHH/TOML ({exc}){where}") from None
        if text[: starts[0] if starts else len(text)].strip():
            raise UnreadableRun(f"{path}:1: not a PHH section before the first hand's header")
        name = str(path.relative_to(base))
        # An empty file (a table that dealt nothing before a crash) holds no hand.
        ends = [*starts[1:], len(text)] if starts else []
        for begin, end in zip(starts, ends, strict=True):
            chunk = text[begin:end]
            parsed = tomllib.loads(chunk)
            fields: object = next(iter(parsed.values()), {})
            line = text.count("\n", 0, begin) + 1
            sections.append(
                PhhSection(name, line, chunk, fields if isinstance(fields, dict) else {})
            )
    return sections


_AT_LINE = re.compile(r"at line (\d+)")


def _breaks(text: str, starts: list[int], error: tomllib.TOMLDecodeError) -> str:
    """Which hand's section a TOML error falls in: a file cut off by a crash breaks in its
    last one."""
    if not starts:
        return ""
    heads = [text.count("\n", 0, start) + 1 for start in starts]
    found = _AT_LINE.search(str(error))
    if found is not None:
        head = max((h for h in heads if h <= int(found.group(1))), default=None)
    else:  # "at end of document"
        head = heads[-1]
    if head is None:
        return ""
    last = ", its last: cut off by a crash?" if head == heads[-1] else ""
    return f"; it breaks in the hand from line {head}{last}"


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnreadableRun(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableRun(f"{path}: cannot be read ({exc})") from None


# --- the event log --------------------------------------------------------------------------

# The fields the checks below read, by event type (DESIGN.md "Files written by mtt run").
_FIELDS: dict[str, dict[str, Kind]] = {
    "player_seated": {"player": str, "table": int, "stack": int},
    "player_reentered": {"player": str, "table": int, "stack": int},
    "rebuy": {"player": str, "chips": int},
    "addon": {"player": str, "chips": int},
    "chips_removed": {"player": str, "chips": int},
    # `players` is a list read from a file, a tuple in a record still in memory (the
    # orchestrator's `events_since`, an event's `fields()`): both are audited alike.
    "hand_finished": {"table": int, "hand": int, "players": (list, tuple)},
    "hand_voided": {"table": int, "hand": int},
    "player_eliminated": {"player": str, "place": int},
    "player_moved": {"player": str, "from_table": int, "to_table": int},
    "table_opened": {"table": int},
    "table_closed": {"table": int},
    "play_started": {"tables": (list, tuple)},
    "tournament_finished": {"winner": str},
    "prize_awarded": {"player": str, "place": int, "amount": int},
    "player_registered": {"player": str, "buy_in": int, "fee": int},
    "ledger_posted": {"source": str, "target": str, "amount": int},
    "bounty_won": {"player": str, "eliminated": str, "cash": int},
    "bounty_returned": {"player": str, "amount": int},
    "side_event_started": {"event": int},
    "roll_forward_paid": {"player": str, "chips": int, "equal_share": int, "chip_share": int},
    "refund": {"player": str, "amount": int},
    "overlay_paid": {"guarantee": int, "entries_pool": int, "overlay": int},
    "deal_paid": {"player": str, "chips": int, "amount": int, "place": int},
    "stack_bagged": {"player": str, "chips": int},
    "flight_bagged": {"players": int, "chips": int, "pool": int},
    "day2_started": {"entries": int, "pool": int},
}
_SEAT_FIELDS: dict[str, Kind] = {"player": str, "seat": int, "start": int, "end": int}


def _shape(event: EventRecord, index: int) -> list[Violation]:
    where = f"events.jsonl:{index + 1}"
    wanted: dict[str, Kind] = {"seq": int, "type": str, **_FIELDS.get(str(event.get("type")), {})}
    if "cause" in event:
        wanted["cause"] = int
    bad = [k for k, kind in wanted.items() if not _is(event.get(k), kind)]
    if event.get("type") == "hand_finished" and "players" not in bad:
        bad += [f"players[{k}]" for k, p in enumerate(event["players"]) if not _is_seat(p)]
    if not bad:
        return []
    return [Violation("contract", where, f"{event.get('type')!r} lacks or mistypes {bad}")]


def _shapes(log: Sequence[EventRecord]) -> list[Violation]:
    return [x for index, e in enumerate(log) for x in _shape(e, index)]


def _is(value: object, kind: Kind) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _is_seat(value: object) -> bool:
    return isinstance(value, dict) and all(_is(value.get(f), t) for f, t in _SEAT_FIELDS.items())


def _at(e: EventRecord) -> str:
    return f"events.jsonl seq {e['seq']}"


def audit_events(
    log: Sequence[EventRecord], *, buy_in: int | None = None, fee: int | None = None
) -> list[Violation]:
    """The event log's invariants (DESIGN.md contracts, ELIM-1, RB-3/RB-4, SO-3, SAN-1, REG-1).

    `buy_in` and `fee` (cents per entry) are checked against every `player_registered` when
    given; the money checks otherwise take them from those events."""
    # STEP 1: every event has the fields the checks read; the rest is meaningless without them
    v = _shapes(log)
    if v:
        return v
    # STEP 2: seq numbers 1, 2, 3, ... (DESIGN.md)
    for index, e in enumerate(log):
        if e["seq"] != index + 1:
            v.append(Violation("contract", f"events.jsonl:{index + 1}", f"seq {e['seq']}"))
            return v
    kinds = Counter(e["type"] for e in log)
    cancelled = kinds["tournament_cancelled"] > 0  # CRASH-2: no winner, the rest rolled forward
    bagged = kinds["flight_bagged"] > 0  # FL-1: a Day 1 flight ends with bags, no winner
    for kind, allowed in (
        ("tournament_started", (1,)),
        ("tournament_finished", (0,) if cancelled or bagged else (1,)),
        ("flight_bagged", (0, 1)),
        ("tournament_cancelled", (0, 1)),
        ("hand_for_hand", (0, 1, 2) if cancelled else (0, 2)),  # on, then off (ELIM-1)
    ):
        if kinds[kind] not in allowed:
            v.append(Violation("contract", "events.jsonl", f"{kinds[kind]} {kind} events"))
    field = len({e["player"] for e in log if e["type"] == "player_seated"})
    entries = field + kinds["player_reentered"]
    winner = next((e["winner"] for e in log if e["type"] == "tournament_finished"), None)
    rolled = {e["player"]: e["chips"] for e in log if e["type"] == "roll_forward_paid"}
    # DEAL-3: a deal that ended the tournament placed its players and left them their chips
    rolled |= {e["player"]: e["chips"] for e in log if e["type"] == "deal_paid" and e["place"]}
    # FL-1: a bagged flight's survivors hold no place and keep the chips of their last hand
    rolled |= {e["player"]: e["chips"] for e in log if e["type"] == "stack_bagged"}
    v += _final_table(log, cancelled or bagged)
    v += _places(log, field, winner, rolled)
    v += _chips(log, winner, rolled)
    v += _one_place(log)
    v += _money(log, entries, buy_in, fee)
    v += _in_step(log)
    v += _balanced(log)
    return v


def _final_table(log: Sequence[EventRecord], cancelled: bool) -> list[Violation]:
    """One final table (none yet if cancelled); another only after a table opened since the
    last (a late entrant found no seat at it, so it was not the last table after all)."""
    v: list[Violation] = []
    finals, opened_since = 0, False
    for e in log:
        if e["type"] == "table_opened":
            opened_since = True
        elif e["type"] == "final_table":
            if finals and not opened_since:
                v.append(Violation("contract", _at(e), "a second final_table, no table opened"))
            finals, opened_since = finals + 1, False
    if finals == 0 and not cancelled:
        v.append(Violation("contract", "events.jsonl", "0 final_table events"))
    return v


# After these, play stands still until `play_started` (START-1).
_STOPS = frozenset({"tournament_started", "break_started", "tournament_paused", "phase_started"})


def _in_step(log: Sequence[EventRecord]) -> list[Violation]:
    """START-1: no table deals before `play_started`: no hand before the first, nor at a new
    phase's tables; after a break or the operator's pause each table finishes at most the hand
    it was playing (none if it had just finished one, or its hand was voided)."""
    v: list[Violation] = []
    playing, stop = False, None
    open_tables: set[int] = set()
    may_finish: dict[int, int] = {}  # while play stands still: hands a table may still finish
    for e in log:
        kind = e["type"]
        if kind == "table_opened":
            open_tables.add(e["table"])
            may_finish[e["table"]] = 0
        elif kind == "table_closed":
            open_tables.discard(e["table"])
        elif kind == "play_started":
            if playing:
                v.append(Violation("START-1", _at(e), "play_started while play goes on"))
            playing = True
        elif kind in _STOPS:
            if playing:
                may_finish = dict.fromkeys(open_tables, 1 if kind in _PAUSES else 0)
                if "cause" in e:  # the hand that reached the break: that table is done
                    may_finish[log[e["cause"] - 1].get("table", 0)] = 0
            playing, stop = False, e
        elif kind == "hand_voided" and not playing:
            may_finish[e["table"]] = 0
        elif kind == "hand_finished" and not playing:
            left = may_finish.get(e["table"], 0)
            if not left:
                since = (
                    "" if stop is None else f" (play stopped at seq {stop['seq']}, {stop['type']})"
                )
                v.append(
                    Violation(
                        "START-1",
                        _at(e),
                        f"table {e['table']} hand {e['hand']} was dealt before play_started{since}",
                    )
                )
            may_finish[e["table"]] = max(0, left - 1)
    return v


_PAUSES = frozenset({"break_started", "tournament_paused"})  # hands in progress finish


def _leads_a_step(e: EventRecord) -> bool:
    return "cause" not in e and (e["type"] in STEP_EVENTS or e["type"] in SHELL_EVENTS)


def _balanced(log: Sequence[EventRecord]) -> list[Violation]:
    """FO-2 at every boundary (equilibrium, not a shoot-out): a table whose boundary the log
    shows (its hand finished, or a logged poll of it) holding 2+ more players than the shortest
    table, players on their way counted, gives players until it does not. Checked where the
    core balances: after the hand's players left and before re-entries take their seats."""
    started = next((e for e in log if e["type"] == "tournament_started"), {})
    if started.get("policy") != "equilibrium" or started.get("structure") == "shootout":
        return []
    v: list[Violation] = []
    seats: dict[int, set[str]] = {}
    where: dict[str, int] = {}
    busted: set[str] = set()  # out in the step's hand, unless they rebuy or re-enter
    later: list[EventRecord] = []  # the step's re-entries and tables opened: after balancing
    boundary: EventRecord | None = None

    def sit(player: str, table: int) -> None:
        leave(player)
        seats.setdefault(table, set()).add(player)
        where[player] = table

    def leave(player: str) -> None:
        table = where.pop(player, None)
        if table in seats:
            seats[table].discard(player)

    def end_of_step() -> None:
        nonlocal boundary
        for player in busted:
            leave(player)
        busted.clear()
        if boundary is not None and boundary["table"] in seats:
            table, mine = boundary["table"], len(seats[boundary["table"]])
            short = min(seats, key=lambda t: (len(seats[t]), t))
            if mine >= len(seats[short]) + 2:
                v.append(
                    Violation(
                        "FO-2",
                        _at(boundary),
                        f"table {table} left its boundary with {mine} players, "
                        f"table {short} has {len(seats[short])} (moves counted)",
                    )
                )
        boundary = None
        for e in later:
            if e["type"] == "table_opened":
                seats.setdefault(e["table"], set())
            else:
                sit(str(e["player"]), e["table"])
        later.clear()

    for e in log:
        kind, player = e["type"], str(e.get("player"))
        if _leads_a_step(e):
            end_of_step()
        if kind in ("tournament_cancelled", "flight_bagging"):
            break  # CRASH-2, FL-1: tables close at their next boundary, nobody moves any more
        if kind in ("hand_finished", "table_polled"):
            boundary = e
            if kind == "hand_finished":
                busted.update(p["player"] for p in e["players"] if p["end"] == 0)
        elif kind == "table_opened":
            if boundary is not None and boundary["type"] == "hand_finished":
                later.append(e)
            else:
                seats.setdefault(e["table"], set())
        elif kind == "player_seated":
            sit(player, e["table"])
        elif kind == "player_reentered":
            busted.discard(player)
            leave(player)
            later.append(e)
        elif kind in ("rebuy", "addon"):
            busted.discard(player)
        elif kind == "player_moved":
            sit(player, e["to_table"])
        elif kind == "player_eliminated":
            if player not in busted:
                leave(player)
        elif kind == "table_closed":
            for gone in seats.pop(e["table"], set()):
                where.pop(gone, None)
    end_of_step()
    return v


def _places(
    log: Sequence[EventRecord], field: int, winner: str | None, rolled: dict[str, int]
) -> list[Violation]:
    """ELIM-1: every player placed exactly once, places 1..N, the winner first; after a
    cancellation (CRASH-2) the players rolled forward hold no place and the eliminated the
    last ones."""
    v: list[Violation] = []
    places: dict[str, int] = {}
    given: dict[int, int] = {}  # place -> seq of the first elimination given it
    for e in log:
        if e["type"] == "player_eliminated":
            if e["player"] in places:
                v.append(Violation("ELIM-1", _at(e), f"{e['player']} eliminated twice"))
            if e["place"] in given:
                first = given[e["place"]]
                v.append(
                    Violation("ELIM-1", _at(e), f"place {e['place']} also given at seq {first}")
                )
            given.setdefault(e["place"], e["seq"])
            places[e["player"]] = e["place"]
    if winner in places:
        v.append(Violation("ELIM-1", "events.jsonl", f"the winner {winner} was also eliminated"))
    both = sorted(set(rolled) & set(places))
    if both:
        v.append(Violation("CRASH-2", "events.jsonl", f"rolled forward and eliminated: {both}"))
    taken = set(places.values())
    best = len(rolled) + 1 if rolled else 2
    expected = set(range(best, field + 1))
    if taken != expected or len(places) != field - best + 1:
        v.append(
            Violation(
                "ELIM-1",
                "events.jsonl",
                f"{field} players seated, {len(places)} eliminated; places missing "
                f"{sorted(expected - taken)}, unexpected {sorted(taken - expected)}",
            )
        )
    return v


def _chips(
    log: Sequence[EventRecord], winner: str | None, rolled: dict[str, int]
) -> list[Violation]:
    """Chips conserved in every hand; between hands a stack changes only by a logged rebuy or
    add-on (RB-3, RB-4), a reseat (SO-3, re-entry) or chips leaving play (SAN-1); the winner
    ends with all of them, or after a cancellation each player rolled forward with exactly the
    stack of the last hand logged (CRASH-2). Every `cause` points back to an earlier
    hand_finished."""
    v: list[Violation] = []
    stacks: dict[str, int] = {}
    seen: set[tuple[int, int]] = set()
    for e in log:
        kind, player = e["type"], str(e.get("player"))
        if kind in ("player_seated", "player_reentered"):
            if kind == "player_reentered" and stacks.get(player) != 0:
                v.append(Violation("chips", _at(e), f"{player} re-entered holding chips"))
            stacks[player] = e["stack"]
        elif kind in ("rebuy", "addon", "chips_removed"):
            if player not in stacks:
                v.append(Violation("chips", _at(e), f"{kind} for {player}, never seated"))
            sign = -1 if kind == "chips_removed" else 1
            stacks[player] = stacks.get(player, 0) + sign * e["chips"]
        elif kind == "hand_finished":
            key = (e["table"], e["hand"])
            if key in seen:
                v.append(Violation("contract", _at(e), f"table {key[0]} hand {key[1]} twice"))
            seen.add(key)
            start = sum(p["start"] for p in e["players"])
            end = sum(p["end"] for p in e["players"])
            if start != end:
                v.append(Violation("chips", _at(e), f"hand starts with {start}, ends with {end}"))
            for p in e["players"]:
                if p["start"] != stacks.get(p["player"]):
                    v.append(
                        Violation(
                            "chips",
                            _at(e),
                            f"{p['player']} starts with {p['start']}, "
                            f"held {stacks.get(p['player'])} after the last logged change",
                        )
                    )
                stacks[p["player"]] = p["end"]
        if "cause" in e:
            cause = e["cause"]
            ok = 1 <= cause < e["seq"] and log[cause - 1]["type"] == "hand_finished"
            if not ok:
                v.append(Violation("contract", _at(e), f"cause {cause} is no earlier hand"))
    left = {p: c for p, c in stacks.items() if p != winner and c != rolled.get(p, 0)}
    if left:
        v.append(Violation("chips", "events.jsonl", f"chips left with non-winners: {left}"))
    return v


def _one_place(log: Sequence[EventRecord]) -> list[Violation]:
    """A player is in exactly one place at any time (DESIGN.md "How a hand flows"): seated,
    moved, never seen again after elimination; a shoot-out phase reseats everyone (SO-1)."""
    v: list[Violation] = []
    where: dict[str, int] = {}
    out: set[str] = set()
    for e in log:
        kind, player = e["type"], str(e.get("player"))
        if kind == "phase_started":
            where.clear()
        elif kind == "player_seated":
            if player in where or player in out:
                v.append(Violation("contract", _at(e), f"{player} seated twice"))
            where[player] = e["table"]
        elif kind == "player_reentered":
            if player in out:
                v.append(Violation("contract", _at(e), f"{player} re-entered after elimination"))
            where[player] = e["table"]
        elif kind == "player_moved":
            if where.get(player) != e["from_table"] or player in out:
                v.append(Violation("contract", _at(e), f"{player} moved from a table not theirs"))
            where[player] = e["to_table"]
        elif kind == "hand_finished":
            for p in e["players"]:
                if where.get(p["player"]) != e["table"] or p["player"] in out:
                    v.append(
                        Violation(
                            "contract",
                            _at(e),
                            f"{p['player']} played at table {e['table']}, "
                            f"logged at {where.get(p['player'])}"
                            + (" and eliminated" if p["player"] in out else ""),
                        )
                    )
        elif kind == "player_eliminated":
            out.add(player)
    return v


def _money(
    log: Sequence[EventRecord], entries: int, buy_in: int | None, fee: int | None
) -> list[Violation]:
    """REG-1: every entry paid its buy-in to the pool and its fee to the operator; GTD-1: the
    operator's overlay tops the pool up to the guarantee; prizes pay out the whole pool; the
    ledger's postings balance to the cent: entries = prize pool + commission - overlay, and
    the postings leave the pool empty and the operator with the commission less the overlay."""
    v: list[Violation] = []
    registered = [e for e in log if e["type"] == "player_registered"]
    for e in registered:
        if (buy_in is not None and e["buy_in"] != buy_in) or (fee is not None and e["fee"] != fee):
            v.append(Violation("REG-1", _at(e), f"entry paid {e['buy_in']} + {e['fee']}"))
    if len(registered) != entries:
        v.append(
            Violation("REG-1", "events.jsonl", f"{len(registered)} entries paid, {entries} seated")
        )
    overlay = _overlay(log)
    first_prize = min((e["seq"] for e in log if e["type"] == "prize_awarded"), default=None)
    for e in (e for e in log if e["type"] == "overlay_paid"):
        if e["overlay"] <= 0 or e["overlay"] != e["guarantee"] - e["entries_pool"]:
            v.append(Violation("GTD-1", _at(e), "the overlay is not the guarantee's shortfall"))
        if first_prize is not None and first_prize < e["seq"]:
            v.append(Violation("GTD-1", _at(e), "the overlay was paid after a prize"))
    pool = sum(e["buy_in"] for e in registered) + overlay + _flights_pool(log)
    fees = sum(e["fee"] for e in registered)
    prizes = sum(e["amount"] for e in log if e["type"] == "prize_awarded")
    prizes += sum(e["pool"] for e in log if e["type"] == "flight_bagged")  # FL-3: to Day 2
    prizes += sum(
        e["equal_share"] + e["chip_share"] for e in log if e["type"] == "roll_forward_paid"
    )
    prizes += sum(e["amount"] for e in log if e["type"] == "deal_paid")  # DEAL-3
    cancelled_at = next((e["seq"] for e in log if e["type"] == "tournament_cancelled"), None)
    if cancelled_at is not None:  # CRASH-2 gives each player still in the fee back
        fees -= sum(e["amount"] for e in log if e["type"] == "refund" and e["seq"] > cancelled_at)
    if prizes != pool:
        v.append(
            Violation("REG-1", "events.jsonl", f"prizes add up to {prizes}, the pool is {pool}")
        )
    balance: Counter[str] = Counter()
    for e in log:
        if e["type"] == "ledger_posted":
            balance[e["source"]] -= e["amount"]
            balance[e["target"]] += e["amount"]
    operator = fees - overlay  # GTD-1: the overlay came from the operator's own money
    carried = sum(e["pool"] for e in log if e["type"] == "flight_bagged") - _flights_pool(log)
    if balance["event"] != carried:  # FL-3: a flight's pool went to Day 2, Day 2's came from them
        v.append(Violation("FL-3", "events.jsonl", f"{balance['event']} cents moved for Day 2"))
    if sum(balance.values()) != 0 or balance["pool"] != 0 or balance["operator"] != operator:
        v.append(
            Violation(
                "ledger",
                "events.jsonl",
                f"postings leave the pool at {balance['pool']} (0 expected) and the operator "
                f"at {balance['operator']} ({operator} expected), net {sum(balance.values())}",
            )
        )
    return v + _bounty_money(log, balance["bounties"])


def _bounty_money(log: Sequence[EventRecord], left: int) -> list[Violation]:
    """KO-5: the bounty money paid in leaves the `bounties` account to the cent, and every cent
    paid out is a `bounty_won` or `bounty_returned` (refunded entries aside)."""
    v: list[Violation] = []
    if left:
        v.append(Violation("KO-5", "events.jsonl", f"the bounties still hold {left} cents"))
    paid = sum(e["cash"] for e in log if e["type"] == "bounty_won")
    paid += sum(e["amount"] for e in log if e["type"] == "bounty_returned")
    posted = sum(
        e["amount"]
        for e in log
        if e["type"] == "ledger_posted" and e.get("reason") in ("bounty_won", "bounty_returned")
    )
    if paid != posted:
        v.append(
            Violation("KO-5", "events.jsonl", f"bounties of {paid} cents, postings of {posted}")
        )
    return v + _eliminators(log)


def _eliminators(log: Sequence[EventRecord]) -> list[Violation]:
    """KO-3: whoever a `bounty_won` names won chips of the smallest pot (fewest players
    eligible) the eliminated player was in, in the hand that caused it."""
    v: list[Violation] = []
    hands = {e["seq"]: e for e in log if e["type"] == "hand_finished"}
    for e in log:
        hand = hands.get(e.get("cause", 0))
        if e["type"] != "bounty_won" or hand is None:
            continue
        seats = {p["player"]: p["seat"] for p in hand["players"]}
        try:
            pots = from_json(hand.get("pots", []), tuple[HandPot, ...], _at(hand))
        except RecordError as exc:
            v.append(Violation("KO-3", _at(hand), str(exc)))
            continue
        smallest = eliminators_pot(seats.get(e["eliminated"], -1), pots)
        if smallest is None or seats.get(e["player"]) not in dict(smallest.winners):
            v.append(
                Violation(
                    "KO-3",
                    _at(e),
                    f"{e['player']} won no share of the smallest pot {e['eliminated']} was in",
                )
            )
    return v


def _flights_pool(log: Sequence[EventRecord]) -> int:
    """FL-3: the pool a Day 2 received from its flights (0 for any other run)."""
    return sum(e["pool"] for e in log if e["type"] == "day2_started")


def _overlay(log: Sequence[EventRecord]) -> int:
    """GTD-1: what the operator paid into the pool; logged once, before any prize."""
    return sum(e["overlay"] for e in log if e["type"] == "overlay_paid")


# --- hand histories -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandRecord:
    """What a hand history says about one hand, for the checks across files."""

    table: int
    hand: int
    players: frozenset[Seat]
    serial: int
    deck: bytes
    where: str


@dataclass(slots=True)
class HandsAudit:
    violations: list[Violation] = field(default_factory=list)
    hands: list[HandRecord] = field(default_factory=list)  # read, whatever their verdict
    replayed: int = 0  # replayed in pokerkit to their written finishing stacks
    decks_verified: int = 0  # commitment verified


_PHH_FIELDS: dict[str, Kind] = {
    "table": int,
    "hand": int,
    "seats": list,
    "players": list,
    "starting_stacks": list,
    "finishing_stacks": list,
    "actions": list,
    "_deck": str,
    "_deck_serial": int,
    "_deck_commitment": str,
    "_deck_salt": str,
}


def audit_hands(sections: Iterable[PhhSection]) -> HandsAudit:
    """Each hand replays in pokerkit to its finishing stacks (PHH contract, HE-7 odd chips),
    its deck is a deck (52 distinct cards) with a verified commitment (DESIGN.md "Decks"),
    and its dealt cards follow the deck in HE-3 order."""
    audit = HandsAudit()
    for section in sections:
        f = section.fields
        bad = [k for k, kind in _PHH_FIELDS.items() if not _is(f.get(k), kind)]
        n = len(f.get("players", ()))
        if not bad and not (
            len(f["seats"]) == len(f["starting_stacks"]) == len(f["finishing_stacks"]) == n
        ):
            bad.append("seats/players/stacks of one length")
        if bad:
            audit.violations.append(Violation("PHH", section.where, f"lacks or mistypes {bad}"))
            continue
        where = f"{section.where} (table {f['table']} hand {f['hand']})"
        seats = zip(
            f["players"], f["seats"], f["starting_stacks"], f["finishing_stacks"], strict=True
        )
        try:
            deck = bytes(validate_deck(parse_cards(f["_deck"])))
        except (ValueError, InvalidDeck) as exc:
            audit.violations.append(Violation("RNG", where, f"not a deck: {exc}"))
            deck = b""
        audit.hands.append(
            HandRecord(f["table"], f["hand"], frozenset(seats), f["_deck_serial"], deck, where)
        )
        audit.violations += _replay(section, where, audit)
        if deck:
            audit.violations += _commitment(f, deck, where, audit)
            audit.violations += _dealing_order(f["actions"], deck, n, where)
    return audit


def _replay(section: PhhSection, where: str, audit: HandsAudit) -> list[Violation]:
    try:
        (replayed,) = replay_phhs(section.text)
    except Exception as exc:  # pokerkit reading untrusted text: any failure is a verdict on it
        return [Violation("PHH", where, f"pokerkit cannot replay it: {exc}")]
    written = list(section.fields["finishing_stacks"])
    if list(replayed.he7_stacks) != written:
        return [
            Violation(
                "HE-7",
                where,
                f"finishing stacks {written}, the replay gives {list(replayed.he7_stacks)}",
            )
        ]
    audit.replayed += 1
    return []


def _commitment(f: dict[str, Any], deck: bytes, where: str, audit: HandsAudit) -> list[Violation]:
    try:
        salt, committed = bytes.fromhex(f["_deck_salt"]), bytes.fromhex(f["_deck_commitment"])
    except ValueError:
        return [Violation("commitment", where, "salt or commitment is not hex")]
    if not verify_commitment(deck, salt, committed):
        return [
            Violation(
                "commitment", where, f"deck {f['_deck_serial']} does not match its commitment"
            )
        ]
    audit.decks_verified += 1
    return []


def _dealing_order(actions: list[Any], deck: bytes, n: int, where: str) -> list[Violation]:
    """HE-3: hole cards one at a time from p1 (deck[k] and deck[n + k] to p(k+1)), then burn,
    flop, burn, turn, burn, river; shown cards are the ones dealt (HE-6)."""
    v: list[Violation] = []
    hole = {f"p{k + 1}": cards_text([deck[k], deck[n + k]]) for k in range(n)}
    base = 2 * n
    boards = iter([deck[base + 1 : base + 4], deck[base + 5 : base + 6], deck[base + 7 : base + 8]])
    for action in actions:
        words = str(action).split()
        if words[:2] == ["d", "dh"] and len(words) == 4:
            expected = hole.get(words[2])
        elif words[:2] == ["d", "db"] and len(words) == 3:
            expected = cards_text(next(boards, b""))
        elif len(words) == 3 and words[1] == "sm":
            expected = hole.get(words[0])
        else:
            continue
        if words[-1] != expected:
            rule = "HE-6" if words[1] == "sm" else "HE-3"
            v.append(Violation(rule, where, f"{action!r}: the deck deals {expected}"))
    return v


def audit_unique_decks(hands: Iterable[HandRecord]) -> list[Violation]:
    """No deck dealt twice in a run, by serial or by cards (RNG-3)."""
    v: list[Violation] = []
    by_serial: dict[int, str] = {}
    by_cards: dict[bytes, str] = {}
    for hand in hands:
        if hand.serial in by_serial:
            first = by_serial[hand.serial]
            v.append(Violation("RNG-3", hand.where, f"deck serial {hand.serial} also at {first}"))
        by_serial.setdefault(hand.serial, hand.where)
        if hand.deck and hand.deck in by_cards:
            v.append(Violation("RNG-3", hand.where, f"the same deck as {by_cards[hand.deck]}"))
        by_cards.setdefault(hand.deck, hand.where)
    return v


def audit_hands_against_log(
    log: Sequence[EventRecord], hands: Sequence[HandRecord]
) -> list[Violation]:
    """Every hand_finished has its hand history with the same players, seats, starting and
    finishing stacks, and every hand history its hand_finished; a voided hand (`hand_voided`,
    DESIGN.md "Failure model") may be missing or extra."""
    v: list[Violation] = []
    voided = {(e["table"], e["hand"]) for e in log if e.get("type") == "hand_voided"}
    written: dict[tuple[int, int], HandRecord] = {}
    for hand in hands:
        key = (hand.table, hand.hand)
        if key in written:
            v.append(Violation("PHH", hand.where, f"hand also written at {written[key].where}"))
        written.setdefault(key, hand)
    logged: set[tuple[int, int]] = set()
    for e in log:
        if e.get("type") != "hand_finished":
            continue
        key = (e["table"], e["hand"])
        logged.add(key)
        if key in voided:
            continue
        record = written.get(key)
        if record is None:
            v.append(Violation("PHH", _at(e), f"table {key[0]} hand {key[1]} has no hand history"))
            continue
        players = {(p["player"], p["seat"], p["start"], p["end"]) for p in e["players"]}
        if players != record.players:
            v.append(
                Violation(
                    "PHH",
                    record.where,
                    f"(player, seat, start, end) {sorted(record.players - players)} "
                    f"where {_at(e)} has {sorted(players - record.players)}",
                )
            )
    for key, record in written.items():
        if key not in logged and key not in voided:
            v.append(Violation("PHH", record.where, "no hand_finished for this hand in the log"))
    return v


# --- results.json ---------------------------------------------------------------------------


def audit_results(log: Sequence[EventRecord], results: dict[str, Any]) -> list[Violation]:
    """results.json agrees with the log: places, prizes, prize pool, entries and hands."""
    v: list[Violation] = []
    rows = results.get("places")
    if not isinstance(rows, list) or not all(
        isinstance(r, dict)
        and _is(r.get("place"), int)
        and _is(r.get("player"), str)
        and _is(r.get("prize"), int)
        for r in rows
    ):
        return [
            Violation("contract", "results.json", "places is not a list of {place, player, prize}")
        ]
    places = {e["player"]: e["place"] for e in log if e.get("type") == "player_eliminated"}
    for e in log:
        if e.get("type") == "tournament_finished":
            places[e["winner"]] = 1
    for e in log:  # DEAL-3: a deal that ended the tournament placed its players
        if e.get("type") == "deal_paid" and e["place"]:
            places[e["player"]] = e["place"]
    prizes: Counter[str] = Counter()
    for e in log:
        if e.get("type") == "deal_paid":
            prizes[e["player"]] += e["amount"]
        if e.get("type") == "roll_forward_paid":
            prizes[e["player"]] += e["equal_share"] + e["chip_share"]
        if e.get("type") == "prize_awarded":
            prizes[e["player"]] += e["amount"]
            if places.get(e["player"]) != e["place"]:
                v.append(
                    Violation(
                        "ELIM-1", _at(e), f"prize for place {e['place']}, not {e['player']}'s"
                    )
                )
    bounties: Counter[str] = Counter()  # KO-5: every bounty cent each player received
    for e in log:
        if e.get("type") == "bounty_won":
            bounties[e["player"]] += e["cash"]
        if e.get("type") == "bounty_returned":
            bounties[e["player"]] += e["amount"]
    for r in rows:
        if "bounties" in r and r["bounties"] != bounties[r["player"]]:
            v.append(
                Violation(
                    "KO-5",
                    f"results.json place {r['place']}",
                    f"bounties {r['bounties']}, the log pays {bounties[r['player']]}",
                )
            )
    by_log = sorted((place, player) for player, place in places.items())
    by_results = sorted((r["place"], r["player"]) for r in rows)
    if by_log != by_results:
        differ = sorted(set(by_log) ^ set(by_results))
        v.append(Violation("ELIM-1", "results.json", f"places differ from the log: {differ}"))
    for r in rows:
        if r["prize"] != prizes[r["player"]]:
            v.append(
                Violation(
                    "REG-1",
                    f"results.json place {r['place']}",
                    f"prize {r['prize']}, the log awards {r['player']} {prizes[r['player']]}",
                )
            )
    registered = [e for e in log if e.get("type") == "player_registered"]
    day2 = [e["entries"] for e in log if e.get("type") == "day2_started"]  # FL-3: all entries
    expected = {
        "prize_pool": sum(e["buy_in"] for e in registered) + _overlay(log) + _flights_pool(log),
        "players": day2[0] if day2 else len(registered),
        "hands": sum(e.get("type") == "hand_finished" for e in log),
    }
    for key, value in expected.items():
        if results.get(key) != value:
            v.append(
                Violation(
                    "contract", f"results.json {key}", f"{results.get(key)!r}, the log says {value}"
                )
            )
    return v


# --- a run's folder -------------------------------------------------------------------------


@dataclass(slots=True)
class AuditReport:
    violations: list[Violation] = field(default_factory=list)
    runs: int = 0  # the main event and its side events
    hands: int = 0  # replayed to their finishing stacks
    decks: int = 0  # commitments verified
    players: int = 0  # places in the logs

    def verdict(self) -> str:
        counts = (
            f"{self.runs} event(s): {self.hands} hands replayed, {self.decks} decks verified, "
            f"{self.players} players placed"
        )
        if not self.violations:
            return f"OK: {counts}"
        return f"FAILED: {len(self.violations)} violation(s); {counts}"


def audit_run(folder: Path) -> AuditReport:
    """Audit `mtt run --out` output: the folder and every side event in `side-events/N/`.
    Raises UnreadableRun when a file the audit needs is missing or cannot be parsed."""
    if not folder.is_dir():
        raise UnreadableRun(f"{folder}: no such folder")
    report = AuditReport()
    all_hands: list[HandRecord] = []
    log = _audit_one(folder, "", report, all_hands)
    announced = [
        e["event"]
        for e in log
        if e.get("type") == "side_event_started" and _is(e.get("event"), int)
    ]
    for event in announced:  # RB-6: each side event keeps the same contracts in its folder
        _audit_one(folder / "side-events" / str(event), f"side-events/{event}/", report, all_hands)
    on_disk = sorted(p.name for p in (folder / "side-events").glob("*") if p.is_dir())
    for name in sorted(set(on_disk) - {str(e) for e in announced}):
        report.violations.append(
            Violation("RB-6", f"side-events/{name}/", "no side_event_started in the log")
        )
    report.violations += audit_unique_decks(all_hands)
    return report


def _audit_one(
    folder: Path, prefix: str, report: AuditReport, all_hands: list[HandRecord]
) -> list[EventRecord]:
    log = read_events(folder / "events.jsonl")
    results = read_results(folder / "results.json")
    hands = audit_hands(read_hand_files(folder / "hands", relative_to=folder))
    found = audit_events(log)
    if not _shapes(log):  # the cross-checks read the fields whose shape this vouches for
        found += audit_hands_against_log(log, hands.hands)
        found += audit_results(log, results)
    found += hands.violations
    report.violations += [replace(x, where=prefix + x.where) for x in found]
    all_hands += [replace(h, where=prefix + h.where) for h in hands.hands]
    report.runs += 1
    report.hands += hands.replayed
    report.decks += hands.decks_verified
    report.players += sum(
        e.get("type") in ("player_eliminated", "tournament_finished") for e in log
    )
    return log
