"""Used-deck store in Redis (the cluster default, RNG-3), at ~26 bytes per deck.

Layout: a deck's 16-byte digest is split into a bucket (the first 2 bytes, so 65,536 hashes
named `mtt:ud:` + those 2 raw bytes) and a field (the other 14 bytes, binary, value "1"); all
128 bits are kept, so the store is exact. A plain set would pay a hashtable entry (~70 bytes)
per deck; a small hash in Redis's listpack encoding pays ~18 bytes per field (14 + 2 header
bytes + 2 for the value), plus the bucket's own overhead shared by its fields. Buckets stay
listpack only while they hold at most `hash-max-listpack-entries` fields, so we raise that to
1024 on every connection (`LISTPACK_ENTRIES`); with 65,536 buckets that keeps the compact
encoding up to ~50,000,000 decks (mean 760 per bucket, the fullest well under 1024). Where
CONFIG is disabled (managed Redis), set `hash-max-listpack-entries 1024` in redis.conf.

`mtt:udn` counts recorded decks; a deck's serial is its position in that count. One Lua
script records a whole batch atomically (one round trip, no partial batch). Keys of a batch
span many hash slots: use a single Redis (with replicas), not Redis Cluster.

Durability: run Redis with `appendonly yes` in production, or a restart forgets used decks.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from rng_service.errors import DeckStoreError, DeckStoreUnavailable
from rng_service.store.base import EPOCH_KEY, check_digests, lost

__all__ = ["BUCKET_BYTES", "COUNTER_KEY", "LISTPACK_ENTRIES", "RedisDeckStore", "bucket_key"]

BUCKET_BYTES = 2
LISTPACK_ENTRIES = 1024
COUNTER_KEY = b"mtt:udn"
_BUCKET_PREFIX = b"mtt:ud:"
_T = TypeVar("_T")

# KEYS[1] the counter, KEYS[2] the epoch; ARGV[1] the batch's digests, 16 bytes each,
# concatenated, ARGV[2] the epoch the store held when opened (a store restarted empty holds
# none: the batch is refused whole, {-1, what it holds}). One argument
# and a two-element reply (the counter after the batch, a '1'/'0' per digest: new or not) keep
# client-side packing and parsing O(1) calls per batch. HSETNX runs in order, so a repeat
# within the batch is caught. The bucket name here must match `bucket_key` (tested).
# Buckets are not declared in KEYS: fine on a single Redis, not on Redis Cluster.
_RECORD = """
local held = redis.call('GET', KEYS[2])
if held ~= ARGV[2] then
  return {-1, held or ''}
end
local blob = ARGV[1]
local flags = {}
local fresh = 0
for i = 0, #blob / 16 - 1 do
  local digest = string.sub(blob, i * 16 + 1, i * 16 + 16)
  local bucket = 'mtt:ud:' .. string.sub(digest, 1, 2)
  if redis.call('HSETNX', bucket, string.sub(digest, 3), '1') == 1 then
    fresh = fresh + 1
    flags[i + 1] = '1'
  else
    flags[i + 1] = '0'
  end
end
return {redis.call('INCRBY', KEYS[1], fresh), table.concat(flags)}
"""


def bucket_key(digest: bytes) -> bytes:
    """The Redis hash that holds this digest's field."""
    return _BUCKET_PREFIX + digest[:BUCKET_BYTES]


def _on_connect(connection: Any) -> None:
    """Runs on every new connection, so a restarted Redis gets our listpack limit back."""
    connection.on_connect()
    try:
        connection.send_command("CONFIG", "SET", "hash-max-listpack-entries", LISTPACK_ENTRIES)
        connection.read_response()
    except redis.ResponseError:
        pass  # CONFIG disabled: the operator sets it in redis.conf (see module docstring)


class RedisDeckStore:
    def __init__(self, url: str, *, timeout: float = 2.0, epoch: str | None = None) -> None:
        self._client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            # A stale pooled connection after a Redis restart fails once; retry reconnects.
            # If a reply is lost after the script ran, the retry finds the batch recorded and
            # reports duplicates: those decks are burned (never served), the safe side of RNG-3.
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), retries=2),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
            redis_connect_func=_on_connect,
        )
        self._record = self._client.register_script(_RECORD)
        self._url = url
        self.epoch = self._call(lambda: self._open_epoch(epoch))

    def _open_epoch(self, expected: str | None) -> str:
        if expected is None:  # a store opened for the first time gets its epoch now
            self._client.set(EPOCH_KEY, uuid.uuid4().hex, nx=True)
        held: Any = self._client.get(EPOCH_KEY)
        found = None if held is None else bytes(held).decode()
        if found is None or (expected is not None and found != expected):
            raise lost(self._url, expected or "(just written)", found)
        return found

    def _call(self, call: Callable[[], _T]) -> _T:
        try:
            return call()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise DeckStoreUnavailable(f"redis used-deck store unreachable: {exc}") from exc
        except redis.RedisError as exc:
            raise DeckStoreError(f"redis used-deck store failed: {exc}") from exc

    def record_new(self, digests: Sequence[bytes]) -> list[int | None]:
        check_digests(digests)
        if not digests:
            return []
        last, flags = self._call(
            lambda: self._record(
                keys=[COUNTER_KEY, EPOCH_KEY], args=[b"".join(digests), self.epoch]
            )
        )
        if int(last) < 0:
            raise lost(self._url, self.epoch, bytes(flags).decode() or None)
        serial = int(last) - flags.count(b"1")
        serials: list[int | None] = []
        for flag in flags:
            if flag == ord("1"):
                serial += 1
                serials.append(serial)
            else:
                serials.append(None)
        return serials

    def count(self) -> int:
        value = self._call(lambda: self._client.get(COUNTER_KEY))
        return int(value or 0)

    def close(self) -> None:
        self._client.close()
