"""The used-deck store port (RNG-3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rng_service.commit import DIGEST_BYTES
from rng_service.errors import DeckStoreLost

__all__ = ["EPOCH_KEY", "DeckStore", "check_digests", "lost"]

# The store's epoch (a random id written when it is first opened), under one name for both of
# mtt's stores when they share a Redis or a SQLite file: the tournament store reads it too.
EPOCH_KEY: str = "mtt:epoch"


class DeckStore(Protocol):
    """Every deck ever served, by its 128-bit digest (`commit.deck_digest`). Exact: no false
    "new" ever (unlike a Bloom filter), so a deck can never be served twice.

    Implementations are safe to call from one thread at a time per instance; they raise
    `DeckStoreUnavailable` when the backend cannot be reached (nothing may then be served).

    `epoch` is the store's generation: a random id written when the store is first opened
    (adopted when it has one), or, when the opener says which epoch it must hold, checked
    (`DeckStoreLost` when it does not). Every write checks it again, atomically with the write,
    where the backend can lose its data under an open connection (Redis restarted empty).
    """

    epoch: str

    def record_new(self, digests: Sequence[bytes]) -> list[int | None]:
        """Record, atomically and in order, each digest not seen before.

        Returns, per digest, its serial (1, 2, 3 ... across everyone sharing the store) if it
        was new, or None if it was already recorded (earlier, or earlier in this batch).
        """
        ...

    def count(self) -> int:
        """How many decks the store holds."""
        ...

    def close(self) -> None:
        """Release connections; the store is not used after this."""
        ...


def check_digests(digests: Sequence[bytes]) -> None:
    """Refuse anything but 128-bit digests: a wrong length is a programming error."""
    for digest in digests:
        if len(digest) != DIGEST_BYTES:
            raise ValueError(f"a deck digest is {DIGEST_BYTES} bytes, got {len(digest)}")


def lost(url: str, expected: str, found: str | None) -> DeckStoreLost:
    """The error of a store that does not hold the epoch it held."""
    held = "no epoch" if not found else f"epoch {found}"
    return DeckStoreLost(
        f"the used-deck store {url} lost its data: it holds {held}, not epoch {expected} "
        "(restarted empty, or replaced?); no deck is dealt from it, since decks dealt before "
        "could be dealt again (RNG-3)"
    )
