"""An operator's client of the front door (`mtt ctl`): OperatorService over one blocking gRPC
channel, the operator credential in every call's metadata, and every refusal raised as the
front door's own error (`errors.from_status`: UNAUTHENTICATED is Unauthenticated, NOT_FOUND
NotFound, FAILED_PRECONDITION WrongState, an unreachable server NotAvailable, ...), so a
caller handles one family and never sees a raw `grpc.RpcError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any, TypeVar

import grpc

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.frontdoor.errors import FrontDoorError, NotAvailable, from_status

__all__ = ["OperatorClient"]

Reply = TypeVar("Reply")


class OperatorClient:
    """The operators' API at `target` (HOST:PORT); TLS when given the server's CA (PEM).
    `timeout`: seconds a unary call waits for its answer (a start waits for Ray to start
    every table); the event stream has none."""

    def __init__(
        self,
        target: str,
        credential: str,
        *,
        timeout: float,
        tls_ca: bytes | None = None,
    ) -> None:
        self.target = target
        if tls_ca is None:
            self._channel = grpc.insecure_channel(target)
        else:
            self._channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(tls_ca))
        self._stub = pb_grpc.OperatorServiceStub(self._channel)
        self._metadata = (("authorization", f"Bearer {credential}"),)
        self._timeout = timeout

    def __enter__(self) -> OperatorClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    # --- the calls ----------------------------------------------------------------------

    def create(self, config_toml: str, tournament_id: str = "") -> pb.TournamentInfo:
        request = pb.CreateTournamentRequest(config_toml=config_toml, tournament_id=tournament_id)
        return self._call(self._stub.CreateTournament, request)

    def tournaments(self) -> list[pb.TournamentInfo]:
        reply = self._call(self._stub.ListTournaments, pb.ListTournamentsRequest())
        return list(reply.tournaments)

    def tournament(self, tournament_id: str) -> pb.TournamentInfo:
        return self._call(self._stub.GetTournament, _ref(tournament_id))

    def open_registration(self, tournament_id: str) -> pb.TournamentInfo:
        return self._call(self._stub.OpenRegistration, _ref(tournament_id))

    def register(self, tournament_id: str, player: str, *, ticket: bool = False) -> pb.Registration:
        """REG-1 on the player's behalf (SAT-3 `ticket`: paid by his ticket to this
        tournament); the reply's token is the player's to keep."""
        request = pb.PlayerRef(tournament_id=tournament_id, player=player, ticket=ticket)
        return self._call(self._stub.RegisterPlayer, request)

    def start(self, tournament_id: str) -> pb.TournamentInfo:
        return self._call(self._stub.StartTournament, _ref(tournament_id))

    def pause(self, tournament_id: str) -> pb.TournamentInfo:
        return self._call(self._stub.PauseTournament, _ref(tournament_id))

    def resume(self, tournament_id: str) -> pb.TournamentInfo:
        return self._call(self._stub.ResumeTournament, _ref(tournament_id))

    def cancel(self, tournament_id: str, reason: str) -> pb.TournamentInfo:
        """CRASH-1 in registration, CRASH-2 once running (the server decides which)."""
        request = pb.CancelRequest(tournament_id=tournament_id, reason=reason)
        return self._call(self._stub.CancelTournament, request)

    def standings(self, tournament_id: str) -> pb.Standings:
        return self._call(self._stub.GetStandings, _ref(tournament_id))

    def players(self, tournament_id: str) -> pb.PlayerList:
        return self._call(self._stub.ListPlayers, _ref(tournament_id))

    def create_account(self, account: str, balance: int) -> pb.AccountInfo:
        """A player's wallet with `balance` cents; the reply's credential is the player's."""
        request = pb.CreateAccountRequest(account=account, balance=balance)
        return self._call(self._stub.CreateAccount, request)

    def account(self, account: str) -> pb.AccountInfo:
        return self._call(self._stub.GetAccount, pb.AccountRef(account=account))

    def propose_deal(self, tournament_id: str, kind: str, leave: int = 0) -> pb.TournamentInfo:
        """DEAL-1 at the final table: every player still in is asked; `leave` cents stay in
        play with the title (DEAL-2)."""
        request = pb.DealRequest(tournament_id=tournament_id, kind=kind, leave=leave)
        return self._call(self._stub.ProposeDeal, request)

    def watch(self, tournament_id: str, after_seq: int = 0) -> Iterator[pb.EventRecord]:
        """The tournament's event records after `after_seq`, live, until it ends (the server
        closes the stream). No deadline: a tournament runs for hours. Closing the iterator
        early (Ctrl-C) cancels the call."""
        request = pb.WatchRequest(tournament_id=tournament_id, after_seq=after_seq)
        call = self._stub.WatchEvents(request, metadata=self._metadata)
        try:
            yield from call
        except grpc.RpcError as exc:
            raise self._refusal(exc) from exc
        finally:
            call.cancel()

    # --- internals ----------------------------------------------------------------------

    def _call(self, method: Callable[..., Reply], request: Any) -> Reply:
        try:
            return method(request, metadata=self._metadata, timeout=self._timeout)
        except grpc.RpcError as exc:
            raise self._refusal(exc) from exc

    def _refusal(self, exc: grpc.RpcError) -> FrontDoorError:
        """The status of a failed call as the front door's error. Every failed call's
        exception is also a `grpc.Call` (grpc's own contract) with its code and details."""
        code: grpc.StatusCode = exc.code()
        details: str = exc.details() or ""
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return FrontDoorError(
                f"DEADLINE_EXCEEDED: no answer from the front door at {self.target} within "
                f"{self._timeout:g} s (what was asked may still happen)"
            )
        error = from_status(code, details)
        if isinstance(error, NotAvailable):  # unreachable, or a part behind it down: say where
            return NotAvailable(f"{error} (front door {self.target})")
        return error


def _ref(tournament_id: str) -> pb.TournamentRef:
    return pb.TournamentRef(tournament_id=tournament_id)
