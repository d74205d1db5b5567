"""The operator's live view of a running tournament: a clock for the wall and a lobby.

`create_app(source, config, control=..., operator_token=...)` builds the web app (Starlette)
over any `EventSource` and `OperatorControl`; `serve_ui(app, host=..., port=...)` serves it
on a thread of its own. `Lobby` is the pure fold over the event log that both pages show.

The view depends only on those two protocols: `mtt run` passes its
`orchestrator.shell.run_control` (`StoreEventSource`, `RunControl`), the front door its desk
(`orchestrator.frontdoor.views`); a view imports neither.
"""

from orchestrator.views.live.app import EventSource, OperatorControl, create_app
from orchestrator.views.live.lobby import Lobby
from orchestrator.views.live.server import serve_ui

__all__ = [
    "EventSource",
    "Lobby",
    "OperatorControl",
    "create_app",
    "serve_ui",
]
