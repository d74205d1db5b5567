"""Starting a Ray of our own (`shell.driver._start_ray`): its GCS or raylet missing their
start-up deadline on a loaded machine is retried once, what it started killed first; anything
else passes."""

from __future__ import annotations

import pytest

from orchestrator.shell.driver import RAY_START_ATTEMPTS, _start_ray


class Starts:
    def __init__(self, *failures: Exception) -> None:
        self.failures = list(failures)
        self.tries = 0

    def start(self) -> str:
        self.tries += 1
        if self.failures:
            raise self.failures.pop(0)
        return "started"


def test_a_start_that_timed_out_is_torn_down_and_tried_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    starts = Starts(Exception("The current node timed out during startup. This could happen"))
    assert _start_ray(starts.start) == "started"
    assert starts.tries == 2
    said = capsys.readouterr().out.strip().splitlines()
    assert said == [
        "local Ray did not start in time (The current node timed out during startup. This "
        "could happen); starting it again"
    ]


def test_a_start_that_keeps_timing_out_fails_and_other_errors_are_not_retried() -> None:
    again = [RuntimeError("Timed out waiting for file /tmp/ray/gcs_server_port")]
    starts = Starts(*again * RAY_START_ATTEMPTS)
    with pytest.raises(RuntimeError, match="gcs_server_port"):
        _start_ray(starts.start)
    assert starts.tries == RAY_START_ATTEMPTS
    other = Starts(ValueError("bad address"))
    with pytest.raises(ValueError, match="bad address"):
        _start_ray(other.start)
    assert other.tries == 1


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_a_ray_that_never_starts_in_time_leaves_no_process_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The real thing: a GCS given no time to publish its port fails every start; each
    attempt's GCS is killed and waited for (before, the first attempt's stayed up, and its
    process object warned when collected)."""
    import psutil

    from orchestrator.shell.driver import local_ray

    monkeypatch.setenv("RAY_gcs_server_port_wait_time_s", "0")
    with pytest.raises(Exception, match="Timed out waiting for file"), local_ray(None):
        pass
    left = [
        p.cmdline()
        for p in psutil.Process().children(recursive=True)
        if any("gcs_server" in part or "raylet" in part for part in p.cmdline())
    ]
    assert not left


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_a_local_cluster_runs_its_workers_after_the_driver_s_own_processes() -> None:
    """The workers of a cluster this driver starts (tables, the orchestrator) run at nice 19,
    not Ray's 15, so the front door beside them is served first (`WORKER_NICENESS`)."""
    import os

    import ray

    from orchestrator.shell.driver import WORKER_NICENESS, local_ray

    def niceness() -> int:
        return os.nice(0)

    with local_ray(None, logs=False):
        worker = ray.get(ray.remote(niceness).remote())
    assert worker == WORKER_NICENESS == 19
    assert os.nice(0) < worker  # the driver's own priority is untouched
