"""The orchestrator's Ray actor class, light to import: the calls, each handed to the body.

Ray loads an actor's class in every process that receives a handle to it (to read its
methods' metadata), and every table actor holds the orchestrator's handle to report its
hands. Were the class the body itself (`shell.actor.Orchestrator`), each table process would
import the whole core, the stores and the metrics with it, for nothing. So this module
imports only Ray at its top; the constructor imports the body, in the orchestrator's own
process. Each call is the body's, under the same name and signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ray

if TYPE_CHECKING:
    from orchestrator.core.config import TournamentConfig
    from orchestrator.core.sanctions import SanctionKind
    from orchestrator.shell.actor import StoreSettings
    from orchestrator.shell.tables import TableSettings
    from orchestrator.views.metrics import OrchestratorTimings
    from table_worker.protocol import HandReport, TableDirective

__all__ = ["OrchestratorActor", "OrchestratorCalls"]


class OrchestratorCalls:
    """What a tournament's orchestrator answers: its tables (`report_hand`, `poll`), the
    driver, the front door and the operators (the rest, through `OrchestratorHandle`)."""

    def __init__(
        self,
        config: TournamentConfig,
        players: list[str],
        *,
        deposits: dict[str, int],
        tournament_id: str,
        seed: int,
        out_dir: str,
        tables: TableSettings,
        store: StoreSettings,
        tickets: dict[str, int] | None = None,
    ) -> None:
        from orchestrator.shell.actor import Orchestrator

        self._body = Orchestrator(
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

    # --- the tables' calls ----------------------------------------------------------------

    async def report_hand(self, report: HandReport) -> TableDirective:
        return await self._body.report_hand(report)

    async def poll(self, table: int) -> TableDirective:
        return await self._body.poll(table)

    # --- the driver's, the front door's and the operators' --------------------------------

    async def start(self) -> int:
        return await self._body.start()

    async def table_nodes(self) -> dict[int, str]:
        return await self._body.table_nodes()

    async def hands_played(self) -> int:
        return await self._body.hands_played()

    async def complete(self) -> dict[str, Any]:
        return await self._body.complete()

    async def pause(self) -> None:
        await self._body.pause()

    async def resume(self) -> None:
        await self._body.resume()

    async def cancel(self, reason: str) -> None:
        await self._body.cancel(reason)

    async def register_late(self, player: str, deposit: int = 0, key: str = "") -> None:
        await self._body.register_late(player, deposit, key)

    async def withdraw_funding(self, key: str) -> None:
        await self._body.withdraw_funding(key)

    async def sanction(
        self, kind: SanctionKind, player: str, *, judge: str, reason: str, hands: int = 0
    ) -> None:
        await self._body.sanction(kind, player, judge=judge, reason=reason, hands=hands)

    async def request_rebuy(self, player: str) -> None:
        await self._body.request_rebuy(player)

    async def propose_deal(
        self, kind: str, left: int = 0, bots: Sequence[str] | None = None
    ) -> None:
        await self._body.propose_deal(kind, left, bots)

    async def answer_deal(self, player: str, accept: bool) -> None:
        await self._body.answer_deal(player, accept)

    async def events_since(self, seq: int) -> list[dict[str, Any]]:
        return await self._body.events_since(seq)

    async def status(self) -> dict[str, Any]:
        return await self._body.status()

    async def standings(self) -> list[dict[str, Any]]:
        return await self._body.standings()

    async def timings_since_last_call(self) -> OrchestratorTimings:
        return await self._body.timings_since_last_call()

    async def report_seconds(self) -> list[tuple[float, float]]:
        return await self._body.report_seconds()


# Typed as Any: Ray's decorator hides the class behind its own proxy type.
OrchestratorActor: Any = ray.remote(num_cpus=0)(OrchestratorCalls)
