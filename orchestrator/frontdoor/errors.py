"""Errors of the front door, each carrying the gRPC status a client sees.

Hierarchy::

    FrontDoorError              a request the front door refused; nothing changed
    ├── Unauthenticated         no credential, or one nobody issued (UNAUTHENTICATED)
    ├── PermissionDenied        a valid credential used for what it does not allow: a player
    │                           acting for another, a player token on the operators' API
    │                           (PERMISSION_DENIED)
    ├── NotFound                an unknown tournament or player (NOT_FOUND)
    ├── InvalidRequest          a malformed request: missing ids, bad config text, an action
    │                           the legal actions do not allow (INVALID_ARGUMENT)
    ├── WrongState              not now: starting a running tournament, acting out of turn
    │                           (FAILED_PRECONDITION)
    ├── RateLimited             too many messages too fast (RESOURCE_EXHAUSTED)
    └── NotAvailable            a part the front door needs is down: the store, Ray
                                (UNAVAILABLE)

The package's errors (`orchestrator.errors`: the core's refusals, the store's and the remote
parts' failures) become these by one table, `refusal(exc)`, at the desk's boundary; foreign
errors (Ray's) were turned into the package's before (`orchestrator.shell.errors`)::

    NotRegisteredError, UnknownTournament       NotFound
    UnknownAccountError (a wallet's)            NotFound
    InvalidAmountError                          InvalidRequest
    ConfigError                                 InvalidRequest
    RemoteFailure                               FrontDoorError (INTERNAL: a bug over there)
    StoreError, any other RemoteError           NotAvailable (the store, an actor gone)
    any other OrchestratorError                 WrongState (registration, the ledger, a pause
                                                of a paused tournament, ...)

A client (`orchestrator.frontdoor.client`, `mtt ctl`) turns a refused call's status back into
the same class by `from_status(code, details)`; a status no class carries (INTERNAL, UNKNOWN,
a transport's DEADLINE_EXCEEDED) is a plain FrontDoorError, and an unreachable server is
NotAvailable.
"""

from __future__ import annotations

import grpc

from orchestrator.errors import (
    ConfigError,
    InvalidAmountError,
    NotRegisteredError,
    OrchestratorError,
    RemoteError,
    RemoteFailure,
    StoreError,
    UnknownAccountError,
    UnknownTournament,
)

__all__ = [
    "FrontDoorError",
    "InvalidRequest",
    "NotAvailable",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "Unauthenticated",
    "WrongState",
    "from_status",
    "refusal",
]


class FrontDoorError(Exception):
    code = grpc.StatusCode.INTERNAL


class Unauthenticated(FrontDoorError):
    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDenied(FrontDoorError):
    code = grpc.StatusCode.PERMISSION_DENIED


class NotFound(FrontDoorError, LookupError):
    code = grpc.StatusCode.NOT_FOUND


class InvalidRequest(FrontDoorError, ValueError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class WrongState(FrontDoorError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class RateLimited(FrontDoorError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class NotAvailable(FrontDoorError):
    code = grpc.StatusCode.UNAVAILABLE


_STATUS: tuple[tuple[type[Exception], type[FrontDoorError]], ...] = (
    (NotRegisteredError, NotFound),
    (UnknownTournament, NotFound),
    (UnknownAccountError, NotFound),
    (InvalidAmountError, InvalidRequest),
    (ConfigError, InvalidRequest),
    (StoreError, NotAvailable),
    (RemoteFailure, FrontDoorError),
    (RemoteError, NotAvailable),
    (OrchestratorError, WrongState),
)


def refusal(exc: Exception, what: str = "") -> FrontDoorError:
    """The front door's error for one of the package's (`orchestrator.errors.PACKAGE_ERRORS`),
    its message opened by `what`; a front door error is returned as it is."""
    if isinstance(exc, FrontDoorError):
        return exc
    message = f"{what}: {exc}" if what else str(exc)
    for kind, ours in _STATUS:
        if isinstance(exc, kind):
            return ours(message)
    return FrontDoorError(message)


_BY_CODE: dict[grpc.StatusCode, type[FrontDoorError]] = {
    kind.code: kind
    for kind in (
        Unauthenticated,
        PermissionDenied,
        NotFound,
        InvalidRequest,
        WrongState,
        RateLimited,
        NotAvailable,
    )
}


def from_status(code: grpc.StatusCode, details: str) -> FrontDoorError:
    """The front door's error for a status a call ended with, its message
    `CODE_NAME: details` (the server's own words)."""
    kind = _BY_CODE.get(code, FrontDoorError)
    return kind(f"{code.name}: {details}" if details else code.name)
