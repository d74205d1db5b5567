"""BBA-1 from the tournament's configuration to the table: `[levels] big_blind_ante = true`
makes every level's ante one ante for the table, posted by the big blind; a bad value is
refused naming the key. Pure core and engine, no Ray."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from test_tournament_core import open_tournament, run
from tournament_checks import begin, check_log

from orchestrator.core.config_toml import load_config, parse_config
from orchestrator.core.levels import blind_level
from orchestrator.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "big-blind-ante-180.toml"


def levels(**extra: Any) -> dict[str, Any]:
    return {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40, 40]], **extra}


def test_bba1_every_level_carries_the_big_blind_ante_past_the_schedule_too() -> None:
    cfg = parse_config({"tournament": {}, "levels": levels(big_blind_ante=True)})
    assert [level.big_blind_ante for level in cfg.levels] == [True, True]
    doubled = blind_level(cfg, 4)
    assert (doubled.big_blind, doubled.ante, doubled.big_blind_ante) == (160, 160, True)
    assert not parse_config({"tournament": {}, "levels": levels()}).levels[1].big_blind_ante


@pytest.mark.parametrize("value", ["yes", 1, [True]])
def test_bba1_a_value_that_is_not_a_boolean_is_refused_naming_the_key(value: object) -> None:
    with pytest.raises(ConfigError, match=r"levels\.big_blind_ante must be true or false"):
        parse_config({"tournament": {}, "levels": levels(big_blind_ante=value)})


def test_bba1_a_big_blind_ante_with_no_ante_in_any_level_is_refused() -> None:
    no_antes = {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40]]}
    with pytest.raises(ConfigError, match=r"levels\.big_blind_ante = true, but no level has"):
        parse_config({"tournament": {}, "levels": {**no_antes, "big_blind_ante": True}})


def test_bba1_the_example_plays_to_a_winner_with_big_blind_antes_dealt() -> None:
    """The example's structure, cut to 27 players, through the real core and engine: every
    hand is dealt with the big blind ante on, and the log audits clean."""
    cfg = load_config(EXAMPLE)
    assert cfg.levels[3].ante == 250 and cfg.levels[3].big_blind_ante
    small = parse_config(
        {
            "tournament": {"players": 27, "max_per_table": 9, "starting_stack": 3000},
            "levels": {
                "unit": "hands",
                "length": 3,
                "big_blind_ante": True,
                "blinds": [[lv.small_blind, lv.big_blind, lv.ante] for lv in cfg.levels],
            },
        }
    )
    tournament, begun = open_tournament(small, 27, random.Random(1))
    dealt = [d.next_hand for d in begin(tournament, begun).values()]
    assert dealt and all(spec is not None and spec.big_blind_ante for spec in dealt)

    tournament, log = run(small, seed=11)
    check_log(small, log)
    assert tournament.finished
    assert any(e["type"] == "level_started" and e["ante"] for e in log)
