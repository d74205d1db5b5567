"""`mtt serve`: parse arguments, start what the front door needs, run until SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
from contextlib import ExitStack
from pathlib import Path

__all__ = ["register"]

DEFAULT_STORE = "sqlite:///mtt-frontdoor.db"
RAY_NAMESPACE = "mtt-frontdoor"  # a restarted front door finds its orchestrators here


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser(
        "serve",
        help="the front door: operators and remote players over gRPC",
        description="Serve the operators' and players' gRPC API (proto/orchestrator/"
        "frontdoor.proto) against a Ray cluster, until SIGTERM. The operator credential comes "
        "from --operator-credential-file or $MTT_OPERATOR_TOKEN (at least 16 characters).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=50051, help="gRPC port (0 = any free port)")
    serve.add_argument(
        "--gateway-host",
        default="127.0.0.1",
        help="address the table actors' gateway listens on (127.0.0.1; on a cluster the pod's)",
    )
    serve.add_argument(
        "--gateway-port", type=int, default=0, help="the gateway's port (0 = any free port)"
    )
    serve.add_argument(
        "--gateway-advertise",
        default=None,
        help="the host the table actors dial for the gateway (default: --gateway-host)",
    )
    serve.add_argument("--metrics-port", type=int, default=None, help="Prometheus /metrics port")
    serve.add_argument(
        "--store",
        default=DEFAULT_STORE,
        help="registrations and used decks: redis://host:port/db or sqlite:///path.db "
        "(default: %(default)s)",
    )
    serve.add_argument("--ray-address", default=None, help="a Ray cluster (default: local Ray)")
    serve.add_argument(
        "--deck-target",
        default=None,
        help="HOST:PORT of a running deck service (default: start one on the same store)",
    )
    serve.add_argument(
        "--data-dir",
        type=Path,
        default=Path("out/serve"),
        help="each tournament's events.jsonl, hands/ and results.json go in DIR/<id>/",
    )
    serve.add_argument("--operator-credential-file", default=None, help="first line = credential")
    serve.add_argument("--tls-cert", default=None, help="PEM certificate chain: serve TLS")
    serve.add_argument("--tls-key", default=None, help="PEM private key (with --tls-cert)")
    serve.add_argument("--seed", type=int, default=0, help="seed of seating draws (0)")
    serve.add_argument(
        "--ui-port",
        type=int,
        default=None,
        help="serve every tournament's live clock and lobby on HTTP here (/t/<id>/)",
    )
    serve.add_argument("--ui-host", default="127.0.0.1", help="its address (127.0.0.1)")
    serve.set_defaults(handler=_serve)


GATEWAY_BOOK = "mtt-frontdoor-gateway"  # in the front door's Ray namespace


def _serve(args: argparse.Namespace) -> int:
    from prometheus_client import CollectorRegistry

    from orchestrator.frontdoor.auth import load_operator_credential
    from orchestrator.frontdoor.desk import Desk, DeskSettings
    from orchestrator.frontdoor.errors import InvalidRequest
    from orchestrator.frontdoor.hub import PlayerHub
    from orchestrator.frontdoor.server import FrontDoorServer, TlsFiles
    from orchestrator.frontdoor.views import LiveViews, view_server
    from orchestrator.shell.driver import deck_service, local_ray
    from orchestrator.shell.store import open_store
    from orchestrator.views.metrics import TournamentMetrics
    from rng_service.serving import run_until_signal

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        credential = load_operator_credential(args.operator_credential_file)
        tls = None
        if (args.tls_cert is None) != (args.tls_key is None):
            raise InvalidRequest("TLS needs both --tls-cert and --tls-key")
        if args.tls_cert is not None:
            tls = TlsFiles(Path(args.tls_cert).read_bytes(), Path(args.tls_key).read_bytes())
        store = open_store(args.store)
    except OSError as exc:  # FrontDoorError, StoreError: exit 2 (orchestrator.cli.main)
        print(f"mtt serve: {exc}", file=sys.stderr)
        return 2

    with ExitStack() as stack:
        stack.callback(store.close)
        # The deck service it starts dies with it, and comes back if it dies alone.
        say = logging.getLogger("orchestrator.frontdoor").warning
        deck_target = (
            args.deck_target or stack.enter_context(deck_service(args.store, say=say)).target
        )
        stack.enter_context(local_ray(args.ray_address, namespace=RAY_NAMESPACE))

        def desk(hub: PlayerHub, gateway: str, secret: str, registry: CollectorRegistry) -> Desk:
            settings = DeskSettings(
                data_dir=args.data_dir.resolve(),
                deck_target=deck_target,
                gateway_target=gateway,
                gateway_secret=secret,
                store_url=args.store,
                seed=args.seed,
                gateway_book=GATEWAY_BOOK,
            )
            desks.append(Desk(store, hub, settings, metrics=TournamentMetrics(registry)))
            return desks[-1]

        desks: list[Desk] = []

        async def run() -> None:
            server = FrontDoorServer(
                desk,
                operator_credential=credential,
                host=args.host,
                port=args.port,
                gateway_host=args.gateway_host,
                gateway_port=args.gateway_port,
                gateway_advertise=args.gateway_advertise,
                metrics_port=args.metrics_port,
                tls=tls,
            )
            ready = asyncio.Event()
            task = asyncio.create_task(run_until_signal(server, ready))
            await ready.wait()
            # Everything imported and started so far (Ray's driver, gRPC, the restored desk)
            # lives as long as the process: out of the collector's sight, a full collection
            # scans only what came since. Scanning it all stopped the event loop, and every
            # player's action with it, for 130-500 ms a few times a minute (BENCHMARKS.md).
            gc.freeze()
            metrics = (
                f", metrics on {args.host}:{server.metrics_bound}" if server.metrics_bound else ""
            )
            print(
                f"front door on {server.target} (gateway {server.gateway_target}, "
                f"decks {deck_target}, store {args.store}{metrics})",
                flush=True,
            )
            views = None
            if args.ui_port is not None:
                views = view_server(
                    LiveViews(desks[-1], operator_token=credential),
                    host=args.ui_host,
                    port=args.ui_port,
                )
                shown = asyncio.create_task(views.serve())
                while not views.started and not shown.done():
                    await asyncio.sleep(0.05)
                bound = views.servers[0].sockets[0].getsockname()[1] if views.started else "-"
                print(f"live views on http://{args.ui_host}:{bound}/", flush=True)
            await task
            if views is not None:
                views.should_exit = True
                await shown

        asyncio.run(run())
    print("front door stopped", flush=True)
    return 0
