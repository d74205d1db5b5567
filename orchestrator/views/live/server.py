"""Serve the live view with uvicorn on a thread of its own, beside whatever the caller does
(`mtt run` drives Ray on its main thread); 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette

from orchestrator.errors import UiServerError

__all__ = ["serve_ui"]


@contextmanager
def serve_ui(app: Starlette, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve `app` until the block ends; yields its URL (port 0: a free port is chosen).
    Raises UiServerError when it cannot listen there."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,  # open event streams are ended by the app's lifespan
    )
    server = uvicorn.Server(config)
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        raise UiServerError(
            f"the live view cannot listen on {host}:{port}: {exc.strerror}"
        ) from exc
    bound = listener.getsockname()[1]
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [listener]}, name="mtt-ui", daemon=True
    )
    thread.start()
    while not server.started:
        if not thread.is_alive():
            listener.close()
            raise UiServerError(f"the live view did not start on {host}:{bound}")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        if not thread.is_alive():  # else uvicorn still owns it (a very loaded machine)
            listener.close()
