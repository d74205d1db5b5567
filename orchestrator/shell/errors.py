"""Foreign errors the shells meet, mapped once into the package's own (`orchestrator.errors`).

The table, first match wins (a subclass before its base)::

    foreign error                               package error
    ray.exceptions.RayTaskError(cause)          the cause itself when it is one of ours (the
                                                core's TournamentStateError, a StoreUnavailable
                                                raised in the actor), else the cause mapped by
                                                this table, else RemoteFailure
    ray.exceptions.GetTimeoutError              RemoteTimeout
    ray.exceptions.RayActorError                RemoteUnavailable (ActorDiedError: died past its
                                                restarts; ActorUnavailableError: restarting)
    ray.exceptions.ObjectLostError              RemoteUnavailable (its owner or node is gone)
    ray.exceptions.NodeDiedError                RemoteUnavailable
    ray.exceptions.WorkerCrashedError           RemoteUnavailable
    ray.exceptions.RayError                     RemoteFailure (anything else Ray raises)
    redis.exceptions.ConnectionError            StoreUnavailable (BusyLoadingError included)
    redis.exceptions.TimeoutError               StoreUnavailable
    redis.exceptions.RedisError                 StoreError
    sqlite3.OperationalError                    StoreUnavailable (locked, cannot be opened)
    sqlite3.Error                               StoreError
    rng_service DeckStoreUnavailable            StoreUnavailable (the used-deck store that
    rng_service BadDeckStoreUrl                 BadStoreUrl       `Store.decks` hands out)
    rng_service DeckStoreLost                   StoreLost
    rng_service DeckStoreError                  StoreError
    rng_service DeckServiceUnavailable          RemoteUnavailable (the deck service)
    rng_service DeckServiceError                RemoteFailure

`translate(exc)` gives the package error (with `exc` as its `__cause__`), or None for an error
the table does not know (a bug: let it show). `foreign_errors()` is the same as a block:
``with foreign_errors("pause"): await handle.pause.remote()``. The stores translate their
driver's errors here too, and `mtt`'s main wraps every command in `foreign_errors()`.

Nothing here imports Ray, redis or gRPC: an error of a library that was never imported cannot
have been raised, so a row is looked at only once its module is loaded (`mtt swiss` stays
quick). gRPC errors are not in the table: no shell calls a gRPC service (the tables call the
deck service, `table_worker`; the deck client's own errors are the rng_service rows).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from orchestrator.errors import (
    PACKAGE_ERRORS,
    BadStoreUrl,
    RemoteFailure,
    RemoteTimeout,
    RemoteUnavailable,
    StoreError,
    StoreLost,
    StoreUnavailable,
)

__all__ = [
    "MAPPED",
    "first_line",
    "foreign_errors",
    "package_error_for",
    "store_error",
    "translate",
]

Mapped = Exception  # an instance of one of PACKAGE_ERRORS (OrchestratorError, StoreError, ...)


@dataclass(frozen=True, slots=True)
class _Row:
    module: str
    name: str
    to: type[Exception]
    say: str = ""  # what the message says before the foreign error's own first line

    def foreign(self) -> type[BaseException] | None:
        module = sys.modules.get(self.module)
        found = getattr(module, self.name, None) if module is not None else None
        return found if isinstance(found, type) and issubclass(found, BaseException) else None


_RAY = "ray.exceptions"
_RNG = "rng_service.errors"
# RayTaskError comes first and is handled apart (its cause decides); see `translate`.
MAPPED: tuple[_Row, ...] = (
    _Row(_RAY, "RayTaskError", RemoteFailure, "it raised"),
    _Row(_RAY, "GetTimeoutError", RemoteTimeout, "no answer in time"),
    _Row(_RAY, "RayActorError", RemoteUnavailable, "the actor is gone"),
    _Row(_RAY, "ObjectLostError", RemoteUnavailable, "a result was lost"),
    _Row(_RAY, "NodeDiedError", RemoteUnavailable, "its node died"),
    _Row(_RAY, "WorkerCrashedError", RemoteUnavailable, "its worker crashed"),
    _Row(_RAY, "RayError", RemoteFailure, "Ray failed"),
    _Row("redis.exceptions", "ConnectionError", StoreUnavailable, "unreachable"),
    _Row("redis.exceptions", "TimeoutError", StoreUnavailable, "unreachable"),
    _Row("redis.exceptions", "RedisError", StoreError),
    _Row("sqlite3", "OperationalError", StoreUnavailable),
    _Row("sqlite3", "Error", StoreError),
    _Row(_RNG, "DeckStoreUnavailable", StoreUnavailable),
    _Row(_RNG, "BadDeckStoreUrl", BadStoreUrl),
    _Row(_RNG, "DeckStoreLost", StoreLost),
    _Row(_RNG, "DeckStoreError", StoreError),
    _Row(_RNG, "DeckServiceUnavailable", RemoteUnavailable, "the deck service"),
    _Row(_RNG, "DeckServiceError", RemoteFailure, "the deck service"),
)


def _row(kind: type[BaseException]) -> _Row | None:
    for row in MAPPED:
        foreign = row.foreign()
        if foreign is not None and issubclass(kind, foreign):
            return row
    return None


def package_error_for(kind: type[BaseException]) -> type[Exception] | None:
    """The package error class a foreign error class maps to (RayTaskError: RemoteFailure,
    unless its cause is ours), or None when the table does not know it."""
    row = _row(kind)
    return None if row is None else row.to


def first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0].strip() if lines else type(exc).__name__


def translate(exc: BaseException, what: str = "") -> Mapped | None:
    """The package's error for the foreign `exc`, with `exc` as its `__cause__`; `what` (the
    call that failed) opens the message. None when the table does not know `exc`."""
    row = _row(type(exc))
    if row is None:
        return None
    mapped: Exception
    if row.name == "RayTaskError" and row.module == _RAY:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, PACKAGE_ERRORS):
            mapped = cause  # ours, raised over there: it says what went wrong
        elif isinstance(cause, BaseException) and (inner := translate(cause, what)) is not None:
            mapped = inner
        else:
            name = type(cause).__name__ if cause is not None else "an error"
            detail = f"{name}: {first_line(cause)}" if cause is not None else first_line(exc)
            mapped = RemoteFailure(_message(what, f"it raised {detail}"))
    else:
        detail = first_line(exc)
        mapped = row.to(_message(what, f"{row.say}: {detail}" if row.say else detail))
    mapped.__cause__ = exc
    return mapped


def store_error(exc: BaseException, what: str) -> StoreError:
    """A store driver's error (redis, sqlite3) as the store's: `translate`, for the stores'
    own boundary, where nothing but a StoreError may come out."""
    mapped = translate(exc, what)
    if isinstance(mapped, StoreError):
        return mapped
    error = StoreError(_message(what, first_line(exc)))
    error.__cause__ = exc
    return error


def _message(what: str, detail: str) -> str:
    return f"{what}: {detail}" if what else detail


def _known() -> tuple[type[BaseException], ...]:
    return tuple(foreign for row in MAPPED if (foreign := row.foreign()) is not None)


@contextmanager
def foreign_errors(what: str = "") -> Iterator[None]:
    """Run the block with the table's foreign errors raised as the package's (`translate`);
    any other error passes unchanged."""
    try:
        yield
    except _known() as exc:
        mapped = translate(exc, what)
        if mapped is None:  # pragma: no cover (every known class has a row)
            raise
        raise mapped from exc
