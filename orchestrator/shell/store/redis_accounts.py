"""The built-in wallet (`Accounts`) in the tournament store's Redis.

Layout: `mtt:wallet:<account>`, a hash {balance, credential (the SHA-256 digest), and SAT-3's
`ticket:<target>` for the cents held in tickets to each target tournament}; and
`mtt:wallet-moves`, a hash from each idempotency key to `<account> <kind> <amount>`. A movement
is one Lua script that checks the key, moves the balance and records the key: a script runs
atomically and reaches the AOF as one block, so a crash keeps both or neither (durability as
for the event log: docs/OPERATIONS.md). One Redis server, not Redis Cluster (the moves hash is
one key for every account).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from orchestrator.errors import (
    AccountExistsError,
    StoreError,
    UnknownAccountError,
)
from orchestrator.shell.errors import store_error
from orchestrator.shell.store.accounts import (
    MAX_CENTS,
    KeyedMoves,
    MoveKind,
    check_account,
    check_digest,
    check_opening,
    key_conflict,
    moved,
    overdraft,
    overflow,
)

__all__ = ["RedisAccounts"]

MOVES_KEY = b"mtt:wallet-moves"
_T = TypeVar("_T")

# KEYS[1] the wallet, KEYS[2] the moves hash; ARGV[1] the key, ARGV[2] the move as recorded,
# ARGV[3] the signed change, ARGV[4] the ceiling, ARGV[5] the field moved ('balance', or a
# ticket's 'ticket:<target>', 0 until its first credit). Returns {1, balance} (moved, or repeated),
# {0, balance} (too little), {2, recorded} (the key holds another move), {3, 0} (no account),
# {4, balance} (over the ceiling).
_MOVE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {3, 0} end
local balance = tonumber(redis.call('HGET', KEYS[1], ARGV[5]) or '0')
local done = redis.call('HGET', KEYS[2], ARGV[1])
if done then
  if done ~= ARGV[2] then return {2, done} end
  return {1, balance}
end
local after = balance + tonumber(ARGV[3])
if after < 0 then return {0, balance} end
if after > tonumber(ARGV[4]) then return {4, balance} end
redis.call('HSET', KEYS[1], ARGV[5], string.format('%d', after))
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return {1, after}
"""


# KEYS[1] the wallet; ARGV[1] the balance, ARGV[2] the credential digest. 0: the name is taken.
_OPEN = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'balance', ARGV[1], 'credential', ARGV[2])
return 1
"""


_TICKET = "ticket:"  # SAT-3: a wallet's field for the tickets held to one target


def _wallet_key(account: str) -> bytes:
    return f"mtt:wallet:{account}".encode()


class RedisAccounts(KeyedMoves):
    def __init__(self, url: str, *, timeout: float = 2.0) -> None:
        self._url = url
        try:
            self._client = redis.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 0),  # a lost reply is the caller's to repeat by key
            )
        except ValueError as exc:
            raise StoreError(f"redis accounts: bad URL {url!r}: {exc}") from exc
        self._move_script = self._client.register_script(_MOVE)
        self._open_script = self._client.register_script(_OPEN)

    def _call(self, what: str, call: Callable[[], _T]) -> _T:
        try:
            return call()
        except redis.RedisError as exc:
            raise store_error(exc, f"redis accounts: {what}") from exc

    def open(self, account: str, *, balance: int, credential_digest: str) -> None:
        check_account(account)
        check_opening(balance)
        check_digest(credential_digest)
        created: Any = self._call(
            f"open {account!r}",
            lambda: self._open_script(
                keys=[_wallet_key(account)], args=[balance, credential_digest]
            ),
        )
        if not int(created):
            raise AccountExistsError(f"the account {account!r} exists already")

    def authenticate(self, account: str, credential_digest: str) -> bool:
        check_account(account)
        key = _wallet_key(account)
        held: Any = self._call(f"read {account!r}", lambda: self._client.hget(key, "credential"))
        return held is not None and hmac.compare_digest(bytes(held), credential_digest.encode())

    def balance(self, account: str) -> int:
        check_account(account)
        key = _wallet_key(account)
        held: Any = self._call(f"read {account!r}", lambda: self._client.hget(key, "balance"))
        if held is None:
            raise UnknownAccountError(f"no account {account!r}")
        return int(held)

    def tickets(self, account: str) -> dict[str, int]:
        check_account(account)
        key = _wallet_key(account)
        fields: Any = self._call(f"tickets of {account!r}", lambda: self._client.hgetall(key))
        if not fields:
            raise UnknownAccountError(f"no account {account!r}")
        prefix = _TICKET.encode()
        held = {
            bytes(name)[len(prefix) :].decode(): int(value)
            for name, value in fields.items()
            if bytes(name).startswith(prefix)
        }
        return dict(sorted(held.items()))

    def close(self) -> None:
        self._client.close()

    def _move(self, account: str, kind: MoveKind, amount: int, key: str, *, target: str) -> int:
        change = -amount if kind == "debit" else amount
        move = moved(kind, target)
        field = f"{_TICKET}{target}" if target else "balance"
        answer: Any = self._call(
            f"{kind} {account!r}",
            lambda: self._move_script(
                keys=[_wallet_key(account), MOVES_KEY],
                args=[key, f"{account} {move} {amount}", change, MAX_CENTS, field],
            ),
        )
        status, value = int(answer[0]), answer[1]
        if status == 1:
            return int(value)
        if status == 3:
            raise UnknownAccountError(f"no account {account!r}")
        if status == 2:
            raise key_conflict(key, move, amount, account)
        if status == 4:
            raise overflow(account)
        raise overdraft(account, int(value), amount, target)
