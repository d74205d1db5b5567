"""A failure inside the orchestrator actor never vanishes (issue 6): a core step that fails
other than by refusing its input, or a background task that fails, ends the actor's process
with the failure logged, so Ray restarts it and it rebuilds from the log (a task's exception
used to be dropped, "Task exception was never retrieved", and the tournament hung). Each case
runs in a process of its own, as the actor would: the crash is an exit."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_refused_report_goes_back_to_the_table_and_the_actor_lives_on() -> None:
    done = run(
        """
        from orchestrator.shell.actor import _decide
        from orchestrator.errors import ReportError
        def refuse():
            raise ReportError("table 3 hand 9 was voided when the table was lost")
        try:
            _decide(refuse)
        except ReportError:
            print("refused")
        """
    )
    assert (done.returncode, done.stdout.strip()) == (0, "refused"), done.stderr


@pytest.mark.parametrize(
    ("where", "code"),
    [
        (
            "a core step",
            """
            from orchestrator.shell.actor import _decide
            def step():
                return {}["p00017"]  # the issue's KeyError, half-way through a step
            _decide(step)
            print("went on")
            """,
        ),
        (
            "a background task",
            """
            import asyncio
            from orchestrator.shell.actor import Orchestrator
            class Shell:  # the actor's task bookkeeping alone, without Ray
                _watchers = set()
                _spawn = Orchestrator._spawn
                _task_done = Orchestrator._task_done
            async def follow():
                raise KeyError("p00017")  # as _follow -> _restart -> _directive raised
            async def main():
                Shell()._spawn(follow())
                await asyncio.sleep(1)
                print("went on")
            asyncio.run(main())
            """,
        ),
    ],
)
def test_a_failure_in_the_orchestrator_ends_its_process_logged_for_ray_to_restart(
    where: str, code: str
) -> None:
    done = run(code)
    assert done.returncode == 1, f"{where}: {done.stdout}{done.stderr}"
    assert "went on" not in done.stdout
    assert "restarting from the log" in done.stderr and "p00017" in done.stderr
