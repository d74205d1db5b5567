"""The `Accounts` port: the operator's wallet, where a player's money lives between tournaments.

A tournament's ledger (`orchestrator.core.ledger`) holds only what a player brought to that
tournament; the wallet holds the rest. The front door's desk debits an entry from the wallet
when the player registers (REG-1), credits it back on unregistration and cancellation (REG-2,
CRASH-1) and credits what the tournament pays him (prizes, bounties, deals, CRASH-2).

Three money calls, each idempotent by a key the caller chooses: `debit`, `credit` and
`balance`. A call repeated with the same key, account, kind and amount moves nothing the second
time and answers as the first did would now (the balance after it); the same key with another
account, kind or amount is refused (`IdempotencyConflictError`), so a retry can never move money
twice and a bug that reuses a key is caught. A refused debit (`InsufficientFundsError`) records
no key: the same call may succeed once the account holds the money.

SAT-3: the wallet also keeps each player's satellite tickets, per target tournament, as cents of
that target's entry (one ticket is one entry's worth): `credit_ticket` when a satellite he
played ends with his seat (or a ticket given back, REG-2), `debit_ticket` when it pays his entry
(spent: a second spend is refused as an overdraft is), `tickets` what he holds. Keyed and
idempotent as the money calls, under the same keys' space; a ticket is never cash: CRASH-1
refunds a ticket's entry to the cash balance, at face value.

Accounts are opened by the operator with a balance and a credential, of which the wallet keeps
only the SHA-256 digest (`open`); `authenticate` compares digests in constant time. Amounts are
whole cents, 1..`MAX_CENTS` per call (0 moves nothing and is refused as a mistake), and no
balance goes above `MAX_CENTS` or below zero.

Built-in backends: `SqliteAccounts` and `RedisAccounts`, at the same URL as the tournament store
(`Store.accounts`). An operator's own wallet implements this protocol (docs/OPERATIONS.md,
"Accounts").
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Literal, Protocol

from orchestrator.errors import (
    IdempotencyConflictError,
    InsufficientFundsError,
    InvalidAmountError,
    UnknownAccountError,
)

__all__ = [
    "ACCOUNT_PATTERN",
    "KEY_PATTERN",
    "MAX_CENTS",
    "Accounts",
    "KeyedMoves",
    "MoveKind",
    "check_account",
    "check_amount",
    "check_digest",
    "check_key",
    "check_opening",
    "check_target",
    "key_conflict",
    "moved",
    "overdraft",
    "overflow",
]

# 10 billion in cents: far above any wallet here, far below 2**53 (Redis's Lua numbers are
# doubles) and int64 (the gRPC field).
MAX_CENTS = 10**12
ACCOUNT_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")  # a player's name
TARGET_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # a tournament's id
KEY_PATTERN = re.compile(r"^[A-Za-z0-9_.:/-]{1,200}$")
_DIGEST = re.compile(r"^[0-9a-f]{64}$")

MoveKind = Literal["debit", "credit"]


class Accounts(Protocol):
    """The operator's wallet. Synchronous and thread-safe. Every method may raise
    `StoreUnavailable` (the backend unreachable): a debit or credit that raises it may have
    landed, and repeating it with the same key is always safe."""

    def open(self, account: str, *, balance: int, credential_digest: str) -> None:
        """A new account holding `balance` cents (0..MAX_CENTS), its credential's SHA-256
        digest kept; `AccountExistsError` if the name is taken."""
        ...

    def authenticate(self, account: str, credential_digest: str) -> bool:
        """Whether `credential_digest` is the account's (False for an unknown account)."""
        ...

    def balance(self, account: str) -> int:
        """The account's cents now; `UnknownAccountError` if never opened."""
        ...

    def debit(self, account: str, amount: int, *, key: str) -> int:
        """Take `amount` cents; the balance after. `InsufficientFundsError` (nothing moved,
        the key not used up) when the account holds less."""
        ...

    def credit(self, account: str, amount: int, *, key: str) -> int:
        """Pay `amount` cents in; the balance after."""
        ...

    def credit_ticket(self, account: str, target: str, value: int, *, key: str) -> int:
        """SAT-3: a ticket of `value` cents to the tournament `target` for the account; the
        cents it then holds in tickets to `target`."""
        ...

    def debit_ticket(self, account: str, target: str, value: int, *, key: str) -> int:
        """SAT-3: a ticket to `target` spent; `InsufficientFundsError` (nothing moved) when
        the account holds less than `value` in tickets to it."""
        ...

    def tickets(self, account: str) -> dict[str, int]:
        """SAT-3: each tournament the account ever held a ticket to, and the cents it holds in
        tickets to it now (0: spent); `UnknownAccountError` if never opened."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


class KeyedMoves(ABC):
    """What the built-in backends share: each money and ticket call is one keyed move of a
    held amount (`_move`), checked, named and refused in the same words on both."""

    def debit(self, account: str, amount: int, *, key: str) -> int:
        return self._checked(account, "debit", amount, key, target="")

    def credit(self, account: str, amount: int, *, key: str) -> int:
        return self._checked(account, "credit", amount, key, target="")

    def credit_ticket(self, account: str, target: str, value: int, *, key: str) -> int:
        return self._checked(account, "credit", value, key, target=check_target(target))

    def debit_ticket(self, account: str, target: str, value: int, *, key: str) -> int:
        return self._checked(account, "debit", value, key, target=check_target(target))

    def _checked(self, account: str, kind: MoveKind, amount: int, key: str, *, target: str) -> int:
        check_account(account)
        check_amount(amount)
        check_key(key)
        return self._move(account, kind, amount, key, target=target)

    @abstractmethod
    def _move(self, account: str, kind: MoveKind, amount: int, key: str, *, target: str) -> int:
        """Atomically: move `amount` cents of the account's cash (`target` empty) or of its
        tickets to `target`, and record `key` for the move (`moved(kind, target)`); a key
        recorded for this same move moves nothing and answers the amount held now. Raise
        `UnknownAccountError`, `key_conflict`, `overdraft` or `overflow`."""


def moved(kind: MoveKind, target: str) -> str:
    """A move as its key records it: `debit`, `credit`, or SAT-3's `ticket-debit <target>`."""
    return f"ticket-{kind} {target}" if target else kind


def key_conflict(key: str, move: str, amount: int, account: str) -> IdempotencyConflictError:
    return IdempotencyConflictError(
        f"the key {key!r} was used for another movement, not a {move} of {amount} on {account!r}"
    )


def overdraft(account: str, held: int, amount: int, target: str) -> InsufficientFundsError:
    what = f"in tickets to {target}" if target else "cents"
    return InsufficientFundsError(f"{account!r} holds {held} {what}, {amount} were asked")


def overflow(account: str) -> InvalidAmountError:
    return InvalidAmountError(f"{account!r} would hold over {MAX_CENTS} cents")


def check_account(account: object) -> str:
    if not isinstance(account, str) or not ACCOUNT_PATTERN.match(account):
        raise UnknownAccountError(
            "an account is 1..32 letters, digits, '_', '.' or '-', starting with a letter or "
            f"digit, not {account!r:.60}"
        )
    return account


def check_amount(amount: object) -> int:
    """A debit or credit: whole cents 1..MAX_CENTS (bool is not money)."""
    if type(amount) is not int or not 1 <= amount <= MAX_CENTS:
        raise InvalidAmountError(f"an amount is whole cents 1..{MAX_CENTS}, not {amount!r:.40}")
    return amount


def check_opening(balance: object) -> int:
    if type(balance) is not int or not 0 <= balance <= MAX_CENTS:
        raise InvalidAmountError(
            f"an opening balance is whole cents 0..{MAX_CENTS}, not {balance!r:.40}"
        )
    return balance


def check_target(target: object) -> str:
    if not isinstance(target, str) or not TARGET_PATTERN.match(target):
        raise UnknownAccountError(f"a ticket's target is a tournament id, not {target!r:.70}")
    return target


def check_key(key: object) -> str:
    if not isinstance(key, str) or not KEY_PATTERN.match(key):  # the caller's bug
        raise ValueError(
            f"an idempotency key is 1..200 letters, digits or '_.:/-', not {key!r:.60}"
        )
    return key


def check_digest(digest: object) -> str:
    if not isinstance(digest, str) or not _DIGEST.match(digest):
        raise ValueError("a credential digest is 64 lowercase hex digits (SHA-256)")
    return digest
