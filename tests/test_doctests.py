"""The docstring examples of the pure modules run (STYLE.md: an example that explains better
than prose is also a test)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = sorted(
    [
        *(ROOT / "orchestrator" / "core").glob("*.py"),
        *(ROOT / "table_worker").glob("*.py"),
        ROOT / "orchestrator" / "frontdoor" / "player_view.py",  # `mtt client`'s pure part
        *(ROOT / "loadtest" / name for name in ("histogram.py", "think.py", "schedule.py")),
    ]
)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


@pytest.mark.parametrize("path", PURE, ids=module_name)
def test_docstring_examples_run(path: Path) -> None:
    if path.name == "actor.py":  # the table's Ray shell: imports Ray, has no examples
        return
    failed, _ = doctest.testmod(importlib.import_module(module_name(path)))
    assert failed == 0
