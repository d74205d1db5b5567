"""How the bots played, from hand histories (orchestrator.views.play_style): VPIP, PFR, showdown
share and hands per player; and the bot styles play like their names (table_worker.bots)."""

from __future__ import annotations

import doctest
import random
import tomllib
from collections import Counter
from typing import Any

import pytest

from orchestrator.views import play_style as play_style_module
from orchestrator.views.play_style import PlayStyle, format_play_styles, play_styles, read_hands
from table_worker.bots import BOT_POLICIES, mix_pool, parse_mix, policy_for
from table_worker.phh import phhs_text, write_phhs
from table_worker.session import TableConfig, play_table


def phh(players: list[str], blinds: list[int], actions: list[str], **extra: Any) -> dict[str, Any]:
    n = len(players)
    deal = [f"d dh p{k + 1} ????" for k in range(n)]
    return {
        "players": players,
        "blinds_or_straddles": blinds,
        "starting_stacks": extra.get("stacks", [1000] * n),
        "antes": extra.get("antes", [0] * n),
        "actions": deal + actions,
    }


def by_policy(rows: list[PlayStyle]) -> dict[str, tuple[int, int, float, float, float]]:
    return {r.policy: (r.players, r.hands, r.vpip, r.pfr, r.showdown) for r in rows}


def test_vpip_counts_calls_and_raises_before_the_flop_not_blinds_or_the_big_blinds_check() -> None:
    hands = [
        # p1 small blind completes (VPIP), p2 big blind checks (not VPIP), p3 folds
        phh(
            ["sb", "bb", "btn"],
            [50, 100, 0],
            ["p3 f", "p1 cc", "p2 cc", "d db 2s3s4s", "p1 cc", "p2 cbr 100", "p1 f"],
        ),
        # heads-up: the blinds are written reversed ([small, big]); p1 is the big blind and
        # p2 (button, small blind) limps, then p1 raises
        phh(
            ["bb", "sb"],
            [50, 100],
            [
                "p2 cc",
                "p1 cbr 300",
                "p2 cc",
                "d db 2s3s4s",
                "d db 5h",
                "d db 9c",
                "p1 sm AsAh",
                "p2 sm",
            ],
        ),
        # a post-flop raise is not PFR; a big blind short all-in: the call is still a call
        phh(
            ["sb", "bb", "btn"],
            [50, 100, 0],
            ["p3 cc", "p1 f", "p2 cc", "d db 2s3s4s", "p2 cbr 200", "p3 cc"],
            stacks=[1000, 80, 1000],
        ),
    ]
    roles = {"sb": "a", "bb": "b", "btn": "c"}
    rows = by_policy(play_styles(hands, roles.get))
    assert rows["a"] == (1, 3, 2 / 3, 0.0, 1 / 3)  # completes, limps heads-up; shows down once
    assert rows["b"] == (1, 3, 1 / 3, 1 / 3, 1 / 3)  # checks, raises heads-up, checks short
    assert rows["c"] == (1, 2, 1 / 2, 0.0, 0.0)  # folds, calls the short big blind
    assert rows["all"] == (3, 8, 4 / 8, 1 / 8, 2 / 8)


def test_hands_per_player_and_unknown_players() -> None:
    hand = phh(["x", "y"], [50, 100], ["p2 f"])
    rows = play_styles([hand, hand, hand], {"x": "tag"}.get)
    assert [(r.policy, r.players, r.hands_per_player) for r in rows] == [
        ("?", 1, 3.0),
        ("tag", 1, 3.0),
        ("all", 2, 3.0),
    ]
    text = format_play_styles(rows)
    assert text.splitlines()[0].split() == ["bots", "players", "hands/player", "VPIP", "PFR",
                                            "showdown"]  # fmt: skip
    assert "tag" in text and "100.0%" not in text.splitlines()[2]


def test_read_hands_reads_every_phhs_of_a_folder(tmp_path: Any) -> None:
    config = TableConfig(players=4, starting_stack=600, policies=("random", "station"))
    played = list(play_table(config, 30, random.Random(3)))
    write_phhs(tmp_path / "table-0001.phhs", played[:10])
    write_phhs(tmp_path / "table-0002.phhs", played[10:])
    hands = list(read_hands(tmp_path))
    assert len(hands) == 30 and all("actions" in h for h in hands)


def test_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(play_style_module)
    assert tried and not failed


def styles(policy: str, hands: int = 400) -> PlayStyle:
    config = TableConfig(players=9, starting_stack=10_000, policies=(policy,))
    text = phhs_text(play_table(config, hands, random.Random(1)))
    return play_styles(tomllib.loads(text).values(), lambda p: policy)[0]


def test_bot_styles_play_like_their_names() -> None:
    """Nine of a style at a table, 100 big blinds deep: the field's usual numbers."""
    tag, lag, maniac, passive = (styles(p) for p in ("tag", "lag", "maniac", "loose-passive"))
    assert 0.15 <= tag.vpip <= 0.28 and 0.10 <= tag.pfr <= 0.22  # tight-aggressive
    assert tag.vpip < lag.vpip <= 0.40 and tag.pfr < lag.pfr
    assert maniac.vpip > 0.5 and maniac.pfr > lag.pfr  # raises most hands
    assert passive.vpip > 0.35 and passive.pfr < 0.08  # calls, rarely raises
    assert passive.showdown > tag.showdown


def test_a_mix_is_weighted_by_player_and_deterministic_from_the_seed() -> None:
    mix = parse_mix("tag=70,lag=15,station=10,random=5")
    pool = mix_pool(mix)
    assert len(pool) == 20 and Counter(pool) == {"tag": 14, "lag": 3, "station": 2, "random": 1}
    players = [f"p{k:05d}" for k in range(1, 10_001)]
    drawn = Counter(policy_for(p, pool, 7) for p in players)
    for name, weight in mix:
        assert abs(drawn[name] / len(players) - weight / 100) < 0.02, drawn
    assert [policy_for(p, pool, 7) for p in players[:50]] == [
        policy_for(p, pool, 7) for p in players[:50]
    ]
    assert [policy_for(p, pool, 7) for p in players[:50]] != [
        policy_for(p, pool, 8) for p in players[:50]
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("shark=10", "unknown bot policy 'shark'"),
        ("tag=10,tag=5", "named twice"),
        ("tag=x", "not a whole number"),
        ("tag=-1", "negative"),
        ("tag=0", "above 0"),
    ],
)
def test_a_bad_mix_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_mix(text)


def test_every_style_is_a_policy() -> None:
    assert {"tag", "lag", "maniac", "loose-passive"} <= set(BOT_POLICIES)
