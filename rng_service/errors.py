"""Every error the deck service raises, in one place.

    RngError                      base of everything below
    ├── InvalidRequest            a caller's mistake (count out of range, missing ids, too
    │                             big); the server answers INVALID_ARGUMENT and keeps serving
    ├── StoreError                the used-deck store (RNG-3) misbehaves
    │   ├── StoreUnavailable      it cannot be reached (Redis down, SQLite locked/unopenable);
    │   │                         the server answers UNAVAILABLE and serves no deck
    │   └── BadStoreUrl           a store URL we cannot open (`redis://...`, `sqlite:///...`)
    └── DeckServiceError          client side: the deck service failed a call
        ├── DeckServiceUnavailable  still unreachable after the client's retries
        └── DeckRejected            a served deck failed validation (a fouled deck)

Driver errors (redis, sqlite3, grpc) are translated at the boundary with
`raise StoreUnavailable(...) from exc`, so callers never see a raw driver traceback.
"""

from __future__ import annotations

__all__ = [
    "BadStoreUrl",
    "DeckRejected",
    "DeckServiceError",
    "DeckServiceUnavailable",
    "InvalidRequest",
    "RngError",
    "StoreError",
    "StoreUnavailable",
]


class RngError(Exception):
    """Base of the deck service's errors."""


class InvalidRequest(RngError):
    """A request the service refuses: the message says what is wrong."""


class StoreError(RngError):
    """The used-deck store failed."""


class StoreUnavailable(StoreError):
    """The used-deck store cannot be reached; no deck may be served (RNG-3)."""


class BadStoreUrl(StoreError):
    """A store URL that names no backend we have, or is malformed."""


class DeckServiceError(RngError):
    """The deck service failed a client's call."""


class DeckServiceUnavailable(DeckServiceError):
    """The deck service stayed unreachable through every retry."""


class DeckRejected(DeckServiceError):
    """A served deck is not a permutation of 0..51 or does not match its commitment."""
