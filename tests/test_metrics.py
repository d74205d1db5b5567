"""Tournament and store metrics without Ray: the exporter follows real event logs of the pure
core, and the store wrappers time real SQLite and Redis calls and count their failures."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from conftest import RedisServer
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families
from test_tournament_core import config, play, run
from tournament_checks import begin, funds

from orchestrator.cli.main import main
from orchestrator.core.tournament import Tournament
from orchestrator.errors import StoreUnavailable
from orchestrator.shell.store import MeteredStore, open_store
from orchestrator.views.metrics import (
    HAND_REPORT_OBJECTIVE_SECONDS,
    OrchestratorTimings,
    TournamentMetrics,
)
from rng_service._proto import deck_pb2, deck_pb2_grpc
from rng_service.server import DeckServer
from rng_service.store import open_store as open_deck_store
from rng_service.store.metered import STORE_OBJECTIVE_SECONDS, StoreMetrics
from table_worker.protocol import HandTiming


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    sample = registry.get_sample_value(name, labels)
    assert sample is not None, f"{name}{labels} is not exported"
    return sample


def follow(log: list[dict[str, Any]], chunk: int = 7) -> CollectorRegistry:
    """The exporter fed the log in overlapping polls, as `mtt run` feeds it."""
    registry = CollectorRegistry()
    metrics = TournamentMetrics(registry)
    for start in range(0, len(log), chunk):
        metrics.follow("t", log[max(0, start - 3) : start + chunk])  # 3 events seen twice
    return registry


def test_metrics_of_a_whole_core_tournament_match_its_log() -> None:
    cfg = config(players=37, max_per_table=6, policy="equilibrium", buy_in=100)
    tournament, log = run(cfg, seed=5, kill_rate=0.1)
    registry = follow(log)
    kinds = Counter(e["type"] for e in log)
    assert kinds["hand_voided"] > 0 and kinds["player_moved"] > 0  # the log exercises them
    assert value(registry, "mtt_hands_total", tournament="t") == kinds["hand_finished"]
    assert value(registry, "mtt_eliminations_total", tournament="t") == 36
    assert value(registry, "mtt_players_remaining", tournament="t") == 1
    assert value(registry, "mtt_tables_open", tournament="t") == 0
    assert value(registry, "mtt_tournament_finished", tournament="t") == 1
    assert value(registry, "mtt_player_moves_pending", tournament="t") == 0
    assert value(registry, "mtt_hands_voided_total", tournament="t") == kinds["hand_voided"]
    assert value(registry, "mtt_table_restarts_total", tournament="t") == kinds["table_restarted"]
    assert value(registry, "mtt_levels_total", tournament="t") == kinds["level_started"]
    assert value(registry, "mtt_level", tournament="t") == tournament.clock.level
    for reason in ("balance", "close"):
        moved = sum(1 for e in log if e["type"] == "player_moved" and e["reason"] == reason)
        assert value(registry, "mtt_player_moves_total", tournament="t", reason=reason) == moved
    for kind, count in kinds.items():
        assert value(registry, "mtt_events_total", tournament="t", type=kind) == count


def test_players_and_tables_follow_the_log_while_it_is_written() -> None:
    """Part way through, players still in and tables open are what the log says so far."""
    cfg = config(players=24, max_per_table=6, buy_in=100)
    _, log = run(cfg, seed=2)
    metrics = TournamentMetrics(registry := CollectorRegistry())
    players: set[str] = set()
    tables: set[int] = set()
    for event in log:
        metrics.follow("t", [event])
        if event["type"] == "player_seated":
            players.add(event["player"])
        elif event["type"] == "player_eliminated":
            players.discard(event["player"])
        elif event["type"] == "table_opened":
            tables.add(event["table"])
        elif event["type"] == "table_closed":
            tables.discard(event["table"])
        if event["type"] != "tournament_finished":
            assert value(registry, "mtt_players_remaining", tournament="t") == len(players)
            assert value(registry, "mtt_tables_open", tournament="t") == len(tables)


def test_a_move_is_pending_until_the_player_plays_at_the_new_table() -> None:
    metrics = TournamentMetrics(registry := CollectorRegistry())
    moved = {"ts": 1.0, "type": "player_moved", "player": "a", "from_table": 1, "from_seat": 2}
    moved |= {"to_table": 2, "to_seat": 5, "stack": 100, "reason": "balance"}
    at = {"ts": 1.0, "type": "hand_finished", "hand": 9, "button": 1}
    b, a = ({"player": p, "seat": 5, "start": 100, "end": 100} for p in "ba")
    metrics.follow("t", [{"seq": 1, **moved}])
    assert value(registry, "mtt_player_moves_pending", tournament="t") == 1
    # A hand at the old table without the player, and one at the new table with someone else.
    metrics.follow("t", [{"seq": 2, **at, "table": 1, "players": []}])
    metrics.follow("t", [{"seq": 3, **at, "table": 2, "players": [b]}])
    assert value(registry, "mtt_player_moves_pending", tournament="t") == 1
    metrics.follow("t", [{"seq": 4, **at, "table": 2, "players": [a]}])
    assert value(registry, "mtt_player_moves_pending", tournament="t") == 0
    metrics.follow("t", [{"seq": 5, **moved, "player": "c"}])
    out = {"player": "c", "place": 3, "table": 2, "hand": 9, "start": 100}
    metrics.follow("t", [{"seq": 6, "ts": 1.0, "type": "player_eliminated", **out}])
    assert value(registry, "mtt_player_moves_pending", tournament="t") == 0


def test_table_timings_and_fouled_decks_travel_in_hand_finished() -> None:
    """The table's HandTiming goes from the report into the logged hand_finished, and from
    there into the histograms and the fouled-deck counter."""
    cfg = config(players=6, max_per_table=6, buy_in=100)
    rng = random.Random(1)
    players = [f"p{k}" for k in range(6)]
    tournament, start = Tournament.start(
        cfg, players, deposits=funds(cfg, players), tournament_id="t", now=0.0, rng=rng
    )
    directive = next(iter(begin(tournament, start).values()))
    assert directive.next_hand is not None
    report = play(directive.next_hand, rng)
    timing = HandTiming(seconds=0.25, deck_wait_seconds=0.003, fouled_decks=2)
    step = tournament.apply_hand(
        type(report)(report.table, report.hand, report.button, report.players, timing),
        now=1.0,
        rng=rng,
    )
    finished = step.events[0].fields()
    assert finished["seconds"] == 0.25 and finished["deck_wait_seconds"] == 0.003
    assert finished["fouled_decks"] == 2
    metrics = TournamentMetrics(registry := CollectorRegistry())
    metrics.follow("t", [{"seq": 1, "ts": 1.0, "type": "hand_finished", **finished}])
    assert value(registry, "mtt_fouled_decks_total", tournament="t") == 2
    assert value(registry, "mtt_hand_duration_seconds_sum", tournament="t") == 0.25
    assert value(registry, "mtt_table_deck_wait_seconds_bucket", tournament="t", le="0.01") == 1


def test_node_loss_and_orchestrator_timings_with_a_bucket_at_the_objective() -> None:
    metrics = TournamentMetrics(registry := CollectorRegistry())
    lost = {"type": "node_lost", "node": "n1", "tables": [3, 4]}
    metrics.follow("t", [{"seq": 1, "ts": 1.0, **lost}])
    assert value(registry, "mtt_node_losses_total", tournament="t") == 1
    timings = OrchestratorTimings(report_seconds=(0.001, 0.003), decision_seconds=(0.0004,))
    metrics.observe_timings("t", timings)
    objective = str(HAND_REPORT_OBJECTIVE_SECONDS)
    assert value(registry, "mtt_hand_report_seconds_bucket", tournament="t", le=objective) == 1
    assert value(registry, "mtt_hand_report_seconds_count", tournament="t") == 2
    assert value(registry, "mtt_balancing_decision_seconds_count", tournament="t") == 1


def test_operator_pause_resume_and_cancel() -> None:
    metrics = TournamentMetrics(registry := CollectorRegistry())
    metrics.follow("t", [{"seq": 1, "ts": 1.0, "type": "tournament_paused"}])
    assert value(registry, "mtt_tournament_paused", tournament="t") == 1
    resumed = {"type": "tournament_resumed", "paused_seconds": 4.0}
    metrics.follow("t", [{"seq": 2, "ts": 5.0, **resumed}])
    assert value(registry, "mtt_tournament_paused", tournament="t") == 0
    moved = {"ts": 6.0, "type": "player_moved", "player": "a", "from_table": 1, "from_seat": 2}
    moved |= {"to_table": 2, "to_seat": 5, "stack": 100, "reason": "close"}
    paused = {"seq": 4, "ts": 7.0, "type": "tournament_paused"}
    metrics.follow("t", [{"seq": 3, **moved}, paused])
    cancelled = {"type": "tournament_cancelled", "reason": "operator"}
    metrics.follow("t", [{"seq": 5, "ts": 8.0, **cancelled}])
    assert value(registry, "mtt_tournament_cancelled", tournament="t") == 1
    assert value(registry, "mtt_tournament_paused", tournament="t") == 0
    assert value(registry, "mtt_player_moves_pending", tournament="t") == 0


def test_several_tournaments_share_one_registry_apart() -> None:
    metrics = TournamentMetrics(registry := CollectorRegistry())
    seated = {"ts": 1.0, "type": "player_seated", "table": 1, "seat": 1, "stack": 10}
    metrics.follow("a", [{"seq": 1, **seated, "player": "x"}])
    metrics.follow("b", [{"seq": 1, **seated, "player": "x"}, {"seq": 2, **seated, "player": "y"}])
    assert value(registry, "mtt_players_remaining", tournament="a") == 1
    assert value(registry, "mtt_players_remaining", tournament="b") == 2


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_metered_store_times_every_call_and_counts_unavailable(
    backend: str, tmp_path: Path, redis_factory: Callable[..., RedisServer]
) -> None:
    server = redis_factory() if backend == "redis" else None
    url = server.url if server is not None else f"sqlite:///{tmp_path / 's.db'}"
    registry = CollectorRegistry()
    store = MeteredStore(open_store(url), StoreMetrics(registry))
    labels = {"store": "tournament", "backend": backend}
    try:
        store.append("t", [{"seq": 1, "type": "x"}, {"seq": 2, "type": "y"}])
        assert store.read("t") == [{"seq": 1, "type": "x"}, {"seq": 2, "type": "y"}]
        assert store.decks.record_new([bytes(16)]) == [1]
        for operation in ("append", "read"):
            count = "mtt_store_operation_seconds_count"
            assert value(registry, count, **labels, operation=operation) == 1
        decks = {"store": "decks", "backend": backend, "operation": "record_new"}
        assert value(registry, "mtt_store_operation_seconds_count", **decks) == 1
        objective = {**labels, "operation": "append", "le": str(STORE_OBJECTIVE_SECONDS)}
        value(registry, "mtt_store_operation_seconds_bucket", **objective)  # a bucket there
        if server is not None:  # Redis down: the error passes through, typed, and is counted
            server.stop()
            with pytest.raises(StoreUnavailable):
                store.last_seq("t")
            errors = {**labels, "operation": "last_seq", "error": "StoreUnavailable"}
            assert value(registry, "mtt_store_errors_total", **errors) == 1
            timed = {**labels, "operation": "last_seq"}
            assert value(registry, "mtt_store_operation_seconds_count", **timed) == 1
    finally:
        store.close()


def test_deck_service_exports_store_latency_and_errors_and_requests_by_method_and_code(
    redis_factory: Callable[..., RedisServer],
) -> None:
    redis_server = redis_factory()

    async def scenario() -> str:
        server = DeckServer(open_deck_store(redis_server.url), metrics_port=0)
        await server.start()
        try:
            async with grpc.aio.insecure_channel(server.target) as channel:
                stub = deck_pb2_grpc.DeckServiceStub(channel)
                request = deck_pb2.DrawDecksRequest(tournament_id="t", table_id="1", count=3)
                await stub.DrawDecks(request)
                with pytest.raises(grpc.aio.AioRpcError):
                    await stub.DrawDecks(deck_pb2.DrawDecksRequest(tournament_id="t", count=1))
                await asyncio.to_thread(redis_server.stop)
                with pytest.raises(grpc.aio.AioRpcError):
                    await stub.DrawDecks(request)
            url = f"http://127.0.0.1:{server.metrics_bound}/metrics"
            return await asyncio.to_thread(lambda: urllib.request.urlopen(url).read().decode())
        finally:
            await server.stop(grace=1)

    text = asyncio.run(asyncio.wait_for(scenario(), timeout=60))
    scraped = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    labels = {"store": "decks", "backend": "redis", "operation": "record_new"}
    assert scraped["mtt_store_operation_seconds_count", frozenset(labels.items())] == 2
    errors = {**labels, "error": "StoreUnavailable"}
    assert scraped["mtt_store_errors_total", frozenset(errors.items())] == 1
    draw = "/mtt.deck.v1.DeckService/DrawDecks"
    for code in ("OK", "INVALID_ARGUMENT", "UNAVAILABLE"):
        key = frozenset({"method": draw, "code": code}.items())
        assert scraped["mtt_grpc_requests_total", key] == 1, code
    assert scraped["mtt_grpc_request_seconds_count", frozenset({"method": draw}.items())] == 3


def test_bench_metrics_follows_a_log_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, log = run(config(players=12, max_per_table=6, buy_in=100), seed=1)
    events = tmp_path / "events.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in log))
    assert main(["bench", "metrics", str(events), "--repeat", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["events"] == len(log) and report["events_per_s"] > 0
    assert report["scrape_bytes"] > 0
    assert main(["bench", "metrics", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
