"""The front door in-process (no Ray: nothing here starts a tournament): TLS by flag, health
checking, reflection, credentials on the operators' API."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CollectorRegistry

from orchestrator._proto import frontdoor_pb2 as pb
from orchestrator._proto import frontdoor_pb2_grpc as pb_grpc
from orchestrator.frontdoor.desk import Desk, DeskSettings
from orchestrator.frontdoor.hub import PlayerHub
from orchestrator.frontdoor.server import FrontDoorServer, TlsFiles
from orchestrator.shell.store import open_store

OPERATOR = "tls-test-operator-credential"
OP = (("authorization", f"Bearer {OPERATOR}"),)


@pytest.fixture
def certificate(tmp_path: Path) -> TlsFiles:
    """A self-signed certificate for 127.0.0.1 (openssl, from the OS: Makefile `system`)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("openssl is not installed (make system installs it)")
    command = [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    command += ["-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")]
    command += ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        command,
        check=True,
        capture_output=True,
    )
    return TlsFiles((tmp_path / "cert.pem").read_bytes(), (tmp_path / "key.pem").read_bytes())


def server_on(tmp_path: Path, tls: TlsFiles | None) -> FrontDoorServer:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")

    def desk(hub: PlayerHub, gateway: str, secret: str, registry: CollectorRegistry) -> Desk:
        settings = DeskSettings(
            data_dir=tmp_path,
            deck_target="-",
            gateway_target=gateway,
            gateway_secret=secret,
            store_url="-",
        )
        return Desk(store, hub, settings)

    return FrontDoorServer(desk, operator_credential=OPERATOR, tls=tls)


def test_tls_by_flag_serves_only_tls_clients(tmp_path: Path, certificate: TlsFiles) -> None:
    async def go() -> None:
        server = server_on(tmp_path, certificate)
        await server.start()
        try:
            credentials = grpc.ssl_channel_credentials(certificate.certificate)
            async with grpc.aio.secure_channel(server.target, credentials) as channel:
                operator = pb_grpc.OperatorServiceStub(channel)
                listing = await operator.ListTournaments(pb.ListTournamentsRequest(), metadata=OP)
                assert list(listing.tournaments) == []
            async with grpc.aio.insecure_channel(server.target) as plain:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await pb_grpc.OperatorServiceStub(plain).ListTournaments(
                        pb.ListTournamentsRequest(), metadata=OP, timeout=5
                    )
                assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        finally:
            await server.stop(0)

    asyncio.run(go())


def test_health_reflection_and_a_graceful_stop(tmp_path: Path) -> None:
    async def go() -> None:
        server = server_on(tmp_path, None)
        await server.start()
        async with grpc.aio.insecure_channel(server.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for service in (
                "",
                "mtt.frontdoor.v1.OperatorService",
                "mtt.frontdoor.v1.PlayerService",
            ):
                reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
            from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            async for reply in stub.ServerReflectionInfo(iter([request])):
                names = {s.name for s in reply.list_services_response.service}
                assert "mtt.frontdoor.v1.PlayerService" in names
                assert "mtt.gateway.v1.TableGateway" not in names  # internal: not listed
            await server.stop(1)
            with pytest.raises(grpc.aio.AioRpcError):
                await health.Check(health_pb2.HealthCheckRequest(), timeout=2)

    asyncio.run(go())
