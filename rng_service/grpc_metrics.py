"""gRPC request metrics for a grpc.aio server, by method and status code (DESIGN.md "Metrics").

    metrics = GrpcRequestMetrics(registry)
    server = grpc.aio.server(interceptors=[metrics.interceptor()])

    mtt_grpc_requests_total{method,code}   counter (code: OK, INVALID_ARGUMENT, UNAVAILABLE, ...)
    mtt_grpc_request_seconds{method}       histogram (bucket at the 50 ms action objective)

The names are the ones agreed with the front door (issue 7), so one dashboard panel covers
every mtt gRPC server; `method` is the full name (`/mtt.deck.v1.DeckService/DrawDecks`).
Unary calls are measured; streaming ones (reflection, health Watch) pass through unmeasured.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from prometheus_client import CollectorRegistry, Counter, Histogram

__all__ = ["GrpcRequestMetrics"]

ACTION_OBJECTIVE_SECONDS = 0.050
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, ACTION_OBJECTIVE_SECONDS, 0.1, 0.25, 1.0, 5.0)


class GrpcRequestMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            "mtt_grpc_requests_total",
            "gRPC requests handled, by method and status code",
            ("method", "code"),
            registry=registry,
        )
        self.seconds = Histogram(
            "mtt_grpc_request_seconds",
            "Server-side gRPC request latency, by method",
            ("method",),
            buckets=_BUCKETS,
            registry=registry,
        )

    def interceptor(self) -> grpc.aio.ServerInterceptor:
        return _Interceptor(self)

    def observe(self, method: str, code: grpc.StatusCode, seconds: float) -> None:
        self.requests.labels(method, code.name).inc()
        self.seconds.labels(method).observe(seconds)


class _Interceptor(grpc.aio.ServerInterceptor):
    def __init__(self, metrics: GrpcRequestMetrics) -> None:
        self._metrics = metrics

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None or handler.unary_unary is None:
            return handler
        method: str = handler_call_details.method
        behavior: Any = handler.unary_unary  # an async callable on a grpc.aio server
        metrics = self._metrics

        async def measured(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            started = time.perf_counter()
            failed = True
            try:
                response = await behavior(request, context)
                failed = False
                return response
            finally:
                # An abort leaves its code on the context; any other exception is UNKNOWN.
                code = context.code()
                if not isinstance(code, grpc.StatusCode):
                    code = grpc.StatusCode.UNKNOWN if failed else grpc.StatusCode.OK
                metrics.observe(method, code, time.perf_counter() - started)

        return grpc.unary_unary_rpc_method_handler(
            measured,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
