"""The layout's rules, read from the imports: the pure core and the views import no shell,
front door or command line; Ray's error classes are named only in the shell, whose one table
(`orchestrator.shell.errors`) maps them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "orchestrator"
OUTER = ("orchestrator.shell", "orchestrator.frontdoor", "orchestrator.cli")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", ["core", "views"])
def test_inner_layers_import_no_shell_front_door_or_command_line(layer: str) -> None:
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        outer = {n for n in imported(path) if n.startswith(OUTER)}
        assert not outer, f"{path.relative_to(PACKAGE.parent)} imports {sorted(outer)}"


def test_rays_error_classes_are_named_only_in_the_shell() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(PACKAGE / "shell"):
            continue
        tree = ast.parse(path.read_text(), str(path))
        named = [
            node.lineno
            for node in ast.walk(tree)
            if (isinstance(node, ast.Attribute) and node.attr == "exceptions")
            and isinstance(node.value, ast.Name)
            and node.value.id == "ray"
        ]
        assert "ray.exceptions" not in imported(path) and not named, path
