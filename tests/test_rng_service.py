"""The deck service end to end: a real grpc.aio server, real Redis/SQLite, the real client."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest
from conftest import RedisServer, free_port
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from rng_service._proto import deck_pb2, deck_pb2_grpc
from rng_service.client import BlockingDeckClient, DeckClient
from rng_service.commit import deck_digest, verify_commitment
from rng_service.deck import is_deck
from rng_service.errors import DeckServiceError, DeckServiceUnavailable
from rng_service.server import DeckServer
from rng_service.store import open_store
from rng_service.store.redis_store import BUCKET_BYTES, bucket_key


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), timeout=60))


@asynccontextmanager
async def deck_server(
    store_url: str, port: int = 0, metrics_port: int | None = None
) -> AsyncIterator[DeckServer]:
    server = DeckServer(open_store(store_url), port=port, metrics_port=metrics_port)
    await server.start()
    try:
        yield server
    finally:
        await server.stop(grace=1)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url) as page:
        text: str = page.read().decode()
        return text


def draw_request(
    count: int = 4, tournament: str = "t1", table: str = "7"
) -> deck_pb2.DrawDecksRequest:
    return deck_pb2.DrawDecksRequest(tournament_id=tournament, table_id=table, count=count)


def test_rng3_served_decks_are_valid_committed_recorded_and_never_repeat(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'decks.db'}"

    async def scenario() -> None:
        async with deck_server(url) as server, grpc.aio.insecure_channel(server.target) as ch:
            stub = deck_pb2_grpc.DeckServiceStub(ch)
            decks = []
            for _ in range(4):
                response = await stub.DrawDecks(draw_request(256))
                decks += response.decks
            assert len({d.cards for d in decks}) == len(decks) == 1024
            assert [d.serial for d in decks] == list(range(1, 1025))
            for d in decks:
                assert is_deck(d.cards) and len(d.salt) == 32
                assert verify_commitment(d.cards, d.salt, d.commitment)
            assert len({d.salt for d in decks}) == 1024  # a fresh salt per deck
            stats = await stub.GetStats(deck_pb2.GetStatsRequest())
            assert (stats.decks_served, stats.stored_decks, stats.duplicates_rejected) == (
                1024,
                1024,
                0,
            )
            assert stats.random_bytes > 50 * 1024
        # Every served deck is in the store: replaying any of them is refused (RNG-3).
        store = open_store(url)
        assert store.record_new([deck_digest(d.cards) for d in decks[::97]]) == [None] * 11
        store.close()

    run(scenario)


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (draw_request(0), "count must be 1..256, got 0"),
        (draw_request(257), "count must be 1..256, got 257"),
        (draw_request(tournament=""), "tournament_id is required"),
        (draw_request(table=""), "table_id is required"),
        (draw_request(table="x" * 129), "table_id is longer than 128 bytes"),
        (draw_request(tournament="x" * 5000), "request is 5008 bytes; at most 1024 allowed"),
        (draw_request(table="y" * 100_000), "request is 100010 bytes; at most 1024 allowed"),
    ],
)
def test_bad_requests_get_invalid_argument_and_the_server_keeps_serving(
    tmp_path: Path, request_: deck_pb2.DrawDecksRequest, message: str
) -> None:
    async def scenario() -> None:
        url = f"sqlite:///{tmp_path / 'd.db'}"
        async with deck_server(url) as server, grpc.aio.insecure_channel(server.target) as ch:
            stub = deck_pb2_grpc.DeckServiceStub(ch)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.DrawDecks(request_)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert refused.value.details() == message
            assert len((await stub.DrawDecks(draw_request(3))).decks) == 3

    run(scenario)


def test_message_past_the_transport_cap_is_refused_by_grpc_and_serving_goes_on(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        url = f"sqlite:///{tmp_path / 'd.db'}"
        async with deck_server(url) as server, grpc.aio.insecure_channel(server.target) as ch:
            stub = deck_pb2_grpc.DeckServiceStub(ch)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.DrawDecks(draw_request(table="z" * (5 * 1024 * 1024)))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert len((await stub.DrawDecks(draw_request(3))).decks) == 3

    run(scenario)


def test_health_reflection_and_metrics(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with deck_server(f"sqlite:///{tmp_path / 'd.db'}", metrics_port=0) as server:
            async with grpc.aio.insecure_channel(server.target) as ch:
                health = health_pb2_grpc.HealthStub(ch)
                for name in ("", "mtt.deck.v1.DeckService"):
                    reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
                    assert reply.status == health_pb2.HealthCheckResponse.SERVING
                reflect = reflection_pb2_grpc.ServerReflectionStub(ch)
                ask = reflection_pb2.ServerReflectionRequest(list_services="")
                answers = [a async for a in reflect.ServerReflectionInfo(iter([ask]))]
                names = {s.name for s in answers[0].list_services_response.service}
                assert "mtt.deck.v1.DeckService" in names
                stub = deck_pb2_grpc.DeckServiceStub(ch)
                await stub.DrawDecks(draw_request(5))
                with pytest.raises(grpc.aio.AioRpcError):
                    await stub.DrawDecks(draw_request(0))
            url = f"http://127.0.0.1:{server.metrics_bound}/metrics"
            text = await asyncio.to_thread(fetch, url)
        assert "mtt_rng_decks_served_total 5.0" in text
        assert "mtt_rng_duplicate_decks_total 0.0" in text
        assert "mtt_rng_store_errors_total 0.0" in text
        assert "mtt_rng_invalid_requests_total 1.0" in text
        assert 'mtt_rng_draw_duration_seconds_bucket{le="0.01"}' in text

    run(scenario)


def test_rng3_redis_down_gives_unavailable_and_service_recovers_after_restart(
    redis_factory: Callable[..., RedisServer],
) -> None:
    redis_server = redis_factory("--appendonly", "yes")  # used decks survive the restart

    async def scenario() -> None:
        server_ = deck_server(redis_server.url)
        async with server_ as server, grpc.aio.insecure_channel(server.target) as ch:
            stub = deck_pb2_grpc.DeckServiceStub(ch)
            before = (await stub.DrawDecks(draw_request(50))).decks
            await asyncio.to_thread(redis_server.stop)
            with pytest.raises(grpc.aio.AioRpcError) as down:
                await stub.DrawDecks(draw_request(10))
            assert down.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "store" in (down.value.details() or "")
            await asyncio.to_thread(redis_server.start)
            after = (await stub.DrawDecks(draw_request(50))).decks
            stats = await stub.GetStats(deck_pb2.GetStatsRequest())
        assert stats.store_errors == 1 and stats.decks_served == 100
        assert len({d.cards for d in [*before, *after]}) == 100
        # Never an unrecorded deck: every served deck is in Redis; the serials go on.
        with redis_server.client() as client:
            for d in [*before, *after]:
                digest = deck_digest(d.cards)
                assert client.hexists(bucket_key(digest), digest[BUCKET_BYTES:])
        assert [d.serial for d in after] == list(range(51, 101))

    run(scenario)


def test_client_prefetches_in_batches_and_validates(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with (
            deck_server(f"sqlite:///{tmp_path / 'd.db'}") as server,
            DeckClient(
                server.target, tournament_id="t", table_id="1", batch=20, low_water=5
            ) as client,
        ):
            decks = [await client.next_deck() for _ in range(100)]
            assert len({d.cards for d in decks}) == 100
            assert all(verify_commitment(d.cards, d.salt, d.commitment) for d in decks)
            assert client.rpcs <= 100 // 20 + 2  # one RPC per batch, not per deck
            assert client.fouled == 0
            for _ in range(100):  # the background refill tops the buffer up
                if client.buffered > 5:
                    break
                await asyncio.sleep(0.02)
            assert client.buffered > 5

    run(scenario)


def test_blocking_client_for_synchronous_actors(tmp_path: Path) -> None:
    def play(target: str) -> list[bytes]:
        with BlockingDeckClient(target, tournament_id="t", table_id="9", batch=10) as client:
            return [client.next_deck().cards for _ in range(25)]

    async def scenario() -> None:
        async with deck_server(f"sqlite:///{tmp_path / 'd.db'}") as server:
            cards = await asyncio.to_thread(play, server.target)
        assert len(set(cards)) == 25 and all(is_deck(c) for c in cards)

    run(scenario)


def test_client_retries_while_the_service_is_briefly_away(tmp_path: Path) -> None:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'd.db'}"

    async def scenario() -> None:
        async with DeckClient(
            f"127.0.0.1:{port}", tournament_id="t", table_id="1", batch=8, wait=20
        ) as client:
            waiting = asyncio.create_task(client.next_deck())
            await asyncio.sleep(0.5)  # no service yet: the client is retrying
            assert not waiting.done()
            async with deck_server(url, port=port):
                deck = await waiting
                assert is_deck(deck.cards)
            assert client.rpcs >= 2

    run(scenario)


def test_client_waits_out_a_redis_restart(redis_factory: Callable[..., RedisServer]) -> None:
    redis_server = redis_factory("--appendonly", "yes")  # the used decks survive the restart

    async def scenario() -> None:
        async with (
            deck_server(redis_server.url) as server,
            DeckClient(
                server.target, tournament_id="t", table_id="1", batch=4, low_water=0, wait=20
            ) as client,
        ):
            await client.next_deck()  # 3 left > low_water: no refill in flight
            await asyncio.to_thread(redis_server.stop)
            for _ in range(3):  # already recorded, so they may be dealt
                await client.next_deck()
            waiting = asyncio.create_task(client.next_deck())
            await asyncio.sleep(0.5)
            assert not waiting.done()  # UNAVAILABLE: retrying, no unrecorded deck
            await asyncio.to_thread(redis_server.start)
            assert is_deck((await waiting).cards)

    run(scenario)


def test_rng3_a_redis_restarted_empty_stops_the_service(redis_server: RedisServer) -> None:
    """A store that lost its data (no persistence here) would deal decks it dealt before:
    the draw is refused with DATA_LOSS, naming the epoch, and the service stops serving."""

    async def scenario() -> None:
        async with (
            deck_server(redis_server.url) as server,
            DeckClient(
                server.target, tournament_id="t", table_id="1", batch=1, low_water=0, wait=5
            ) as client,
        ):
            await client.next_deck()
            await asyncio.to_thread(redis_server.restart)
            with pytest.raises(DeckServiceError, match=f"DATA_LOSS.*not epoch {server.epoch}"):
                for _ in range(2):  # one deck may have been fetched before the restart
                    await client.next_deck()
            assert server.stopping.is_set() and server.lost is not None

    run(scenario)


def test_client_gives_up_clearly(tmp_path: Path) -> None:
    async def scenario() -> None:
        away = DeckClient(f"127.0.0.1:{free_port()}", tournament_id="t", table_id="1", wait=0.5)
        async with away:
            with pytest.raises(DeckServiceUnavailable, match="UNAVAILABLE"):
                await away.next_deck()
        async with deck_server(f"sqlite:///{tmp_path / 'd.db'}") as server:
            bad = DeckClient(server.target, tournament_id="", table_id="1")
            async with bad:
                with pytest.raises(DeckServiceError, match="tournament_id is required"):
                    await bad.next_deck()

    run(scenario)


@pytest.mark.slow
def test_mtt_rng_serve_stops_gracefully_on_sigterm(tmp_path: Path) -> None:
    port, metrics = free_port(), free_port()
    command = [sys.executable, "-m", "rng_service", "rng", "serve", "--port", str(port)]
    command += ["--store", f"sqlite:///{tmp_path / 'd.db'}", "--metrics-port", str(metrics)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert f"deck service on 127.0.0.1:{port}" in proc.stdout.readline()
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = deck_pb2_grpc.DeckServiceStub(ch)
            assert len(stub.DrawDecks(draw_request(2), timeout=10).decks) == 2
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics}/metrics") as page:
            assert "mtt_rng_decks_served_total 2.0" in page.read().decode()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert "deck service stopped" in out
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.mark.slow
def test_rng3_mtt_rng_serve_stops_when_its_store_lost_its_data(
    redis_server: RedisServer,
) -> None:
    """Exit 3 with one line when the store is found empty mid-run, and a start that names the
    epoch the store had is refused with exit 3 too (a supervisor restarting it says it)."""
    port = free_port()
    command = [sys.executable, "-m", "rng_service", "rng", "serve", "--port", str(port)]
    command += ["--store", redis_server.url]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        epoch = line.split("epoch ")[1].split(")")[0]
        redis_server.restart()
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = deck_pb2_grpc.DeckServiceStub(ch)
            with pytest.raises(grpc.RpcError) as refused:
                stub.DrawDecks(draw_request(1), timeout=10)
            assert refused.value.code() == grpc.StatusCode.DATA_LOSS
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 3 and f"not epoch {epoch}" in err
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    again = subprocess.run([*command, "--epoch", epoch], capture_output=True, text=True, timeout=60)
    assert again.returncode == 3 and "lost its data" in again.stderr
    assert again.stderr.count("\n") == 1
