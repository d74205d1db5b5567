"""Used-deck store in an embedded SQLite file (the single-machine default, RNG-3)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from rng_service.errors import DeckStoreError, DeckStoreUnavailable
from rng_service.store.base import check_digests

__all__ = ["SqliteDeckStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS used_decks (
    serial INTEGER PRIMARY KEY,      -- never deleted, so rowids are never reused
    digest BLOB NOT NULL UNIQUE      -- 16 bytes, commit.deck_digest
)
"""


def _translate(exc: sqlite3.Error, what: str) -> DeckStoreError:
    # OperationalError covers "database is locked" and "unable to open": transient/outside us.
    kind = DeckStoreUnavailable if isinstance(exc, sqlite3.OperationalError) else DeckStoreError
    return kind(f"sqlite used-deck store: {what}: {exc}")


class SqliteDeckStore:
    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        try:
            # check_same_thread=False: the server calls us from a worker thread; _lock serialises.
            self._db = sqlite3.connect(
                path, timeout=5.0, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise _translate(exc, f"cannot open {path!r}") from exc

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
