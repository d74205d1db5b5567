"""Every metrics endpoint scraped during a real `mtt run` (Ray, the deck service, SQLite): each
metric the code exports is there, and each one moves, except the few that a healthy run
leaves at zero (those move in tests/test_metrics.py, fed the failures themselves)."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import free_port
from prometheus_client import CollectorRegistry, Metric
from prometheus_client.parser import text_string_to_metric_families
from test_deploy import DASHBOARD, RULES, metric_names, sample_names

from orchestrator.views.metrics import TournamentMetrics
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

SHORT = """
[tournament]
name = "short"
max_per_table = 4
starting_stack = 400
action_seconds = 10

[levels]
unit = "hands"
length = 2
blinds = [[25, 50], [50, 100], [100, 200], [200, 400]]
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


@contextmanager
def prometheus(tmp_path: Path, jobs: dict[str, int]) -> Iterator[str]:
    """A real Prometheus on 127.0.0.1 scraping `jobs` (name -> port) every second; yields
    its base URL."""
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.fail("prometheus is not installed (make system installs it)")
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [
            {"job_name": job, "static_configs": [{"targets": [f"127.0.0.1:{port}"]}]}
            for job, port in jobs.items()
        ],
    }
    (tmp_path / "prometheus.yml").write_text(json.dumps(config))  # JSON is YAML
    address = f"127.0.0.1:{free_port()}"
    log = (tmp_path / "prometheus.log").open("w")
    server = subprocess.Popen(
        [binary, f"--config.file={tmp_path / 'prometheus.yml'}", f"--web.listen-address={address}",
         f"--storage.tsdb.path={tmp_path / 'tsdb'}"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not _ready(f"http://{address}/-/ready"):
            assert server.poll() is None and time.monotonic() < deadline, "prometheus down"
            time.sleep(0.2)
        yield f"http://{address}"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as page:
            return bool(page.status == 200)
    except OSError:
        return False


def query(base: str, expr: str) -> list[dict[str, Any]]:
    url = f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as page:
        answer = json.loads(page.read())
    assert answer["status"] == "success", (expr, answer)
    result: list[dict[str, Any]] = answer["data"]["result"]
    return result


def test_every_endpoint_exports_every_metric_and_each_moves_during_a_run(tmp_path: Path) -> None:
    """Also, a real Prometheus scrapes the run: every dashboard panel on these endpoints gets
    data, and no alert expression is true in a healthy run."""
    (tmp_path / "scrape.toml").write_text(CONFIG)
    tournament_port, deck_port = free_port(), free_port()
    expected = {
        tournament_port: exported(_tournament_registry()),
        deck_port: exported(DeckServiceMetrics.create().registry),
        # the front door: test_the_front_doors_endpoint_..., below (it needs bots playing)
    }
    jobs = {"tournament": tournament_port, "deck-service": deck_port}
    command = [sys.executable, "-m", "orchestrator.cli.main", "run", str(tmp_path / "scrape.toml")]
    command += ["--seed", "4", "--out", str(tmp_path / "out"), "--metrics-port"]
    command += [str(tournament_port), "--deck-metrics-port", str(deck_port)]
    command += ["--metrics-linger", "10"]  # Prometheus is queried while the run lingers
    scrapes: dict[int, list[dict[str, float]]] = {port: [] for port in expected}
    panels, alerts = _queries_on(set(jobs))
    answers: dict[str, list[dict[str, Any]]] = {}
    with prometheus(tmp_path, jobs) as base, (tmp_path / "run.log").open("w+") as log:
        run = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 240
            while run.poll() is None and time.monotonic() < deadline:
                for port, seen in scrapes.items():
                    if (levels := scrape(port)) is not None:
                        seen.append(levels)
                finished = scrapes[tournament_port][-1:]
                if not answers and finished and finished[0]["mtt_tournament_finished"] == 1:
                    time.sleep(3)  # Prometheus scrapes the final values
                    answers = {expr: query(base, expr) for expr in panels + alerts}
                time.sleep(0.2)
            run.wait(timeout=30)
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
        log.seek(0)
        output = log.read()
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
    assert answers, "the run ended before Prometheus was queried"
    empty = [expr for expr in panels if not answers[expr]]
    assert not empty, f"panels without data: {empty}"
    firing = {expr: answers[expr] for expr in alerts if answers[expr]}
    assert not firing, f"alert expressions true in a healthy run: {firing}"


# Wall time per report on a 2-core machine shared by the whole run: over 2 ms at p99 here
# (docs/BENCHMARKS.md "report_p99_ms"), so its expression may well be true in this test.
TIMING_ALERTS = {"MttReportHandlingSlow"}


def _queries_on(jobs: set[str]) -> tuple[list[str], list[str]]:
    """The dashboard's queries and the alerts' expressions that read only what these jobs
    export (the front door's and Ray's wait for their own endpoints)."""
    registries = [_tournament_registry(), DeckServiceMetrics.create().registry]
    names = {"up"} | set().union(*(sample_names(r) for r in registries))

    def served(expr: str) -> bool:
        wanted_jobs = set(re.findall(r'job="([^"]+)"', expr))
        return metric_names(expr) <= names and wanted_jobs <= jobs

    panels = [
        target["expr"].replace("$tournament", ".*")
        for panel in json.loads(DASHBOARD.read_text())["panels"]
        for target in panel.get("targets", ())
        if served(target["expr"])
    ]
    (rule,) = yaml.safe_load_all(RULES.read_text())
    alerts = [
        r["expr"]
        for group in rule["spec"]["groups"]
        for r in group["rules"]
        if served(r["expr"]) and r["alert"] not in TIMING_ALERTS
    ]
    return panels, alerts


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


def test_the_front_doors_endpoint_exports_every_metric_and_each_moves_while_bots_play(
    tmp_path: Path,
) -> None:
    """`mtt serve --metrics-port` while `mtt loadtest` plays a fleet of bots over the network:
    the front door's own metrics (connected players, action round trips, gRPC requests) and
    the tournament metrics of the tournament it runs are all there, and each one moves."""
    import os

    from orchestrator.frontdoor.server import FrontDoorMetrics

    expected = exported(FrontDoorMetrics.create().registry) | exported(_tournament_registry())
    quiet = QUIET | {"mtt_action_timeouts", "mtt_tournament_finished"}  # bots answer in time
    env = os.environ | {"MTT_OPERATOR_TOKEN": "metrics-test-operator-0123456789"}
    port = free_port()
    serve = [
        sys.executable,
        "-m",
        "orchestrator.cli.main",
        "serve",
        "--port",
        "0",
        "--metrics-port",
    ]
    serve += [str(port), "--store", f"sqlite:///{tmp_path / 'store.db'}"]
    serve += ["--data-dir", str(tmp_path / "data")]
    seen: list[dict[str, float]] = []
    (tmp_path / "short.toml").write_text(SHORT)  # short stacks at small tables: busts and moves
    with (
        (tmp_path / "serve.log").open("w") as log,
        subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=log, text=True, env=env) as door,
    ):
        try:
            assert door.stdout is not None
            line = door.stdout.readline()
            assert line.startswith("front door on "), (tmp_path / "serve.log").read_text()[-3000:]
            fleet = [sys.executable, "-m", "orchestrator.cli.main", "loadtest", "--target"]
            fleet += [line.split()[3], "--bots", "12", "--duration", "20"]
            fleet += ["--config", str(tmp_path / "short.toml")]
            bots = subprocess.Popen(fleet, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, env=env)  # fmt: skip
            deadline = time.monotonic() + 240
            while bots.poll() is None and time.monotonic() < deadline:
                if (levels := scrape(port)) is not None:
                    seen.append(levels)
                time.sleep(0.3)
            output = bots.communicate(timeout=60)[0]
            if (levels := scrape(port)) is not None:
                seen.append(levels)
        finally:
            door.terminate()
            door.wait(timeout=60)
    assert bots.returncode == 0, output
    assert len(seen) >= 2, f"the front door was scraped {len(seen)} times"
    missing = expected - seen[-1].keys()
    assert not missing, f"not exported by the front door: {sorted(missing)}"
    still = {n for n in expected - quiet if len({levels.get(n, 0.0) for levels in seen}) == 1}
    assert not still, f"did not move while the bots played: {sorted(still)}"
