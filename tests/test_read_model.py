"""The one read model of the log (orchestrator.views.read_model): folded from the log alone,
it holds at every step what the core that wrote the log held: the players still in and their
chips, who sits where, the places, the hands, the level, the entries and the prize pool."""

from __future__ import annotations

import doctest
import random
from pathlib import Path
from typing import Any

import pytest
from test_recovery import drive
from test_snapshots import shootout

from orchestrator.core.replay import load_snapshot
from orchestrator.views import read_model as read_model_module
from orchestrator.views.read_model import ReadModel


@pytest.mark.parametrize(
    ("players", "seed", "settings"),
    [
        (23, 1, {"max_per_table": 6, "commands": {6: "pause", 12: "resume"}}),
        (30, 2, {"max_per_table": 7, "policy": "threshold"}),
        (18, 4, {"max_per_table": 6, "late_registration_levels": 2, "reentries": 1}),
        (
            20,
            9,
            {
                "max_per_table": 5,
                "structure": "rebuy",
                "rebuy": {"levels": 2},
                "commands": {3: "disqualification"},
            },
        ),
        (24, 5, {"cfg": shootout(24)}),
        (23, 3, {"max_per_table": 6, "commands": {14: "cancel"}}),
    ],
)
def test_the_read_model_holds_what_the_core_held_at_every_step(
    tmp_path: Path, players: int, seed: int, settings: dict[str, Any]
) -> None:
    records, states = drive(tmp_path, players, seed, kill_rate=0.05, opening=True, **settings)
    model = ReadModel()
    applied = 0
    for end in sorted(states):
        for record in records[applied:end]:
            assert model.apply_record(record) is not None
        applied = end
        core = load_snapshot(states[end])
        # Busted while late registration is open, placed when it closes: the log says so then
        # (player_eliminated); until then the model has them in at 0 chips, in their seats.
        held = {p for p, chips in model.stacks.items() if not chips and p not in core.stacks}
        assert {p: c for p, c in model.stacks.items() if p not in held} == dict(core.stacks)
        assert model.chips == sum(core.stacks.values())
        seated = {  # the final hand's busted keep their seats in the core's floor
            t: {s: p for s, p in seats.items() if p in core.stacks}
            for t, seats in core.seating.tables.items()
        }
        shown = {
            t: {s: p for s, p in seats.items() if p not in held}
            for t, seats in model.tables.items()
        }
        assert shown == seated, end
        assert {p: (t, s) for t, seats in model.tables.items() for s, p in seats.items()} == (
            model.seats
        )
        assert model.places == dict(core.places), end
        assert (model.hands, model.level, model.entries) == (
            core.hands,
            core.clock.level,
            core.entries,
        )
        assert model.prize_pool == core.prize_pool
        assert (model.paused_at is not None) == (core.paused_at is not None)
        assert model.cancelled == core.cancelled and (model.winner is not None) == core.finished
    assert not model.gap and model.unreadable == 0
    assert model.opened is not None and model.opened.seed == seed


def test_a_repeated_record_is_skipped_and_a_missing_or_unreadable_one_flagged() -> None:
    model = ReadModel()
    opened = {"seq": 1, "ts": 0.0, "type": "table_opened", "table": 1}
    assert model.apply_record(opened) is not None
    assert model.apply_record(opened) is None and not model.gap
    assert model.apply_record({"seq": 2, "ts": 0.0, "type": "table_opened"}) is None
    assert model.gap and model.unreadable == 1 and model.seq == 2
    model = ReadModel()
    assert model.apply_record({**opened, "seq": 3}) is not None and model.gap


def test_touched_names_the_tables_and_places_changed_since_last_taken(tmp_path: Path) -> None:
    records, _ = drive(tmp_path, 12, 5, max_per_table=6, opening=True)
    model = ReadModel()
    for record in records:
        model.apply_record(record)
    touched = model.take_touched()
    assert touched.tables and touched.places == model.places
    assert model.take_touched().tables == set()


def test_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(read_model_module)
    assert tried and not failed


def test_random_order_of_steps_changes_nothing_the_model_is_told() -> None:
    """The model reads only what the records say: two folds of one log agree."""
    a, b = ReadModel(), ReadModel()
    rng = random.Random(1)
    log = [{"seq": k, "ts": float(k), "type": "table_opened", "table": k} for k in range(1, 20)]
    for record in log:
        a.apply_record(record)
    for record in sorted(log, key=lambda r: rng.random()):
        b.apply_record(record)  # out of order: a gap, and the late ones skipped
    assert a.tables.keys() >= b.tables.keys() and b.gap and not a.gap
