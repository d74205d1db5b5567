"""eval7's compiled hand evaluator (HE-7) and its cards, without the rest of its package.

eval7's package `__init__` also imports its hand-range parser, which builds a pyparsing
grammar at import (pyparsing, and unittest through it): about 3.7 MB of unique memory in
every table process, for ranges we never parse (docs/BENCHMARKS.md, "Lighter table
actors"). The evaluator and the cards are compiled modules of their own; they are loaded
here under eval7's package while that package stands in `sys.modules` unexecuted, and the
stand-in is taken out again, so a later `import eval7` anywhere in the process runs the
real `__init__` and finds these same modules."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Any

__all__ = ["Card", "evaluate", "handtype"]


def _compiled(*names: str) -> list[ModuleType]:
    """eval7's compiled modules `eval7.<name>`, importing no more of the package."""
    if "eval7" in sys.modules:  # imported already, whole: nothing to spare
        return [importlib.import_module(f"eval7.{name}") for name in names]
    spec = importlib.util.find_spec("eval7")
    if spec is None:
        raise ImportError("eval7 is not installed")
    sys.modules["eval7"] = importlib.util.module_from_spec(spec)  # its __init__ not run
    try:
        return [importlib.import_module(f"eval7.{name}") for name in names]
    finally:
        del sys.modules["eval7"]


_cards, _evaluate = _compiled("cards", "evaluate")

Card: Any = _cards.Card
evaluate: Any = _evaluate.evaluate  # the int value of 5..7 cards; higher is better
handtype: Any = _evaluate.handtype  # that value's class: "Pair", "Flush", ...
