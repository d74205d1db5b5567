"""The `Store` port (DESIGN.md "Stores"): what every backend promises, and the checks they share.

A backend is a shell: it reads the clock (lease expiry) and talks to its driver, translating
driver errors at the boundary into `orchestrator.errors.StoreError` and its subclasses.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any, Protocol

from orchestrator.errors import StoreCorrupted
from rng_service.store import DeckStore

__all__ = [
    "Store",
    "check_batch",
    "check_limit",
    "check_tournament",
    "decode_meta",
    "decode_record",
    "encode_record",
    "ttl_millis",
]


class Store(Protocol):
    """Per tournament: an append-only event log, the latest snapshot, a registry entry and an
    ownership lease; plus the used-deck store. Synchronous; one thread at a time per instance.

    Every method may raise `StoreUnavailable` (backend unreachable). Records are JSON objects
    (dicts) each carrying its integer `seq`; the log of a tournament is 1, 2, 3, ... with no gap.
    """

    def append(self, tournament: str, records: Sequence[dict[str, Any]]) -> None:
        """Append a batch atomically, all or nothing. The first record's seq must be
        `last_seq() + 1` and the batch consecutive; otherwise `LogConflict` and nothing is
        written. An empty batch is a no-op. A record without an int `seq`, or a batch whose
        seqs are not consecutive, is a programming error (`ValueError`)."""
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
