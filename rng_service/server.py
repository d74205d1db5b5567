"""The deck service's gRPC server (grpc.aio): thin shell around `Dealer`.

Health (`grpc.health.v1`), server reflection, Prometheus `/metrics` on its own port, and a
graceful stop (health NOT_SERVING, then in-flight calls finish) on SIGTERM/SIGINT.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import CollectorRegistry, Counter, Histogram

from rng_service._proto import deck_pb2, deck_pb2_grpc
from rng_service.dealer import Dealer
from rng_service.errors import DeckStoreError, DeckStoreLost, DeckStoreUnavailable, InvalidRequest
from rng_service.grpc_metrics import GrpcRequestMetrics
from rng_service.serving import MetricsEndpoint, run_until_signal
from rng_service.store import DeckStore, RedisDeckStore
from rng_service.store.metered import MeteredDeckStore, StoreMetrics

__all__ = ["MAX_COUNT", "MAX_ID_BYTES", "MAX_REQUEST_BYTES", "DeckServer", "serve", "validate"]

log = logging.getLogger(__name__)

SERVICE_NAME = deck_pb2.DESCRIPTOR.services_by_name["DeckService"].full_name
MAX_COUNT = 256
MAX_ID_BYTES = 128
MAX_REQUEST_BYTES = 1024  # a valid request is < 300 bytes; bigger ones: INVALID_ARGUMENT
# grpc's own cap (its default, made explicit): a message past it never reaches us, and grpc
# answers RESOURCE_EXHAUSTED itself. Between the two limits we answer INVALID_ARGUMENT.
TRANSPORT_MAX_RECEIVE = 4 * 1024 * 1024
DRAW_OBJECTIVE_SECONDS = 0.010  # a draw of up to 256 decks, server side


def validate(request: deck_pb2.DrawDecksRequest) -> None:
    """Raise InvalidRequest saying what is wrong with a DrawDecks request."""
    size = request.ByteSize()
    if size > MAX_REQUEST_BYTES:
        raise InvalidRequest(f"request is {size} bytes; at most {MAX_REQUEST_BYTES} allowed")
    for name in ("tournament_id", "table_id"):
        value: str = getattr(request, name)
        if not value:
            raise InvalidRequest(f"{name} is required")
        if len(value.encode()) > MAX_ID_BYTES:
            raise InvalidRequest(f"{name} is longer than {MAX_ID_BYTES} bytes")
    if not 1 <= request.count <= MAX_COUNT:
        raise InvalidRequest(f"count must be 1..{MAX_COUNT}, got {request.count}")


@dataclass
class Metrics:
    """Prometheus metrics of one server (own registry, so several can live in one process)."""

    registry: CollectorRegistry
    decks_served: Counter
    duplicates: Counter
    store_errors: Counter
    invalid_requests: Counter
    random_bytes: Counter
    draw_seconds: Histogram
    store: StoreMetrics
    requests: GrpcRequestMetrics

    @classmethod
    def create(cls) -> Metrics:
        reg = CollectorRegistry()
        return cls(
            registry=reg,
            decks_served=Counter(
                "mtt_rng_decks_served_total", "Decks served, each recorded first", registry=reg
            ),
            duplicates=Counter(
                "mtt_rng_duplicate_decks_total",
                "Generated decks the used-deck store already held, discarded (RNG-3)",
                registry=reg,
            ),
            store_errors=Counter(
                "mtt_rng_store_errors_total", "Draws failed by the used-deck store", registry=reg
            ),
            invalid_requests=Counter(
                "mtt_rng_invalid_requests_total", "Requests refused as invalid", registry=reg
            ),
            random_bytes=Counter(
                "mtt_rng_random_bytes_total", "CSPRNG bytes consumed by shuffles", registry=reg
            ),
            draw_seconds=Histogram(
                "mtt_rng_draw_duration_seconds",
                "Server-side latency of a DrawDecks call",
                buckets=(0.001, 0.0025, 0.005, DRAW_OBJECTIVE_SECONDS, 0.025, 0.05, 0.1, 0.5, 1.0),
                registry=reg,
            ),
            store=StoreMetrics(reg),
            requests=GrpcRequestMetrics(reg),
        )


class DeckServicer(deck_pb2_grpc.DeckServiceServicer):
    def __init__(self, store: DeckStore, metrics: Metrics) -> None:
        self._store = store
        self._dealer = Dealer(store)
        self._metrics = metrics
        # One thread owns the dealer and the store: draws are serialised, the loop stays free.
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deck-dealer")
        self.served = 0
        self.duplicates = 0
        self.store_errors = 0
        self.random_bytes = 0
        self.lost: str | None = None  # why the store can serve no more (`DeckStoreLost`)
        self.stopping = asyncio.Event()

    def _draw(self, count: int) -> deck_pb2.DrawDecksResponse:
        draw = self._dealer.draw(count)
        self.served += len(draw.decks)
        self.duplicates += draw.duplicates
        self.random_bytes += draw.random_bytes
        self._metrics.decks_served.inc(len(draw.decks))
        self._metrics.duplicates.inc(draw.duplicates)
        self._metrics.random_bytes.inc(draw.random_bytes)
        return deck_pb2.DrawDecksResponse(
            decks=[
                deck_pb2.Deck(cards=d.cards, serial=d.serial, commitment=d.commitment, salt=d.salt)
                for d in draw.decks
            ]
        )

    async def DrawDecks(
        self,
        request: deck_pb2.DrawDecksRequest,
        context: grpc.aio.ServicerContext[deck_pb2.DrawDecksRequest, deck_pb2.DrawDecksResponse],
    ) -> deck_pb2.DrawDecksResponse:
        started = time.perf_counter()
        try:
            validate(request)
        except InvalidRequest as exc:
            self._metrics.invalid_requests.inc()
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        loop = asyncio.get_running_loop()
        try:
            response = await loop.run_in_executor(self._worker, self._draw, request.count)
        except DeckStoreError as exc:
            self.store_errors += 1
            self._metrics.store_errors.inc()
            log.warning("draw failed: %s", exc)
            # Nothing recorded-but-unsent is a problem (burned decks); nothing unrecorded is sent.
            if isinstance(exc, DeckStoreLost):  # for good: the service stops (`serve`)
                self.lost = self.lost or str(exc)
                self.stopping.set()
                await context.abort(grpc.StatusCode.DATA_LOSS, str(exc))
            code = (
                grpc.StatusCode.UNAVAILABLE
                if isinstance(exc, DeckStoreUnavailable)
                else grpc.StatusCode.INTERNAL
            )
            await context.abort(code, str(exc))
        self._metrics.draw_seconds.observe(time.perf_counter() - started)
        return response

    async def GetStats(
        self,
        request: deck_pb2.GetStatsRequest,
        context: grpc.aio.ServicerContext[deck_pb2.GetStatsRequest, deck_pb2.GetStatsResponse],
    ) -> deck_pb2.GetStatsResponse:
        loop = asyncio.get_running_loop()
        try:
            stored = await loop.run_in_executor(self._worker, self._store.count)
        except DeckStoreError as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))
        return deck_pb2.GetStatsResponse(
            decks_served=self.served,
            duplicates_rejected=self.duplicates,
            store_errors=self.store_errors,
            stored_decks=stored,
            random_bytes=self.random_bytes,
        )

    def close(self) -> None:
        self._worker.shutdown(wait=True)


class DeckServer:
    """One deck service: gRPC on `host:port` (0 = any free port), `/metrics` on
    `metrics_port` (None = no HTTP endpoint). Owns the store it is given."""

    def __init__(
        self,
        store: DeckStore,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        metrics_port: int | None = None,
    ) -> None:
        self.metrics = Metrics.create()
        self._store = store
        backend = "redis" if isinstance(store, RedisDeckStore) else "sqlite"
        metered = MeteredDeckStore(store, self.metrics.store, backend=backend)
        self._servicer = DeckServicer(metered, self.metrics)
        self._health = health.aio.HealthServicer()
        self._server = grpc.aio.server(
            interceptors=[self.metrics.requests.interceptor()],
            options=[("grpc.max_receive_message_length", TRANSPORT_MAX_RECEIVE)],
        )
        deck_pb2_grpc.add_DeckServiceServicer_to_server(self._servicer, self._server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._server)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), self._server
        )
        self.port = self._server.add_insecure_port(f"{host}:{port}")
        self._host = host
        self._http = MetricsEndpoint(self.metrics.registry, host, metrics_port)

    @property
    def lost(self) -> str | None:
        """Why the store can serve no more: it lost its data (RNG-3); None while it can."""
        return self._servicer.lost

    @property
    def stopping(self) -> asyncio.Event:
        return self._servicer.stopping

    @property
    def epoch(self) -> str:
        return self._store.epoch

    @property
    def metrics_bound(self) -> int | None:
        return self._http.bound

    @property
    def target(self) -> str:
        return f"{self._host}:{self.port}"

    async def start(self) -> None:
        await self._server.start()
        self._http.start()
        for name in ("", SERVICE_NAME):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful: report NOT_SERVING, refuse new calls, let in-flight ones finish."""
        await self._health.enter_graceful_shutdown()
        await self._server.stop(grace)
        self._http.stop()
        self._servicer.close()
        self._store.close()


async def serve(server: DeckServer, ready: asyncio.Event | None = None) -> None:
    """Run until SIGTERM or SIGINT, or until the store is lost (`DeckServer.lost`), then stop
    gracefully."""
    await run_until_signal(server, ready, until=server.stopping)
