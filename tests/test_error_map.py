"""Foreign errors mapped once (`orchestrator.shell.errors`): every error of Ray, redis, sqlite3
and the deck service that the shells can meet maps into the package's tree with the original
as its `__cause__`; everything a shell catches is in the table; the front door gives each
package error a gRPC status; `mtt` turns them into one line and exit 2."""

from __future__ import annotations

import ast
import importlib
import inspect
import sqlite3
import types
from pathlib import Path

import pytest
import ray.exceptions
import redis.exceptions

import rng_service.errors as rng_errors
from orchestrator.cli import main as cli_main
from orchestrator.errors import (
    PACKAGE_ERRORS,
    BadStoreUrl,
    ConfigError,
    LedgerError,
    NotRegisteredError,
    RecoveryError,
    RemoteError,
    RemoteFailure,
    RemoteTimeout,
    RemoteUnavailable,
    StoreError,
    StoreUnavailable,
    TournamentStateError,
    UnknownTournament,
)
from orchestrator.frontdoor import errors as door
from orchestrator.shell.errors import MAPPED, foreign_errors, package_error_for, translate

ROOT = Path(__file__).resolve().parents[1]
SHELLS = ("orchestrator/shell", "orchestrator/frontdoor", "orchestrator/cli", "orchestrator/views")

# Not errors the shells can meet, and why.
NOT_MET = {
    sqlite3.Warning: "not an sqlite3.Error: a misuse of the API (a bug), never a store failure",
    # Redis Cluster's client only: the store uses one Redis server (docs/OPERATIONS.md).
    redis.exceptions.RedisClusterException: "Redis Cluster only",
    redis.exceptions.CrossSlotTransactionError: "Redis Cluster only",
    redis.exceptions.InvalidPipelineStack: "Redis Cluster only",
    redis.exceptions.SlotNotCoveredError: "Redis Cluster only",
    redis.exceptions.IncorrectPolicyType: "Redis Cluster only (request policies)",
    redis.exceptions.ChildDeadlockedError: "a client used across fork(): no shell forks",
}


def exception_classes(module: types.ModuleType) -> list[type[BaseException]]:
    return [
        c
        for _, c in inspect.getmembers(module, inspect.isclass)
        if issubclass(c, BaseException) and c.__module__ == module.__name__
    ]


FOREIGN = [
    *exception_classes(ray.exceptions),
    *exception_classes(redis.exceptions),
    *(c for c in vars(sqlite3).values() if isinstance(c, type) and issubclass(c, Exception)),
    rng_errors.DeckStoreError,
    rng_errors.DeckStoreUnavailable,
    rng_errors.BadDeckStoreUrl,
    rng_errors.DeckServiceError,
    rng_errors.DeckServiceUnavailable,
    rng_errors.DeckRejected,
]


@pytest.mark.parametrize("foreign", [c for c in FOREIGN if c not in NOT_MET], ids=str)
def test_every_foreign_error_class_maps_into_the_package_tree(
    foreign: type[BaseException],
) -> None:
    mapped = package_error_for(foreign)
    assert mapped is not None, f"{foreign.__module__}.{foreign.__qualname__} is not mapped"
    assert issubclass(mapped, PACKAGE_ERRORS)


def test_every_row_of_the_table_names_a_class_that_exists() -> None:
    for row in MAPPED:
        found = getattr(importlib.import_module(row.module), row.name)
        assert issubclass(found, BaseException), row
        assert issubclass(row.to, PACKAGE_ERRORS), row


def _caught_in(path: Path) -> set[str]:
    """Dotted names of the classes rooted at ray, redis or sqlite3 an `except` names."""

    def dotted(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute) and (base := dotted(node.value)) is not None:
            return f"{base}.{node.attr}"
        return None

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            kinds = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            for kind in kinds:
                name = dotted(kind)
                if name and name.split(".")[0] in ("ray", "redis", "sqlite3"):
                    names.add(name)
    return names


def test_everything_the_shells_catch_of_ray_redis_and_sqlite3_is_in_the_table() -> None:
    caught = {
        name for folder in SHELLS for p in (ROOT / folder).rglob("*.py") for name in _caught_in(p)
    }
    assert "ray.exceptions.RayActorError" in caught  # the scan sees the shells' catches
    for name in sorted(caught):
        module, _, attribute = name.rpartition(".")
        kind = getattr(importlib.import_module(module), attribute)
        assert package_error_for(kind) is not None, name


def task_error(cause: BaseException) -> ray.exceptions.RayTaskError:
    return ray.exceptions.RayTaskError("pause", "Traceback (most recent call last):\n  ...", cause)


INSTANCES: list[tuple[BaseException, type[Exception]]] = [
    (ray.exceptions.ActorDiedError(), RemoteUnavailable),
    (ray.exceptions.ActorUnavailableError("restarting", b"\x01" * 16), RemoteUnavailable),
    (ray.exceptions.RayActorError(), RemoteUnavailable),
    (ray.exceptions.GetTimeoutError("Get timed out: some object(s) not ready."), RemoteTimeout),
    (ray.exceptions.OwnerDiedError("ab" * 14, None, "call site"), RemoteUnavailable),
    (ray.exceptions.NodeDiedError("node 1 died"), RemoteUnavailable),
    (ray.exceptions.WorkerCrashedError(), RemoteUnavailable),
    (ray.exceptions.RaySystemError("the raylet is gone"), RemoteFailure),
    (task_error(KeyError("seat")), RemoteFailure),
    (task_error(sqlite3.OperationalError("database is locked")), StoreUnavailable),
    (redis.exceptions.ConnectionError("Error 111 connecting"), StoreUnavailable),
    (redis.exceptions.BusyLoadingError("Redis is loading the dataset"), StoreUnavailable),
    (redis.exceptions.TimeoutError("Timeout reading from socket"), StoreUnavailable),
    (redis.exceptions.ResponseError("NOSCRIPT"), StoreError),
    (sqlite3.OperationalError("unable to open database file"), StoreUnavailable),
    (sqlite3.IntegrityError("UNIQUE constraint failed"), StoreError),
    (rng_errors.DeckStoreUnavailable("redis used-deck store unreachable"), StoreUnavailable),
    (rng_errors.BadDeckStoreUrl("unknown store URL"), BadStoreUrl),
    (rng_errors.DeckStoreError("redis used-deck store failed"), StoreError),
    (rng_errors.DeckServiceUnavailable("no deck after 5 tries"), RemoteUnavailable),
    (rng_errors.DeckRejected("a fouled deck"), RemoteFailure),
]


@pytest.mark.parametrize(("foreign", "expected"), INSTANCES, ids=lambda x: type(x).__name__)
def test_each_foreign_error_maps_with_the_original_as_its_cause(
    foreign: BaseException, expected: type[Exception]
) -> None:
    mapped = translate(foreign, "pause")
    assert isinstance(mapped, expected), mapped
    assert mapped.__cause__ is foreign
    message = str(mapped)
    assert message.startswith("pause: ") and "\n" not in message, message
    with pytest.raises(expected) as raised, foreign_errors("pause"):
        raise foreign
    assert raised.value.__cause__ is foreign


@pytest.mark.parametrize(
    "ours",
    [TournamentStateError("the tournament is already paused"), StoreUnavailable("redis down")],
    ids=lambda x: type(x).__name__,
)
def test_an_error_of_ours_raised_in_an_actor_comes_back_as_itself(ours: Exception) -> None:
    for wrapped in (task_error(ours), task_error(ours).as_instanceof_cause()):
        with pytest.raises(type(ours)) as raised, foreign_errors():
            raise wrapped
        assert raised.value is ours and raised.value.__cause__ is wrapped
        assert str(raised.value) == str(ours)  # no remote traceback in the message


def test_an_error_the_table_does_not_know_passes_unchanged() -> None:
    assert translate(KeyError("x")) is None
    with pytest.raises(KeyError), foreign_errors():
        raise KeyError("x")


STATUSES = [
    (TournamentStateError("already paused"), door.WrongState),
    (LedgerError("overdrawn"), door.WrongState),
    (NotRegisteredError("no entry"), door.NotFound),
    (UnknownTournament("never registered"), door.NotFound),
    (ConfigError("bad key"), door.InvalidRequest),
    (RecoveryError("log diverges"), door.WrongState),
    (StoreUnavailable("redis down"), door.NotAvailable),
    (RemoteUnavailable("the actor is gone"), door.NotAvailable),
    (RemoteTimeout("no answer"), door.NotAvailable),
    (RemoteError("Ray failed"), door.NotAvailable),
    (RemoteFailure("it raised KeyError"), door.FrontDoorError),
]


@pytest.mark.parametrize(("error", "status"), STATUSES, ids=lambda x: type(x).__name__)
def test_the_front_door_gives_every_package_error_a_status(
    error: Exception, status: type[door.FrontDoorError]
) -> None:
    refused = door.refusal(error, "pause refused")
    assert type(refused) is status and str(refused) == f"pause refused: {error}"


def test_mtt_turns_a_package_error_into_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli_main.main(["replay", "/nonexistent/run"]) == 2
    err = capsys.readouterr().err
    assert err == "mtt replay: /nonexistent/run: no such folder\n"


@pytest.mark.parametrize(
    ("raised", "said"),
    [
        (task_error(StoreUnavailable("redis store: append: unreachable")), "unreachable"),
        (ray.exceptions.ActorDiedError(), "the actor is gone"),
        (redis.exceptions.ConnectionError("Error 111 connecting"), "Error 111"),
    ],
    ids=lambda x: type(x).__name__,
)
def test_mtt_turns_a_foreign_error_escaping_a_command_into_one_line_and_exit_2(
    raised: BaseException,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def replay(args: object) -> int:
        raise raised

    monkeypatch.setattr("orchestrator.cli.run._replay", replay)
    assert cli_main.main(["replay", "somewhere"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtt replay: ") and said in err and err.count("\n") == 1, err
