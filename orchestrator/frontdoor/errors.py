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

Errors of the orchestrator's core (ConfigError, RegistrationError, LedgerError) and of the
store are translated into these at the desk's boundary.
"""

from __future__ import annotations

import grpc

__all__ = [
    "FrontDoorError",
    "InvalidRequest",
    "NotAvailable",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "Unauthenticated",
    "WrongState",
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
