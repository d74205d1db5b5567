"""Outages of the deck service around the tables (issue 15), without Ray: the one `mtt run`
starts dies with it (even on SIGKILL) and is restarted on its port and store when it dies
alone; one it was given is watched; a table waits at its boundary for its deck instead of
failing (which got it restarted with a hand voided, in a loop)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest
from conftest import RedisServer, deck_service_children, free_port

import table_worker.actor as table_actor
from orchestrator.errors import StoreLost
from orchestrator.shell.decks import DeckService, deck_service, watched_deck_service
from rng_service.client import BlockingDeckClient
from rng_service.errors import DeckServiceError
from rng_service.health import check_health
from table_worker.protocol import Blinds, NextHand


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def draw(target: str) -> int:
    with BlockingDeckClient(target, tournament_id="t", table_id="1", batch=1, wait=10) as decks:
        return decks.next_deck().serial


def test_the_deck_service_a_run_starts_comes_back_on_its_port_and_store_when_it_dies(
    tmp_path: Path,
) -> None:
    said: list[str] = []
    with deck_service(f"sqlite:///{tmp_path / 'store.db'}", say=said.append) as service:
        target = service.target
        first = draw(target)
        (child,) = deck_service_children()
        child.send_signal(signal.SIGKILL)
        wait_for(lambda: any("restarted on" in line for line in said))
        assert check_health(target) is None
        assert draw(target) > first  # the same used-deck store: the serials go on
    (line,) = said
    assert line.startswith("the deck service exited (killed by SIGKILL); restarted on " + target)
    assert "with the same store" in line and "\n" not in line
    assert not deck_service_children()


def test_rng3_a_deck_store_restarted_empty_stops_the_run_and_is_not_restarted(
    redis_server: RedisServer,
) -> None:
    """The child stops (exit 3) when its Redis comes back empty; the supervisor says so in
    one line and does not start it again on a store that could deal old decks again, and the
    run's next look (`check`) stops it with `StoreLost`."""
    said: list[str] = []
    with deck_service(redis_server.url, say=said.append) as service:
        assert service.epoch is not None and len(service.epoch) == 32
        draw(service.target)
        redis_server.restart()  # no persistence here: an empty Redis comes back
        with pytest.raises(DeckServiceError, match="DATA_LOSS"):
            draw(service.target)
        wait_for(lambda: service.lost is not None)
        with pytest.raises(StoreLost, match=f"no longer holds epoch {service.epoch}"):
            service.check()
        assert service.restarts == 0 and not deck_service_children()
    (line,) = said
    assert line.startswith("the deck service stopped: the deck store redis://")


def test_the_deck_service_a_run_starts_dies_with_it_even_on_sigkill(tmp_path: Path) -> None:
    """PR_SET_PDEATHSIG: the driver killed without a chance to clean up takes its deck
    service with it (before, it stayed up holding its port and store)."""
    store = f"sqlite:///{tmp_path / 'store.db'}"
    script = (
        "import sys, time\n"
        "from orchestrator.shell.decks import deck_service\n"
        f"with deck_service({store!r}) as service:\n"
        "    print(service.target, flush=True)\n"
        "    time.sleep(120)\n"
    )
    driver = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    children: list[psutil.Process] = []
    try:
        assert driver.stdout is not None
        target = driver.stdout.readline().strip()
        assert check_health(target) is None
        children = [
            p for p in psutil.Process(driver.pid).children() if "rng_service" in p.cmdline()
        ]
        assert len(children) == 1
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        children[0].wait(timeout=15)  # gone, not reparented and serving
        assert check_health(target, timeout=0.5) is not None
    finally:
        if driver.poll() is None:
            driver.kill()
        for child in children:  # the test's own leftovers, by pid
            if child.is_running():
                child.kill()
        if driver.stdout is not None:
            driver.stdout.close()


def test_a_deck_service_the_run_was_given_is_watched_until_it_is_back(tmp_path: Path) -> None:
    port = free_port()
    store = f"sqlite:///{tmp_path / 'store.db'}"
    service = DeckService(store, port=port)
    target = service.start()
    said: list[str] = []
    try:
        with watched_deck_service(target, say=said.append, every=0.2):
            time.sleep(0.5)
            assert said == []
            service.stop()
            wait_for(lambda: len(said) == 1)
            assert said[0].startswith(f"the deck service at {target} does not answer (")
            assert "the tables wait at their hand boundary" in said[0]
            service = DeckService(store, port=port)
            service.start()
            wait_for(lambda: len(said) == 2)
            assert said[1].startswith(f"the deck service at {target} answers again after ")
    finally:
        service.stop()


def test_a_table_waits_at_its_boundary_for_its_deck_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No deck service at the table's address for a while: the hand is not dealt and the
    table does not fail (its loop failing got it restarted and a hand voided, again and
    again); it says it waits, and deals once the service is there."""
    monkeypatch.setattr(table_actor, "DECK_WAIT_SECONDS", 0.3)
    port = free_port()
    table = table_actor.Table(
        tournament_id="t",
        table=4,
        orchestrator=None,
        deck_target=f"127.0.0.1:{port}",
        bots=("random",),
        seed=1,
    )
    spec = NextHand(
        table=4,
        hand=7,
        seats=((1, "a", 1000), (2, "b", 1000), (3, "c", 1000)),
        blinds=Blinds(button=1, small_blind=2, big_blind=3),
        level=1,
        small_blind=10,
        big_blind=20,
        ante=0,
        betting="no",
    )
    reports = []
    caplog.set_level(logging.WARNING, logger="table_worker.actor")
    player = threading.Thread(target=lambda: reports.append(table.play(spec)))
    player.start()
    try:
        wait_for(lambda: "waits at its boundary for the deck of hand 7" in caplog.text)
        assert player.is_alive() and not reports
        with deck_service(f"sqlite:///{tmp_path / 'store.db'}", port=port):
            player.join(timeout=30)
            assert not player.is_alive()
    finally:
        table.close()
    (report,) = reports
    assert report.hand == 7 and sum(p.end for p in report.players) == 3000
    assert report.timing.deck_wait_seconds > 0.3
    assert "table 4 has its deck from" in caplog.text
