"""The used-deck store (RULES.md RNG-3): a port with two backends and one contract test suite.

`open_store(url)` picks the backend: `redis://host:port/db` (cluster default) or
`sqlite:///path/to/file.db` (single-machine default, embedded).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from rng_service.errors import BadDeckStoreUrl
from rng_service.store.base import DeckStore
from rng_service.store.redis_store import RedisDeckStore
from rng_service.store.sqlite_store import SqliteDeckStore

__all__ = ["DeckStore", "RedisDeckStore", "SqliteDeckStore", "open_store"]


def open_store(url: str, *, epoch: str | None = None) -> DeckStore:
    """Open the used-deck store named by `url`; with `epoch`, one that must hold that epoch
    (`DeckStoreLost` otherwise: it lost its data), else its own or a new one."""
    scheme = urlsplit(url).scheme
    if scheme in ("redis", "rediss", "unix"):
        return RedisDeckStore(url, epoch=epoch)
    if scheme == "sqlite":
        prefix = "sqlite:///"
        if not url.startswith(prefix) or len(url) == len(prefix):
            raise BadDeckStoreUrl(f"expected sqlite:///path/to/file.db, got {url!r}")
        # sqlite:///rel.db is relative, sqlite:////abs.db absolute (SQLAlchemy's convention).
        return SqliteDeckStore(url[len(prefix) :], epoch=epoch)
    raise BadDeckStoreUrl(
        f"unknown store URL {url!r}: use redis://host:port/db or sqlite:///file.db"
    )
