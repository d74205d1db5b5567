"""The operator's live view of a running tournament: a clock for the wall and a lobby.

`create_app(source, config, control=..., operator_token=...)` builds the web app (Starlette)
over any `EventSource` and `OperatorControl`; `serve_ui(app, host=..., port=...)` serves it
on a thread of its own. `Lobby` is the pure fold over the event log that both pages show.
"""

from orchestrator.shell.run_control import EventFileSource, RunControl
from orchestrator.views.live.app import EventSource, OperatorControl, create_app
from orchestrator.views.live.lobby import Lobby
from orchestrator.views.live.server import serve_ui

__all__ = [
    "EventFileSource",
    "EventSource",
    "Lobby",
    "OperatorControl",
    "RunControl",
    "create_app",
    "serve_ui",
]
