"""The built-in wallet (`Accounts`) in the tournament store's SQLite file, on its own
connection (as the used-deck store is). Every movement is one `BEGIN IMMEDIATE` transaction
that checks the key, moves the balance and records the key together, so a crash keeps both or
neither; `synchronous=FULL`, as for the event log: money acknowledged is on disk.
"""

from __future__ import annotations

import hmac

from orchestrator.errors import (
    AccountExistsError,
    UnknownAccountError,
)
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
from orchestrator.shell.store.sqlite_file import SqliteFile

__all__ = ["SqliteAccounts"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS wallets (
    account TEXT PRIMARY KEY,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    credential TEXT NOT NULL            -- SHA-256 digest of the credential, never the secret
);
CREATE TABLE IF NOT EXISTS wallet_moves (
    key TEXT PRIMARY KEY,               -- the caller's idempotency key
    account TEXT NOT NULL,
    kind TEXT NOT NULL,                 -- debit or credit; SAT-3: ticket-debit <target>, ...
    amount INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS wallet_tickets (  -- SAT-3: tickets held, per player and target
    account TEXT NOT NULL,
    target TEXT NOT NULL,
    held INTEGER NOT NULL CHECK (held >= 0),
    PRIMARY KEY (account, target)
);
"""


class SqliteAccounts(KeyedMoves):
    def __init__(self, path: str) -> None:
        self._file = SqliteFile(path, _SCHEMA, name="sqlite accounts")

    def open(self, account: str, *, balance: int, credential_digest: str) -> None:
        check_account(account)
        check_opening(balance)
        check_digest(credential_digest)
        with self._file.transaction(f"open {account!r}") as db:
            if db.execute("SELECT 1 FROM wallets WHERE account = ?", (account,)).fetchone():
                raise AccountExistsError(f"the account {account!r} exists already")
            db.execute(
                "INSERT INTO wallets (account, balance, credential) VALUES (?, ?, ?)",
                (account, balance, credential_digest),
            )

    def authenticate(self, account: str, credential_digest: str) -> bool:
        row = self._row(account)
        return row is not None and hmac.compare_digest(row[1], credential_digest.encode())

    def balance(self, account: str) -> int:
        row = self._row(account)
        if row is None:
            raise UnknownAccountError(f"no account {account!r}")
        return row[0]

    def tickets(self, account: str) -> dict[str, int]:
        if self._row(account) is None:
            raise UnknownAccountError(f"no account {account!r}")
        rows = self._file.query(
            f"tickets of {account!r}",
            "SELECT target, held FROM wallet_tickets WHERE account = ? ORDER BY target",
            (account,),
        )
        return {str(target): int(held) for target, held in rows}

    def close(self) -> None:
        self._file.close()

    # --- internals -----------------------------------------------------------------------

    def _row(self, account: str) -> tuple[int, bytes] | None:
        check_account(account)
        rows = self._file.query(
            f"read {account!r}",
            "SELECT balance, credential FROM wallets WHERE account = ?",
            (account,),
        )
        return (int(rows[0][0]), str(rows[0][1]).encode()) if rows else None

    def _move(self, account: str, kind: MoveKind, amount: int, key: str, *, target: str) -> int:
        recorded = moved(kind, target)
        what = f"{kind} {account!r}" + (f" (a ticket to {target})" if target else "")
        with self._file.transaction(what) as db:
            done = db.execute(
                "SELECT account, kind, amount FROM wallet_moves WHERE key = ?", (key,)
            ).fetchone()
            row = db.execute("SELECT balance FROM wallets WHERE account = ?", (account,)).fetchone()
            if row is None:
                raise UnknownAccountError(f"no account {account!r}")
            if target:
                row = db.execute(
                    "SELECT held FROM wallet_tickets WHERE account = ? AND target = ?",
                    (account, target),
                ).fetchone() or (0,)
            balance = int(row[0])
            if done is not None:
                if tuple(done) != (account, recorded, amount):
                    raise key_conflict(key, recorded, amount, account)
                return balance  # repeated: nothing moves again
            after = balance - amount if kind == "debit" else balance + amount
            if after < 0:
                raise overdraft(account, balance, amount, target)
            if after > MAX_CENTS:
                raise overflow(account)
            if target:
                db.execute(
                    "INSERT INTO wallet_tickets (account, target, held) VALUES (?, ?, ?) "
                    "ON CONFLICT (account, target) DO UPDATE SET held = excluded.held",
                    (account, target, after),
                )
            else:
                db.execute("UPDATE wallets SET balance = ? WHERE account = ?", (after, account))
            db.execute(
                "INSERT INTO wallet_moves (key, account, kind, amount) VALUES (?, ?, ?, ?)",
                (key, account, recorded, amount),
            )
            return after
