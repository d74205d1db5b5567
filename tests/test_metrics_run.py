"""Every metrics endpoint scraped during a real `mtt run` (Ray, the deck service, SQLite): each
metric the code exports is there, and each one moves, except the few that a healthy run
leaves at zero (those move in tests/test_metrics.py, fed the failures themselves)."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import free_port
from prometheus_client import CollectorRegistry, Metric
from prometheus_client.parser import text_string_to_metric_families

from orchestrator.metrics import TournamentMetrics
from rng_service.server import Metrics as DeckServiceMetrics

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

CONFIG = """
[tournament]
name = "scrape"
players = 30
max_per_table = 6
starting_stack = 1500
buy_in = 100

[levels]
unit = "hands"
length = 4
blinds = [[10, 20], [25, 50], [50, 100], [100, 200], [200, 400]]
"""

# Zero in a healthy run, by design: nothing fouled, voided, restarted or lost, no duplicate
# deck, no store or request error. A move is pending only between two hands, rarely at a scrape.
QUIET = {
    "mtt_fouled_decks",
    "mtt_hands_voided",
    "mtt_table_restarts",
    "mtt_node_losses",
    "mtt_player_moves_pending",
    "mtt_rng_duplicate_decks",
    "mtt_rng_store_errors",
    "mtt_rng_invalid_requests",
    "mtt_store_errors",
}


def exported(registry: CollectorRegistry) -> set[str]:
    return {family.name for family in registry.collect()}


def level(families: Iterable[Metric]) -> dict[str, float]:
    """Per metric family, one number that changes whenever the metric does: the sum of its
    counters' totals, histograms' counts and gauges' values over all label sets."""
    levels: dict[str, float] = {}
    for family in families:
        total = 0.0
        for sample in family.samples:
            if sample.name.endswith(("_total", "_count")) or sample.name == family.name:
                total += sample.value
        levels[family.name] = total
    return levels


def scrape(port: int) -> dict[str, float] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as page:
            text = page.read().decode()
    except (urllib.error.URLError, ConnectionError):
        return None
    return level(text_string_to_metric_families(text))


def test_every_endpoint_exports_every_metric_and_each_moves_during_a_run(tmp_path: Path) -> None:
    (tmp_path / "scrape.toml").write_text(CONFIG)
    tournament_port, deck_port = free_port(), free_port()
    expected = {
        tournament_port: exported(_tournament_registry()),
        deck_port: exported(DeckServiceMetrics.create().registry),
        # The front door (`mtt serve --metrics-port`) joins here once it is merged.
    }
    command = [sys.executable, "-m", "orchestrator.cli", "run", str(tmp_path / "scrape.toml")]
    command += ["--seed", "4", "--out", str(tmp_path / "out"), "--metrics-port"]
    command += [str(tournament_port), "--deck-metrics-port", str(deck_port)]
    command += ["--metrics-linger", "3"]
    scrapes: dict[int, list[dict[str, float]]] = {port: [] for port in expected}
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 240
        while run.poll() is None and time.monotonic() < deadline:
            for port, seen in scrapes.items():
                if (levels := scrape(port)) is not None:
                    seen.append(levels)
            time.sleep(0.2)
        output = run.communicate(timeout=30)[0]
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 0, output
    for port, names in expected.items():
        seen = scrapes[port]
        assert len(seen) >= 2, f"port {port} scraped {len(seen)} times during the run"
        last = seen[-1]
        missing = names - last.keys()
        assert not missing, f"not exported on port {port}: {sorted(missing)}"
        still = {n for n in names - QUIET if len({levels.get(n, 0.0) for levels in seen}) == 1}
        assert not still, f"did not move during the run on port {port}: {sorted(still)}"
        for name in names & QUIET:
            assert last[name] == 0, f"{name} is {last[name]} in a healthy run"


def _tournament_registry() -> CollectorRegistry:
    registry = CollectorRegistry()
    TournamentMetrics(registry)
    return registry
