"""One SQLite file opened for durable writes, as the event store and the wallets both use it:
WAL with `synchronous=FULL` (a commit is on disk before it returns), one connection shared
by threads under a lock, every SQLite failure a `StoreError` naming what was asked."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from orchestrator.shell.errors import store_error

__all__ = ["SqliteFile"]


class SqliteFile:
    def __init__(self, path: str, schema: str, *, name: str) -> None:
        """`name` starts every error's message ("sqlite store", "sqlite accounts")."""
        self._name = name
        self._lock = threading.Lock()
        try:
            # check_same_thread=False: a shell may call from a worker thread; _lock serialises.
            self._db = sqlite3.connect(
                path, timeout=5.0, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(schema)
        except sqlite3.Error as exc:
            raise store_error(exc, f"{name}: cannot open {path!r}") from exc

    @contextmanager
    def transaction(self, what: str) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE .. COMMIT under the lock: writers queue up instead of failing
        mid-transaction; anything raised inside rolls back."""
        with self.reading(what) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    @contextmanager
    def reading(self, what: str) -> Iterator[sqlite3.Connection]:
        """The connection under the lock; an SQLite failure inside is a `StoreError`."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:  # "database is locked": StoreUnavailable (`store_error`)
                raise store_error(exc, f"{self._name}: {what}") from exc

    def query(self, what: str, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self.reading(what) as db:
            return db.execute(sql, args).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()
