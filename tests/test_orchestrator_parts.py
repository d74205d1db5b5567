"""The orchestrator core's small parts: config, levels, places (ELIM-1), payouts, blinds
(HE-8, HE-9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.core.blinds import first_blinds, next_blinds
from orchestrator.core.config_event import EventPlan, load_plan
from orchestrator.core.config_toml import load_config, parse_config
from orchestrator.core.levels import blind_level, level_due
from orchestrator.core.payouts import MILLION, default_shares, payouts
from orchestrator.core.places import Busted, place_eliminated
from orchestrator.errors import ConfigError
from table_worker.protocol import Blinds

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def minimal(**tournament: Any) -> dict[str, Any]:
    return {"tournament": tournament, "levels": {"blinds": [[25, 50], [50, 100]]}}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_config_loads(path: Path) -> None:
    """A tournament's file, or a multi-day event's (FL-1: its flights share one structure)."""
    plan = load_plan(path)
    config = plan.structure if isinstance(plan, EventPlan) else plan
    assert 2 <= config.max_per_table <= 10


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tournament": {}, "levels": {"blinds": []}}, "non-empty list"),
        ({"tournament": {}}, "needs a \\[levels\\] section"),
        (minimal(max_per_table=11), "max_per_table must be 2..10"),
        (minimal(max_per_table=1), "max_per_table must be 2..10"),
        (minimal(players=1), "players must be >= 2"),
        (minimal(colour="red"), "unknown key colour"),
        ({**minimal(), "extra": {}}, "unknown key extra"),
        (minimal(policy="fair"), "policy must be one of"),
        (minimal(starting_stack=20), "below the first big blind"),
        (minimal(buy_in=10.5), "buy_in must be a whole number"),
        ({"tournament": {}, "levels": {"blinds": [[50, 100], [50, 100]]}}, "must increase"),
        ({"tournament": {}, "levels": {"blinds": [[100, 50]]}}, "exceeds big blind"),
        ({**minimal(), "payouts": {"percent": [60, 30]}}, "add up to 100"),
        ({**minimal(), "payouts": {"percent": [30, 70]}}, "must not increase"),
        ({**minimal(), "breaks": [{"after_level": 1}]}, "breaks.minutes"),
        # HE-2: the big blind is twice the small blind, the level named
        (
            {"tournament": {}, "levels": {"blinds": [[25, 50], [30, 50], [50, 100]]}},
            r"level 2: the big blind must be twice the small blind \(HE-2\), not \[30, 50\]",
        ),
        ({"tournament": {}, "levels": {"blinds": [[25, 49]]}}, "level 1: .* twice the small"),
        # a structure without its section, the section named
        (minimal(structure="rebuy"), r'structure = "rebuy" needs a \[rebuy\] section'),
        (minimal(structure="shootout"), r'"shootout" needs a \[\[phases\]\] section'),
    ],
)
def test_bad_config_is_a_clear_error(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config(data)


def test_config_file_errors_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[tournament\n")
    with pytest.raises(ConfigError, match=r"broken\.toml is not valid TOML"):
        load_config(broken)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")


def test_rb5_levels_keep_doubling_past_the_schedule() -> None:
    config = parse_config(minimal())
    assert blind_level(config, 2).big_blind == 100
    assert blind_level(config, 5).big_blind == 800


def test_levels_by_hands_count_hands_per_table_and_by_minutes_exclude_breaks() -> None:
    by_hands = parse_config({"tournament": {}, "levels": {"length": 5, "blinds": [[1, 2]]}})
    common = {"level_started_at": 0.0, "now": 0.0}
    assert not level_due(by_hands, hands_this_level=9, tables_at_level_start=2, **common)
    assert level_due(by_hands, hands_this_level=10, tables_at_level_start=2, **common)
    by_time = parse_config(
        {"tournament": {}, "levels": {"unit": "minutes", "length": 10, "blinds": [[1, 2]]}}
    )
    args = {"level_started_at": 0.0, "hands_this_level": 0, "tables_at_level_start": 1}
    assert not level_due(by_time, now=599.0, **args)
    assert level_due(by_time, now=600.0, **args)
    # A 600 s pause moves the level's start on by 600 s: 300 s of play at 900 s.
    paused = {**args, "level_started_at": 600.0}
    assert not level_due(by_time, now=900.0, **paused)
    assert level_due(by_time, now=1200.0, **paused)


def test_elim1_more_chips_at_hand_start_places_better() -> None:
    out = place_eliminated(
        [Busted("small", 2, 100), Busted("big", 3, 900)],
        button=1,
        seats_per_table=10,
        remaining_before=50,
    )
    assert [(b.player, place) for b, place in out] == [("big", 49), ("small", 50)]


def test_elim1_equal_chips_nearer_the_button_clockwise_places_better() -> None:
    out = place_eliminated(
        [Busted("after", 2, 500), Busted("button", 9, 500), Busted("before", 8, 500)],
        button=9,
        seats_per_table=9,
        remaining_before=3,
    )
    assert [(b.player, place) for b, place in out] == [
        ("button", 1),
        ("after", 2),
        ("before", 3),
    ]


@given(pool=st.integers(0, 10**9), shares=st.lists(st.integers(1, 10_000), min_size=1))
def test_payouts_are_exact_integers_adding_up_to_the_pool(pool: int, shares: list[int]) -> None:
    shares.sort(reverse=True)
    amounts = payouts(pool, shares)
    assert sum(amounts) == pool
    assert amounts == sorted(amounts, reverse=True)


@pytest.mark.parametrize("entries", [2, 9, 10, 180, 1000, 10_000])
def test_default_payout_table_scales_with_the_field(entries: int) -> None:
    table = default_shares(entries)
    assert sum(table) == MILLION
    assert list(table) == sorted(table, reverse=True)
    assert 1 <= len(table) <= max(1, 3 * entries // 10)


def test_pay1_paid_percent_sets_how_many_the_default_table_pays() -> None:
    config = parse_config({**minimal(), "payouts": {"paid_percent": 15}})
    assert config.paid_percent == 15 and config.payout_percent is None
    assert len(default_shares(1000, config.paid_percent)) == 150
    assert len(default_shares(100, 15)) == 15 and sum(default_shares(100, 15)) == MILLION
    with pytest.raises(ConfigError, match="not both"):
        parse_config({**minimal(), "payouts": {"percent": [100], "paid_percent": 15}})
    with pytest.raises(ConfigError, match=r"paid_percent must be 1\.\.100"):
        parse_config({**minimal(), "payouts": {"paid_percent": 0}})


def test_he8_button_and_blinds_move_one_seat_left() -> None:
    blinds = first_blinds(3, [1, 3, 5, 7])
    assert blinds == Blinds(3, 5, 7)
    assert next_blinds(blinds, [1, 3, 5, 7]) == Blinds(5, 7, 1)


def test_he9_next_small_blind_eliminated_no_small_blind_and_button_to_designated_dealer() -> None:
    # seat 7 had the big blind and busted: nobody posts the small blind this hand
    assert next_blinds(Blinds(3, 5, 7), [1, 3, 5, 9]) == Blinds(5, None, 9)


def test_he9_dealer_eliminated_blinds_proceed_and_the_button_is_dead() -> None:
    # seat 5 (the small blind, next to deal) busted: the button rests on the empty seat 5
    assert next_blinds(Blinds(3, 5, 7), [1, 3, 7, 9]) == Blinds(5, 7, 9)


def test_he2_heads_up_the_button_posts_the_small_blind() -> None:
    assert first_blinds(4, [2, 4]) == Blinds(4, 4, 2)
    assert next_blinds(Blinds(4, 4, 2), [2, 4]) == Blinds(2, 2, 4)
    assert next_blinds(Blinds(1, 3, 5), [3, 5]) == Blinds(5, 5, 3)


@given(
    seats=st.sets(st.integers(1, 10), min_size=3, max_size=10),
    data=st.data(),
)
def test_he9_blinds_always_make_a_dealable_hand(seats: set[int], data: st.DataObject) -> None:
    """Whoever busts, the next hand's button and blinds satisfy the engine's HE-2/HE-9 checks,
    and the big blind never skips a player."""
    from table_worker.engine import Hand, HandSetup

    occupied = sorted(seats)
    blinds = first_blinds(data.draw(st.sampled_from(occupied)), occupied)
    for _ in range(12):
        if len(occupied) > 2 and data.draw(st.booleans()):
            occupied.remove(data.draw(st.sampled_from(occupied)))
        previous_big = blinds.big_blind
        blinds = next_blinds(blinds, occupied)
        expected_big = next((s for s in occupied if s > previous_big), occupied[0])
        assert blinds.big_blind == expected_big
        Hand(
            HandSetup(
                seats=tuple(occupied),
                stacks=tuple(1000 for _ in occupied),
                button=blinds.button,
                small_blind_seat=blinds.small_blind,
                big_blind_seat=blinds.big_blind,
                small_blind=5,
                big_blind=10,
            ),
            range(52),
        )
