"""The tournament store in one embedded SQLite file (the single-machine default).

Durability: WAL journal with `synchronous=FULL`. In WAL mode `NORMAL` fsyncs only at
checkpoints, so a power loss can drop the last committed appends although the orchestrator
already acted on them; `FULL` fsyncs the WAL on every commit, which is what write-ahead means
(an event is on disk before the action it records is carried out). A crash of the process
alone loses nothing in either mode. The used-deck store (`decks`) lives in the same file under
its own connection and keeps its own `NORMAL` (a lost deck record only burns decks).

The log's key is (tournament, seq), unique, so a duplicate append is refused by SQLite itself
even if the check before it were wrong. Hand histories live in `hands`, keyed by (tournament,
table, hand), written in the same transaction as the records they came with: a group commit of
many reports is one `BEGIN IMMEDIATE .. COMMIT`, one fsync of the WAL. A process killed in the
middle of it leaves frames without a commit record in the WAL, which SQLite ignores when the
file is next opened: all of the batch or none. Leases store an absolute expiry read from this
process's wall clock (`clock`), so every process sharing the file must have its clock in sync
(same machine: trivially).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from orchestrator.errors import (
    HandConflict,
    LogConflict,
    StoreCorrupted,
    StoreError,
    TournamentExists,
    UnknownTournament,
)
from orchestrator.shell.store.accounts import Accounts
from orchestrator.shell.store.base import (
    StoredHand,
    check_batch,
    check_hand_page,
    check_hands,
    check_limit,
    check_tournament,
    decode_meta,
    decode_record,
    encode_record,
    store_lost,
    ttl_millis,
)
from orchestrator.shell.store.sqlite_accounts import SqliteAccounts
from orchestrator.shell.store.sqlite_file import SqliteFile
from rng_service.store import DeckStore, SqliteDeckStore
from rng_service.store.base import EPOCH_KEY

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    tournament TEXT NOT NULL,
    seq INTEGER NOT NULL,
    record TEXT NOT NULL,               -- the JSON record, seq included
    UNIQUE (tournament, seq)            -- a duplicate is refused by SQLite itself
);
CREATE TABLE IF NOT EXISTS hands (
    tournament TEXT NOT NULL,
    tbl INTEGER NOT NULL,
    hand INTEGER NOT NULL,
    history TEXT NOT NULL,              -- the PHH section, as the table wrote it
    PRIMARY KEY (tournament, tbl, hand)
);
CREATE TABLE IF NOT EXISTS snapshots (
    tournament TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    state BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    name TEXT PRIMARY KEY,
    meta TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (
    tournament TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_ms INTEGER NOT NULL         -- unix milliseconds, this machine's clock
);
"""


class SqliteStore:
    def __init__(self, path: str, *, clock: Callable[[], float] = time.time) -> None:
        self._path = path
        self._clock = clock
        self._file = SqliteFile(path, _SCHEMA, name="sqlite store")
        self._decks: DeckStore | None = None
        self._accounts: SqliteAccounts | None = None

    def _now_ms(self) -> int:
        return round(self._clock() * 1000)

    # -- event log --------------------------------------------------------------------------

    def append(
        self,
        tournament: str,
        records: Sequence[dict[str, Any]],
        hands: Sequence[StoredHand] = (),
    ) -> None:
        check_tournament(tournament)
        first = check_batch(records)
        check_hands(hands)
        if not records and not hands:
            return
        rows = [(tournament, r["seq"], encode_record(r)) for r in records]
        try:
            with self._file.transaction(f"append to {tournament!r}") as db:
                if records:
                    (last,) = db.execute(
                        "SELECT coalesce(max(seq), 0) FROM events WHERE tournament = ?",
                        (tournament,),
                    ).fetchone()
                    if first != last + 1:
                        raise LogConflict(tournament, last_seq=last, first_seq=first)
                new = self._new_hands(db, tournament, hands)
                db.executemany(
                    "INSERT INTO events (tournament, seq, record) VALUES (?, ?, ?)", rows
                )
                db.executemany(
                    "INSERT INTO hands (tournament, tbl, hand, history) VALUES (?, ?, ?, ?)",
                    [(tournament, h.table, h.hand, h.text) for h in new],
                )
        except StoreError as exc:
            if isinstance(exc.__cause__, sqlite3.IntegrityError):
                # The UNIQUE key caught what the check above should have: still a conflict.
                raise LogConflict(
                    tournament, last_seq=self.last_seq(tournament), first_seq=first
                ) from exc
            raise

    @staticmethod
    def _new_hands(
        db: sqlite3.Connection, tournament: str, hands: Sequence[StoredHand]
    ) -> list[StoredHand]:
        """The hands not stored yet; HandConflict for one stored (or earlier in the batch)
        with another text."""
        seen: dict[tuple[int, int], str] = {}
        new = []
        for hand in hands:
            key = (hand.table, hand.hand)
            there = seen.get(key)
            if there is None:
                row = db.execute(
                    "SELECT history FROM hands WHERE tournament = ? AND tbl = ? AND hand = ?",
                    (tournament, *key),
                ).fetchone()
                there = None if row is None else row[0]
            if there is None:
                new.append(hand)
            elif there != hand.text:
                raise HandConflict(tournament, table=hand.table, hand=hand.hand)
            seen[key] = hand.text
        return new

    def read_hands(
        self, tournament: str, after: tuple[int, int] | None = None, limit: int | None = None
    ) -> list[StoredHand]:
        check_tournament(tournament)
        table, hand = check_hand_page(after, limit) or (-1, -1)
        rows = self._file.query(
            f"read hands of {tournament!r}",
            "SELECT tbl, hand, history FROM hands WHERE tournament = ? AND (tbl, hand) > (?, ?) "
            "ORDER BY tbl, hand LIMIT ?",
            (tournament, table, hand, -1 if limit is None else limit),
        )
        return [StoredHand(t, h, text) for t, h, text in rows]

    def read(
        self, tournament: str, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        check_tournament(tournament)
        check_limit(after, limit)
        rows = self._file.query(
            f"read {tournament!r}",
            "SELECT seq, record FROM events WHERE tournament = ? AND seq > ? ORDER BY seq LIMIT ?",
            (tournament, after, -1 if limit is None else limit),
        )
        return [decode_record(tournament, seq, text) for seq, text in rows]

    def last_seq(self, tournament: str) -> int:
        check_tournament(tournament)
        rows = self._file.query(
            f"last seq of {tournament!r}",
            "SELECT coalesce(max(seq), 0) FROM events WHERE tournament = ?",
            (tournament,),
        )
        return int(rows[0][0])

    # -- snapshots --------------------------------------------------------------------------

    def save_snapshot(self, tournament: str, seq: int, state: bytes) -> None:
        check_tournament(tournament)
        with self._file.transaction(f"snapshot {tournament!r}") as db:
            (last,) = db.execute(
                "SELECT coalesce(max(seq), 0) FROM events WHERE tournament = ?", (tournament,)
            ).fetchone()
            if not 0 <= seq <= last:
                raise LogConflict(tournament, last_seq=last, first_seq=seq)
            db.execute(
                "INSERT INTO snapshots (tournament, seq, state) VALUES (?, ?, ?) "
                "ON CONFLICT (tournament) DO UPDATE SET seq = excluded.seq, state = excluded.state "
                "WHERE excluded.seq >= snapshots.seq",
                (tournament, seq, bytes(state)),
            )

    def load_snapshot(self, tournament: str) -> tuple[int, bytes] | None:
        check_tournament(tournament)
        rows = self._file.query(
            f"load snapshot of {tournament!r}",
            "SELECT seq, state FROM snapshots WHERE tournament = ?",
            (tournament,),
        )
        if not rows:
            return None
        seq, state = rows[0]
        if not isinstance(seq, int) or not isinstance(state, bytes):
            raise StoreCorrupted(tournament, None, "snapshot row has the wrong types")
        return seq, state

    # -- registry ---------------------------------------------------------------------------

    def register(self, tournament: str, meta: dict[str, Any]) -> None:
        check_tournament(tournament)
        text = json.dumps(meta, separators=(",", ":"), allow_nan=False)
        with self._file.transaction(f"register {tournament!r}") as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO tournaments (name, meta) VALUES (?, ?)", (tournament, text)
            )
            if cur.rowcount != 1:
                raise TournamentExists(f"tournament {tournament!r} is already registered")

    def tournaments(self) -> list[str]:
        rows = self._file.query("list tournaments", "SELECT name FROM tournaments ORDER BY name")
        return [name for (name,) in rows]

    def meta(self, tournament: str) -> dict[str, Any]:
        check_tournament(tournament)
        rows = self._file.query(
            f"meta of {tournament!r}", "SELECT meta FROM tournaments WHERE name = ?", (tournament,)
        )
        if not rows:
            raise UnknownTournament(f"tournament {tournament!r} is not registered")
        return decode_meta(tournament, rows[0][0])

    # -- leases -----------------------------------------------------------------------------

    def acquire(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        check_tournament(tournament)
        ttl = ttl_millis(ttl_seconds)
        with self._file.transaction(f"acquire lease on {tournament!r}") as db:
            now = self._now_ms()
            cur = db.execute(
                "INSERT INTO leases (tournament, owner, expires_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (tournament) DO UPDATE "
                "SET owner = excluded.owner, expires_ms = excluded.expires_ms "
                "WHERE leases.owner = excluded.owner OR leases.expires_ms <= ?",
                (tournament, owner, now + ttl, now),
            )
            return cur.rowcount == 1

    def renew(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        check_tournament(tournament)
        ttl = ttl_millis(ttl_seconds)
        with self._file.transaction(f"renew lease on {tournament!r}") as db:
            now = self._now_ms()
            # An expired lease is lost even if nobody took it yet, as on Redis (the key is gone).
            cur = db.execute(
                "UPDATE leases SET expires_ms = ? "
                "WHERE tournament = ? AND owner = ? AND expires_ms > ?",
                (now + ttl, tournament, owner, now),
            )
            return cur.rowcount == 1

    def release(self, tournament: str, owner: str) -> None:
        check_tournament(tournament)
        with self._file.transaction(f"release lease on {tournament!r}") as db:
            db.execute("DELETE FROM leases WHERE tournament = ? AND owner = ?", (tournament, owner))

    def owner(self, tournament: str) -> str | None:
        check_tournament(tournament)
        rows = self._file.query(
            f"lease owner of {tournament!r}",
            "SELECT owner FROM leases WHERE tournament = ? AND expires_ms > ?",
            (tournament, self._now_ms()),
        )
        return str(rows[0][0]) if rows else None

    # -- used decks, lifecycle --------------------------------------------------------------

    def check_epoch(self, expected: str) -> None:
        with self._file.reading("read the store's epoch") as db:
            try:
                row = db.execute(
                    "SELECT epoch FROM store_epoch WHERE name = ?", (EPOCH_KEY,)
                ).fetchone()
            except sqlite3.OperationalError:  # no such table: no deck store was ever opened
                row = None
        found = None if row is None else str(row[0])
        if found != expected:
            raise store_lost(f"sqlite:///{self._path}", expected, found)

    @property
    def decks(self) -> DeckStore:
        if self._decks is None:
            self._decks = SqliteDeckStore(self._path)
        return self._decks

    @property
    def accounts(self) -> Accounts:
        if self._accounts is None:
            self._accounts = SqliteAccounts(self._path)
        return self._accounts

    def close(self) -> None:
        if self._decks is not None:
            self._decks.close()
        if self._accounts is not None:
            self._accounts.close()
        self._file.close()
