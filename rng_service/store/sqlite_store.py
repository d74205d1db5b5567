"""Used-deck store in an embedded SQLite file (the single-machine default, RNG-3)."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Sequence

from rng_service.errors import DeckStoreError, DeckStoreUnavailable
from rng_service.store.base import EPOCH_KEY, check_digests, lost

__all__ = ["SqliteDeckStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS used_decks (
    serial INTEGER PRIMARY KEY,      -- never deleted, so rowids are never reused
    digest BLOB NOT NULL UNIQUE      -- 16 bytes, commit.deck_digest
);
CREATE TABLE IF NOT EXISTS store_epoch (  -- one row: the store's generation (base.EPOCH_KEY)
    name TEXT PRIMARY KEY,
    epoch TEXT NOT NULL
);
"""


def _translate(exc: sqlite3.Error, what: str) -> DeckStoreError:
    # OperationalError covers "database is locked" and "unable to open": transient/outside us.
    kind = DeckStoreUnavailable if isinstance(exc, sqlite3.OperationalError) else DeckStoreError
    return kind(f"sqlite used-deck store: {what}: {exc}")


class SqliteDeckStore:
    """Its epoch is checked when it is opened: a file removed or replaced under an open
    connection leaves that connection on the file it opened, so writes need no check."""

    def __init__(self, path: str, *, epoch: str | None = None) -> None:
        self._lock = threading.Lock()
        try:
            # check_same_thread=False: the server calls us from a worker thread; _lock serialises.
            self._db = sqlite3.connect(
                path, timeout=5.0, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            if epoch is None:  # a store opened for the first time gets its epoch now
                self._db.execute(
                    "INSERT OR IGNORE INTO store_epoch (name, epoch) VALUES (?, ?)",
                    (EPOCH_KEY, uuid.uuid4().hex),
                )
            row = self._db.execute(
                "SELECT epoch FROM store_epoch WHERE name = ?", (EPOCH_KEY,)
            ).fetchone()
        except sqlite3.Error as exc:
            raise _translate(exc, f"cannot open {path!r}") from exc
        found = None if row is None else str(row[0])
        if found is None or (epoch is not None and found != epoch):
            self._db.close()
            raise lost(f"sqlite:///{path}", epoch or "(just written)", found)
        self.epoch = found

    def record_new(self, digests: Sequence[bytes]) -> list[int | None]:
        check_digests(digests)
        serials: list[int | None] = []
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for digest in digests:
                        cur = self._db.execute(
                            "INSERT OR IGNORE INTO used_decks (digest) VALUES (?)", (digest,)
                        )
                        serials.append(cur.lastrowid if cur.rowcount == 1 else None)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise _translate(exc, "record failed") from exc
        return serials

    def count(self) -> int:
        with self._lock:
            try:
                row = self._db.execute("SELECT coalesce(max(serial), 0) FROM used_decks").fetchone()
            except sqlite3.Error as exc:
                raise _translate(exc, "count failed") from exc
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
