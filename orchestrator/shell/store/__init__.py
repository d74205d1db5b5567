"""The tournament store (DESIGN.md "Stores"): one `Store` port, two backends, one contract.

`open_store(url)` picks the backend: `redis://host:port/db` (cluster default) or
`sqlite:///path/to/file.db` (single machine, embedded). Durability of each is documented in
its module and in docs/OPERATIONS.md.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from orchestrator.errors import BadStoreUrl
from orchestrator.shell.store.accounts import Accounts
from orchestrator.shell.store.base import Store, StoredHand
from orchestrator.shell.store.metered import MeteredStore
from orchestrator.shell.store.redis_store import RedisDurability, RedisStore
from orchestrator.shell.store.sqlite_store import SqliteStore

__all__ = [
    "Accounts",
    "MeteredStore",
    "RedisDurability",
    "RedisStore",
    "SqliteStore",
    "Store",
    "StoredHand",
    "open_store",
]

_SQLITE_PREFIX = "sqlite:///"


def open_store(url: str, *, epoch: str | None = None) -> Store:
    """Open the store named by `url`; `BadStoreUrl` for anything we do not know. With
    `epoch` (the one it held when the run began), every append on Redis checks it, atomically
    with the write (`StoreLost`: Redis restarted empty)."""
    scheme = urlsplit(url).scheme if isinstance(url, str) else ""
    if scheme in ("redis", "rediss"):
        return RedisStore(url, epoch=epoch)
    if scheme == "sqlite":
        if not url.startswith(_SQLITE_PREFIX) or len(url) == len(_SQLITE_PREFIX):
            raise BadStoreUrl(f"expected sqlite:///path/to/file.db, got {url!r}")
        # sqlite:///rel.db is relative, sqlite:////abs.db absolute (SQLAlchemy's convention),
        # as for the deck service's store.
        return SqliteStore(url[len(_SQLITE_PREFIX) :])
    raise BadStoreUrl(
        f"unknown store URL {url!r}: use redis://host:port/db or sqlite:///path/to/file.db"
    )
