"""The live lobby and clock as a pure fold over the log's records (orchestrator.views.live.lobby),
written as the log writes them."""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

from test_recovery import drive
from test_tournament_core import config as tournament_config

from orchestrator.core.config_toml import parse_config
from orchestrator.core.payouts import prize_table
from orchestrator.views.live import lobby as lobby_module
from orchestrator.views.live.lobby import Lobby


def config(unit: str = "minutes", length: int = 10, **tournament: Any) -> Any:
    return parse_config(
        {
            "tournament": {"name": "Live", "max_per_table": 6, "buy_in": 1000, **tournament},
            "levels": {"unit": unit, "length": length, "blinds": [[10, 20], [20, 40, 5]]},
            "breaks": [{"after_level": 1, "minutes": 5}],
            "payouts": {"percent": [70, 30]},
        }
    )


class Log:
    """Events numbered as the log numbers them."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.seq = 0

    def __call__(self, type: str, ts: float = 1000.0, **fields: Any) -> None:
        self.seq += 1
        self.lobby.apply({"seq": self.seq, "ts": ts, "type": type, **fields})


def seat(player: str, seat: int, start: int, end: int) -> dict[str, Any]:
    return {"player": player, "seat": seat, "start": start, "end": end}


def two_tables(lobby: Lobby) -> Log:
    log = Log(lobby)
    for player in "abcdef":
        log("player_registered", player=player, entry=1, buy_in=1000, fee=100)
    log("tournament_started", tournament="live-1", players=6, tables=2, max_per_table=6,
        structure="freezeout", policy="equilibrium", starting_stack=1000)  # fmt: skip
    log("level_started", level=1, small_blind=10, big_blind=20, ante=0)
    for table, players in ((1, "abc"), (2, "def")):
        log("table_opened", table=table)
        for k, player in enumerate(players, start=1):
            log("player_seated", player=player, table=table, seat=k, stack=1000)
        log("button_assigned", table=table, seat=1)
    return log


def test_tables_seats_stacks_buttons_moves_and_closings() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    assert lobby.table_view(1) == {
        "table": 1,
        "button": 1,
        "final": False,
        "seats": [[1, "a", 1000], [2, "b", 1000], [3, "c", 1000]],
    }
    log(
        "hand_finished",
        table=1,
        hand=1,
        button=2,
        players=[seat("a", 1, 1000, 1900), seat("b", 2, 1000, 100), seat("c", 3, 1000, 1000)],
    )
    log("player_moved", player="d", from_table=2, from_seat=1, to_table=1, to_seat=4,
        stack=1000, reason="balance")  # fmt: skip
    view = lobby.table_view(1)
    assert view is not None and view["button"] == 2
    assert view["seats"] == [[1, "a", 1900], [2, "b", 100], [3, "c", 1000], [4, "d", 1000]]
    assert lobby.seats["d"] == (1, 4) and 1 not in lobby.tables[2]
    log("player_moved", player="e", from_table=2, from_seat=2, to_table=1, to_seat=5,
        stack=1000, reason="close")  # fmt: skip
    log("player_moved", player="f", from_table=2, from_seat=3, to_table=1, to_seat=6,
        stack=1000, reason="close")  # fmt: skip
    log("table_closed", table=2)
    log("final_table", table=1, players=list("abcdef"))
    assert lobby.table_view(2) is None and sorted(lobby.tables) == [1]
    view = lobby.table_view(1)
    assert view is not None and view["final"] and len(view["seats"]) == 6
    assert [i.text for i in lobby.feed] == [
        "d moves from table 2 to table 1 seat 4 (balancing)",
        "e moves from table 2 to table 1 seat 5 (table closed)",
        "f moves from table 2 to table 1 seat 6 (table closed)",
        "table 2 closes",
        "final table at table 1: 6 players",
    ]


def test_eliminations_give_places_ranking_and_feed() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    log(
        "hand_finished",
        table=1,
        hand=1,
        button=1,
        players=[seat("a", 1, 1000, 2000), seat("b", 2, 1000, 0), seat("c", 3, 1000, 1000)],
    )
    log("player_eliminated", player="b", place=6, table=1, hand=1, start=1000)
    assert lobby.places == {"b": 6}
    assert "b" not in lobby.stacks and [p for _, p, _ in lobby.table_view(1)["seats"]] == ["a", "c"]  # type: ignore[index]
    assert lobby.feed[-1].kind == "elimination"
    assert lobby.feed[-1].text == "b is out in 6th place (table 1)"
    assert lobby.ranking(3) == [("a", 2000), ("c", 1000), ("d", 1000)]  # ties by name
    clock = lobby.clock(1000.0)
    assert (clock["players_left"], clock["entries"], clock["average_stack"]) == (5, 6, 1200)


def test_changes_name_only_what_changed_since_last_taken() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    first = lobby.take_changes()
    assert first.tables == {1, 2} and not first.feed
    log(
        "hand_finished",
        table=2,
        hand=1,
        button=2,
        players=[seat("d", 1, 1000, 0), seat("e", 2, 1000, 2000), seat("f", 3, 1000, 1000)],
    )
    log("player_eliminated", player="d", place=6, table=2, hand=1, start=1000)
    changes = lobby.take_changes()
    assert changes.tables == {2} and changes.places == {"d": 6}
    assert [i.kind for i in changes.feed] == ["elimination"]
    assert lobby.take_changes().tables == set()


def test_timed_level_counts_down_stops_while_paused_and_moves_by_the_pause() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)  # level 1 started at ts 1000, 10 minutes
    assert lobby.clock(1060.0)["seconds_left"] == 540
    log("tournament_paused", ts=1100.0)
    assert lobby.status == "paused"
    assert lobby.clock(1100.0)["seconds_left"] == lobby.clock(1250.0)["seconds_left"] == 500
    log("tournament_resumed", ts=1300.0, paused_seconds=200.0)
    assert lobby.status == "running"
    assert lobby.clock(1310.0)["seconds_left"] == 1000 + 600 + 200 - 1310


def test_a_break_counts_down_and_the_next_level_starts_after_it() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    assert lobby.clock(1000.0)["break_after_level"] == 5
    log("break_started", ts=1600.0, minutes=5)
    log("level_started", ts=1600.0, level=2, small_blind=20, big_blind=40, ante=5)
    clock = lobby.clock(1660.0)
    assert clock["break_seconds_left"] == 240
    assert clock["seconds_left"] == 600  # the level has not begun
    assert clock["blinds"] == [20, 40, 5] and clock["next_blinds"] == [40, 80, 10]
    after = lobby.clock(1960.0)
    assert after["break_seconds_left"] is None and after["seconds_left"] == 540


def test_start2_a_level_counted_in_hands_shows_the_slowest_tables_hands_left() -> None:
    lobby = Lobby(config(unit="hands", length=2))
    log = two_tables(lobby)
    assert lobby.clock(0.0)["hands_left"] == 2  # 2 hands at the slowest table
    for hand in (1, 2, 3):
        log("hand_finished", table=1, hand=hand, button=1,
            players=[seat("a", 1, 1000, 1000), seat("b", 2, 1000, 1000)])  # fmt: skip
    clock = lobby.clock(0.0)
    assert clock["hands_left"] == 2 and clock["seconds_left"] is None and clock["hands"] == 3
    log("hand_finished", table=2, hand=1, button=1,
        players=[seat("d", 1, 1000, 1000), seat("e", 2, 1000, 1000)])  # fmt: skip
    assert lobby.clock(0.0)["hands_left"] == 1  # table 2 is the slowest, one hand played


def test_start1_the_clock_starts_when_play_starts() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)  # level 1 logged at ts 1000, 10 minutes
    log("play_started", ts=1030.0, tables=[1, 2], held_seconds=30.0)
    assert lobby.clock(1030.0)["seconds_left"] == 600
    assert lobby.feed[-1].text == "shuffle up and deal: 2 tables start"


def test_prize_pool_and_payouts_as_the_core_will_award_them() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    assert lobby.prize_pool == 6000
    assert lobby.payouts() == prize_table(6000, percent=(70, 30), entries=6, field_size=6)
    assert lobby.payouts() == [4200, 1800]
    log("prize_awarded", player="a", place=1, amount=4300)
    log("prize_awarded", player="c", place=2, amount=1700)
    assert lobby.payouts() == [4300, 1700]
    log("tournament_finished", winner="a", hands=9, seconds=1.0)
    assert lobby.status == "finished" and lobby.clock(0.0)["winner"] == "a"


def test_cancellation_is_shown_with_its_reason() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    log("tournament_paused")
    log("tournament_cancelled", reason="power cut")
    assert lobby.status == "cancelled" and lobby.clock(0.0)["cancelled"] == "power cut"
    assert lobby.feed[-1].text == "the tournament is cancelled: power cut"


def test_a_repeated_event_is_ignored_and_a_missing_one_flagged() -> None:
    lobby = Lobby(config())
    two_tables(lobby)
    seq = lobby.seq
    lobby.apply({"seq": seq, "ts": 0, "type": "table_opened", "table": 9})
    assert 9 not in lobby.tables and not lobby.gap
    lobby.apply({"seq": seq + 2, "ts": 0, "type": "table_opened", "table": 9})
    assert lobby.gap and lobby.clock(0.0)["gap"] and lobby.seq == seq + 2


def test_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(lobby_module)
    assert tried and not failed


def test_failover_rebuys_and_phases_reach_the_feed() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    log("node_lost", node="n1", tables=[2])
    log("hand_voided", table=2, hand=7)
    log("table_restarted", table=2, node="n2")
    log("rebuy", player="d", chips=1500)
    log("phase_started", phase=2, tables=1)
    log("player_qualified", player="a", phase=2)
    assert [i.text for i in lobby.feed] == [
        "a machine was lost (tables 2)",
        "hand 7 at table 2 is void",
        "table 2 deals again on another machine",
        "d rebuys 1,500 chips",
        "phase 2 starts at 1 table",
        "a qualifies for phase 2",
    ]
    assert lobby.stacks["d"] == 2500 and lobby.take_changes().tables == {1, 2}


def test_deal1_deal3_the_feed_shows_a_deal_proposed_its_answers_and_what_it_pays() -> None:
    lobby = Lobby(config())
    log = two_tables(lobby)
    log(
        "deal_proposed",
        kind="chip_chop",
        players=["a", "b"],
        chips=[300, 100],
        amounts=[150000, 50000],
        left=10000,
    )
    log("deal_answered", player="a", accepted=True)
    log("deal_answered", player="b", accepted=False)
    log(
        "deal_proposed",
        kind="icm",
        players=["a", "b"],
        chips=[300, 100],
        amounts=[120000, 80000],
        left=0,
    )
    log("deal_answered", player="b", accepted=True)
    log("deal_paid", player="a", chips=300, amount=120000, place=1)
    assert [i.text for i in lobby.feed] == [
        "chip chop deal proposed: a 1,500.00, b 500.00, 100.00 left to play for",
        "a accepts the deal",
        "b declines the deal: play resumes",
        "icm deal proposed: a 1,200.00, b 800.00",
        "b accepts the deal",
        "the deal pays a 1,200.00",
    ]
    assert {i.kind for i in lobby.feed} == {"deal"}


def test_tda2_the_lobby_shows_the_published_break_order_from_before_the_start() -> None:
    lobby = Lobby(config(policy="tda"))
    before = lobby.clock(0.0)["balancing"]
    assert before["policy"] == "tda" and before["break_order"] == []
    assert before["procedure"][0].startswith("Tables break in order, highest table number first;")
    assert (
        "one at a time" in Lobby(config(policy="tda", tda_breaks="one")).balancing()["procedure"][0]
    )
    log = two_tables(lobby)
    assert lobby.clock(0.0)["balancing"]["break_order"] == [2, 1]
    log("table_closed", table=2)
    assert lobby.balancing()["break_order"] == [1]
    assert Lobby(config()).balancing() == {
        "policy": "equilibrium",
        "procedure": [],
        "break_order": [],
    }


def test_pay1_the_lobby_pays_the_configured_share_of_the_field() -> None:
    cfg = parse_config(
        {
            "tournament": {"name": "Live", "max_per_table": 10, "buy_in": 1000},
            "levels": {"blinds": [[10, 20]]},
            "payouts": {"paid_percent": 30},
        }
    )
    lobby = Lobby(cfg)
    log = Log(lobby)
    for k in range(20):
        log("player_registered", player=f"p{k}", entry=1, buy_in=1000, fee=0)
    assert len(lobby.payouts()) == 6  # 30% of 20
    assert lobby.payouts() == prize_table(
        20_000, percent=None, entries=20, field_size=20, paid_percent=30
    )


def test_ko2_the_lobby_shows_each_players_bounty_and_the_bounties_won(tmp_path: Path) -> None:
    """A progressive knockout's log, folded as the live view folds it: every seat shows the
    cents on its player's head, the feed says who won which bounty, and at every step the
    bounty money is on the heads still in, paid in cash, or given back (KO-2, KO-5)."""
    knockout = {"kind": "progressive", "bounty": 40}
    records, _ = drive(tmp_path, 14, 3, kill_rate=0.05, knockout=knockout)
    lobby = Lobby(tournament_config(players=14, buy_in=100, knockout=knockout))
    returned = 0
    for record in records:
        lobby.apply(record)
        returned += record["amount"] if record["type"] == "bounty_returned" else 0
        m = lobby.model
        assert sum(m.bounty_on.values()) + sum(m.bounties_won.values()) + returned == (
            40 * m.entries
        ), record["seq"]
        for table in m.tables:
            view = lobby.table_view(table)
            assert view is not None
            assert all(
                len(row) == 4 and row[3] == m.bounty_on.get(row[1], 0) for row in view["seats"]
            )
    assert lobby.model.winner is not None and not lobby.model.bounty_on
    assert any("'s bounty" in item.text and item.kind == "elimination" for item in lobby.feed)
