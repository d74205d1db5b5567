"""Players' wallets for the tests that play through a real front door: registering needs one
(REG-1: the entry comes out of it). One per name per server, opened on first use."""

from __future__ import annotations

import grpc

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc

BALANCE = 10**9  # cents: far more than any entry a test takes

_opened: dict[tuple[str, str], str] = {}  # (server, player) -> the account's credential


async def wallet(channel: grpc.aio.Channel, server: str, operator: str, player: str) -> str:
    """The credential of `player`'s wallet on the front door at `server`, opened by the
    operator (credential `operator`) the first time."""
    key = (server, player)
    if key not in _opened:
        reply = await pb_grpc.OperatorServiceStub(channel).CreateAccount(
            pb.CreateAccountRequest(account=player, balance=BALANCE),
            metadata=(("authorization", f"Bearer {operator}"),),
        )
        _opened[key] = reply.credential
    return _opened[key]


def bearer(secret: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {secret}"),)


async def fund(channel: grpc.aio.Channel, operator: str, player: str) -> None:
    """`player`'s wallet opened, for the operator to register him on his behalf (no credential
    needed); one opened before (an earlier front door on the same store) is left as it is."""
    try:
        await pb_grpc.OperatorServiceStub(channel).CreateAccount(
            pb.CreateAccountRequest(account=player, balance=BALANCE), metadata=bearer(operator)
        )
    except grpc.aio.AioRpcError as exc:
        if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
            raise
