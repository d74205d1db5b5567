"""One table: the pure hold'em hand engine, bots, hand histories and (later) the Ray actor."""

import os as _os

# Before any Ray import: Ray reads this when it is imported, and with "0" every Ray process
# binds and connects on 127.0.0.1 only (DESIGN.md); otherwise it picks the machine's address.
_os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
