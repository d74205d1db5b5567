"""eval7's compiled evaluator loaded without its package's hand-range parser
(`table_worker.evaluator`, HE-7), in a fresh interpreter: the engine and the bots import
none of pyparsing, unittest or eval7's ranges, and a later `import eval7` still gets the
whole package, with the same evaluator."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOAD_THE_TABLE_THEN_EVAL7 = """
import json, sys
import table_worker.bots, table_worker.engine
from table_worker import evaluator
before = sorted(m for m in sys.modules if m.split(".")[0] in ("eval7", "pyparsing", "unittest"))
import eval7
print(json.dumps({
    "before": before,
    "whole": hasattr(eval7, "HandRange") and "pyparsing" in sys.modules,
    "same": eval7.evaluate is evaluator.evaluate and eval7.Card is evaluator.Card,
}))
"""


def test_he7_the_table_loads_eval7s_evaluator_alone_and_eval7_stays_whole() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOAD_THE_TABLE_THEN_EVAL7],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen["before"] == ["eval7.cards", "eval7.evaluate"]
    assert seen["whole"] and seen["same"]


def test_he7_the_evaluator_ranks_hands() -> None:
    from table_worker.evaluator import Card, evaluate, handtype

    def value(cards: str) -> int:
        return int(evaluate([Card(cards[i : i + 2]) for i in range(0, len(cards), 2)]))

    royal, wheel, quads = value("AsKsQsJsTs2d3c"), value("5h4h3h2hAh9c9d"), value("9s9c9d9hKs")
    assert royal > wheel > quads > value("AsAdKsKdQc")
    assert handtype(wheel) == "Straight Flush" and handtype(quads) == "Quads"
