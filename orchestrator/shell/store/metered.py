"""The tournament `Store` with every call timed and every error counted (Prometheus).

    store = MeteredStore(open_store(url), StoreMetrics(registry))

Same metrics as the deck service's store (`rng_service.store.metered`), label `store` =
"tournament"; its `decks` store is wrapped too (label "decks"). Errors pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from orchestrator.shell.store.accounts import Accounts
from orchestrator.shell.store.base import Store, StoredHand
from orchestrator.shell.store.redis_store import RedisStore
from rng_service.store import DeckStore
from rng_service.store.metered import MeteredDeckStore, StoreMetrics

__all__ = ["MeteredStore"]


class MeteredStore:
    def __init__(self, store: Store, metrics: StoreMetrics) -> None:
        self._store = store
        self._metrics = metrics
        self._backend = "redis" if isinstance(store, RedisStore) else "sqlite"
        self._decks: DeckStore | None = None
        metrics.start_at_zero(
            "tournament", self._backend, ("append", "read", "read_hands", "last_seq")
        )

    def _timed(self, operation: str) -> Any:
        return self._metrics.timed("tournament", self._backend, operation)

    def append(
        self,
        tournament: str,
        records: Sequence[dict[str, Any]],
        hands: Sequence[StoredHand] = (),
    ) -> None:
        with self._timed("append"):
            self._store.append(tournament, records, hands)

    def read_hands(
        self, tournament: str, after: tuple[int, int] | None = None, limit: int | None = None
    ) -> list[StoredHand]:
        with self._timed("read_hands"):
            return self._store.read_hands(tournament, after, limit)

    def read(
        self, tournament: str, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        with self._timed("read"):
            return self._store.read(tournament, after, limit)

    def last_seq(self, tournament: str) -> int:
        with self._timed("last_seq"):
            return self._store.last_seq(tournament)

    def save_snapshot(self, tournament: str, seq: int, state: bytes) -> None:
        with self._timed("save_snapshot"):
            self._store.save_snapshot(tournament, seq, state)

    def load_snapshot(self, tournament: str) -> tuple[int, bytes] | None:
        with self._timed("load_snapshot"):
            return self._store.load_snapshot(tournament)

    def register(self, tournament: str, meta: dict[str, Any]) -> None:
        with self._timed("register"):
            self._store.register(tournament, meta)

    def tournaments(self) -> list[str]:
        with self._timed("tournaments"):
            return self._store.tournaments()

    def meta(self, tournament: str) -> dict[str, Any]:
        with self._timed("meta"):
            return self._store.meta(tournament)

    def acquire(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        with self._timed("acquire"):
            return self._store.acquire(tournament, owner, ttl_seconds)

    def renew(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        with self._timed("renew"):
            return self._store.renew(tournament, owner, ttl_seconds)

    def release(self, tournament: str, owner: str) -> None:
        with self._timed("release"):
            self._store.release(tournament, owner)

    def owner(self, tournament: str) -> str | None:
        with self._timed("owner"):
            return self._store.owner(tournament)

    @property
    def decks(self) -> DeckStore:
        if self._decks is None:
            self._decks = MeteredDeckStore(self._store.decks, self._metrics, backend=self._backend)
        return self._decks

    @property
    def accounts(self) -> Accounts:
        return self._store.accounts  # not timed: the wallet is not the tournament's log

    def check_epoch(self, expected: str) -> None:
        with self._timed("check_epoch"):
            self._store.check_epoch(expected)

    def close(self) -> None:
        self._store.close()
