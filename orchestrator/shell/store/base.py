"""The `Store` port (DESIGN.md "Stores"): what every backend promises, and the checks they share.

The store is the tournament's only record: its event log and every hand's history, which
arrive together (`append(tournament, records, hands=...)`, one transaction), its snapshots, its
registry entry and lease, and the used decks. Files are exports of it
(`orchestrator.shell.export`).

A backend is a shell: it reads the clock (lease expiry) and talks to its driver, translating
driver errors at the boundary into `orchestrator.errors.StoreError` and its subclasses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from orchestrator.errors import StoreCorrupted, StoreLost
from orchestrator.shell.store.accounts import Accounts
from rng_service.store import DeckStore

__all__ = [
    "HAND_KEY_LIMIT",
    "Store",
    "StoredHand",
    "check_batch",
    "check_hand_page",
    "check_hands",
    "check_limit",
    "check_tournament",
    "decode_meta",
    "decode_record",
    "encode_record",
    "ttl_millis",
]


HAND_KEY_LIMIT = 10**10  # table and hand numbers are below this (the Redis index pads to 10)


@dataclass(frozen=True, slots=True)
class StoredHand:
    """One finished hand's history as its table wrote it: the PHH section (`[hand]` and its
    fields, `table_worker.phh.phhs_section`), keyed by (table, hand) in its tournament."""

    table: int
    hand: int
    text: str


class Store(Protocol):
    """Per tournament: an append-only event log with the hand histories committed with it, the
    latest snapshot, a registry entry and an ownership lease; plus the used-deck store.
    Synchronous and thread-safe (calls on one instance are serialised where the backend needs
    it), so a shell may write from a worker thread while its event loop reads.

    Every method may raise `StoreUnavailable` (backend unreachable). Records are JSON objects
    (dicts) each carrying its integer `seq`; the log of a tournament is 1, 2, 3, ... with no gap.
    """

    def append(
        self,
        tournament: str,
        records: Sequence[dict[str, Any]],
        hands: Sequence[StoredHand] = (),
    ) -> None:
        """Append a batch of records and hand histories atomically (one transaction, one
        fsync), all or nothing. The first record's seq must be `last_seq() + 1` and the batch
        consecutive; otherwise `LogConflict` and nothing is written. A hand whose (table, hand)
        is already stored with the same text is skipped (a retried report), with another text
        `HandConflict` and nothing is written. An empty batch is a no-op; hands may come
        without records. A record without an int `seq`, seqs not consecutive, or a hand whose
        table or hand is not an int in 0..HAND_KEY_LIMIT-1 or whose text is not a str, is a
        programming error (`ValueError`)."""
        ...

    def read_hands(
        self, tournament: str, after: tuple[int, int] | None = None, limit: int | None = None
    ) -> list[StoredHand]:
        """The stored hand histories ordered by table then hand, those with (table, hand) >
        `after` (all without it), at most `limit` of them: page with the last one's key."""
        ...

    def read(
        self, tournament: str, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Records with seq > `after`, in order, at most `limit` of them. `StoreCorrupted`
        (naming tournament and seq) if one cannot be decoded."""
        ...

    def last_seq(self, tournament: str) -> int:
        """The seq of the last record, 0 for an empty (or unknown) log."""
        ...

    def save_snapshot(self, tournament: str, seq: int, state: bytes) -> None:
        """Keep `state` as the tournament's state after event `seq`. The snapshot with the
        highest seq wins (saving an older one changes nothing); `seq` beyond the log's end is
        refused with `LogConflict` (a snapshot must never cover events the log lost)."""
        ...

    def load_snapshot(self, tournament: str) -> tuple[int, bytes] | None:
        """The latest snapshot as (seq, state), or None."""
        ...

    def register(self, tournament: str, meta: dict[str, Any]) -> None:
        """Add the tournament to the registry; `TournamentExists` if it is already there."""
        ...

    def tournaments(self) -> list[str]:
        """Registered tournaments, sorted by name."""
        ...

    def meta(self, tournament: str) -> dict[str, Any]:
        """What `register` stored; `UnknownTournament` if never registered."""
        ...

    def acquire(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        """Take the ownership lease if it is free or expired, or extend it if already ours."""
        ...

    def renew(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        """Extend our lease; False if it expired or someone else holds it (we lost it)."""
        ...

    def release(self, tournament: str, owner: str) -> None:
        """Give the lease up if we hold it; a no-op otherwise."""
        ...

    def owner(self, tournament: str) -> str | None:
        """Who holds the lease now, None if nobody (free or expired)."""
        ...

    @property
    def decks(self) -> DeckStore:
        """The deck service's used-deck store at the same URL (opened on first use)."""
        ...

    @property
    def accounts(self) -> Accounts:
        """The built-in wallet at the same URL (`orchestrator.shell.store.accounts`), opened on
        first use and closed with the store."""
        ...

    def check_epoch(self, expected: str) -> None:
        """`StoreLost` unless the store holds `expected`, the epoch it had when the run began
        (`decks.epoch`, one for both stores at a URL). A store opened with `epoch=` checks it
        on every append too, where it can lose its data under an open connection (Redis)."""
        ...

    def close(self) -> None:
        """Release connections (and the deck store's); the store is not used after this."""
        ...


def check_tournament(tournament: str) -> None:
    if not isinstance(tournament, str) or not tournament:
        raise ValueError(f"a tournament id is a non-empty string, got {tournament!r}")


def check_batch(records: Sequence[dict[str, Any]]) -> int:
    """The first seq of a well-formed batch (0 if empty); ValueError if not consecutive."""
    seqs = []
    for record in records:
        seq = record.get("seq") if isinstance(record, dict) else None
        # bool is an int subclass: True is not a seq.
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise ValueError(f"every record needs an integer seq >= 1, got {record!r}")
        seqs.append(seq)
    if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        raise ValueError(f"a batch's seqs must be consecutive, got {seqs}")
    return seqs[0] if seqs else 0


def check_hands(hands: Sequence[StoredHand]) -> None:
    """ValueError for a hand that no backend could key or store."""
    for hand in hands:
        if not isinstance(hand, StoredHand) or not isinstance(hand.text, str):
            raise ValueError(f"a hand history is a StoredHand with a str text, got {hand!r:.200}")
        for number in (hand.table, hand.hand):
            if not isinstance(number, int) or isinstance(number, bool):
                raise ValueError(f"a hand's table and number are ints, got {hand!r:.200}")
            if not 0 <= number < HAND_KEY_LIMIT:
                raise ValueError(
                    f"a hand's table and number are 0..{HAND_KEY_LIMIT - 1}: {hand!r:.200}"
                )


def check_hand_page(after: tuple[int, int] | None, limit: int | None) -> tuple[int, int] | None:
    """`after` as a (table, hand) pair, or None; ValueError for anything else."""
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if after is None:
        return None
    table, hand = after
    for number in (table, hand):
        if not isinstance(number, int) or isinstance(number, bool):
            raise ValueError(f"after is a (table, hand) pair of ints, got {after!r}")
        if not 0 <= number < HAND_KEY_LIMIT:
            raise ValueError(f"after's table and hand are 0..{HAND_KEY_LIMIT - 1}: {after!r}")
    return table, hand


def check_limit(after: int, limit: int | None) -> None:
    if after < 0 or (limit is not None and limit < 0):
        raise ValueError(f"after and limit must be >= 0, got after={after} limit={limit}")


def ttl_millis(ttl_seconds: float) -> int:
    if not math.isfinite(ttl_seconds) or ttl_seconds <= 0:
        raise ValueError(f"a lease TTL is a positive number of seconds, got {ttl_seconds}")
    return max(1, round(ttl_seconds * 1000))


def encode_record(record: dict[str, Any]) -> str:
    # Compact and key order kept: the stored text is what events.jsonl would hold.
    return json.dumps(record, separators=(",", ":"), allow_nan=False)


def decode_record(tournament: str, seq: int, text: str | bytes) -> dict[str, Any]:
    """A stored record, checked to be a JSON object with the seq its key says."""
    try:
        record = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreCorrupted(tournament, seq, f"not JSON: {exc}") from exc
    if not isinstance(record, dict) or record.get("seq") != seq:
        raise StoreCorrupted(tournament, seq, f"not a record with seq {seq}: {text!r:.200}")
    return record


def decode_meta(tournament: str, text: str | bytes) -> dict[str, Any]:
    try:
        meta = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreCorrupted(tournament, None, f"registry entry is not JSON: {exc}") from exc
    if not isinstance(meta, dict):
        raise StoreCorrupted(tournament, None, "registry entry is not a JSON object")
    return meta


def store_lost(url: str, expected: str, found: str | None) -> StoreLost:
    """The error of a store that does not hold the epoch it held when the run began."""
    held = "no epoch" if not found else f"epoch {found}"
    return StoreLost(
        f"the store {url} lost its data: it holds {held}, not epoch {expected} (restarted "
        "empty, or replaced?); nothing more is written to it, and no deck is dealt from it"
    )
