"""The used-deck store port (RNG-3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rng_service.commit import DIGEST_BYTES

__all__ = ["DeckStore", "check_digests"]


class DeckStore(Protocol):
    """Every deck ever served, by its 128-bit digest (`commit.deck_digest`). Exact: no false
    "new" ever (unlike a Bloom filter), so a deck can never be served twice.

    Implementations are safe to call from one thread at a time per instance; they raise
    `DeckStoreUnavailable` when the backend cannot be reached (nothing may then be served).
    """

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
