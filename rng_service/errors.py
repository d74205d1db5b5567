"""Every error the deck service raises, in one place.

    RngError                        base of everything below
    ├── InvalidRequest              a caller's mistake (count out of range, missing ids, too
    │                               big); the server answers INVALID_ARGUMENT and keeps serving
    ├── DeckStoreError              the used-deck store (RNG-3) misbehaves
    │   ├── DeckStoreUnavailable    it cannot be reached (Redis down, SQLite locked/unopenable);
    │   │                           the server answers UNAVAILABLE and serves no deck
    │   ├── BadDeckStoreUrl         a store URL we cannot open (`redis://...`, `sqlite:///...`)
    │   └── DeckStoreLost           the store lost its data (restarted empty): its epoch is not
    │                               the one it had; nothing is served again from it
    └── DeckServiceError            client side: the deck service failed a call
        ├── DeckServiceUnavailable  still unreachable after the client's retries
        └── DeckRejected            a served deck failed validation (a fouled deck)

Driver errors (redis, sqlite3, grpc) are translated at the boundary with
`raise DeckStoreUnavailable(...) from exc`, so callers never see a raw driver traceback.
The `Deck` prefix keeps these apart from the orchestrator's own `StoreError` family
(`orchestrator.errors`, its tournament store); the deck service imports nothing of the
orchestrator. Store metrics count both families under the shared names (`StoreUnavailable`,
`rng_service.store.metered`), so one alert covers both stores.
"""

from __future__ import annotations

__all__ = [
    "BadDeckStoreUrl",
    "DeckRejected",
    "DeckServiceError",
    "DeckServiceUnavailable",
    "DeckStoreError",
    "DeckStoreLost",
    "DeckStoreUnavailable",
    "InvalidRequest",
    "RngError",
]


class RngError(Exception):
    """Base of the deck service's errors."""


class InvalidRequest(RngError):
    """A request the service refuses: the message says what is wrong."""


class DeckStoreError(RngError):
    """The used-deck store failed."""


class DeckStoreUnavailable(DeckStoreError):
    """The used-deck store cannot be reached; no deck may be served (RNG-3)."""


class BadDeckStoreUrl(DeckStoreError):
    """A store URL that names no backend we have, or is malformed."""


class DeckStoreLost(DeckStoreError):
    """The store does not hold the epoch it held (RNG-3): it lost its data, a Redis restarted
    empty or a file replaced, so decks dealt before could be dealt again. Nothing more is
    served from it; an operator must restore it (or start a new store on purpose)."""


class DeckServiceError(RngError):
    """The deck service failed a client's call."""


class DeckServiceUnavailable(DeckServiceError):
    """The deck service stayed unreachable through every retry."""


class DeckRejected(DeckServiceError):
    """A served deck is not a permutation of 0..51 or does not match its commitment."""
