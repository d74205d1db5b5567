"""The front door's gRPC server (grpc.aio): operators, players, and the tables' gateway.

The public port serves OperatorService and PlayerService (TLS when given a certificate and
key), health checking (`grpc.health.v1`) and reflection; the gateway port (127.0.0.1, plain,
the tables' secret required) serves TableGateway to the table actors. `/metrics` on its own
port. A refusal is a status with a message (DESIGN: nothing changed, the server serves on)
and an UNAUTHENTICATED / PERMISSION_DENIED is logged with the caller's address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.frontdoor.auth import bearer, same_secret
from orchestrator.frontdoor.desk import Desk, Entry
from orchestrator.frontdoor.errors import FrontDoorError, PermissionDenied, Unauthenticated
from orchestrator.frontdoor.hub import Connection, PlayerHub
from orchestrator.frontdoor.schedule import Scheduler
from rng_service.grpc_metrics import GrpcRequestMetrics
from rng_service.serving import MetricsEndpoint
from table_worker._proto import gateway_pb2 as gw
from table_worker._proto import gateway_pb2_grpc as gw_grpc

__all__ = ["MAX_MESSAGE_BYTES", "FrontDoorMetrics", "FrontDoorServer", "TlsFiles"]

log = logging.getLogger(__name__)

SERVICES = tuple(
    pb.DESCRIPTOR.services_by_name[name].full_name for name in ("OperatorService", "PlayerService")
)
GATEWAY_SERVICE = gw.DESCRIPTOR.services_by_name["TableGateway"].full_name
# The largest message a client may send: a config text of 64 KiB and change. Bigger ones are
# refused by grpc itself (RESOURCE_EXHAUSTED) before they reach us.
MAX_MESSAGE_BYTES = 80 * 1024
# What a player asks of the orchestrator over his stream, decided by the desk, not the hub.
DESK_REQUESTS = ("rebuy", "deal_answer", "reenter")
ACTION_OBJECTIVE_SECONDS = 0.05  # the 50 ms action round-trip objective (a histogram bucket)


@dataclass
class FrontDoorMetrics:
    """The names agreed with observability (metrics-names.md), on the server's own registry."""

    registry: CollectorRegistry
    players_connected: Gauge
    action_timeouts: Counter
    action_roundtrip: Histogram
    requests: GrpcRequestMetrics  # mtt_grpc_requests_total, mtt_grpc_request_seconds (unary)

    @classmethod
    def create(cls) -> FrontDoorMetrics:
        reg = CollectorRegistry()
        return cls(
            registry=reg,
            players_connected=Gauge(
                "mtt_players_connected", "Players with an open Play stream", registry=reg
            ),
            action_timeouts=Counter(
                "mtt_action_timeouts_total",
                "Action requests a player let run past the time limit (OUT-1)",
                registry=reg,
            ),
            action_roundtrip=Histogram(
                "mtt_action_roundtrip_seconds",
                "From an action request sent to a player to their valid action received",
                buckets=(0.005, 0.01, 0.025, ACTION_OBJECTIVE_SECONDS, 0.1, 0.25, 0.5, 1, 5, 30),
                registry=reg,
            ),
            requests=GrpcRequestMetrics(reg),
        )


Context = grpc.aio.ServicerContext[Any, Any]


async def _refuse(context: Context, exc: FrontDoorError) -> None:
    if isinstance(exc, Unauthenticated | PermissionDenied):
        log.warning("refused %s from %s: %s", exc.code.name, context.peer(), exc)
    await context.abort(exc.code, str(exc))


class _Auth:
    """Who is calling: the operator, a player (by token), or a table (by the tables' secret)."""

    def __init__(self, desk: Desk, operator: str, tables: str) -> None:
        self._desk = desk
        self._operator = operator
        self._tables = tables

    def _secret(self, context: Context) -> str:
        return bearer(context.invocation_metadata())

    def operator(self, context: Context) -> None:
        secret = self._secret(context)
        if same_secret(secret, self._operator):
            return
        if self._desk.player_of(secret) is not None or same_secret(secret, self._tables):
            raise PermissionDenied("operators only: this credential cannot do that")
        raise Unauthenticated("unknown credential")

    def player(self, context: Context) -> tuple[str, str]:
        secret = self._secret(context)
        who = self._desk.player_of(secret)
        if who is not None:
            return who
        if same_secret(secret, self._operator) or same_secret(secret, self._tables):
            raise PermissionDenied("players only: use a player token from Register")
        raise Unauthenticated("unknown player token (unregistered, or never issued)")

    def table(self, context: Context) -> None:
        if not same_secret(self._secret(context), self._tables):
            raise PermissionDenied("the table gateway serves the tournament's tables only")


def _info(desk: Desk, hub: PlayerHub, entry: Entry) -> pb.TournamentInfo:
    return pb.TournamentInfo(
        tournament_id=entry.tournament_id,
        name=entry.config.name,
        state=entry.state,
        players=desk.players(entry),
        connected=hub.connected(entry.tournament_id),
        action_seconds=entry.config.action_seconds,
        # REG-1 before the start; after it the log's, late entries and GTD-1's overlay included
        prize_pool=entry.model.prize_pool if entry.model.entries else entry.registration.prize_pool,
        structure=entry.config.structure,
        deal=entry.deal.message() if entry.deal is not None else None,
        registration_open=desk.registration_open(entry),
        bounty=entry.config.bounty,
        bounty_kind=entry.config.knockout.kind if entry.config.knockout else "",
        guarantee=entry.config.guarantee,
    )


class OperatorServicer(pb_grpc.OperatorServiceServicer):
    def __init__(self, desk: Desk, hub: PlayerHub, auth: _Auth) -> None:
        self._desk = desk
        self._hub = hub
        self._auth = auth

    async def _run(self, context: Context, action: Callable[[], Awaitable[Entry]]) -> Any:
        try:
            self._auth.operator(context)
            return _info(self._desk, self._hub, await action())
        except FrontDoorError as exc:
            await _refuse(context, exc)

    @staticmethod
    async def _now(entry: Entry) -> Entry:
        return entry

    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Context
    ) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context,
            lambda: self._now(self._desk.create(request.config_toml, request.tournament_id)),
        )

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: Context
    ) -> pb.ListTournamentsResponse:
        try:
            self._auth.operator(context)
        except FrontDoorError as exc:
            await _refuse(context, exc)
        return pb.ListTournamentsResponse(
            tournaments=[_info(self._desk, self._hub, e) for e in self._desk.all()]
        )

    async def GetTournament(self, request: pb.TournamentRef, context: Context) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context, lambda: self._now(self._desk.get(request.tournament_id))
        )

    async def OpenRegistration(
        self, request: pb.TournamentRef, context: Context
    ) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context, lambda: self._now(self._desk.open_registration(request.tournament_id))
        )

    async def RegisterPlayer(self, request: pb.PlayerRef, context: Context) -> pb.Registration:
        try:
            self._auth.operator(context)
            token = await self._desk.enter(
                request.tournament_id, request.player, ticket=request.ticket
            )
        except FrontDoorError as exc:
            await _refuse(context, exc)
        return pb.Registration(
            tournament_id=request.tournament_id, player=request.player, token=token
        )

    async def UnregisterPlayer(self, request: pb.PlayerRef, context: Context) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context,
            lambda: self._now(self._desk.unregister(request.tournament_id, request.player)),
        )

    async def StartTournament(
        self, request: pb.TournamentRef, context: Context
    ) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context, lambda: self._desk.start(request.tournament_id)
        )

    async def PauseTournament(
        self, request: pb.TournamentRef, context: Context
    ) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context, lambda: self._desk.pause(request.tournament_id)
        )

    async def ResumeTournament(
        self, request: pb.TournamentRef, context: Context
    ) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context, lambda: self._desk.resume(request.tournament_id)
        )

    async def CancelTournament(
        self, request: pb.CancelRequest, context: Context
    ) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context, lambda: self._desk.cancel(request.tournament_id, request.reason)
        )

    async def WatchEvents(
        self, request: pb.WatchRequest, context: Context
    ) -> AsyncIterator[pb.EventRecord]:
        try:
            self._auth.operator(context)
            self._desk.get(request.tournament_id)  # NOT_FOUND now: the generator starts later
            records = self._desk.watch(request.tournament_id, request.after_seq)
        except FrontDoorError as exc:
            await _refuse(context, exc)
        async for record in records:
            yield pb.EventRecord(
                seq=record["seq"], type=record["type"], json=json.dumps(record, sort_keys=True)
            )

    async def GetStandings(self, request: pb.TournamentRef, context: Context) -> pb.Standings:
        try:
            self._auth.operator(context)
            entry, rows = await self._desk.standings(request.tournament_id)
        except FrontDoorError as exc:
            await _refuse(context, exc)
        return pb.Standings(
            tournament_id=entry.tournament_id,
            state=entry.state,
            players_left=sum(1 for r in rows if r["place"] == 0),
            hands=entry.model.hands,
            standings=[pb.Standing(**row) for row in rows],
        )

    async def ListPlayers(self, request: pb.TournamentRef, context: Context) -> pb.PlayerList:
        try:
            self._auth.operator(context)
            entry, rows = await self._desk.standings(request.tournament_id)
        except FrontDoorError as exc:
            await _refuse(context, exc)
        players = []
        for row in sorted(rows, key=lambda r: r["player"]):
            presence = self._hub.presence(entry.tournament_id, row["player"])
            player = row["player"]
            players.append(
                pb.PlayerStatus(
                    connected=presence.connected,
                    out=presence.out or "",
                    table=presence.table,
                    time_bank_seconds=presence.time_bank_seconds,
                    bounty=entry.model.bounty_on.get(player, 0),  # KO-1, KO-2
                    bounties_won=entry.model.bounties_won.get(player, 0),  # KO-3
                    rebuys=entry.rebuys.get(player, 0),  # RB-3
                    entries=entry.entries.get(player, 0),
                    **row,
                )
            )
        return pb.PlayerList(tournament_id=entry.tournament_id, state=entry.state, players=players)

    async def CreateAccount(
        self, request: pb.CreateAccountRequest, context: Context
    ) -> pb.AccountInfo:
        try:
            self._auth.operator(context)
            credential = self._desk.create_account(request.account, request.balance)
        except FrontDoorError as exc:
            await _refuse(context, exc)
        return pb.AccountInfo(
            account=request.account, balance=request.balance, credential=credential
        )

    async def GetAccount(self, request: pb.AccountRef, context: Context) -> pb.AccountInfo:
        try:
            self._auth.operator(context)
            balance = self._desk.balance(request.account)
            tickets = [  # SAT-3
                pb.Ticket(target=target, value=value)
                for target, value in self._desk.tickets(request.account).items()
            ]
        except FrontDoorError as exc:
            await _refuse(context, exc)
        return pb.AccountInfo(account=request.account, balance=balance, tickets=tickets)

    async def ProposeDeal(self, request: pb.DealRequest, context: Context) -> pb.TournamentInfo:
        return await self._run(  # type: ignore[no-any-return]
            context,
            lambda: self._desk.propose_deal(request.tournament_id, request.kind, request.leave),
        )


class PlayerServicer(pb_grpc.PlayerServiceServicer):
    def __init__(self, desk: Desk, hub: PlayerHub, auth: _Auth) -> None:
        self._desk = desk
        self._hub = hub
        self._auth = auth

    async def Register(self, request: pb.RegisterRequest, context: Context) -> pb.Registration:
        try:
            credential = bearer(context.invocation_metadata())  # the account's
            token = await self._desk.enter(
                request.tournament_id, request.player, credential=credential, ticket=request.ticket
            )
        except FrontDoorError as exc:
            await _refuse(context, exc)
        log.info("%s registered %s from %s", request.tournament_id, request.player, context.peer())
        return pb.Registration(
            tournament_id=request.tournament_id, player=request.player, token=token
        )

    async def Unregister(
        self, request: pb.UnregisterRequest, context: Context
    ) -> pb.TournamentInfo:
        try:
            tournament, player = self._auth.player(context)
            entry = self._desk.unregister(tournament, player)
        except FrontDoorError as exc:
            await _refuse(context, exc)
        return _info(self._desk, self._hub, entry)

    async def Play(
        self, requests: AsyncIterator[pb.PlayerMessage], context: Context
    ) -> AsyncIterator[pb.ServerMessage]:
        try:
            tournament, player = self._auth.player(context)
            entry = self._desk.get(tournament)
        except FrontDoorError as exc:
            await _refuse(context, exc)
        connection = self._hub.connect(tournament, player)
        connection.send(
            pb.ServerMessage(
                welcome=pb.Welcome(tournament_id=tournament, player=player, state=entry.state)
            )
        )
        offer = self._desk.reentry_offer(tournament, player)  # LATE: it stands till answered
        if offer is not None:
            connection.send(offer)
        reader = asyncio.get_running_loop().create_task(self._read(requests, connection))
        try:
            while (message := await connection.outbox.get()) is not None:
                yield message
        finally:
            reader.cancel()
            self._hub.disconnect(connection)

    async def _read(self, requests: AsyncIterator[pb.PlayerMessage], connection: Any) -> None:
        try:
            async for message in requests:
                if message.WhichOneof("kind") in DESK_REQUESTS:
                    await self._ask_desk(connection, message)
                else:
                    self._hub.receive(connection, message)
        except (grpc.aio.AioRpcError, asyncio.CancelledError):
            pass
        finally:
            self._hub.disconnect(connection)  # the player closed their side: OUT-3

    async def _ask_desk(self, connection: Connection, message: pb.PlayerMessage) -> None:
        """A request the orchestrator decides, for the stream's own player (his token's: a
        player never asks for another): RB-3's rebuy, DEAL-1's answer, a re-entry (LATE,
        accepted with its `chips_added`). A refusal is sent back
        on the stream; nothing changed."""
        tournament, player = connection.tournament, connection.player
        try:
            self._hub.admit(connection)
            if message.WhichOneof("kind") == "rebuy":
                await self._desk.request_rebuy(tournament, player)
                connection.send(pb.ServerMessage(rebuy_accepted=pb.RebuyAccepted()))
            elif message.WhichOneof("kind") == "reenter":
                await self._desk.reenter(tournament, player)
            else:
                await self._desk.answer_deal(tournament, player, message.deal_answer.accept)
        except FrontDoorError as exc:
            self._hub.refuse(connection, exc)


class GatewayServicer(gw_grpc.TableGatewayServicer):
    def __init__(self, desk: Desk, hub: PlayerHub, auth: _Auth) -> None:
        self._desk = desk
        self._hub = hub
        self._auth = auth

    async def _table(self, context: Context, tournament: str) -> Entry:
        try:
            self._auth.table(context)
            return self._desk.get(tournament)
        except FrontDoorError as exc:
            await _refuse(context, exc)
            raise  # unreachable: abort raises

    async def HandStarted(self, request: gw.HandStart, context: Context) -> gw.GatewayAck:
        await self._table(context, request.tournament_id)
        self._hub.hand_started(request)
        return gw.GatewayAck()

    async def RequestAction(
        self, request: gw.SeatActionRequest, context: Context
    ) -> gw.SeatActionReply:
        entry = await self._table(context, request.tournament_id)
        return await self._hub.request_action(request, entry.config.action_seconds)

    async def HandEnded(self, request: gw.HandEnd, context: Context) -> gw.GatewayAck:
        await self._table(context, request.tournament_id)
        self._hub.hand_ended(request)
        return gw.GatewayAck()


@dataclass(frozen=True, slots=True)
class TlsFiles:
    certificate: bytes  # PEM chain
    key: bytes  # PEM private key


class FrontDoorServer:
    """The public server (`host:port`), the tables' gateway (`gateway_host:gateway_port`,
    dialled by the tables at `gateway_advertise` when given) and `/metrics` (`metrics_port`,
    None = none; the front door's own metrics and the tournament metrics); 0 = any free port.
    `desk_factory(hub, gateway_target, table_secret, registry)` builds the desk."""

    def __init__(
        self,
        desk_factory: Callable[[PlayerHub, str, str, CollectorRegistry], Desk],
        *,
        operator_credential: str,
        host: str = "127.0.0.1",
        port: int = 0,
        gateway_host: str = "127.0.0.1",
        gateway_port: int = 0,
        gateway_advertise: str | None = None,
        metrics_port: int | None = None,
        tls: TlsFiles | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock` times the players' answers (OUT-1, TB-1); tests pass their own."""
        from orchestrator.frontdoor.auth import new_secret

        self.metrics = FrontDoorMetrics.create()
        m = self.metrics
        self.hub = PlayerHub(
            on_connected=m.players_connected.set,
            on_timeout=m.action_timeouts.inc,
            on_roundtrip=m.action_roundtrip.observe,
            clock=clock,
        )
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_concurrent_streams", 2000),
        ]
        self._server = grpc.aio.server(interceptors=[m.requests.interceptor()], options=options)
        self._gateway = grpc.aio.server(options=options)
        if tls is None:
            self.port = self._server.add_insecure_port(f"{host}:{port}")
        else:
            credentials = grpc.ssl_server_credentials([(tls.key, tls.certificate)])
            self.port = self._server.add_secure_port(f"{host}:{port}", credentials)
        self.gateway_port = self._gateway.add_insecure_port(f"{gateway_host}:{gateway_port}")
        self._host = host
        table_secret = new_secret()
        # Where the table actors dial: the bind address, unless it is a wildcard on a cluster.
        self.gateway_target = f"{gateway_advertise or gateway_host}:{self.gateway_port}"
        self.desk = desk_factory(self.hub, self.gateway_target, table_secret, m.registry)
        auth = _Auth(self.desk, operator_credential, table_secret)
        pb_grpc.add_OperatorServiceServicer_to_server(
            OperatorServicer(self.desk, self.hub, auth), self._server
        )
        pb_grpc.add_PlayerServiceServicer_to_server(
            PlayerServicer(self.desk, self.hub, auth), self._server
        )
        gw_grpc.add_TableGatewayServicer_to_server(
            GatewayServicer(self.desk, self.hub, auth), self._gateway
        )
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self._server)
        reflection.enable_server_reflection(
            (*SERVICES, health.SERVICE_NAME, reflection.SERVICE_NAME), self._server
        )
        self._http = MetricsEndpoint(m.registry, host, metrics_port)
        self._scheduler: asyncio.Task[None] | None = None  # registration_opens_at, starts_at

    @property
    def target(self) -> str:
        return f"{self._host}:{self.port}"

    @property
    def metrics_bound(self) -> int | None:
        return self._http.bound

    async def start(self) -> None:
        await self.desk.restore()
        await self._gateway.start()
        await self._server.start()
        self._http.start()
        self._scheduler = asyncio.get_running_loop().create_task(Scheduler(self.desk).run())
        for name in ("", *SERVICES):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful: NOT_SERVING, refuse new calls, let in-flight ones finish. Running
        tournaments go on in Ray (their orchestrators are detached actors); their remote
        players are Out until a front door serves them again (OUT-3)."""
        await self._health.enter_graceful_shutdown()
        if self._scheduler is not None:
            self._scheduler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._scheduler
        await self._server.stop(grace)
        await self._gateway.stop(grace)
        await self.desk.close()
        self._http.stop()
