"""What every mtt gRPC server shares (the deck service, the front door): the Prometheus
`/metrics` endpoint on its own port, and running until SIGTERM/SIGINT with a graceful stop."""

from __future__ import annotations

import asyncio
import signal
from typing import Protocol

from prometheus_client import CollectorRegistry, start_http_server

__all__ = ["MetricsEndpoint", "Stoppable", "run_until_signal"]


class MetricsEndpoint:
    """`/metrics` of one registry on `host:port` (0 = any free port; None = no endpoint)."""

    def __init__(self, registry: CollectorRegistry, host: str, port: int | None) -> None:
        self._registry = registry
        self._host = host
        self._port = port
        self._http: tuple[object, object] | None = None
        self.bound: int | None = None

    def start(self) -> None:
        if self._port is None:
            return
        http, thread = start_http_server(self._port, addr=self._host, registry=self._registry)
        self._http = (http, thread)
        self.bound = http.server_port

    def stop(self) -> None:
        if self._http is not None:
            http, thread = self._http
            http.shutdown()  # type: ignore[attr-defined]
            http.server_close()  # type: ignore[attr-defined]
            thread.join()  # type: ignore[attr-defined]
            self._http = None


class Stoppable(Protocol):
    async def start(self) -> None: ...
    async def stop(self, grace: float = ...) -> None: ...


async def run_until_signal(
    server: Stoppable, ready: asyncio.Event | None = None, *, until: asyncio.Event | None = None
) -> None:
    """Start `server`, run until SIGTERM or SIGINT (or `until` is set), then stop it
    gracefully."""
    stop = until or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    if ready is not None:
        ready.set()
    await stop.wait()
    await server.stop()
