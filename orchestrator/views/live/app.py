"""The operator's live view: a Starlette app over an event source and an operator control.

Pages: `/` the clock (for the wall), `/lobby` (tables, search, chip ranking, feed, operator
actions). Data: `/api/state` (one snapshot), `/api/events` (server-sent events: a `snapshot`,
then an `update` for every batch of events with only the tables that changed, and a `clock`
heartbeat every few seconds), `POST /api/control/{start,pause,resume,cancel}` behind the
operator credential (`Authorization: Bearer TOKEN`).

One task follows the source (`EventSource.events_since`) from seq 0, folds every event into a
`Lobby` and hands each batch's changes to every open stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from orchestrator.core.config import TournamentConfig
from orchestrator.core.events import EventRecord
from orchestrator.errors import OrchestratorError, RemoteError, StoreError
from orchestrator.views.live.lobby import FeedItem, Lobby

__all__ = ["ACTIONS", "EventSource", "LiveLobby", "OperatorControl", "create_app"]

log = logging.getLogger(__name__)

ACTIONS = ("start", "pause", "resume", "cancel")
HEARTBEAT_SECONDS = 5.0
FEED_SENT = 60  # feed items in a snapshot
RANKING = 10
QUEUE_LIMIT = 256  # updates a slow stream may lag behind before it is dropped (it reconnects)


class EventSource(Protocol):
    """The tournament's event log from the start, in seq order, without gaps (the orchestrator
    actor's `events_since`, the front door's copy, a run's log in the store followed by
    `mtt run`'s `StoreEventSource`)."""

    async def events_since(self, seq: int) -> list[EventRecord]: ...


class OperatorControl(Protocol):
    """Operator commands; each raises an `OrchestratorError` (e.g. `TournamentStateError`)
    with a message for the operator when the tournament's state refuses it (409), a
    `StoreError` or `RemoteError` when a part it needs is down (503). `mtt run`'s
    `orchestrator.shell.run_control.RunControl` and the front door's desk
    (`orchestrator.frontdoor.views`) are two."""

    async def start(self) -> None: ...
    async def pause(self) -> None: ...
    async def resume(self) -> None: ...
    async def cancel(self, reason: str) -> None: ...


def _feed(items: list[FeedItem]) -> list[dict[str, Any]]:
    return [{"seq": i.seq, "ts": i.ts, "kind": i.kind, "text": i.text} for i in items]


class LiveLobby:
    """The lobby kept current from the source, and the streams that follow it."""

    def __init__(
        self,
        lobby: Lobby,
        source: EventSource,
        *,
        clock: Callable[[], float] = time.time,
        poll_seconds: float = 0.25,
    ) -> None:
        self.lobby = lobby
        self._source = source
        self._clock = clock
        self._poll = poll_seconds
        self._streams: set[asyncio.Queue[tuple[str, dict[str, Any]] | None]] = set()

    async def follow(self) -> None:
        """Fold the source's events as they come, forever (until cancelled)."""
        failing = False
        while True:
            try:
                events = await self._source.events_since(self.lobby.seq)
            except Exception:  # a supervising loop: the view keeps serving what it has
                if not failing:  # once per outage, not at every poll
                    log.exception("the live view cannot read the event source; retrying")
                failing, events = True, []
            else:
                if failing:
                    log.warning("the live view reads the event source again")
                failing = False
            for event in events:
                self.lobby.apply(event)
            if events:
                self._broadcast("update", self.update())
            else:
                await asyncio.sleep(self._poll)

    def snapshot(self) -> dict[str, Any]:
        lobby = self.lobby
        return {
            "seq": lobby.seq,
            "clock": lobby.clock(self._clock()),
            "tables": [lobby.table_view(t) for t in sorted(lobby.tables)],
            "ranking": lobby.ranking(RANKING),
            "feed": _feed(list(lobby.feed)[-FEED_SENT:]),
            "places": lobby.places,
        }

    def update(self) -> dict[str, Any]:
        lobby = self.lobby
        changes = lobby.take_changes()
        return {
            "seq": lobby.seq,
            "clock": lobby.clock(self._clock()),
            "tables": {str(t): lobby.table_view(t) for t in sorted(changes.tables)},
            "ranking": lobby.ranking(RANKING),
            "feed": _feed(changes.feed),
            "places": changes.places,
        }

    def subscribe(self) -> asyncio.Queue[tuple[str, dict[str, Any]] | None]:
        queue: asyncio.Queue[tuple[str, dict[str, Any]] | None] = asyncio.Queue(QUEUE_LIMIT)
        self._streams.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[tuple[str, dict[str, Any]] | None]) -> None:
        self._streams.discard(queue)

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        for queue in list(self._streams):
            self._end(queue)

    def _end(self, queue: asyncio.Queue[tuple[str, dict[str, Any]] | None]) -> None:
        self._streams.discard(queue)
        while True:  # make room for the end marker
            try:
                queue.put_nowait(None)
                return
            except asyncio.QueueFull:
                queue.get_nowait()

    def _broadcast(self, kind: str, message: dict[str, Any]) -> None:
        for queue in list(self._streams):
            try:
                queue.put_nowait((kind, message))
            except asyncio.QueueFull:  # too slow: it reconnects and starts from a snapshot
                self._end(queue)

    def clock(self) -> dict[str, Any]:
        return {"clock": self.lobby.clock(self._clock())}


def _sse(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _page(name: str) -> str:
    return resources.files("orchestrator.views.live").joinpath("static", name).read_text("utf-8")


def create_app(
    source: EventSource,
    config: TournamentConfig,
    *,
    control: OperatorControl | None = None,
    operator_token: str | None = None,
    clock: Callable[[], float] = time.time,
    poll_seconds: float = 0.25,
) -> Starlette:
    """The live view of one tournament. Operator actions need `control` and `operator_token`;
    without them the view is read-only (actions answer 403)."""
    live = LiveLobby(Lobby(config), source, clock=clock, poll_seconds=poll_seconds)
    pages = {name: _page(name) for name in ("clock.html", "lobby.html", "ui.css", "ui.js")}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        follower = asyncio.create_task(live.follow())
        try:
            yield
        finally:
            live.close()
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower

    async def clock_page(request: Request) -> Response:
        return HTMLResponse(pages["clock.html"])

    async def lobby_page(request: Request) -> Response:
        return HTMLResponse(pages["lobby.html"])

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        kind = {"ui.css": "text/css", "ui.js": "text/javascript"}.get(name)
        if kind is None:
            return Response("not found", status_code=404)
        return Response(pages[name], media_type=kind)

    async def state(request: Request) -> Response:
        return JSONResponse(live.snapshot())

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            queue = live.subscribe()
            try:
                yield _sse("snapshot", live.snapshot())
                while True:
                    try:
                        message = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
                    except TimeoutError:
                        message = ("clock", live.clock())
                    if message is None:
                        return
                    yield _sse(*message)
            finally:
                live.unsubscribe(queue)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def act(request: Request) -> Response:
        action = request.path_params["action"]
        if action not in ACTIONS:
            return JSONResponse({"error": f"no such action: {action}"}, status_code=404)
        if control is None or not operator_token:
            return JSONResponse({"error": "operator actions are off here"}, status_code=403)
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not secrets.compare_digest(given.encode(), operator_token.encode()):
            return JSONResponse({"error": "the operator credential is wrong"}, status_code=401)
        try:
            if action == "cancel":
                body = await request.json() if await request.body() else {}
                reason = str(body.get("reason", "")).strip() if isinstance(body, dict) else ""
                await control.cancel(reason or "cancelled by the operator")
            else:
                await getattr(control, action)()
        except json.JSONDecodeError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        except OrchestratorError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        except (StoreError, RemoteError) as exc:  # the store or the orchestrator is down
            return JSONResponse({"error": str(exc)}, status_code=503)
        return JSONResponse({"ok": action})

    return Starlette(
        routes=[
            Route("/", clock_page),
            Route("/lobby", lobby_page),
            Route("/static/{name}", asset),
            Route("/api/state", state),
            Route("/api/events", events),
            Route("/api/control/{action}", act, methods=["POST"]),
        ],
        lifespan=lifespan,
    )
