"""`mtt loadtest` against a real `mtt serve` (Ray, the deck service, SQLite): two generator
processes, 30 bots registering in a storm and connecting along a short ramp, thinking before
they answer (with a TB-1 time-bank tail), one OUT-3 reconnect storm; no errors, and a merged
report whose counts add up, with its HTML page."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

# Short limits so the think times' bank tail (TB-1) runs into the bank within the run.
CONFIG = """
[tournament]
name = "sunday"
max_per_table = 10
starting_stack = 1000000
action_seconds = 2
time_bank_seconds = 4
time_bank_refill = 1
time_bank_every = 1

[levels]
unit = "hands"
length = 1000000
blinds = [[50, 100, 0]]
"""
PROFILE = """
[think]
sigma = 0.5
bank_share = 0.05
[think.median]
fold = 0.05
check = 0.05
call = 0.1
bet = 0.15
raise = 0.15
[ramp]
seconds = 3
[registration]
mode = "storm"
storm_seconds = 1.0
"""


def test_two_generators_play_30_bots_through_a_reconnect_storm_and_their_report_adds_up(
    tmp_path: Path,
) -> None:
    env = os.environ | {"MTT_OPERATOR_TOKEN": "sunday-test-operator-0123456789"}
    (tmp_path / "config.toml").write_text(CONFIG)
    (tmp_path / "profile.toml").write_text(PROFILE)
    serve = [sys.executable, "-m", "orchestrator.cli.main", "serve", "--port", "0"]
    serve += ["--store", f"sqlite:///{tmp_path / 'store.db'}", "--data-dir", str(tmp_path / "d")]
    with (
        (tmp_path / "serve.log").open("w") as log,
        subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=log, text=True, env=env) as door,
    ):
        try:
            assert door.stdout is not None
            line = door.stdout.readline()
            assert line.startswith("front door on "), (tmp_path / "serve.log").read_text()[-3000:]
            fleet = [sys.executable, "-m", "orchestrator.cli.main", "loadtest"]
            fleet += ["--target", line.split()[3], "--bots", "30", "--duration", "12"]
            fleet += ["--processes", "2", "--config", str(tmp_path / "config.toml")]
            fleet += ["--profile", str(tmp_path / "profile.toml"), "--reconnect-storm", "4:0.2"]
            fleet += ["--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")]
            bots = subprocess.run(fleet, capture_output=True, text=True, env=env, timeout=600)
        finally:
            door.terminate()
            door.wait(timeout=60)
    assert bots.returncode == 0, bots.stdout + bots.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["errors"] == 0 and report["problems"] == {}, report["problems"]
    assert report["timeouts"] == 0  # the bank tail answers inside the bank (TB-1)
    assert report["registered"] == report["welcomed"] == report["bots"] == 30
    # OUT-3: the storm dropped 20% of the streams at once; each came back with its token and
    # got its Resume.
    assert report["storm_drops"] == 6
    assert report["reconnects"] == report["resumes"] == 6
    # The generators' shares and counts add up to the merged report's.
    generators = report["generators"]
    assert [g["bots"] for g in generators] == [15, 15]
    assert all(g["registered"] == g["welcomed"] == 15 for g in generators)
    assert report["actions"] > 0
    assert report["actions"] == sum(g["actions"] for g in generators)
    assert report["actions"] == report["histogram"]["count"]
    assert report["actions"] == sum(report["actions_per_second"])
    assert report["actions"] == sum(report["histogram"]["counts"].values())
    assert len(report["actions_per_second"]) == 12
    assert report["p50_ms"] <= report["p95_ms"] <= report["p99_ms"] <= report["max_ms"]
    assert report["hands"] > 0
    # The HTML page stands alone: its two plots are embedded PNGs, nothing is fetched.
    page = (tmp_path / "r.html").read_text()
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 2
    assert all(base64.b64decode(image).startswith(b"\x89PNG") for image in images)
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert f"{report['p99_ms']}" in page
