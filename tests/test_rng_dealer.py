"""The dealer records before it serves and replaces a repeated deck (RULES.md RNG-3)."""

from __future__ import annotations

import random
from pathlib import Path

from rng_service.commit import deck_digest, verify_commitment
from rng_service.dealer import Dealer
from rng_service.store import open_store


def test_rng3_a_repeated_deck_is_discarded_counted_and_replaced(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'd.db'}")
    try:
        # Two dealers fed the same bytes (a stand-in for a broken generator) shuffle the same
        # first deck: the second dealer must discard it and serve the next one instead.
        first = Dealer(store, randbytes=random.Random(5).randbytes, batch=1).draw(1)
        again = Dealer(store, randbytes=random.Random(5).randbytes, batch=1).draw(1)
        assert first.duplicates == 0 and again.duplicates == 1
        assert again.decks[0].cards != first.decks[0].cards
        assert [d.serial for d in (*first.decks, *again.decks)] == [1, 2]
        assert store.record_new([deck_digest(again.decks[0].cards)]) == [None]
    finally:
        store.close()


def test_rng1_draw_counts_random_bytes_and_commits_each_deck(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'd.db'}")
    try:
        dealer = Dealer(store, batch=64)
        draws = [dealer.draw(n) for n in (1, 5, 100, 64)]
        decks = [d for draw in draws for d in draw.decks]
        assert len({d.cards for d in decks}) == 170 == store.count()
        assert all(verify_commitment(d.cards, d.salt, d.commitment) for d in decks)
        per_deck = sum(draw.random_bytes for draw in draws) / 170
        assert 50 < per_deck < 60  # ~53.6 expected (rng_service.shuffle)
    finally:
        store.close()
