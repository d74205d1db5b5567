"""The layers of docs/ARCHITECTURE.md, kept by reading every module's imports (those inside
functions too): what each folder may import, the pure core, Ray only in shells, no cycle
between the orchestrator and the tables."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("orchestrator", "table_worker", "rng_service", "loadtest")

# Folder -> the project modules it may import (prefixes); anything else of the project is a
# layer violation. Third-party and standard modules are checked apart (see below).
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "orchestrator/core": ("orchestrator.core", "orchestrator.errors", "table_worker.protocol"),
    "orchestrator/views": (
        "orchestrator.views",
        "orchestrator.core",
        "orchestrator.errors",
        "table_worker",
        "rng_service.commit",
    ),
    "orchestrator/competition": (
        "orchestrator.competition",
        "orchestrator.core",
        "orchestrator.errors",
        "table_worker",
    ),
    "orchestrator/shell": (
        "orchestrator.shell",
        "orchestrator.core",
        "orchestrator.views",
        "orchestrator.competition",
        "orchestrator.errors",
        "table_worker",
        "rng_service",
    ),
    "orchestrator/frontdoor": (
        "orchestrator.frontdoor",
        "orchestrator.shell",
        "orchestrator.core",
        "orchestrator.views",
        "orchestrator.errors",
        "orchestrator._proto",
        "table_worker",
        "rng_service",
    ),
    "orchestrator/cli": ("orchestrator", "table_worker", "rng_service", "loadtest"),
    "orchestrator/errors.py": (),
    "orchestrator/__init__.py": (),
    "table_worker": ("table_worker", "rng_service.client", "rng_service.deck"),
    "rng_service": ("rng_service",),
    "loadtest": ("loadtest", "orchestrator._proto", "table_worker"),
}

# Where Ray may be imported: the shells (the orchestrator's, and the table's actor).
RAY_ALLOWED = ("orchestrator/shell/", "table_worker/actor.py")

# The pure core reads no clock, no environment, no global RNG and talks to nothing.
CORE_FORBIDDEN = (
    "ray",
    "grpc",
    "redis",
    "sqlite3",
    "socket",
    "subprocess",
    "threading",
    "asyncio",
    "time",
    "os",
    "prometheus_client",
    "starlette",
    "uvicorn",
    "psutil",
)

CORE_MAX_LINES = 500


def modules() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "_proto" not in path.parts:  # generated stubs
                yield path


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def imported(path: Path) -> set[str]:
    """Every module the file imports, at any depth of its code."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def folder_of(path: Path) -> str:
    text = rel(path)
    matches = [f for f in MAY_IMPORT if text == f or text.startswith(f + "/")]
    assert matches, f"{text} is in no layer of docs/ARCHITECTURE.md"
    return max(matches, key=len)


@pytest.mark.parametrize("path", list(modules()), ids=rel)
def test_each_module_imports_only_what_its_layer_may(path: Path) -> None:
    allowed = MAY_IMPORT[folder_of(path)]
    wrong = sorted(
        name
        for name in imported(path)
        if under(name, PACKAGES) and not under(name, allowed) and name not in PACKAGES
    )
    # `from orchestrator.core import events` names the submodule as `orchestrator.core.events`;
    # a bare package import of one's own top package (`import orchestrator`) says nothing.
    assert not wrong, f"{rel(path)} ({folder_of(path)}) may not import {wrong}"


def test_table_worker_imports_nothing_of_the_orchestrator_and_the_core_no_engine() -> None:
    """The package cycle stays gone: the types both sides exchange live in
    `table_worker.protocol` (stdlib only)."""
    tables = [p for p in modules() if rel(p).startswith("table_worker/")]
    assert tables
    for path in tables:
        assert not {n for n in imported(path) if under(n, ("orchestrator",))}, rel(path)
    core = [p for p in modules() if rel(p).startswith("orchestrator/core/")]
    for path in core:
        worker = {n for n in imported(path) if under(n, ("table_worker",))}
        assert all(under(n, ("table_worker.protocol",)) for n in worker), rel(path)
    protocol = ROOT / "table_worker" / "protocol.py"
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    assert {n.split(".")[0] for n in imported(protocol)} <= stdlib


@pytest.mark.parametrize("path", list(modules()), ids=rel)
def test_ray_is_imported_only_in_shell_modules(path: Path) -> None:
    if rel(path).startswith(RAY_ALLOWED):
        return
    assert not {n for n in imported(path) if under(n, ("ray",))}, rel(path)


@pytest.mark.parametrize(
    "path", [p for p in modules() if rel(p).startswith("orchestrator/core/")], ids=rel
)
def test_the_core_is_pure(path: Path) -> None:
    """No Ray, gRPC, store driver, clock, environment or global RNG in the core: time and
    randomness come in as arguments (`random.Random` is a type here, never the module's
    shared generator)."""
    names = imported(path)
    assert not {n for n in names if under(n, CORE_FORBIDDEN)}, rel(path)
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            assert {a.name for a in node.names} <= {"Random"}, rel(path)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr == "Random", f"{rel(path)}:{node.lineno} uses random.{node.attr}"


def test_importing_the_packages_changes_no_environment() -> None:
    """Ray's local-only default is set where Ray is started (`keep_ray_on_this_machine`),
    not as a side effect of importing a module."""
    names = [
        ".".join(Path(rel(p)).with_suffix("").parts).removesuffix(".__init__")
        for p in modules()
        if not rel(p).endswith("__main__.py")
    ]
    code = (
        # Ray itself sets variables when imported: the packages' own imports are measured.
        "import importlib, os, ray; before = dict(os.environ)\n"
        f"for name in {names!r}: importlib.import_module(name)\n"
        "keys = set(os.environ) | set(before)\n"
        "changed = {k for k in keys if os.environ.get(k) != before.get(k)}\n"
        "print(sorted(changed))"
    )
    env = {k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "path", [p for p in modules() if rel(p).startswith("orchestrator/core/")], ids=rel
)
def test_no_core_module_is_a_god_module(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= CORE_MAX_LINES, f"{rel(path)} has {lines} lines: split it by concern"


def test_no_reader_redefines_the_event_record() -> None:
    """One place says what an event record is (`core.event_base.EventRecord`)."""
    for path in modules():
        if rel(path) == "orchestrator/core/event_base.py":
            continue
        aliases = [
            node.lineno
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Assign) and ast.unparse(node.value) == "dict[str, Any]"
        ]
        assert not aliases, f"{rel(path)}:{aliases} defines its own event record type"
