"""Scheduled tournaments: `registration_opens_at` and `starts_at` read from the config (offset
date-times or epoch seconds), and the front door's scheduler opening and starting them on the
desk's clock, injected here (no Ray: the starts that would launch one are decided, and those
that cannot be are cancelled with every entry refunded, CRASH-1)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from orchestrator.core.config_toml import config_from_text
from orchestrator.errors import ConfigError
from orchestrator.frontdoor.desk import Desk, DeskSettings
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.frontdoor.schedule import Due, Scheduler, due
from orchestrator.shell.store import open_store

T0 = 1_800_000_000.0  # 2027-01-15T08:00:00Z
WALLET = 5_000


def config(schedule: str) -> str:
    return (
        "[tournament]\nname = 'sched'\nbuy_in = 1000\nfee = 100\n"
        f"{schedule}\n[levels]\nblinds = [[25, 50]]\n"
    )


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def desk_on(tmp_path: Path, clock: Clock) -> Desk:
    settings = DeskSettings(
        data_dir=tmp_path / "data",
        deck_target="-",
        gateway_target="-",
        gateway_secret="s",
        store_url="-",
    )
    desk = Desk(
        open_store(f"sqlite:///{tmp_path / 'store.db'}"), PlayerHub(), settings, clock=clock
    )
    for name in ("ann", "bob"):
        with contextlib.suppress(Exception):  # opened by an earlier desk on this store
            desk.create_account(name, WALLET)
    return desk


# --- the config keys ------------------------------------------------------------------------


def test_schedule_keys_take_offset_date_times_or_epoch_seconds() -> None:
    read = config_from_text(
        config("registration_opens_at = 2027-01-15T08:00:00Z\nstarts_at = 1800003600")
    )
    assert (read.registration_opens_at, read.starts_at) == (T0, T0 + 3600)
    text = config('registration_opens_at = "2027-01-15T09:00:00+01:00"')  # the same instant
    assert config_from_text(text).registration_opens_at == T0
    unscheduled = config_from_text(config(""))
    assert (unscheduled.registration_opens_at, unscheduled.starts_at) == (None, None)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("starts_at = 2027-01-15T08:00:00", "starts_at needs an offset"),  # a local time
        ("starts_at = 2027-01-15", "starts_at must be"),  # a date alone
        ('starts_at = "tomorrow"', "starts_at must be"),
        ("starts_at = -1", "starts_at in epoch seconds must be 0..253402300799"),
        ("starts_at = 1e300", "starts_at in epoch seconds must be 0..253402300799"),
        ("starts_at = true", "starts_at must be"),
        ("starts_at = nan", "starts_at must be"),
        ("registration_opens_at = 1800003600\nstarts_at = 1800000000", "must not be after"),
        ("start_at = 1800000000", "start_at"),  # a misspelt key is an unknown key
    ],
)
def test_bad_schedules_are_refused_naming_the_key(line: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_from_text(config(line))


# --- the scheduler --------------------------------------------------------------------------


def test_registration_opens_on_time_and_not_before(tmp_path: Path) -> None:
    clock = Clock(T0 - 10)
    desk = desk_on(tmp_path, clock)
    desk.create(config(f"registration_opens_at = {T0}\nstarts_at = {T0 + 600}"), "fri")
    scheduler = Scheduler(desk)
    assert asyncio.run(scheduler.tick()) == []
    assert desk.get("fri").state == "announced"
    clock.now = T0
    assert asyncio.run(scheduler.tick()) == [Due("fri", "open")]
    assert desk.get("fri").state == "registering"
    assert asyncio.run(scheduler.tick()) == []  # once


def test_a_start_with_fewer_than_two_registered_cancels_with_refunds_and_says_so(
    tmp_path: Path,
) -> None:
    clock = Clock(T0)
    desk = desk_on(tmp_path, clock)
    desk.create(config(f"registration_opens_at = {T0}\nstarts_at = {T0 + 600}"), "fri")
    scheduler = Scheduler(desk)
    asyncio.run(scheduler.tick())
    desk.register("fri", "ann")
    assert desk.balance("ann") == WALLET - 1_100
    clock.now = T0 + 599.9
    assert asyncio.run(scheduler.tick()) == []
    clock.now = T0 + 600
    (done,) = asyncio.run(scheduler.tick())
    assert done.action == "cancel"
    assert "1 registered at its start at 2027-01-15T08:10:00+00:00" in done.reason
    assert "at least 2" in done.reason
    entry = desk.get("fri")
    assert entry.state == "cancelled"
    cancelled = [e for e in entry.events if e["type"] == "tournament_cancelled"]
    assert [e["reason"] for e in cancelled] == [done.reason]  # the log says why
    assert desk.balance("ann") == WALLET  # CRASH-1: the entry back in full


def test_one_still_announced_at_its_start_is_cancelled(tmp_path: Path) -> None:
    clock = Clock(T0 + 1)
    desk = desk_on(tmp_path, clock)
    desk.create(config(f"starts_at = {T0}"), "fri")  # the operator never opened it
    desk.create(config(""), "sat")  # unscheduled: left to the operator
    (done,) = asyncio.run(Scheduler(desk).tick())
    assert done.tournament_id == "fri" and "registration never opened" in done.reason
    assert desk.get("sat").state == "announced"


def test_due_starts_a_tournament_with_enough_players_and_leaves_the_rest(tmp_path: Path) -> None:
    """The decision alone (carrying a start out launches Ray: the concurrent tournaments test
    in test_frontdoor_many_ray.py does)."""
    clock = Clock(T0)
    desk = desk_on(tmp_path, clock)
    for tournament in ("a", "b", "c"):
        desk.create(config(f"registration_opens_at = {T0}\nstarts_at = {T0 + 60}"), tournament)
        desk.open_registration(tournament)
    for player in ("ann", "bob"):
        desk.register("a", player)
    desk.register("b", "ann")
    asyncio.run(desk.cancel("c", "operator"))
    assert due(desk.all(), T0 + 59) == []
    decided = due(desk.all(), T0 + 60)
    assert [(d.tournament_id, d.action) for d in decided] == [("a", "start"), ("b", "cancel")]


def test_a_restarted_front_door_acts_on_what_fell_due_while_it_was_down(tmp_path: Path) -> None:
    clock = Clock(T0 - 60)
    desk = desk_on(tmp_path, clock)
    desk.create(config(f"registration_opens_at = {T0}\nstarts_at = {T0 + 600}"), "fri")
    desk.create(config(f"registration_opens_at = {T0}\nstarts_at = {T0 + 60}"), "sat")
    clock.now = T0 + 100  # down through fri's opening, and sat's opening and start
    again = desk_on(tmp_path, clock)
    asyncio.run(again.restore())
    done = asyncio.run(Scheduler(again).tick())
    assert [(d.tournament_id, d.action) for d in done] == [("fri", "open"), ("sat", "cancel")]
    assert "registration never opened" in done[1].reason  # nobody could have registered
    assert again.get("fri").state == "registering"
