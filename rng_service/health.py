"""Whether a deck service answers, by the standard gRPC health check (`grpc.health.v1`).

Apart from the deck client (`rng_service.client`), which every table process imports: a
table never asks for health, the processes that watch a deck service do
(`orchestrator.shell.decks`)."""

from __future__ import annotations

from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

__all__ = ["check_health"]


def check_health(target: str, *, timeout: float = 2.0) -> str | None:
    """None when the deck service at `target` says it is serving (`grpc.health.v1`), else
    what is wrong, in a few words (for a watcher's message: no exception leaves here)."""
    with grpc.insecure_channel(target) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)  # its stubs' types name no methods
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
            return f"{code.name if code is not None else 'error'}: {details}"
    if reply.status == health_pb2.HealthCheckResponse.SERVING:
        return None
    return health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
