"""One contract test suite for every used-deck store backend (RULES.md RNG-3)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import RedisServer

from rng_service.commit import deck_digest
from rng_service.errors import BadDeckStoreUrl, DeckStoreLost, DeckStoreUnavailable
from rng_service.store import DeckStore, RedisDeckStore, SqliteDeckStore, open_store
from rng_service.store.redis_store import COUNTER_KEY, LISTPACK_ENTRIES, bucket_key


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        return server.url
    return f"sqlite:///{tmp_path / 'decks.db'}"


@pytest.fixture
def store(store_url: str) -> Iterator[DeckStore]:
    opened = open_store(store_url)
    yield opened
    opened.close()


def digests(n: int) -> list[bytes]:
    return [os.urandom(16) for _ in range(n)]


def test_rng3_new_decks_get_consecutive_serials(store: DeckStore) -> None:
    assert store.record_new(digests(3)) == [1, 2, 3]
    assert store.record_new(digests(2)) == [4, 5]
    assert store.count() == 5


def test_rng3_store_rejects_a_replayed_deck(store: DeckStore) -> None:
    batch = digests(4)
    store.record_new(batch)
    assert store.record_new([batch[2]]) == [None]
    assert store.record_new([os.urandom(16), batch[0]]) == [5, None]
    assert store.count() == 5


def test_rng3_repeat_within_one_batch_is_rejected(store: DeckStore) -> None:
    one, two = digests(2)
    assert store.record_new([one, two, one, one]) == [1, 2, None, None]


def test_rng3_digests_that_share_a_bucket_are_distinct(store: DeckStore) -> None:
    # Same first bytes (same Redis bucket), different tail: all 128 bits count.
    base = os.urandom(16)
    near = [base[:15] + bytes([(base[15] + k) % 256]) for k in range(3)]
    assert store.record_new(near) == [1, 2, 3]


def test_rng3_empty_batch(store: DeckStore) -> None:
    assert store.record_new([]) == []
    assert store.count() == 0


def test_rng3_used_decks_survive_reopening(store: DeckStore, store_url: str) -> None:
    deck = deck_digest(bytes(range(52)))
    assert store.record_new([deck]) == [1]
    again = open_store(store_url)
    try:
        assert again.record_new([deck]) == [None]
        assert again.count() == 1
    finally:
        again.close()


def test_rng3_wrong_digest_length_is_a_programming_error(store: DeckStore) -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        store.record_new([b"short"])


def test_open_store_picks_the_backend(redis_server: RedisServer, tmp_path: Path) -> None:
    cases: list[tuple[str, type]] = [
        (redis_server.url, RedisDeckStore),
        (f"sqlite:///{tmp_path}/x.db", SqliteDeckStore),
    ]
    for url, kind in cases:
        opened = open_store(url)
        assert isinstance(opened, kind)
        opened.close()
    for bad in ["mysql://127.0.0.1/x", "sqlite://", "decks.db"]:
        with pytest.raises(BadDeckStoreUrl):
            open_store(bad)


def test_sqlite_unopenable_file_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(DeckStoreUnavailable):
        open_store(f"sqlite:///{tmp_path}/missing-dir/decks.db")


def test_redis_down_is_unavailable_and_store_reconnects(
    redis_factory: Callable[..., RedisServer],
) -> None:
    redis_server = redis_factory("--appendonly", "yes")  # what it held comes back with it
    store = open_store(redis_server.url)
    try:
        assert store.record_new(digests(1)) == [1]
        redis_server.stop()
        with pytest.raises(DeckStoreUnavailable):
            store.record_new(digests(1))
        redis_server.start()
        assert store.record_new(digests(1)) == [2]
    finally:
        store.close()


def test_rng3_a_redis_restarted_empty_serves_nothing_more(redis_server: RedisServer) -> None:
    """RNG-3: a Redis that lost its data (no persistence here) would number decks from 1
    again and forget every deck dealt: the store sees its epoch gone, on the same connection's
    next write, and refuses it whole; a new opener that says the epoch is refused too."""
    store = open_store(redis_server.url)
    epoch = store.epoch
    try:
        assert store.record_new(digests(2)) == [1, 2]
        redis_server.restart()
        with pytest.raises(DeckStoreLost, match=f"holds no epoch, not epoch {epoch}"):
            store.record_new(digests(1))
        with redis_server.client() as client:
            assert client.get(COUNTER_KEY) is None  # the refused batch wrote nothing
        with pytest.raises(DeckStoreLost, match="lost its data"):
            open_store(redis_server.url, epoch=epoch)
    finally:
        store.close()


def test_rng3_a_store_opened_again_keeps_its_epoch_and_a_replaced_one_is_refused(
    store_url: str, tmp_path: Path
) -> None:
    first = open_store(store_url)
    epoch = first.epoch
    first.record_new(digests(1))
    first.close()
    again = open_store(store_url, epoch=epoch)
    assert again.epoch == epoch and again.record_new(digests(1)) == [2]
    again.close()
    other = open_store(f"sqlite:///{tmp_path / 'other.db'}")  # a new store: its own epoch
    assert other.epoch != epoch
    other.close()
    with pytest.raises(DeckStoreLost, match=f"not epoch {epoch}"):
        open_store(f"sqlite:///{tmp_path / 'other.db'}", epoch=epoch)


def test_redis_buckets_stay_listpack_after_restart(
    redis_factory: Callable[..., RedisServer],
) -> None:
    redis_server = redis_factory("--appendonly", "yes")
    store = open_store(redis_server.url)
    try:
        redis_server.restart()
        base = os.urandom(2)
        # More fields in one bucket than Redis's default limit (128): still listpack.
        store.record_new([base + os.urandom(14) for _ in range(300)])
        with redis_server.client() as client:
            key = bucket_key(base + bytes(14))
            assert client.hlen(key) == 300
            assert client.object("encoding", key) == b"listpack"
            limit = client.config_get("hash-max-listpack-entries")
            assert int(limit["hash-max-listpack-entries"]) == LISTPACK_ENTRIES
    finally:
        store.close()
