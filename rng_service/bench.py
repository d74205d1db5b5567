"""`mtt bench rng`: generator vs SystemRandom.shuffle, end to end through gRPC, Redis bytes/deck.

The deck service runs as its own process (`python -m rng_service rng serve`), as deployed;
without `--store` a private `redis-server` is started in a temporary directory on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import redis

from rng_service._proto import deck_pb2, deck_pb2_grpc
from rng_service.shuffle import RandomBytes, shuffle_decks
from rng_service.store.redis_store import COUNTER_KEY

__all__ = ["format_report", "run_bench"]

GENERATOR_DECKS = 500_000
SYSTEMRANDOM_DECKS = 50_000
GENERATOR_BATCH = 4096
E2E_BATCH = 256
E2E_CONCURRENCY = 4


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _say(progress: bool, text: str) -> None:
    if progress:
        print(text, file=sys.stderr, flush=True)


def generator_rate(decks: int = GENERATOR_DECKS) -> tuple[float, float]:
    """(decks/s, random bytes per deck) of the batched Fisher-Yates on the OS CSPRNG."""
    source = RandomBytes(os.urandom)
    done = used = 0
    started = time.perf_counter()
    while done < decks:
        result = shuffle_decks(min(GENERATOR_BATCH, decks - done), source)
        result.decks.tobytes()
        done += len(result.decks)
        used += result.random_bytes
    return done / (time.perf_counter() - started), used / done


def systemrandom_rate(decks: int = SYSTEMRANDOM_DECKS) -> float:
    """decks/s of `random.SystemRandom().shuffle` on a 52-list (the naive baseline)."""
    rng = random.SystemRandom()
    cards = list(range(52))
    started = time.perf_counter()
    for _ in range(decks):
        rng.shuffle(cards)
    return decks / (time.perf_counter() - started)


@contextmanager
def _private_redis() -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server not found: install it (make system) or pass --store")
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="mtt-bench-redis-") as folder:
        args = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", folder]
        proc = subprocess.Popen(
            [*args, "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL
        )
        try:
            _wait(lambda: redis.Redis(port=port, host="127.0.0.1").ping())
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait()


def _wait(probe: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            probe()
            return
        except (redis.RedisError, grpc.FutureTimeoutError, OSError):  # not up yet
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextmanager
def _service(store_url: str) -> Iterator[str]:
    port = _free_port()
    cmd = [sys.executable, "-m", "rng_service", "rng", "serve", "--port", str(port)]
    proc = subprocess.Popen([*cmd, "--store", store_url], stdout=subprocess.DEVNULL)
    target = f"127.0.0.1:{port}"
    try:

        def probe() -> None:
            with grpc.insecure_channel(target) as channel:
                grpc.channel_ready_future(channel).result(timeout=1)

        _wait(probe)
        yield target
    finally:
        proc.terminate()
        proc.wait()


async def _e2e(target: str, decks: int) -> float:
    remaining = decks
    async with grpc.aio.insecure_channel(target) as channel:
        stub = deck_pb2_grpc.DeckServiceStub(channel)

        async def worker(table: int) -> None:
            nonlocal remaining
            while remaining > 0:
                count = min(E2E_BATCH, remaining)
                remaining -= count
                request = deck_pb2.DrawDecksRequest(
                    tournament_id="bench", table_id=str(table), count=count
                )
                response = await stub.DrawDecks(request, timeout=30)
                assert len(response.decks) == count

        started = time.perf_counter()
        await asyncio.gather(*(worker(t) for t in range(E2E_CONCURRENCY)))
        return decks / (time.perf_counter() - started)


def redis_memory(url: str) -> dict[str, Any]:
    """Bytes per stored deck by Redis's own accounting: INFO memory and MEMORY USAGE."""
    client = redis.Redis.from_url(url)
    stored = int(client.get(COUNTER_KEY) or 0)
    usage = keys = listpack = 0
    for key in client.scan_iter(match="mtt:ud:*", count=1000):
        usage += int(client.memory_usage(key, samples=0) or 0)
        keys += 1
        listpack += client.object("encoding", key) == b"listpack"
    return {
        "stored": stored,
        "used_memory": int(client.info("memory")["used_memory"]),
        "memory_usage_per_deck": usage / stored if stored else None,
        "buckets": keys,
        "listpack_buckets": listpack,
    }


def run_bench(
    *,
    decks: int,
    store_url: str | None,
    progress: bool,
    generator_decks: int = GENERATOR_DECKS,
    systemrandom_decks: int = SYSTEMRANDOM_DECKS,
) -> dict[str, Any]:
    _say(progress, f"generator: {generator_decks:,} decks ...")
    gen, bytes_per_deck = generator_rate(generator_decks)
    _say(progress, f"random.SystemRandom().shuffle: {systemrandom_decks:,} decks ...")
    sysrand = systemrandom_rate(systemrandom_decks)
    report: dict[str, Any] = {
        "generator_decks_per_s": round(gen),
        "systemrandom_decks_per_s": round(sysrand),
        "ratio": round(gen / sysrand, 2),
        "random_bytes_per_deck": round(bytes_per_deck, 2),
    }
    with _private_redis() if store_url is None else _given(store_url) as url:
        is_redis = url.startswith("redis")
        before = redis_memory(url) if is_redis else None
        with _service(url) as target:
            _say(progress, f"end to end: {decks:,} decks through gRPC, store {url} ...")
            report["e2e_decks_per_s"] = round(asyncio.run(_e2e(target, decks)))
        if before is not None:
            after = redis_memory(url)
            added = after["stored"] - before["stored"]
            grown = after["used_memory"] - before["used_memory"]
            report["redis_bytes_per_deck"] = round(grown / added, 2) if added else None
            report["redis_memory_usage_per_deck"] = round(after["memory_usage_per_deck"], 2)
            report["redis_stored_decks"] = after["stored"]
            report["redis_listpack_buckets"] = f"{after['listpack_buckets']}/{after['buckets']}"
        else:
            report["redis_bytes_per_deck"] = None
    report["decks"] = decks
    report["store"] = store_url or "private redis-server"
    return report


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url


def format_report(r: dict[str, Any]) -> str:
    lines = [
        f"generator             {r['generator_decks_per_s']:>12,} decks/s "
        f"({r['random_bytes_per_deck']} random bytes/deck)",
        f"SystemRandom.shuffle  {r['systemrandom_decks_per_s']:>12,} decks/s",
        f"ratio                 {r['ratio']:>12}x   (goal >= 5x)",
        f"end to end (gRPC)     {r['e2e_decks_per_s']:>12,} decks/s "
        f"({r['decks']:,} decks, {r['store']}; goal >= 30,000)",
    ]
    if r["redis_bytes_per_deck"] is not None:
        lines.append(
            f"redis bytes/deck      {r['redis_bytes_per_deck']:>12} (INFO used_memory growth; "
            f"MEMORY USAGE sum {r['redis_memory_usage_per_deck']}; "
            f"{r['redis_stored_decks']:,} stored; listpack buckets "
            f"{r['redis_listpack_buckets']}; goal <= 32)"
        )
    return "\n".join(lines)
