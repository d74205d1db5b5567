"""Snapshots are data, not pickles (STYLE.md): the core's state as versioned JSON through the
state codec. Every state class of the core round-trips, so a core loaded from a snapshot taken
anywhere in a run decides the rest of the run as the original did, for every structure; a
field renamed is an upcast, a field added with a default reads old snapshots, and what cannot
be read is refused, after which a restarted orchestrator rebuilds from the log alone."""

from __future__ import annotations

import json
import pickle
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_recovery import drive, names, plain
from test_tournament_core import config
from tournament_checks import funds

from orchestrator.core import state_codec
from orchestrator.core.clock import LevelClock
from orchestrator.core.config import BagRule, Day2Start
from orchestrator.core.config_toml import parse_config
from orchestrator.core.replay import load_snapshot, rebuild, snapshot
from orchestrator.core.tables import TableState
from orchestrator.errors import RecordError, RecoveryError
from orchestrator.shell.recovery import rebuild_from_store
from orchestrator.shell.store import SqliteStore

LEVELS = {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40], [40, 80, 10]]}


def shootout(players: int) -> Any:
    return parse_config(
        {
            "tournament": {"structure": "shootout", "players": players, "buy_in": 100},
            "levels": LEVELS,
            "phases": [
                {"max_per_table": 6, "qualifiers": 1},
                {"max_per_table": 6, "qualifiers": 1, "stacks": "reset", "starting_stack": 3000},
            ],
        }
    )


def side_events(players: int) -> Any:
    return parse_config(
        {
            "tournament": {"players": players, "max_per_table": 6, "buy_in": 100},
            "levels": LEVELS,
            "side_events": {"players": 4, "buy_in": 100},
            "payouts": {"percent": [60, 30, 10]},
        }
    )


def flight(players: int) -> Any:
    """FL-1: a Day 1 flight bagging at a quarter of its field."""
    return replace(side_events(players), side_events=None, bag=BagRule(players=players // 4))


def day2(players: int) -> Any:
    """FL-3: a Day 2 of uneven bags at level 2, its pool the flights'."""
    stacks = tuple((p, 500 + 100 * k) for k, p in enumerate(names(players)))
    start = Day2Start(stacks=stacks, level=2, pool=100 * 3 * players, entries=3 * players)
    return replace(side_events(players), side_events=None, players=players, day2=start)


# (players, seed, drive's settings): every structure, its policies and commands.
RUNS: list[tuple[int, int, dict[str, Any]]] = [
    (23, 1, {"max_per_table": 6, "commands": {6: "pause", 12: "resume", 20: "cancel"}}),
    (30, 2, {"max_per_table": 7, "policy": "threshold"}),
    (27, 7, {"max_per_table": 8, "policy": "tda"}),
    (14, 3, {"max_per_table": 6, "knockout": {"kind": "progressive", "bounty": 40}}),
    (20, 3, {"max_per_table": 5, "hand_for_hand": 8}),
    (
        14,
        8,
        {
            "max_per_table": 6,
            "late_registration_levels": 2,
            "reentries": 1,
            "late_entries": 5,
            "commands": {2: "warning", 4: "penalty", 6: "warning", 9: "warning"},
        },
    ),
    (
        20,
        9,
        {
            "max_per_table": 5,
            "structure": "rebuy",
            "rebuy": {"levels": 2},
            "commands": {1: "rebuy", 3: "disqualification"},
        },
    ),
    (24, 5, {"cfg": shootout(24)}),
    (16, 6, {"cfg": side_events(16)}),
    (20, 4, {"cfg": flight(20)}),
    (13, 4, {"cfg": day2(13)}),
]

# The core's state classes a tournament holds in one structure or another.
STATE_CLASSES = {
    "tournament.Tournament", "play.Play", "tables.TableState", "clock.LevelClock",
    "freezeout.FreezeOut", "floor.TableFloor", "seating.SeatMap", "seating.TableIndex",
    "equilibrium.Equilibrium", "balancing.Threshold", "tda.Tda", "pace.Pace",
    "bounties.Bounties", "config.BountyRules",
    "shootout.ShootOut",
    "shootout.PhaseSeating", "rebuys.Rebuys", "late.LateEntry", "hand_for_hand.HandForHand",
    "discipline.Discipline", "sanctions.SanctionBook", "sanctions.Sanction",
    "registration.Registration", "registration._Book", "registration.Registrant",
    "registration.RegistrationRules", "ledger.Ledger", "ledger_records.Account",
    "ledger_records.Posting", "ledger_records.Opening", "ledger_records.EntryPaid",
    "rankings.Rankings", "places.Busted", "config.TournamentConfig", "config.BlindLevel",
    "config.RebuyRules", "config.Phase", "config.SideEvents", "protocol.NextHand",
    "config.BagRule", "config.Day2Start",
    "protocol.Blinds", "protocol.TableDirective",
}  # fmt: skip


def classes_in(document: Any) -> set[str]:
    if isinstance(document, list):
        return {name for item in document for name in classes_in(item)}
    if isinstance(document, dict):
        own = {document["$obj"]} if "$obj" in document else set()
        return own | {name for item in document.values() for name in classes_in(item)}
    return set()


def test_every_state_class_round_trips_and_decides_the_rest_of_the_run_alike(
    tmp_path: Path,
) -> None:
    """A core loaded from any snapshot replays the rest of its run to the decisions the
    original took (`rebuild` checks every event against the log), and holds what it held."""
    seen: set[str] = set()
    for k, (players, seed, settings) in enumerate(RUNS):
        run = dict(settings)
        cfg = run.pop("cfg", None)
        folder = tmp_path / str(k)
        folder.mkdir()
        records, states = drive(folder, players, seed, kill_rate=0.05, cfg=cfg, **run)
        run.pop("commands", None)
        cfg = cfg or config(players=players, buy_in=100, **run)
        ends = sorted(states)
        for end in random.Random(seed).sample(ends[:-1], min(6, len(ends) - 1)):
            document = json.loads(states[end])
            assert document["format"] == "mtt-snapshot"
            assert document["v"] == state_codec.SNAPSHOT_VERSION
            seen |= classes_in(document)
            loaded = load_snapshot(states[end])
            finished = rebuild(
                cfg,
                names(players),
                deposits=funds(cfg, names(players)),
                tournament_id="t",
                seed=seed,
                records=records[end:],
                base=(end, loaded),
            )
            assert plain(finished) == plain(load_snapshot(states[ends[-1]])), (k, end)
            assert plain(load_snapshot(snapshot(loaded))) == plain(loaded)
    assert seen == STATE_CLASSES, (
        f"held but not listed: {sorted(seen - STATE_CLASSES)}; "
        f"listed but never held: {sorted(STATE_CLASSES - seen)}"
    )


def test_a_renamed_field_is_an_upcast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were `LevelClock.level` called `lvl` in this snapshot version, the next one reads it
    through its upcaster."""
    current = state_codec.SNAPSHOT_VERSION
    old = state_codec.encode_snapshot({"clock": LevelClock(level=4)})
    for node in state_codec.objects_of(old, "clock.LevelClock"):
        node["lvl"] = node.pop("level")

    def rename(document: dict[str, Any]) -> dict[str, Any]:
        for node in state_codec.objects_of(document, "clock.LevelClock"):
            node["level"] = node.pop("lvl")
        return {**document, "v": current + 1}

    monkeypatch.setattr(state_codec, "SNAPSHOT_VERSION", current + 1)
    monkeypatch.setitem(state_codec.SNAPSHOT_UPCASTERS, current, rename)
    assert state_codec.decode_snapshot(old) == {"clock": LevelClock(level=4)}
    monkeypatch.delitem(state_codec.SNAPSHOT_UPCASTERS, current)
    with pytest.raises(RecordError, match=f"no upcaster from snapshot version {current}"):
        state_codec.decode_snapshot(old)


def test_a_field_added_with_a_default_reads_old_snapshots_and_others_are_refused() -> None:
    state = state_codec.dump_state(TableState(drawn_button=3, last_hand=7))
    without = {k: v for k, v in state.items() if k != "idle_logged"}
    assert state_codec.load_state(without) == TableState(drawn_button=3, last_hand=7)
    for broken, complaint in [
        ({k: v for k, v in state.items() if k != "drawn_button"}, "lacks its field drawn_button"),
        ({**state, "chairs": 9}, "no field chairs any more"),
        ({**state, "$obj": "tables.Nothing"}, "no class tables.Nothing in the core"),
        ({**state, "$obj": "os.system"}, "no class os.system in the core"),
        ({"$ref": 3}, "a reference to object 3, never written"),
        ({"$what": 1}, "is no kind of value"),
    ]:
        with pytest.raises(RecordError, match=complaint):
            state_codec.load_state(broken)
    with pytest.raises(RecordError, match="is not state of the core"):
        state_codec.dump_state(Path("x"))


def test_shared_objects_stay_shared_and_containers_keep_their_kind() -> None:
    clock = LevelClock()
    state = {"a": clock, "b": [clock], 3: (frozenset({1}), {2}, float("inf"), b"\x00")}
    document = json.loads(json.dumps(state_codec.dump_state(state)))
    back = state_codec.load_state(document)
    assert back["a"] is back["b"][0] and back == state and list(back) == ["a", "b", 3]
    assert type(back[3]) is tuple and type(back[3][0]) is frozenset and type(back[3][1]) is set


@pytest.mark.parametrize("state", [b"not json", pickle.dumps({"a": 1}), b'{"format": "x"}'])
def test_a_snapshot_that_is_not_one_is_refused(state: bytes) -> None:
    with pytest.raises(RecoveryError, match="the snapshot cannot be loaded"):
        load_snapshot(state)


def test_a_restart_rebuilds_from_the_log_alone_when_the_snapshot_cannot_be_used(
    tmp_path: Path,
) -> None:
    records, states = drive(tmp_path, 18, 4, kill_rate=0.05, opening=True, max_per_table=6)
    store = SqliteStore(str(tmp_path / "store.db"))
    final = plain(load_snapshot(states[max(states)]))
    middle = sorted(states)[len(states) // 2]
    try:
        rebuilt = rebuild_from_store(store, "t/run")
        assert rebuilt is not None and plain(rebuilt.tournament) == final
        assert rebuilt.records == records  # no snapshot: the whole log
        store.save_snapshot("t/run", middle, states[middle])
        rebuilt = rebuild_from_store(store, "t/run")
        assert rebuilt is not None and plain(rebuilt.tournament) == final
        assert rebuilt.records == records[middle:]  # the snapshot and its tail
        store.save_snapshot("t/run", middle + 1, b"{broken")
        rebuilt = rebuild_from_store(store, "t/run")
        assert rebuilt is not None and plain(rebuilt.tournament) == final
        assert rebuilt.records == records  # the snapshot was no use: the whole log
        store.save_snapshot("t/run", middle + 2, states[min(states)])  # another seq's state
        rebuilt = rebuild_from_store(store, "t/run")
        assert rebuilt is not None and plain(rebuilt.tournament) == final
        assert rebuilt.records == records  # its tail did not replay: the whole log
        assert rebuild_from_store(store, "nothing/here") is None
    finally:
        store.close()


def test_a_version_1_snapshot_of_a_tda_run_breaks_one_table_at_a_time(tmp_path: Path) -> None:
    """Snapshot version 2 added TDA-2's several breaks at once (`tda_breaks`): a version 1
    snapshot, taken when tables broke one at a time, goes on doing so."""
    cfg = replace(config(players=40, buy_in=100), policy="tda")
    _, states = drive(tmp_path, 40, 3, cfg=cfg)
    document = json.loads(states[min(states)])
    for node in (
        *state_codec.objects_of(document, "tda.Tda"),
        *state_codec.objects_of(document, "config.TournamentConfig"),
    ):
        assert node.pop("_breaks", node.pop("tda_breaks", None)) == "due"
    old = state_codec.decode_snapshot({**document, "v": 1})
    assert old.config.tda_breaks == "one"
    (policy,) = state_codec.objects_of(state_codec.encode_snapshot(old), "tda.Tda")
    assert policy["_breaks"] == "one"
