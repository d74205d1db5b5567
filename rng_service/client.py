"""The table actors' deck client: a prefetch buffer refilled in the background.

    async with DeckClient("127.0.0.1:7070", tournament_id="t1", table_id="7") as decks:
        deck = await decks.next_deck()      # ServedDeck: cards, serial, commitment, salt

Synchronous code (a plain, non-async Ray actor) uses `BlockingDeckClient` the same way.

One DrawDecks RPC fetches `batch` decks whenever the buffer falls to `low_water`, so a hand
almost never waits on the network. While the service (or its store) is briefly away, the
refill retries with capped exponential backoff and jitter; `next_deck` waits up to `wait`
seconds and then raises DeckServiceUnavailable. Every deck is checked before it is handed out
(52 distinct codes, commitment matches, DESIGN.md "Decks"); a bad one is a fouled deck:
counted in `fouled` and never dealt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
from collections import deque
from collections.abc import Coroutine
from types import TracebackType
from typing import Any, TypeVar

import grpc

from rng_service._proto import deck_pb2, deck_pb2_grpc
from rng_service.commit import verify_commitment
from rng_service.deck import ServedDeck, is_deck
from rng_service.errors import DeckServiceError, DeckServiceUnavailable

# DeckServiceUnavailable: what `next_deck` raises while the service is away (callers wait on).
__all__ = ["BlockingDeckClient", "DeckClient", "DeckServiceUnavailable"]

T = TypeVar("T")
log = logging.getLogger(__name__)

_RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
# Reconnect quickly once the service is back (grpc's default backoff grows to 120 s).
_CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


class DeckClient:
    def __init__(
        self,
        target: str,
        *,
        tournament_id: str,
        table_id: str,
        batch: int = 32,
        low_water: int = 8,
        rpc_timeout: float = 5.0,
        wait: float = 30.0,
        backoff_base: float = 0.05,
        backoff_cap: float = 2.0,
        jitter: random.Random | None = None,
    ) -> None:
        if not 1 <= batch <= 256 or low_water < 0:
            raise ValueError("batch must be 1..256 and low_water >= 0")
        self._target = target
        self._request = deck_pb2.DrawDecksRequest(
            tournament_id=tournament_id, table_id=table_id, count=batch
        )
        self._low_water = low_water
        self._rpc_timeout = rpc_timeout
        self._wait = wait
        self._backoff = (backoff_base, backoff_cap)
        self._jitter = jitter or random.Random()
        self._buffer: deque[ServedDeck] = deque()
        self._changed = asyncio.Condition()
        self._need = asyncio.Event()
        self._failure: DeckServiceError | None = None
        self._last_error = "no call made yet"
        self._channel: grpc.aio.Channel | None = None
        self._task: asyncio.Task[None] | None = None
        self.fouled = 0
        self.rpcs = 0

    async def __aenter__(self) -> DeckClient:
        self._channel = grpc.aio.insecure_channel(self._target, options=_CHANNEL_OPTIONS)
        self._stub = deck_pb2_grpc.DeckServiceStub(self._channel)
        self._need.set()
        self._task = asyncio.create_task(self._refill_forever(), name="deck-refill")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._channel is not None:
            await self._channel.close()
            self._channel = None

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    async def next_deck(self) -> ServedDeck:
        """The next deck; waits for a refill if the buffer is empty (at most `wait` s)."""
        async with self._changed:
            try:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: bool(self._buffer) or bool(self._failure)),
                    self._wait,
                )
            except TimeoutError:
                raise DeckServiceUnavailable(
                    f"no deck from {self._target} within {self._wait} s: {self._last_error}"
                ) from None
            if not self._buffer and self._failure is not None:
                raise self._failure
            deck = self._buffer.popleft()
        if len(self._buffer) <= self._low_water:
            self._need.set()
        return deck

    async def _refill_forever(self) -> None:
        try:
            await self._refill()
        except Exception as exc:  # top of the supervising task: log it, tell the waiters
            log.exception("deck refill stopped")
            async with self._changed:
                self._failure = DeckServiceError(f"deck refill stopped: {exc!r}")
                self._changed.notify_all()

    async def _refill(self) -> None:
        attempt = 0
        while True:
            if len(self._buffer) > self._low_water:
                self._need.clear()
                await self._need.wait()
                continue
            try:
                self.rpcs += 1
                response = await self._stub.DrawDecks(self._request, timeout=self._rpc_timeout)
            except grpc.aio.AioRpcError as exc:
                self._last_error = f"{exc.code().name}: {exc.details()}"
                if exc.code() not in _RETRYABLE:
                    async with self._changed:
                        self._failure = DeckServiceError(
                            f"deck service refused: {self._last_error}"
                        )
                        self._changed.notify_all()
                    return
                base, cap = self._backoff
                delay = min(cap, base * 2**attempt)
                attempt += 1
                await asyncio.sleep(delay * (0.5 + self._jitter.random() / 2))
                continue
            attempt = 0
            async with self._changed:
                for d in response.decks:
                    cards, salt = bytes(d.cards), bytes(d.salt)
                    if is_deck(cards) and verify_commitment(cards, salt, d.commitment):
                        self._buffer.append(ServedDeck(cards, d.serial, bytes(d.commitment), salt))
                    else:
                        self.fouled += 1
                self._changed.notify_all()


class BlockingDeckClient:
    """`DeckClient` for synchronous callers: it runs on a private event-loop thread, so the
    buffer still refills in the background while the caller plays its hand.

        with BlockingDeckClient(target, tournament_id="t1", table_id="7") as decks:
            deck = decks.next_deck()
    """

    def __init__(self, target: str, **options: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="deck-client")
        self._thread.start()
        self._client = DeckClient(target, **options)
        self._run(self._client.__aenter__())

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def next_deck(self) -> ServedDeck:
        return self._run(self._client.next_deck())

    @property
    def fouled(self) -> int:
        return self._client.fouled

    def close(self) -> None:
        if self._thread.is_alive():
            self._run(self._client.close())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def __enter__(self) -> BlockingDeckClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
