"""Every metrics endpoint scraped during a real `mtt run` (Ray, the deck service, SQLite): each
metric the code exports is there, and each one moves, except the few that a healthy run
leaves at zero (those move in tests/test_metrics.py, fed the failures themselves)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path

import pytest
from conftest import free_port
from prometheus_client import CollectorRegistry, Metric
from prometheus_client.parser import text_string_to_metric_families
from test_deploy import DASHBOARD, metric_names

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
    "mtt_tournament_paused",  # nobody pauses or cancels a run of bots
    "mtt_tournament_cancelled",
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
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
            text = page.read().decode()
    except OSError:  # not listening yet, or gone (URLError, refused, timed out on a busy box)
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


@pytest.mark.skipif(
    importlib.util.find_spec("aiohttp") is None,
    reason="Ray's metrics agent needs ray[default] (pip install -e '.[cluster]')",
)
def test_the_dashboards_ray_row_reads_what_a_real_ray_exports() -> None:
    """The Ray row's metric names and the labels it groups by, against a real local Ray's
    metrics endpoint (the names are also checked offline against Ray's documented list)."""
    import ray
    from ray.cluster_utils import Cluster

    port = free_port()
    queries = [
        (metric_names(target["expr"]), set(re.findall(r"by \(([^)]*)\)", target["expr"])))
        for panel in json.loads(DASHBOARD.read_text())["panels"]
        for target in panel.get("targets", ())
        if "ray_" in target["expr"]
    ]
    wanted = set().union(*(names for names, _ in queries))
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "metrics_export_port": port, "include_dashboard": False},
    )
    try:
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)

        @ray.remote(num_cpus=0)
        class Probe:  # defined here: pickled by value, as workers cannot import tests
            def ping(self) -> int:
                return 1

        probe = Probe
        actors = [probe.remote() for _ in range(2)]
        ray.get([a.ping.remote() for a in actors])
        labels: dict[str, set[str]] = {}
        deadline = time.monotonic() + 150  # Ray's agents report every few seconds
        while not wanted <= labels.keys() and time.monotonic() < deadline:
            time.sleep(2)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as page:
                    text = page.read().decode()
            except OSError:
                continue
            for family in text_string_to_metric_families(text):
                for sample in family.samples:
                    labels.setdefault(sample.name, set()).update(sample.labels)
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert wanted <= labels.keys(), f"not exported by Ray: {wanted - labels.keys()}"
    for names, groups in queries:
        for group in groups:
            for name in names:
                used = {label.strip() for label in group.split(",")}
                assert used <= labels[name], f"{name} has no label {used - labels[name]}"


def _tournament_registry() -> CollectorRegistry:
    registry = CollectorRegistry()
    TournamentMetrics(registry)
    return registry
