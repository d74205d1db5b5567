"""`mtt client`: a person at a table, in a terminal. The shell around `player_view`: one Play
stream (PlayerService.Play, the player's token in its metadata), a curses screen redrawn on
every message, every key and twice a second (the action clock and the time bank count down),
and one input line whose commands `player_view.parse_command` reads.

A line that cannot be played now is answered under the table with why, and the line is asked
again; nothing is sent. A dropped stream (the server restarting, the network) is opened again
with the same token, which brings back the hand in progress and a pending prompt (TB-1, OUT-3);
a refused one (a wrong token, a token of another tournament) ends the client with the front
door's error, which `mtt` prints as one line once the terminal is restored.
"""

from __future__ import annotations

import asyncio
import curses
import sys
import time
from collections.abc import AsyncIterator

import grpc

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.frontdoor.errors import FrontDoorError, InvalidRequest, from_status
from orchestrator.frontdoor.player_view import HELP, Command, CommandKind, TableView, parse_command
from table_worker._proto import gateway_pb2 as gw

__all__ = ["PlayerClient", "run_in_terminal"]

REDRAW_SECONDS = 0.5  # the clock on screen moves at least this often
RECONNECT_SECONDS = (0.5, 1.0, 2.0, 4.0)  # waits before opening a dropped stream again
# A stream ended by these is dropped (opened again); any other refusal ends the client.
_TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
_ENTER = ("\n", "\r", curses.KEY_ENTER)
_BACKSPACE = ("\b", "\x7f", curses.KEY_BACKSPACE)
_ACTION_WORDS = {gw.FOLD: "fold", gw.CHECK_CALL: "check/call", gw.RAISE_TO: "raise to"}


class PlayerClient:
    """One player's stream and screen. `screen` is a curses window; `channel` reaches the
    front door."""

    def __init__(
        self,
        screen: curses.window,
        channel: grpc.aio.Channel,
        *,
        tournament: str,
        token: str,
    ) -> None:
        self._screen = screen
        self._stub = pb_grpc.PlayerServiceStub(channel)
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._tournament = tournament
        self.view = TableView(tournament, "?")
        self._typed = ""
        self._outbox: asyncio.Queue[pb.PlayerMessage | None] = asyncio.Queue()
        self._quit = asyncio.Event()
        self._fatal: FrontDoorError | None = None

    async def run(self) -> None:
        """Play until the person quits; raises the front door's error of a refused stream."""
        loop = asyncio.get_running_loop()
        self._screen.nodelay(True)
        self._screen.keypad(True)
        loop.add_reader(sys.stdin.fileno(), self._keys)
        tasks = [asyncio.create_task(self._stream()), asyncio.create_task(self._tick())]
        try:
            await self._quit.wait()
        finally:
            loop.remove_reader(sys.stdin.fileno())
            self._outbox.put_nowait(None)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._fatal is not None:
            raise self._fatal

    # --- the stream ---------------------------------------------------------------------

    async def _requests(
        self, outbox: asyncio.Queue[pb.PlayerMessage | None]
    ) -> AsyncIterator[pb.PlayerMessage]:
        while (message := await outbox.get()) is not None:
            yield message

    async def _stream(self) -> None:
        attempt = 0
        while not self._quit.is_set():
            self._outbox = asyncio.Queue()
            call = self._stub.Play(self._requests(self._outbox), metadata=self._metadata)
            try:
                async for message in call:
                    attempt = 0
                    self._on(message)
                self.view.note("the front door closed the stream: q to quit")
                self._draw()
                return  # the tournament is over for this player
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in _TRANSIENT:
                    self._stop(from_status(exc.code(), exc.details() or ""))
                    return
                wait = RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)]
                attempt += 1
                self.view.prompt = None  # asked again on the new stream if it still stands
                self.view.note(f"connection lost ({exc.code().name}): again in {wait:g}s")
                self._draw()
                await asyncio.sleep(wait)
            except FrontDoorError as exc:
                call.cancel()
                self._stop(exc)
                return

    def _on(self, message: pb.ServerMessage) -> None:
        if message.WhichOneof("kind") == "welcome":
            welcome = message.welcome
            if welcome.tournament_id != self._tournament:
                raise InvalidRequest(
                    f"--tournament {self._tournament}: the token is for tournament "
                    f"{welcome.tournament_id}"
                )
            self.view.player = welcome.player
        self.view.on(message, time.monotonic())
        self._draw()

    def _stop(self, error: FrontDoorError | None = None) -> None:
        self._fatal = error
        self._quit.set()

    async def _tick(self) -> None:
        while True:
            self._draw()
            await asyncio.sleep(REDRAW_SECONDS)

    # --- the keyboard -------------------------------------------------------------------

    def _keys(self) -> None:
        while True:
            try:
                key = self._screen.get_wch()
            except curses.error:  # nothing more typed
                break
            if key in _ENTER:
                line, self._typed = self._typed, ""
                self._submit(line)
            elif key in _BACKSPACE:
                self._typed = self._typed[:-1]
            elif isinstance(key, str) and key.isprintable():
                self._typed += key
        self._draw()

    def _submit(self, line: str) -> None:
        try:
            view = self.view
            command = parse_command(
                line, view.legal, deal=view.deal_waiting, reentry=view.reentry is not None
            )
        except InvalidRequest as exc:
            self.view.note(f"{line.strip() or '(empty)'}: {exc}. Try again.")
            return
        if command.kind is CommandKind.QUIT:
            self._stop()
        elif command.kind is CommandKind.HELP:
            self.view.note(HELP)
        elif command.kind is CommandKind.SIT_OUT:
            self._outbox.put_nowait(pb.PlayerMessage(sit_out=pb.SitOut()))
        elif command.kind is CommandKind.BACK:
            self._outbox.put_nowait(pb.PlayerMessage(back=pb.Back()))
        elif command.kind is CommandKind.REBUY:  # RB-3
            self._outbox.put_nowait(pb.PlayerMessage(rebuy=pb.RebuyRequest()))
            self.view.note("you: rebuy")
        elif command.kind in (CommandKind.ACCEPT, CommandKind.DECLINE):  # DEAL-1
            accept = command.kind is CommandKind.ACCEPT
            answer = pb.DealAnswer(accept=accept)
            self._outbox.put_nowait(pb.PlayerMessage(deal_answer=answer))
            self.view.note(f"you: {'accept' if accept else 'decline'} the deal")
        elif command.kind is CommandKind.REENTER:  # LATE
            self._outbox.put_nowait(pb.PlayerMessage(reenter=pb.ReentryRequest()))
            self.view.note("you: re-enter")
        else:
            self._act(command)

    def _act(self, command: Command) -> None:
        prompt = self.view.prompt
        assert prompt is not None  # parse_command refuses an action with no prompt pending
        action = pb.Action(
            request_id=prompt.request.request_id, kind=command.action, amount=command.amount
        )
        self._outbox.put_nowait(pb.PlayerMessage(action=action))
        amount = f" {command.amount:,}" if command.action == gw.RAISE_TO else ""
        self.view.note(f"you: {_ACTION_WORDS[command.action]}{amount}")

    # --- the screen ---------------------------------------------------------------------

    def _draw(self) -> None:
        screen = self._screen
        height, width = screen.getmaxyx()
        screen.erase()
        lines = self.view.lines(time.monotonic(), max(20, width - 1), max(0, height - 1))
        try:
            for row, text in enumerate(lines):
                screen.addnstr(row, 0, text, width - 1)
            prompt = "> " + self._typed
            screen.addnstr(height - 1, 0, prompt, width - 1)
            screen.move(height - 1, min(len(prompt), width - 1))
        except curses.error:  # a terminal too small for the table: show what fits
            pass
        screen.refresh()


def run_in_terminal(
    *, target: str, token: str, tournament: str, tls_ca: bytes | None = None
) -> None:
    """The client on this process's terminal until the person quits (q)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise InvalidRequest("mtt client needs a terminal (stdin and stdout a tty)")

    async def play(screen: curses.window) -> None:
        if tls_ca is None:
            channel = grpc.aio.insecure_channel(target)
        else:
            channel = grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(tls_ca))
        async with channel:
            await PlayerClient(screen, channel, tournament=tournament, token=token).run()

    curses.wrapper(lambda screen: asyncio.run(play(screen)))
