"""The hand histories (`hands/*.phhs`): each hand replays in pokerkit to its finishing stacks,
its deck is a deck with a verified commitment and deals in HE-3 order, no deck is dealt twice
(RNG-3), and the hands agree with the log's `hand_finished` records."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from orchestrator.core.codec import Recorded
from orchestrator.core.events import EventRecord, HandFinished, HandVoided
from orchestrator.views.audit.files import PhhSection
from orchestrator.views.audit.tally import decode_log
from orchestrator.views.audit.violations import Kind, Violation, at_seq, is_a
from rng_service.commit import verify_commitment
from table_worker.cards import cards_text, parse_cards, validate_deck
from table_worker.errors import InvalidDeck
from table_worker.oracle import replay_phhs

__all__ = [
    "HandRecord",
    "HandsAudit",
    "audit_hands",
    "audit_hands_against_log",
    "audit_unique_decks",
    "hands_against_log",
]

Seat = tuple[str, int, int, int]  # (player, seat, start, end)


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
        bad = [k for k, kind in _PHH_FIELDS.items() if not is_a(f.get(k), kind)]
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
    """`hands_against_log` on the log's records as read; a record the codec cannot read is
    the log's violation (`audit_events` names it), not a hand's."""
    return hands_against_log(decode_log(log).records, hands)


def hands_against_log(log: Sequence[Recorded], hands: Sequence[HandRecord]) -> list[Violation]:
    """Every hand_finished has its hand history with the same players, seats, starting and
    finishing stacks, and every hand history its hand_finished; a voided hand (`hand_voided`,
    DESIGN.md "Failure model") may be missing or extra."""
    v: list[Violation] = []
    voided = {(r.event.table, r.event.hand) for r in log if isinstance(r.event, HandVoided)}
    written: dict[tuple[int, int], HandRecord] = {}
    for hand in hands:
        key = (hand.table, hand.hand)
        if key in written:
            v.append(Violation("PHH", hand.where, f"hand also written at {written[key].where}"))
        written.setdefault(key, hand)
    logged: set[tuple[int, int]] = set()
    for r in log:
        e = r.event
        if not isinstance(e, HandFinished):
            continue
        key = (e.table, e.hand)
        logged.add(key)
        if key in voided:
            continue
        record = written.get(key)
        if record is None:
            v.append(
                Violation("PHH", at_seq(r.seq), f"table {key[0]} hand {key[1]} has no hand history")
            )
            continue
        players = {(p.player, p.seat, p.start, p.end) for p in e.players}
        if players != record.players:
            v.append(
                Violation(
                    "PHH",
                    record.where,
                    f"(player, seat, start, end) {sorted(record.players - players)} "
                    f"where {at_seq(r.seq)} has {sorted(players - record.players)}",
                )
            )
    for key, record in written.items():
        if key not in logged and key not in voided:
            v.append(Violation("PHH", record.where, "no hand_finished for this hand in the log"))
    return v
