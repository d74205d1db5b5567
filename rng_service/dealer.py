"""Draw recorded, committed decks: generation (RNG-1, RNG-2) + used-deck store (RNG-3).

No gRPC here; the server runs `Dealer.draw` on one worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from rng_service.commit import SALT_BYTES, commitment, deck_digest
from rng_service.deck import DECK_SIZE, ServedDeck
from rng_service.shuffle import RandomBytes, shuffle_decks
from rng_service.store import DeckStore

__all__ = ["Dealer", "Draw", "ServedDeck"]


@dataclass(frozen=True, slots=True)
class Draw:
    decks: list[ServedDeck]
    duplicates: int  # decks the store already held, discarded and replaced (RNG-3)
    random_bytes: int  # CSPRNG bytes the shuffles consumed for this draw


class Dealer:
    """Hands out decks that are recorded in the store before anyone sees them (RNG-3).

    Decks are shuffled `batch` at a time (the shuffle is vectorised, so big batches are
    cheap) and kept in memory until drawn; a deck leaves only after the store accepted it.
    Not thread-safe: one thread draws.
    """

    def __init__(
        self,
        store: DeckStore,
        *,
        randbytes: Callable[[int], bytes] | None = None,
        batch: int = 1024,
    ) -> None:
        self._store = store
        self._randbytes = randbytes or RandomBytes(os.urandom)
        self._batch = batch
        self._pool: list[bytes] = []
        self._pool_bytes = 0  # random bytes consumed for the decks now in the pool

    def draw(self, count: int) -> Draw:
        """`count` new decks, each recorded, committed and salted. Raises the store's errors;
        then the decks taken for this draw are dropped, never served."""
        served: list[ServedDeck] = []
        duplicates = 0
        used = 0
        while len(served) < count:
            cards, used_now = self._take(count - len(served))
            used += used_now
            serials = self._store.record_new([deck_digest(c) for c in cards])
            salts = os.urandom(SALT_BYTES * len(cards))  # fresh salt per deck, RNG-1 source
            for k, (deck, serial) in enumerate(zip(cards, serials, strict=True)):
                if serial is None:
                    duplicates += 1  # a real repeat is a fault: counted, alerted on, replaced
                    continue
                salt = salts[k * SALT_BYTES : (k + 1) * SALT_BYTES]
                served.append(ServedDeck(deck, serial, commitment(deck, salt), salt))
        return Draw(served, duplicates, used)

    def _take(self, n: int) -> tuple[list[bytes], int]:
        if len(self._pool) < n:
            shuffled = shuffle_decks(max(self._batch, n - len(self._pool)), self._randbytes)
            raw = shuffled.decks.tobytes()
            self._pool += [raw[i : i + DECK_SIZE] for i in range(0, len(raw), DECK_SIZE)]
            self._pool_bytes += shuffled.random_bytes
        taken, self._pool = self._pool[:n], self._pool[n:]
        # Attribute random bytes to decks pro rata, so the totals add up exactly.
        used = self._pool_bytes * n // (len(taken) + len(self._pool))
        self._pool_bytes -= used
        return taken, used
