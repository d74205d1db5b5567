"""The live view's web app served for real by uvicorn on 127.0.0.1: pages, the snapshot, the
server-sent event stream as events arrive, operator actions behind the credential, and the
file source `mtt run` uses."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from orchestrator.core.config_toml import parse_config
from orchestrator.errors import TournamentStateError, UiServerError
from orchestrator.shell.run_control import StoreEventSource
from orchestrator.shell.store import open_store
from orchestrator.views.live import create_app, serve_ui

CONFIG = parse_config(
    {
        "tournament": {"name": "Live app", "max_per_table": 6, "buy_in": 1000},
        "levels": {"unit": "minutes", "length": 10, "blinds": [[10, 20]]},
    }
)


class ListSource:
    """An event log in memory that the test appends to while the server runs."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def append(self, type: str, **fields: Any) -> None:
        self.events.append({"seq": len(self.events) + 1, "ts": 1000.0, "type": type, **fields})

    async def events_since(self, seq: int) -> list[dict[str, Any]]:
        return self.events[seq:]


class Commands:
    """Operator commands as the orchestrator answers them: refused in the wrong state."""

    def __init__(self) -> None:
        self.done: list[str] = []
        self.paused = False

    async def start(self) -> None:
        self.done.append("start")

    async def pause(self) -> None:
        if self.paused:
            raise TournamentStateError("the tournament is already paused")
        self.paused = True
        self.done.append("pause")

    async def resume(self) -> None:
        self.paused = False
        self.done.append("resume")

    async def cancel(self, reason: str) -> None:
        self.done.append(f"cancel: {reason}")


def opening(source: ListSource) -> None:
    source.append("player_registered", player="a", entry=1, buy_in=1000, fee=0)
    source.append("player_registered", player="b", entry=1, buy_in=1000, fee=0)
    source.append("tournament_started", tournament="live", players=2, tables=1,
                  max_per_table=6, structure="freezeout", policy="equilibrium",
                  starting_stack=1000)  # fmt: skip
    source.append("level_started", level=1, small_blind=10, big_blind=20, ante=0)
    source.append("table_opened", table=1)
    source.append("player_seated", player="a", table=1, seat=1, stack=1000)
    source.append("player_seated", player="b", table=1, seat=2, stack=1000)
    source.append("button_assigned", table=1, seat=1)


@pytest.fixture
def served() -> Iterator[tuple[str, ListSource, Commands]]:
    source, control = ListSource(), Commands()
    app = create_app(source, CONFIG, control=control, operator_token="s3cret", poll_seconds=0.05)
    with serve_ui(app) as url:
        yield url, source, control


def request(
    url: str, method: str, path: str, body: str = "", headers: dict[str, str] | None = None
) -> tuple[int, str]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def read_sse(response: http.client.HTTPResponse) -> tuple[str, dict[str, Any]]:
    kind, data = "", ""
    while True:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = line.removeprefix("data: ")
        elif not line and kind:
            return kind, json.loads(data)


def test_pages_and_assets_are_served(served: tuple[str, ListSource, Commands]) -> None:
    url = served[0]
    assert url.startswith("http://127.0.0.1:")
    status, page = request(url, "GET", "/")
    assert status == 200 and 'id="clock-time"' in page and 'src="static/ui.js"' in page
    status, page = request(url, "GET", "/lobby")
    assert status == 200 and 'id="tables"' in page and 'id="search"' in page
    assert request(url, "GET", "/static/ui.js")[0] == 200
    assert request(url, "GET", "/static/ui.css")[0] == 200
    assert request(url, "GET", "/static/secrets.txt")[0] == 404


def test_snapshot_then_only_the_changes_are_pushed(
    served: tuple[str, ListSource, Commands],
) -> None:
    url, source, _ = served
    opening(source)
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", "/api/events")
        response = connection.getresponse()
        assert response.getheader("content-type", "").startswith("text/event-stream")
        kind, snapshot = read_sse(response)
        while snapshot["seq"] < 8:  # the follower may not have read the opening yet
            kind, snapshot = read_sse(response)
        assert snapshot["clock"]["players_left"] == 2 and snapshot["clock"]["prize_pool"] == 2000
        tables = snapshot.get("tables")
        if kind == "update":
            tables = list(snapshot["tables"].values())
        assert tables == [
            {"table": 1, "button": 1, "final": False, "seats": [[1, "a", 1000], [2, "b", 1000]]}
        ]
        source.append(
            "hand_finished",
            table=1,
            hand=1,
            button=2,
            players=[
                {"player": "a", "seat": 1, "start": 1000, "end": 2000},
                {"player": "b", "seat": 2, "start": 1000, "end": 0},
            ],
        )
        source.append("player_eliminated", player="b", place=2, table=1, hand=1, start=1000)
        kind, update = read_sse(response)
        while kind != "update" or update["seq"] < 10:
            kind, update = read_sse(response)
        assert update["tables"] == {
            "1": {"table": 1, "button": 2, "final": False, "seats": [[1, "a", 2000]]}
        }
        assert [i["text"] for i in update["feed"]] == ["b is out in 2nd place (table 1)"]
        assert update["places"] == {"b": 2} and update["ranking"] == [["a", 2000]]
    finally:
        connection.close()
    status, body = request(url, "GET", "/api/state")
    state = json.loads(body)
    assert status == 200 and state["seq"] == 10 and state["places"] == {"b": 2}


def test_operator_actions_need_the_credential(served: tuple[str, ListSource, Commands]) -> None:
    url, _, control = served
    bearer = {"Authorization": "Bearer s3cret"}
    assert request(url, "POST", "/api/control/pause")[0] == 401
    status, body = request(url, "POST", "/api/control/pause", headers={"Authorization": "x"})
    assert status == 401 and "credential is wrong" in body
    assert control.done == []
    assert request(url, "POST", "/api/control/pause", headers=bearer) == (200, '{"ok":"pause"}')
    status, body = request(url, "POST", "/api/control/pause", headers=bearer)
    assert status == 409 and json.loads(body) == {"error": "the tournament is already paused"}
    assert request(url, "POST", "/api/control/resume", headers=bearer)[0] == 200
    reason = json.dumps({"reason": "the room closes"})
    assert request(url, "POST", "/api/control/cancel", reason, headers=bearer)[0] == 200
    assert request(url, "POST", "/api/control/cancel", "{not json", headers=bearer)[0] == 400
    assert request(url, "POST", "/api/control/explode", headers=bearer)[0] == 404
    assert request(url, "GET", "/api/control/pause", headers=bearer)[0] == 405
    assert control.done == ["pause", "resume", "cancel: the room closes"]


def test_without_a_credential_the_view_is_read_only() -> None:
    app = create_app(ListSource(), CONFIG, control=Commands(), operator_token=None)
    with serve_ui(app) as url:
        status, body = request(url, "POST", "/api/control/start", headers={"Authorization": "x"})
    assert status == 403 and "off" in body


def test_a_port_in_use_is_refused_clearly() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with (
            pytest.raises(UiServerError, match=f"cannot listen on 127.0.0.1:{port}"),
            serve_ui(create_app(ListSource(), CONFIG), port=port),
        ):
            pass


def test_the_store_source_follows_the_runs_log_as_it_grows(tmp_path: Path) -> None:
    """The live view of `mtt run` reads the run's log in the store (wherever its actors run),
    a batch at a time, and sees each append whole (a batch is all or nothing)."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    source = StoreEventSource(url, "cup-1/run", batch=2)
    assert asyncio.run(source.events_since(0)) == []  # not begun yet
    store = open_store(url)
    store.append("cup-1/run", [{"seq": k, "ts": 0.0, "type": "x"} for k in (1, 2, 3)])
    assert [e["seq"] for e in asyncio.run(source.events_since(0))] == [1, 2]
    assert [e["seq"] for e in asyncio.run(source.events_since(2))] == [3]
    assert asyncio.run(source.events_since(3)) == []
    store.append("cup-1/run", [{"seq": 4, "ts": 0.0, "type": "x"}])
    assert [e["seq"] for e in asyncio.run(source.events_since(3))] == [4]
    store.close()
    source.close()


class FlakySource(ListSource):
    """Unreadable for its first reads (a store restarting), then the log as usual."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def events_since(self, seq: int) -> list[dict[str, Any]]:
        if self.failures:
            self.failures -= 1
            raise OSError("the store is restarting")
        return await super().events_since(seq)


def test_the_view_outlives_an_unreadable_source(caplog: pytest.LogCaptureFixture) -> None:
    source = FlakySource(failures=3)
    opening(source)
    with serve_ui(create_app(source, CONFIG, poll_seconds=0.02)) as url:
        deadline = time.monotonic() + 10
        while json.loads(request(url, "GET", "/api/state")[1])["seq"] < 8:
            assert time.monotonic() < deadline, "the view never caught up"
            time.sleep(0.05)
    assert source.failures == 0
    failures = [r for r in caplog.records if "cannot read the event source" in r.getMessage()]
    assert len(failures) == 1  # logged once for the outage, not at every poll


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--wait-for-start"], "--wait-for-start needs --ui-port"),
        (["--ui-port", "8080", "--operator-token-file", "EMPTY"], "holds no credential"),
        (["--ui-port", "8080", "--operator-token-file", "MISSING"], "cannot read"),
    ],
)
def test_mtt_run_refuses_view_flags_it_cannot_honour(
    flags: list[str], message: str, tmp_path: Path
) -> None:
    (tmp_path / "EMPTY").write_text("\n")
    flags = [str(tmp_path / f) if f in ("EMPTY", "MISSING") else f for f in flags]
    example = Path(__file__).resolve().parent.parent / "examples" / "single-table-9.toml"
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.cli.main", "run", str(example), *flags],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
