"""The live clock and lobby (`orchestrator.views.live`) of every tournament at the front door:
`mtt serve --ui-port P` serves `/` (the list) and `/t/{tournament}/` (its clock) and
`/t/{tournament}/lobby`, each view created on its first visit over the desk's copy of the
tournament's event log, with the desk's start, pause, resume and cancel behind the operator
credential. It runs in the front door's own event loop (the desk's calls are not thread-safe).
"""

from __future__ import annotations

import bisect
import contextlib
import html
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse
from starlette.types import Receive, Scope, Send

from orchestrator.core.events import EventRecord
from orchestrator.errors import TournamentStateError
from orchestrator.frontdoor.desk import Desk
from orchestrator.frontdoor.errors import FrontDoorError, NotFound
from orchestrator.views.live import create_app

__all__ = ["LiveViews", "ViewServer", "view_server"]


class _Tournament:
    """One tournament seen through the desk: its event log and its operator commands."""

    def __init__(self, desk: Desk, tournament_id: str) -> None:
        self._desk = desk
        self._id = tournament_id

    async def events_since(self, seq: int) -> list[EventRecord]:
        events = self._desk.get(self._id).events  # in seq order: no scan of the whole log
        return events[bisect.bisect_right(events, seq, key=lambda e: e["seq"]) :]

    async def start(self) -> None:
        await self._command(self._desk.start)

    async def pause(self) -> None:
        await self._command(self._desk.pause)

    async def resume(self) -> None:
        await self._command(self._desk.resume)

    async def cancel(self, reason: str) -> None:
        await self._command(self._desk.cancel, reason)

    async def _command(self, command: Callable[..., Awaitable[Any]], *args: Any) -> None:
        try:
            await command(self._id, *args)
        except FrontDoorError as exc:  # the view answers an OrchestratorError to the operator
            raise TournamentStateError(str(exc)) from exc


class LiveViews:
    """ASGI: `/t/{tournament}/...` to that tournament's live view, `/` the list."""

    def __init__(self, desk: Desk, *, operator_token: str) -> None:
        self._desk = desk
        self._token = operator_token
        self._views: dict[str, Starlette] = {}
        self._lifespans = contextlib.AsyncExitStack()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path: str = scope["path"]
        if path == "/":
            await self._index()(scope, receive, send)
            return
        parts = path.split("/", 3)  # "", "t", tournament, the view's own path
        tournament = parts[2] if len(parts) > 2 and parts[1] == "t" else ""
        if not tournament:
            await PlainTextResponse("not found", status_code=404)(scope, receive, send)
            return
        try:
            view = await self._view(tournament)
        except NotFound as exc:
            await PlainTextResponse(str(exc), status_code=404)(scope, receive, send)
            return
        prefix = f"/t/{tournament}"
        if path == prefix:  # the pages' links are relative to the folder
            await RedirectResponse(prefix + "/")(scope, receive, send)
            return
        await view(dict(scope, root_path=scope.get("root_path", "") + prefix), receive, send)

    async def _view(self, tournament: str) -> Starlette:
        view = self._views.get(tournament)
        if view is None:
            entry = self._desk.get(tournament)
            view = create_app(
                _Tournament(self._desk, tournament),
                entry.config,
                control=_Tournament(self._desk, tournament),
                operator_token=self._token,
            )
            await self._lifespans.enter_async_context(view.router.lifespan_context(view))
            self._views[tournament] = view
        return view

    def _index(self) -> HTMLResponse:
        rows = "".join(
            f'<li><a href="t/{html.escape(e.tournament_id)}/">{html.escape(e.tournament_id)}</a>'
            f" ({html.escape(e.state)}) &middot; "
            f'<a href="t/{html.escape(e.tournament_id)}/lobby">lobby</a></li>'
            for e in self._desk.all()
        )
        return HTMLResponse(
            "<!doctype html><title>mtt tournaments</title><h1>Tournaments</h1>"
            f"<ul>{rows or '<li>none yet</li>'}</ul>"
        )

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self._lifespans.aclose()  # ends every view's follower and streams
                await send({"type": "lifespan.shutdown.complete"})
                return


class ViewServer(uvicorn.Server):
    """uvicorn inside the front door's event loop; SIGTERM stays the front door's to handle
    (it sets `should_exit` when it stops)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Not dead code: `uvicorn.Server.serve()` enters this; uvicorn's own would take
        SIGINT and SIGTERM from the front door's loop (`run_until_signal`)."""
        yield


def view_server(views: LiveViews, *, host: str, port: int) -> ViewServer:
    return ViewServer(
        uvicorn.Config(
            views, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2
        )
    )
