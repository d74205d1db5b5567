"""Every Ray call on a tournament's orchestrator actor, as `tables.py` is for table actors.

The driver of `mtt run`, the front door's desk, the live view's run control and an
orchestrator starting its side events hold an `OrchestratorHandle`, never Ray's own handle: it
creates the actor (named, detached, restarted by Ray when it dies, every call retried against
the new one), finds it again by name, asks it, and lets it go. Every answer comes back through
the one error map (`shell.errors`): the core's refusal as itself, an actor gone as
`RemoteUnavailable`.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import ray

from orchestrator.shell.errors import foreign_errors

if TYPE_CHECKING:
    from orchestrator.core.config import TournamentConfig
    from orchestrator.core.sanctions import SanctionKind
    from orchestrator.shell.actor import StoreSettings
    from orchestrator.shell.tables import TableSettings
    from orchestrator.views.metrics import OrchestratorTimings

__all__ = ["Answer", "OrchestratorHandle", "orchestrator_name"]

_T = TypeVar("_T")

# How an orchestrator is created: named by its tournament, detached (it outlives whoever
# created it), restarted by Ray whenever it dies (no budget: a run outlives any number of
# kills, and everything it decided is in the store), and every call to it retried against the
# new one. A death a restart cannot cure ends there: an error in its constructor (a store that
# lost its data, a log that does not replay) is not restarted by Ray, and the run stops.
RESTARTABLE: dict[str, Any] = {"lifetime": "detached", "max_restarts": -1, "max_task_retries": -1}
# Every table may hold a poll (`shell.long_poll`) and the reports must still get in: far more
# concurrent calls than Ray's default of 1,000 for an async actor.
CONCURRENT_CALLS = 100_000


def orchestrator_name(tournament_id: str) -> str:
    """The actor's name: a restarted driver, front door or orchestrator finds it by it."""
    return f"{tournament_id}-orchestrator"


class Answer(Generic[_T]):
    """One call's answer, to await (`await answer`) or to wait for (`answer.get()`); either
    way its errors come back through the error map."""

    def __init__(self, ref: Any, what: str) -> None:
        self._ref = ref
        self._what = what

    def __await__(self) -> Generator[Any, None, _T]:
        with foreign_errors(self._what):
            answer: _T = yield from self._ref.__await__()
        return answer

    def get(self, timeout: float | None = None) -> _T:
        with foreign_errors(self._what):
            answer: _T = ray.get(self._ref, timeout=timeout)
        return answer

    def ready(self, timeout: float) -> bool:
        """Whether the answer is in, waiting at most `timeout` seconds."""
        return bool(ray.wait([self._ref], timeout=timeout)[0])


class OrchestratorHandle:
    """One tournament's orchestrator actor."""

    def __init__(self, actor: Any, tournament_id: str) -> None:
        self._actor = actor
        self.tournament_id = tournament_id

    @classmethod
    def launch(
        cls,
        config: TournamentConfig,
        players: list[str],
        *,
        deposits: dict[str, int],
        tournament_id: str,
        seed: int,
        out_dir: str,
        tables: TableSettings,
        store: StoreSettings,
        resources: dict[str, float] | None = None,
        tickets: dict[str, int] | None = None,
    ) -> OrchestratorHandle:
        """Create the tournament's orchestrator: `deposits` the cents each player (and each
        who may register late) brings, `tickets` the satellite tickets some enter with (SAT-3),
        `resources` where it may run."""
        from orchestrator.shell.orchestrator_actor import OrchestratorActor

        placement = {"resources": resources} if resources else {}
        actor = OrchestratorActor.options(
            name=orchestrator_name(tournament_id),
            max_concurrency=CONCURRENT_CALLS,
            **RESTARTABLE,
            **placement,
        ).remote(
            config,
            players,
            deposits=deposits,
            tournament_id=tournament_id,
            seed=seed,
            out_dir=out_dir,
            tables=tables,
            store=store,
            tickets=tickets,
        )
        return cls(actor, tournament_id)

    @classmethod
    def find(cls, tournament_id: str) -> OrchestratorHandle | None:
        """The tournament's orchestrator if it is still running (a front door restarted on a
        cluster that outlived it, an orchestrator restarted while its side events play)."""
        try:
            return cls(ray.get_actor(orchestrator_name(tournament_id)), tournament_id)
        except ValueError:
            return None

    def _ask(self, method: str, *args: Any) -> Answer[Any]:
        ref = getattr(self._actor, method).remote(*args)
        return Answer(ref, f"the orchestrator of {self.tournament_id} ({method})")

    # --- the actor's calls (shell.orchestrator_actor.OrchestratorCalls) -------------------

    def start(self) -> Answer[int]:
        return self._ask("start")

    def complete(self) -> Answer[dict[str, Any]]:
        return self._ask("complete")

    def status(self) -> Answer[dict[str, Any]]:
        return self._ask("status")

    def standings(self) -> Answer[list[dict[str, Any]]]:
        return self._ask("standings")

    def events_since(self, seq: int) -> Answer[list[dict[str, Any]]]:
        return self._ask("events_since", seq)

    def table_nodes(self) -> Answer[dict[int, str]]:
        return self._ask("table_nodes")

    def timings_since_last_call(self) -> Answer[OrchestratorTimings]:
        return self._ask("timings_since_last_call")

    def report_seconds(self) -> Answer[list[tuple[float, float]]]:
        return self._ask("report_seconds")

    def pause(self) -> Answer[None]:
        return self._ask("pause")

    def resume(self) -> Answer[None]:
        return self._ask("resume")

    def cancel(self, reason: str) -> Answer[None]:
        return self._ask("cancel", reason)

    def register_late(self, player: str, deposit: int = 0, key: str = "") -> Answer[None]:
        return self._ask("register_late", player, deposit, key)

    def withdraw_funding(self, key: str) -> Answer[None]:
        return self._ask("withdraw_funding", key)

    def sanction(
        self, kind: SanctionKind, player: str, *, judge: str, reason: str, hands: int = 0
    ) -> Answer[None]:
        ref = self._actor.sanction.remote(kind, player, judge=judge, reason=reason, hands=hands)
        return Answer(ref, f"the orchestrator of {self.tournament_id} (sanction)")

    def request_rebuy(self, player: str) -> Answer[None]:
        return self._ask("request_rebuy", player)

    def propose_deal(
        self, kind: str, left: int = 0, bots: Sequence[str] | None = None
    ) -> Answer[None]:
        return self._ask("propose_deal", kind, left, bots)

    def answer_deal(self, player: str, accept: bool) -> Answer[None]:
        return self._ask("answer_deal", player, accept)

    def kill(self) -> None:
        """Let it go: detached, it would outlive the run on a shared cluster."""
        ray.kill(self._actor)
