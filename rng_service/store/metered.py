"""Store latency and errors for Prometheus: `StoreMetrics`, and the used-deck store wrapped in it.

The orchestrator's `Store` is wrapped the same way (`orchestrator.shell.store.metered`), on the same
two metrics, told apart by the `store` label:

    mtt_store_operation_seconds{store, backend, operation}   histogram (bucket at the objective)
    mtt_store_errors_total{store, backend, operation, error} counter (error: the class name,
                                                              e.g. StoreUnavailable)

The used-deck store's errors are counted under the names the two stores share
(`DeckStoreUnavailable` as `StoreUnavailable`, ...), so one alert and one panel cover both.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Counter, Histogram

from rng_service.errors import (
    BadDeckStoreUrl,
    DeckStoreError,
    DeckStoreLost,
    DeckStoreUnavailable,
)
from rng_service.store.base import DeckStore

__all__ = ["STORE_OBJECTIVE_SECONDS", "MeteredDeckStore", "StoreMetrics"]

# An append with Redis `appendfsync always` takes ~3 ms here (docs/OPERATIONS.md); 10 ms at
# p99 leaves room for a loaded node, and SQLite's fsync per commit (~8 ms) fits under it.
STORE_OBJECTIVE_SECONDS = 0.010
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, STORE_OBJECTIVE_SECONDS, 0.025, 0.1, 0.5, 2.0, 5.0)
_SHARED_NAMES: dict[type[BaseException], str] = {
    DeckStoreError: "StoreError",
    DeckStoreUnavailable: "StoreUnavailable",
    BadDeckStoreUrl: "BadStoreUrl",
    DeckStoreLost: "StoreLost",
}


class StoreMetrics:
    """The two store metrics on one registry; `timed` measures one call of one store."""

    def __init__(self, registry: CollectorRegistry) -> None:
        labels = ("store", "backend", "operation")
        self.seconds = Histogram(
            "mtt_store_operation_seconds",
            "Latency of store calls, failed ones included",
            labels,
            buckets=_BUCKETS,
            registry=registry,
        )
        self.errors = Counter(
            "mtt_store_errors_total",
            "Store calls that raised, by error class",
            (*labels, "error"),
            registry=registry,
        )

    def start_at_zero(self, store: str, backend: str, operations: Iterable[str]) -> None:
        """Export the store's operations and their unavailability at zero, so rates and the
        store alert see 0 rather than no series before the first call or failure."""
        for operation in operations:
            self.seconds.labels(store, backend, operation)
            self.errors.labels(store, backend, operation, "StoreUnavailable")

    @contextmanager
    def timed(self, store: str, backend: str, operation: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        except Exception as exc:  # counted and raised again unchanged
            error = _SHARED_NAMES.get(type(exc), type(exc).__name__)
            self.errors.labels(store, backend, operation, error).inc()
            raise
        finally:
            self.seconds.labels(store, backend, operation).observe(time.perf_counter() - started)


class MeteredDeckStore:
    """A `DeckStore` whose every call is timed and whose errors are counted."""

    def __init__(self, store: DeckStore, metrics: StoreMetrics, *, backend: str) -> None:
        self._store = store
        self._metrics = metrics
        self._backend = backend
        self.epoch = store.epoch
        metrics.start_at_zero("decks", backend, ("record_new", "count"))

    def record_new(self, digests: Sequence[bytes]) -> list[int | None]:
        with self._metrics.timed("decks", self._backend, "record_new"):
            return self._store.record_new(digests)

    def count(self) -> int:
        with self._metrics.timed("decks", self._backend, "count"):
            return self._store.count()

    def close(self) -> None:
        self._store.close()
