"""The deck service around a run: the child process `mtt run` starts, and the watch over one
it was given (`--deck`).

`deck_service(store)` starts `mtt rng serve` as a child process on 127.0.0.1 that dies with
its parent, even when the parent is killed with SIGKILL (Linux: `PR_SET_PDEATHSIG`, set in the
child before it runs; elsewhere the child outlives a parent killed that way). With `say`, the
child is supervised: when it exits while the run lasts it is started again on the same port
and the same store (the used decks are in the store, so no deck is dealt twice), and each
restart is said in one line. A restart names the store's epoch the first start reported, so a
store that lost its data meanwhile is refused (RNG-3); a child that stops for that reason (exit
3) is not started again: `lost` says why, and the run stops dealing (`check`). Tables keep
their deck client's channel to that port and wait at their hand boundary meanwhile
(`table_worker.actor`).

`watched_deck_service(target, say=...)` asks a deck service the run did not start for its
health every few seconds and says in one line when it stops answering and when it is back.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from orchestrator.errors import RemoteUnavailable, StoreLost
from rng_service.cli import STORE_LOST
from rng_service.parent import EXIT_WITH_PARENT

__all__ = [
    "DeckService",
    "Decks",
    "WatchedDecks",
    "deck_service",
    "watched_deck_service",
]

Say = Callable[[str], None]

CHECK_SECONDS = 0.5  # how often the supervisor looks at its child
RESTART_BACKOFF = (0.2, 5.0)  # seconds between attempts to start it again: first, most
HEALTH_SECONDS = 2.0  # how often an external deck service is asked for its health


class DeckService:
    """One deck service child process; `start()` gives its address, `stop()` ends it."""

    def __init__(
        self,
        store: str,
        *,
        port: int = 0,
        metrics_port: int | None = None,
        say: Say | None = None,
    ) -> None:
        self._store = store
        self._port = port
        self._metrics_port = metrics_port
        self._say = say
        self._process: subprocess.Popen[str] | None = None
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None
        self.restarts = 0
        self.target = ""
        self.epoch: str | None = None  # the store's, as the first start said it
        self.lost: str | None = None  # why the store can serve no more decks (RNG-3)

    def start(self) -> str:
        line = self._spawn()
        if not line.startswith("deck service on "):
            self._end()
            raise RemoteUnavailable(f"the deck service did not start (it said {line.strip()!r})")
        self._started(line)
        if self._say is not None:
            self._supervisor = threading.Thread(
                target=self._supervise, name="deck-service-supervisor", daemon=True
            )
            self._supervisor.start()
        return self.target

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def _command(self) -> list[str]:
        command = [sys.executable, "-m", "rng_service", "rng", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(self._port), "--store", self._store]
        if self.epoch is not None:
            command += ["--epoch", self.epoch]
        if self._metrics_port is not None:
            command += ["--metrics-port", str(self._metrics_port)]
        return command

    def _spawn(self) -> str:
        """Start the child; the first line it says ('' if it died first)."""
        self._process = subprocess.Popen(
            self._command(),
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, EXIT_WITH_PARENT: str(os.getpid())},  # it dies with this one
        )
        assert self._process.stdout is not None
        return self._process.stdout.readline()

    def _started(self, line: str) -> None:
        """Keep the ports it took, so a restart takes the same ones."""
        # "deck service on 127.0.0.1:PORT (store URL, epoch E)[, metrics on 127.0.0.1:PORT]"
        self.target = line.split()[3]
        self.epoch = line.partition(", epoch ")[2].partition(")")[0] or None
        self._port = int(self.target.rpartition(":")[2])
        if self._metrics_port is not None and ", metrics on " in line:
            self._metrics_port = int(line.rsplit(":", 1)[1])

    def _supervise(self) -> None:
        """Restart the child when it exits while the run lasts (a supervising loop)."""
        assert self._say is not None
        while not self._stopping.wait(CHECK_SECONDS):
            process = self._process
            if process is None or process.poll() is None:
                continue
            code = process.returncode
            self._end()
            delay, failed = RESTART_BACKOFF[0], ""
            started = time.monotonic()
            while not self._stopping.is_set():
                if code == STORE_LOST:
                    self._lose()
                    return
                line = self._spawn()
                if line.startswith("deck service on "):
                    self._started(line)
                    self.restarts += 1
                    self._say(
                        f"the deck service exited ({_exit_status(code)}); restarted on "
                        f"{self.target} with the same store after "
                        f"{time.monotonic() - started:.1f}s (no deck repeats)"
                    )
                    break
                code = self._end()
                if code == STORE_LOST:
                    continue
                if not failed:
                    failed = line.strip() or "it exited at once"
                    self._say(
                        f"the deck service exited ({_exit_status(code)}) and does not start "
                        f"again on port {self._port} ({failed}); trying again"
                    )
                self._stopping.wait(delay)
                delay = min(RESTART_BACKOFF[1], 2 * delay)

    def _lose(self) -> None:
        self.lost = (
            f"the deck store {self._store} lost its data: it no longer holds epoch {self.epoch}, "
            "so decks dealt before could be dealt again (RNG-3); no table is dealt another hand"
        )
        assert self._say is not None
        self._say(f"the deck service stopped: {self.lost}")

    def check(self) -> None:
        """`StoreLost` once the store lost its data (RNG-3)."""
        if self.lost is not None:
            raise StoreLost(self.lost)

    def _end(self) -> int | None:
        """Stop the child (when it still runs); its exit status."""
        process, self._process = self._process, None
        if process is None:
            return None
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()
        return process.returncode

    def stop(self) -> None:
        self._stopping.set()
        if self._supervisor is not None:
            self._supervisor.join()
        self._end()


class Decks(Protocol):
    """The run's deck service, whichever it is: its address, and `check()`, which raises
    `StoreLost` once it can deal no more."""

    @property
    def target(self) -> str: ...

    def check(self) -> None: ...


@dataclass(frozen=True, slots=True)
class WatchedDecks:
    """A deck service the run did not start: its own operator restarts it (with `--epoch`),
    and the tables wait for it meanwhile, so nothing here stops the run."""

    target: str

    def check(self) -> None:
        return None


def _exit_status(code: int | None) -> str:
    if code is not None and code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


@contextmanager
def deck_service(
    store: str, *, port: int = 0, metrics_port: int | None = None, say: Say | None = None
) -> Iterator[DeckService]:
    """The deck service as a child process on 127.0.0.1 (`port` 0: a free one) that dies with
    this process; yields it (its address is `target`). With `say`, supervised: restarted on
    the same port and store when it exits, each restart said in one line."""
    service = DeckService(store, port=port, metrics_port=metrics_port, say=say)
    service.start()
    try:
        yield service
    finally:
        service.stop()


@contextmanager
def watched_deck_service(
    target: str, *, say: Say, every: float = HEALTH_SECONDS
) -> Iterator[WatchedDecks]:
    """A deck service this process did not start, asked for its health every `every` seconds
    while the block lasts: one line when it stops answering (tables wait at their boundary),
    one when it is back. Yields it."""
    from rng_service.health import check_health

    stopping = threading.Event()

    def watch() -> None:
        down_since: float | None = None
        while True:
            wrong = check_health(target, timeout=every)
            if wrong is not None and down_since is None:
                down_since = time.monotonic()
                say(
                    f"the deck service at {target} does not answer ({wrong}); the tables wait "
                    "at their hand boundary until it is back"
                )
            elif wrong is None and down_since is not None:
                say(
                    f"the deck service at {target} answers again after "
                    f"{time.monotonic() - down_since:.0f}s"
                )
                down_since = None
            if stopping.wait(every):
                return

    watcher = threading.Thread(target=watch, name="deck-service-watch", daemon=True)
    watcher.start()
    try:
        yield WatchedDecks(target)
    finally:
        stopping.set()
        watcher.join()
