"""The tournament store in Redis (the cluster default).

Layout, per tournament T (the `{T}` hash tag keeps one tournament's keys in one slot):
- `mtt:{T}:log`: a Redis Stream, one entry per event with the explicit ID `<seq>-0` and one
  field `r` holding the JSON record. Redis itself refuses an ID at or below the stream's top
  (a duplicate); the append script also refuses a gap, and checks before it writes anything,
  so a batch is all or nothing (a script runs atomically; Redis has no rollback, hence check
  first).
- `mtt:{T}:hands`: a hash from `<table>:<hand>` (each zero-padded to 10 digits) to the hand's
  PHH section, and `mtt:{T}:hand-index`, a sorted set of the same names at score 0, so they
  read back ordered by table then hand (ZRANGEBYLEX), a page at a time. A hand is keyed by
  what it is, not by when it came, so a retried report finds its hand in one HGET.
- The append script writes the records and the hands they came with, checking everything
  first (the next seq, every hand new or the same text): a group commit of many reports is
  one script call. A script runs atomically and reaches the AOF as one MULTI/EXEC block
  (Redis 7 propagates a script's writes wrapped in one), written and, with
  `appendfsync always`, fsynced once before the reply; a torn AOF tail inside that block is
  dropped when Redis loads the file, so a crash keeps all of the batch or none.
- `mtt:{T}:snap`: a hash {seq, state}, the latest snapshot.
- `mtt:{T}:lease`: the owner's name, set with SET NX PX; renew and release are Lua
  compare-and-set on the owner, so nobody extends or deletes a lease they no longer hold.
- `mtt:tournaments`: the registry, a hash from tournament to its JSON meta (HSETNX).

Durability (see docs/OPERATIONS.md, "Stores and durability"). Run Redis with
`appendonly yes`. With `appendfsync always` Redis fsyncs the AOF before it replies, so an
acknowledged append survives a crash of Redis or of its host. With `appendfsync everysec`
(Redis's default) Redis writes the AOF before it replies but fsyncs once a second: a crash of
the Redis process alone loses nothing acknowledged (the data is in the OS page cache), but a
host crash or power loss can lose about the last second of appends (up to 2 s when the disk
stalls). On Redis 7.2+ this store closes that window anyway: after each append it sends
`WAITAOF 1 0 <timeout>` on the same connection, which returns once our writes are fsynced to
the local AOF, so an append returns only when durable. Redis 7.0 (the OS package here, 7.0.15)
has no WAITAOF; the store detects that (`durability()`) and then relies on `appendfsync`
alone, so on 7.0 use `always` for the event log. An orchestrator that finds the log shorter
than what it knows (a lost tail: `append` raises `LogConflict` with a gap) must not paper over
it: see the operations guide.

Connections: no client-side retries (a retried append whose reply was lost would be refused
as a duplicate of itself); the pool drops a connection the server closed and reconnects on the
next call, so after a Redis restart the store works again, and while Redis is down every call
raises `StoreUnavailable`. An append that raises `StoreUnavailable` may have landed: read back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from orchestrator.errors import (
    HandConflict,
    LogConflict,
    StoreCorrupted,
    StoreError,
    StoreLost,
    StoreUnavailable,
    TournamentExists,
    UnknownTournament,
)
from orchestrator.shell.errors import store_error
from orchestrator.shell.store.accounts import Accounts
from orchestrator.shell.store.base import (
    StoredHand,
    check_batch,
    check_hand_page,
    check_hands,
    check_limit,
    check_tournament,
    decode_meta,
    decode_record,
    encode_record,
    store_lost,
    ttl_millis,
)
from orchestrator.shell.store.redis_accounts import RedisAccounts
from rng_service.store import DeckStore, RedisDeckStore
from rng_service.store.base import EPOCH_KEY

__all__ = ["REGISTRY_KEY", "RedisDurability", "RedisStore", "log_key"]

REGISTRY_KEY = b"mtt:tournaments"
_T = TypeVar("_T")

# KEYS[1] the stream, KEYS[2] the hands hash, KEYS[3] the hands index; ARGV[1] the first seq,
# ARGV[2] n, the number of records, ARGV[3..2+n] the records' JSON, then (name, text) pairs
# of hands. Returns {1, new last}, {0, last} (refused: not the next seq) or {2, name} (refused:
# that hand is stored with another text). Nothing is written unless all is.
_APPEND = """
if ARGV[1] ~= '' then
  local held = redis.call('GET', KEYS[4])
  if held ~= ARGV[1] then return {3, held or ''} end
end
local first = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
if n > 0 then
  local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  local last = 0
  if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)%-')) end
  if first ~= last + 1 then return {0, last} end
end
local batch = {}
local new = {}
for i = 4 + n, #ARGV, 2 do
  local name, text = ARGV[i], ARGV[i + 1]
  local there = batch[name] or redis.call('HGET', KEYS[2], name)
  if there then
    if there ~= text then return {2, name} end
  else
    batch[name] = text
    new[#new + 1] = i
  end
end
for i = 1, n do
  redis.call('XADD', KEYS[1], string.format('%d-0', first + i - 1), 'r', ARGV[3 + i])
end
for _, i in ipairs(new) do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[3], 0, ARGV[i])
end
return {1, first + n - 1}
"""

# KEYS[1] the snapshot hash, KEYS[2] the stream; ARGV[1] seq, ARGV[2] state.
# Returns {1, last} (kept, or older than the one there) or {0, last} (seq beyond the log).
_SNAPSHOT = """
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local last = 0
if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)%-')) end
local seq = tonumber(ARGV[1])
if seq > last then return {0, last} end
local current = tonumber(redis.call('HGET', KEYS[1], 'seq'))
if current == nil or current <= seq then
  redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'state', ARGV[2])
end
return {1, last}
"""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def _key(tournament: str, kind: str) -> bytes:
    return f"mtt:{{{tournament}}}:{kind}".encode()


def log_key(tournament: str) -> bytes:
    """The stream holding the tournament's event log."""
    return _key(tournament, "log")


def _hand_name(table: int, hand: int) -> str:
    return f"{table:010d}:{hand:010d}"


def _seq_of(entry_id: bytes) -> int:
    return int(entry_id.split(b"-", 1)[0])


@dataclass(frozen=True, slots=True)
class RedisDurability:
    """What the server does with our writes, read from INFO and CONFIG."""

    version: tuple[int, ...]
    appendonly: bool
    appendfsync: str  # "always", "everysec", "no", or "unknown" where CONFIG is disabled

    @property
    def waitaof(self) -> bool:
        """WAITAOF exists (Redis 7.2+) and means something here (AOF on)."""
        return self.appendonly and self.version >= (7, 2)


class RedisStore:
    def __init__(
        self, url: str, *, timeout: float = 2.0, wait_aof: bool = True, epoch: str | None = None
    ) -> None:
        self._url = url
        self._epoch = epoch  # checked by every append (`check_epoch`)
        self._wait_aof_ms = round(timeout * 1000) if wait_aof else 0
        self._durability: RedisDurability | None = None
        self._decks: DeckStore | None = None
        self._accounts: RedisAccounts | None = None
        try:
            self._client = redis.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 0),  # why none: see the module docstring
            )
        except ValueError as exc:  # a malformed redis:// URL
            raise StoreError(f"redis store: bad URL {url!r}: {exc}") from exc
        self._append = self._client.register_script(_APPEND)
        self._snapshot = self._client.register_script(_SNAPSHOT)
        self._renew = self._client.register_script(_RENEW)
        self._release = self._client.register_script(_RELEASE)

    def _call(self, what: str, call: Callable[[], _T]) -> _T:
        """Run one Redis call, translating driver errors (the only place that sees them)."""
        try:
            return call()
        except redis.RedisError as exc:
            # ConnectionError and TimeoutError are StoreUnavailable (the table), BusyLoadingError
            # (Redis replaying its AOF after a restart) included, being a ConnectionError.
            raise store_error(exc, f"redis store: {what}") from exc

    def durability(self) -> RedisDurability:
        """Ask the server how durable our writes are (cached after the first answer)."""
        if self._durability is None:
            self._durability = self._call("durability", self._ask_durability)
        return self._durability

    def _ask_durability(self) -> RedisDurability:
        server = self._client.info("server")
        persistence = self._client.info("persistence")
        version = tuple(int(p) for p in str(server["redis_version"]).split(".")[:3])
        try:
            fsync = self._client.config_get("appendfsync").get("appendfsync", "unknown")
        except redis.ResponseError:  # CONFIG disabled (managed Redis)
            fsync = "unknown"
        if isinstance(fsync, bytes):
            fsync = fsync.decode()
        return RedisDurability(version, bool(int(persistence["aof_enabled"])), str(fsync))

    # -- event log --------------------------------------------------------------------------

    def append(
        self,
        tournament: str,
        records: Sequence[dict[str, Any]],
        hands: Sequence[StoredHand] = (),
    ) -> None:
        check_tournament(tournament)
        first = check_batch(records)
        check_hands(hands)
        if not records and not hands:
            return
        epoch = self._epoch or ""
        args: list[int | str] = [epoch, first, len(records), *(encode_record(r) for r in records)]
        for hand in hands:
            args += [_hand_name(hand.table, hand.hand), hand.text]
        keys = [
            log_key(tournament),
            _key(tournament, "hands"),
            _key(tournament, "hand-index"),
            EPOCH_KEY.encode(),  # not in the tournament's slot: a single Redis, as for the decks
        ]
        wait = self._wait_aof_ms > 0 and self.durability().waitaof

        def run() -> tuple[list[Any], list[int] | None]:
            # One pipeline = one connection: WAITAOF waits for this connection's writes only.
            # Not MULTI: inside a transaction WAITAOF would not block.
            pipe = self._client.pipeline(transaction=False)
            self._append(keys=keys, args=args, client=pipe)
            if wait:
                pipe.waitaof(1, 0, self._wait_aof_ms)
            replies = pipe.execute()
            return replies[0], (replies[1] if wait else None)

        (verdict, detail), synced = self._call(f"append to {tournament!r}", run)
        if verdict == 0:
            raise LogConflict(tournament, last_seq=int(detail), first_seq=first)
        if verdict == 2:
            table, number = (int(part) for part in bytes(detail).split(b":"))
            raise HandConflict(tournament, table=table, hand=number)
        if verdict == 3:
            raise self._lost(epoch, bytes(detail).decode() or None)
        if synced is not None and int(synced[0]) < 1:
            raise StoreUnavailable(
                f"redis store: append to {tournament!r} at seq {first} is written but not "
                f"fsynced to the AOF within {self._wait_aof_ms} ms: not known to be durable"
            )

    def read_hands(
        self, tournament: str, after: tuple[int, int] | None = None, limit: int | None = None
    ) -> list[StoredHand]:
        check_tournament(tournament)
        start = check_hand_page(after, limit)
        if limit == 0:
            return []
        low = "-" if start is None else f"({_hand_name(*start)}"
        index = _key(tournament, "hand-index")

        def run() -> tuple[list[bytes], list[bytes | None]]:
            names: Any = self._client.zrangebylex(
                index, low, "+", start=None if limit is None else 0, num=limit
            )
            texts: Any = self._client.hmget(_key(tournament, "hands"), names) if names else []
            return names, texts

        names, texts = self._call(f"read hands of {tournament!r}", run)
        hands = []
        for name, text in zip(names, texts, strict=True):
            table, number = (int(part) for part in name.split(b":"))
            if text is None:
                raise StoreCorrupted(tournament, None, f"hand {name.decode()} has no history")
            hands.append(StoredHand(table, number, bytes(text).decode()))
        return hands

    def read(
        self, tournament: str, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        check_tournament(tournament)
        check_limit(after, limit)
        if limit == 0:
            return []
        # redis-py's declared reply types are unions of every encoding: we use bytes only.
        entries: Any = self._call(
            f"read {tournament!r}",
            lambda: self._client.xrange(log_key(tournament), f"{after + 1}-0", "+", count=limit),
        )
        records = []
        for entry_id, fields in entries:
            seq = _seq_of(entry_id)
            if b"r" not in fields:
                raise StoreCorrupted(tournament, seq, "stream entry has no 'r' field")
            records.append(decode_record(tournament, seq, fields[b"r"]))
        return records

    def last_seq(self, tournament: str) -> int:
        check_tournament(tournament)
        top: Any = self._call(
            f"last seq of {tournament!r}",
            lambda: self._client.xrevrange(log_key(tournament), "+", "-", count=1),
        )
        return _seq_of(top[0][0]) if top else 0

    # -- snapshots --------------------------------------------------------------------------

    def save_snapshot(self, tournament: str, seq: int, state: bytes) -> None:
        check_tournament(tournament)
        if seq < 0:
            raise LogConflict(tournament, last_seq=self.last_seq(tournament), first_seq=seq)
        keys = [_key(tournament, "snap"), log_key(tournament)]
        ok, last = self._call(
            f"snapshot {tournament!r}",
            lambda: self._snapshot(keys=keys, args=[seq, bytes(state)]),
        )
        if not ok:
            raise LogConflict(tournament, last_seq=int(last), first_seq=seq)

    def load_snapshot(self, tournament: str) -> tuple[int, bytes] | None:
        check_tournament(tournament)
        found: Any = self._call(
            f"load snapshot of {tournament!r}",
            lambda: self._client.hmget(_key(tournament, "snap"), ["seq", "state"]),
        )
        seq, state = found
        if seq is None and state is None:
            return None
        try:
            return int(seq), bytes(state)
        except (TypeError, ValueError) as exc:
            raise StoreCorrupted(tournament, None, f"snapshot is malformed: {exc}") from exc

    # -- registry ---------------------------------------------------------------------------

    def register(self, tournament: str, meta: dict[str, Any]) -> None:
        check_tournament(tournament)
        text = json.dumps(meta, separators=(",", ":"), allow_nan=False)
        added = self._call(
            f"register {tournament!r}",
            lambda: self._client.hsetnx(REGISTRY_KEY, tournament, text),
        )
        if not added:
            raise TournamentExists(f"tournament {tournament!r} is already registered")

    def tournaments(self) -> list[str]:
        names: Any = self._call("list tournaments", lambda: self._client.hkeys(REGISTRY_KEY))
        return sorted(name.decode() for name in names)

    def meta(self, tournament: str) -> dict[str, Any]:
        check_tournament(tournament)
        text = self._call(
            f"meta of {tournament!r}", lambda: self._client.hget(REGISTRY_KEY, tournament)
        )
        if text is None:
            raise UnknownTournament(f"tournament {tournament!r} is not registered")
        return decode_meta(tournament, text)

    # -- leases -----------------------------------------------------------------------------

    def acquire(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        check_tournament(tournament)
        ttl = ttl_millis(ttl_seconds)
        key = _key(tournament, "lease")
        taken = self._call(
            f"acquire lease on {tournament!r}",
            lambda: self._client.set(key, owner, nx=True, px=ttl),
        )
        # Not free: it is ours to extend, or someone else's. (If it expires between the two
        # calls we answer False; the caller's next attempt takes it.)
        return bool(taken) or self.renew(tournament, owner, ttl_seconds)

    def renew(self, tournament: str, owner: str, ttl_seconds: float) -> bool:
        check_tournament(tournament)
        ttl = ttl_millis(ttl_seconds)
        key = _key(tournament, "lease")
        renewed = self._call(
            f"renew lease on {tournament!r}", lambda: self._renew(keys=[key], args=[owner, ttl])
        )
        return bool(renewed)

    def release(self, tournament: str, owner: str) -> None:
        check_tournament(tournament)
        key = _key(tournament, "lease")
        self._call(
            f"release lease on {tournament!r}", lambda: self._release(keys=[key], args=[owner])
        )

    def owner(self, tournament: str) -> str | None:
        check_tournament(tournament)
        key = _key(tournament, "lease")
        held: Any = self._call(f"lease owner of {tournament!r}", lambda: self._client.get(key))
        return None if held is None else bytes(held).decode()

    # -- used decks, lifecycle --------------------------------------------------------------

    @property
    def decks(self) -> DeckStore:
        if self._decks is None:
            self._decks = RedisDeckStore(self._url)
        return self._decks

    @property
    def accounts(self) -> Accounts:
        if self._accounts is None:
            self._accounts = RedisAccounts(self._url)
        return self._accounts

    def check_epoch(self, expected: str) -> None:
        held: Any = self._call("read the store's epoch", lambda: self._client.get(EPOCH_KEY))
        found = None if held is None else bytes(held).decode()
        if found != expected:
            raise self._lost(expected, found)

    def _lost(self, expected: str, found: str | None) -> StoreLost:
        return store_lost(self._url, expected, found)

    def close(self) -> None:
        if self._decks is not None:
            self._decks.close()
        if self._accounts is not None:
            self._accounts.close()
        self._client.close()
