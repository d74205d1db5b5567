"""`mtt bench rng` runs end to end on a small scale (figures are not asserted: no timings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rng_service.bench import format_report, run_bench
from rng_service.cli import JSON_KEYS


@pytest.mark.slow
def test_bench_rng_reports_every_figure_with_a_private_redis() -> None:
    report = run_bench(
        decks=600, store_url=None, progress=False, generator_decks=2000, systemrandom_decks=500
    )
    assert all(report[key] > 0 for key in JSON_KEYS)
    assert report["redis_stored_decks"] == 600
    assert report["random_bytes_per_deck"] > 50
    assert "redis bytes/deck" in format_report(report)


@pytest.mark.slow
def test_bench_rng_runs_on_sqlite_without_redis_figures(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bench.db'}"
    report = run_bench(
        decks=300, store_url=url, progress=False, generator_decks=1000, systemrandom_decks=100
    )
    assert report["e2e_decks_per_s"] > 0
    assert report["redis_bytes_per_deck"] is None


def test_mtt_parser_has_the_deck_service_commands() -> None:
    from orchestrator.cli.main import build_parser

    parser = build_parser()
    serve = parser.parse_args(["rng", "serve", "--port", "0", "--store", "sqlite:///x.db"])
    assert (serve.port, serve.store, serve.host, serve.metrics_port) == (
        0,
        "sqlite:///x.db",
        "127.0.0.1",
        None,
    )
    bench = parser.parse_args(["bench", "rng", "--decks", "10", "--json"])
    assert (bench.decks, bench.json, bench.store) == (10, True, None)
    assert callable(serve.handler) and callable(bench.handler)
