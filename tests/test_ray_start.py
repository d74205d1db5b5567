"""Starting a Ray of our own (`shell.driver._start_ray`): its GCS or raylet missing their
start-up deadline on a loaded machine is retried once, torn down first; anything else passes."""

from __future__ import annotations

import pytest

from orchestrator.shell.driver import RAY_START_ATTEMPTS, _start_ray


class Starts:
    def __init__(self, *failures: Exception) -> None:
        self.failures = list(failures)
        self.undone = 0

    def start(self) -> str:
        if self.failures:
            raise self.failures.pop(0)
        return "started"

    def undo(self) -> None:
        self.undone += 1


def test_a_start_that_timed_out_is_torn_down_and_tried_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    starts = Starts(Exception("The current node timed out during startup. This could happen"))
    assert _start_ray(starts.start, undo=starts.undo) == "started"
    assert starts.undone == 1
    said = capsys.readouterr().out.strip().splitlines()
    assert said == [
        "local Ray did not start in time (The current node timed out during startup. This "
        "could happen); starting it again"
    ]


def test_a_start_that_keeps_timing_out_fails_and_other_errors_are_not_retried() -> None:
    again = [RuntimeError("Timed out waiting for file /tmp/ray/gcs_server_port")]
    starts = Starts(*again * RAY_START_ATTEMPTS)
    with pytest.raises(RuntimeError, match="gcs_server_port"):
        _start_ray(starts.start, undo=starts.undo)
    assert starts.undone == RAY_START_ATTEMPTS - 1
    other = Starts(ValueError("bad address"))
    with pytest.raises(ValueError, match="bad address"):
        _start_ray(other.start, undo=other.undo)
    assert other.undone == 0
