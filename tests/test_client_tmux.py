"""`mtt client` driven as a person drives it: in a real terminal (tmux, its own server socket,
80 x 24), against a real `mtt serve` (the fixture of tests/test_frontdoor_ray.py: local Ray,
deck service and SQLite store, all on 127.0.0.1), heads-up against a bot over gRPC. Keys go in
with `send-keys`, the screen comes back with `capture-pane`: the person sees his cards, the
clock and his time bank (TB-1), an illegal line is answered with why and asked again, his
actions play, and after the hand the deck is verified against the commitment shown before the
deal."""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from test_frontdoor_ray import OP, OPERATOR, Server, config, server  # noqa: F401  (its fixture)
from wallets import bearer, wallet

from loadtest.fleet import BotPlayer, FleetStats
from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from table_worker.bots import make_bot
from table_worker.cards import card_text

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("ray"),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

ROOT = Path(__file__).resolve().parent.parent
SCREEN_SECONDS = 60.0  # the longest a screen may take to show what is waited for


class Terminal:
    """Windows running commands on a tmux server of its own; a window stays after its command
    ends (remain-on-exit), so its last screen can be read, and the shell running the command
    writes its exit status to a file beside the config (tmux's own `pane_dead_status` was seen
    empty for a pane that had ended, on a busy machine)."""

    def __init__(self, socket: str, config: Path) -> None:
        config.write_text("set -g remain-on-exit on\n")
        self._base = ["tmux", "-L", socket, "-f", str(config)]
        self._statuses = config.parent

    def tmux(self, *words: str) -> str:
        done = subprocess.run([*self._base, *words], capture_output=True, text=True, check=True)
        return done.stdout

    def start(self, command: list[str], env: dict[str, str], session: str = "client") -> None:
        exports = [f"{k}={v}" for k, v in env.items()]
        status = self._status_file(session)
        status.unlink(missing_ok=True)
        line = " ".join(["env", *exports, *command, ";", "echo", "$?", ">", str(status)])
        self.tmux("new-session", "-d", "-s", session, line)  # 80 x 24, tmux's default

    def screen(self, session: str = "client") -> str:
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", session)  # with history

    def exit_status(self, session: str = "client") -> int | None:
        """The command's exit status once it has ended; None while it runs."""
        text = self._status_file(session).read_text() if self._status_file(session).exists() else ""
        return int(text) if text.strip() else None

    def _status_file(self, session: str) -> Path:
        return self._statuses / f"{session}.status"

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "client", "-l", text)
        self.tmux("send-keys", "-t", "client", "Enter")

    def close(self) -> None:
        subprocess.run([*self._base, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal(f"mtt-client-test-{os.getpid()}", tmp_path / "tmux.conf")
    yield terminal
    terminal.close()


async def shows(
    terminal: Terminal, pattern: str, *, after: int = 0, session: str = "client"
) -> re.Match[str]:
    """The first match of `pattern` on the screen (past `after` matches of it), waiting for it."""
    deadline = time.monotonic() + SCREEN_SECONDS
    text = ""
    while time.monotonic() < deadline:
        text = await asyncio.to_thread(terminal.screen, session)
        found = list(re.finditer(pattern, text))
        if len(found) > after:
            return found[after]
        await asyncio.sleep(0.2)
    raise AssertionError(f"the screen never showed {pattern!r}:\n{text}")


def test_a_person_plays_hands_against_a_bot_in_a_terminal_and_sees_the_deck_verified(
    server: Server,  # noqa: F811
    terminal: Terminal,
    tmp_path: Path,
) -> None:
    async def play() -> None:
        async with grpc.aio.insecure_channel(server.target) as channel:
            operator = pb_grpc.OperatorServiceStub(channel)
            text = config("client", max_per_table=2, action_seconds=60, time_bank_seconds=30)
            info = await operator.CreateTournament(
                pb.CreateTournamentRequest(config_toml=text), metadata=OP
            )
            tournament = info.tournament_id
            ref = pb.TournamentRef(tournament_id=tournament)
            await operator.OpenRegistration(ref, metadata=OP)
            players = pb_grpc.PlayerServiceStub(channel)
            ann = await players.Register(
                pb.RegisterRequest(tournament_id=tournament, player="ann"),
                metadata=bearer(await wallet(channel, server.target, OPERATOR, "ann")),
            )
            token = tmp_path / "ann.token"
            token.write_text(ann.token + "\n")
            bob = await players.Register(
                pb.RegisterRequest(tournament_id=tournament, player="bob"),
                metadata=bearer(await wallet(channel, server.target, OPERATOR, "bob")),
            )
            seen: list[pb.ServerMessage] = []
            bot = BotPlayer(
                "bob",
                bob.token,
                make_bot("station", random.Random(1)),
                channel,
                FleetStats(),
                seen.append,
            )
            bot_task = asyncio.create_task(bot.run())
            command = [sys.executable, "-m", "orchestrator.cli.main", "client"]
            command += ["--target", server.target, "--tournament", tournament]
            env = {"PYTHONPATH": str(ROOT)}
            await refused(terminal, command, env, tmp_path)
            terminal.start([*command, "--token", str(token)], env)
            await shows(terminal, r"welcome, ann")
            await asyncio.wait_for(bot.welcomed.wait(), SCREEN_SECONDS)
            await operator.StartTournament(ref, metadata=OP)
            try:
                await hands(terminal, seen)
                await deal_declined(terminal, operator, tournament)
            finally:
                await operator.CancelTournament(
                    pb.CancelRequest(tournament_id=tournament, reason="test over"), metadata=OP
                )
                bot.stop()
                await asyncio.gather(bot_task, return_exceptions=True)
            terminal.type("q")
            assert await ended(terminal) == 0

    asyncio.run(play())


async def refused(
    terminal: Terminal, command: list[str], env: dict[str, str], folder: Path
) -> None:
    """A token nobody issued, and a real token with another tournament's id: each one line,
    exit 2, no traceback, once the terminal is restored."""
    wrong = folder / "wrong.token"
    wrong.write_text("not-a-token-anybody-issued\n")
    terminal.start([*command, "--token", str(wrong)], env, session="wrong")
    assert await ended(terminal, "wrong") == 2
    screen = terminal.screen("wrong")
    assert "mtt client: UNAUTHENTICATED: unknown player token" in screen, screen
    assert "Traceback" not in screen
    other = [*command[: command.index("--tournament") + 1], "someone-elses", "--token"]
    terminal.start([*other, str(folder / "ann.token")], env, session="other")
    assert await ended(terminal, "other") == 2
    screen = terminal.screen("other")
    assert "--tournament someone-elses: the token is for tournament" in screen, screen
    assert "Traceback" not in screen


async def hands(terminal: Terminal, bots_view: list[pb.ServerMessage]) -> None:
    """One hand: he types nonsense, an illegal raise and a fold where he may check (or a check
    where he must call), each refused with why and asked again, then checks or calls every
    prompt to the end of the hand, when the client shows the deck verified."""
    turn = await shows(terminal, r"YOUR TURN: (.*)")
    screen = await asyncio.to_thread(terminal.screen)
    number = re.search(r"table \d+  hand #(\d+)", screen)
    cards = re.search(r"your cards (\S\S) (\S\S)", screen)
    commitment = re.search(r"commitment ([0-9a-f]{64})", screen)
    assert number and cards and commitment, screen
    assert re.search(r"clock \d+s  time bank 30s", screen), screen  # TB-1, on the prompt
    assert re.search(r"seat +\d+  ann .* you", screen) and re.search(r"seat +\d+  bob", screen)

    terminal.type("dance")
    await shows(terminal, r"dance: unknown command 'dance': type h for help\. Try again\.")
    terminal.type("r 1")
    await shows(terminal, r"r 1: raise to 1 is outside [\d,]+\.\.[\d,]+")
    if "check (k)" in turn.group(1):
        terminal.type("f")
        await shows(terminal, r"f: nothing to fold against: check instead")
    else:
        terminal.type("k")
        await shows(terminal, r"k: you cannot check: [\d,]+ to call")

    # He checks or calls every prompt until the hand is over and its deck checked (a "c"
    # typed twice for one prompt is refused by the client: not his turn; nothing is sent).
    verdict = re.compile(rf"hand #{number.group(1)}: (deck verified|!!!.*)")
    while (found := verdict.search(await asyncio.to_thread(terminal.screen))) is None:
        if "YOUR TURN" in await asyncio.to_thread(terminal.screen):
            terminal.type("c")
        await asyncio.sleep(0.5)
    screen = await asyncio.to_thread(terminal.screen)
    assert found.group(1) == "deck verified", screen
    assert "it matches its commitment and dealt every card you saw" in screen
    assert "Traceback" not in screen

    # What the bot was told of the same hand: the same commitment before the deal and, after
    # it, the deck whose first four cards are the two players' hole cards (heads-up, HE-3).
    hand = int(number.group(1))
    (view,) = [
        m.hand_started
        for m in bots_view
        if m.WhichOneof("kind") == "hand_started" and m.hand_started.hand == hand
    ]
    (result,) = [
        m.hand_result
        for m in bots_view
        if m.WhichOneof("kind") == "hand_result" and m.hand_result.hand == hand
    ]
    assert view.deck_commitment.hex() == commitment.group(1)
    own = {cards.group(1), cards.group(2)}
    bobs = {card_text(c) for c in view.hole_cards}
    assert own | bobs == {card_text(c) for c in result.deck_cards[:4]} and not own & bobs


async def deal_declined(terminal: Terminal, operator: Any, tournament: str) -> None:
    """DEAL-1 at the keys: the operator proposes a chip chop (heads-up is the final table);
    the screen shows his share and its keys, he declines with `n`, and play resumes."""
    request = pb.DealRequest(tournament_id=tournament, kind="chip_chop", leave=0)
    proposed = asyncio.ensure_future(operator.ProposeDeal(request, metadata=OP))
    shown = re.compile(r"DEAL \(chip_chop\): [\d,]+\.\d\d for you: accept \(y\) or decline \(n\)")
    deadline = time.monotonic() + SCREEN_SECONDS
    while shown.search(screen := await asyncio.to_thread(terminal.screen)) is None:
        assert time.monotonic() < deadline, f"no deal on screen:\n{screen}"
        if "YOUR TURN" in screen:  # the hand in progress ends first (the deal's boundary)
            terminal.type("c")
        await asyncio.sleep(0.5)
    await proposed
    terminal.type("n")
    await shows(terminal, r"deal declined \(chip_chop\)")


async def ended(terminal: Terminal, session: str = "client") -> int:
    """The exit status of the session's command, waiting for it to end."""
    deadline = time.monotonic() + SCREEN_SECONDS
    while time.monotonic() < deadline:
        status = await asyncio.to_thread(terminal.exit_status, session)
        if status is not None:
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"{session} never ended:\n{terminal.screen(session)}")
