"""Shared fixtures: real servers on 127.0.0.1, free ports, stopped by the test that started them."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
import redis

from orchestrator.shell.driver import keep_ray_on_this_machine

keep_ray_on_this_machine()  # tests start Ray themselves too (clusters, probes)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def deck_service_children() -> list[psutil.Process]:
    """This process's children (at any depth) that are deck services (`mtt rng serve`)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "rng_service" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:  # a zombie too: it exited since it was listed
            continue
    return found


class RedisServer:
    """A real `redis-server` on 127.0.0.1 in its own directory; stop/start/restart keep the
    port, directory and arguments (so a restart with `--appendonly yes` keeps the data)."""

    def __init__(self, directory: Path, extra_args: tuple[str, ...] = ()) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed (make system installs it)")
        self.binary = binary
        self.directory = directory
        self.port = free_port()
        self.extra_args = extra_args
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def start(self, timeout: float = 10.0) -> None:
        assert self._proc is None, "already running"
        args = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port)]
        args += ["--dir", str(self.directory), "--save", "", "--appendonly", "no"]
        args += ["--logfile", str(self.directory / "redis.log"), *self.extra_args]
        self._proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with self.client() as client:
                    client.ping()
                return
            except redis.RedisError:
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    log = (self.directory / "redis.log").read_text(errors="replace")
                    self.stop()
                    pytest.fail(f"redis-server did not start on port {self.port}:\n{log}")
                time.sleep(0.02)

    def stop(self) -> None:
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def redis_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., RedisServer]]:
    """Start any number of Redis servers: `redis_factory("--appendonly", "yes")`."""
    servers: list[RedisServer] = []

    def make(*extra_args: str) -> RedisServer:
        server = RedisServer(tmp_path_factory.mktemp("redis"), extra_args)
        servers.append(server)
        server.start()
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def redis_server(redis_factory: Callable[..., RedisServer]) -> RedisServer:
    """A fresh, empty Redis for this test, no persistence."""
    return redis_factory()
