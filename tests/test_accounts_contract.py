"""One contract for every built-in wallet backend (the `Accounts` port,
orchestrator/shell/store/accounts.py): SQLite in a file and a real redis-server on 127.0.0.1.
Every call is idempotent by its key (a retry never moves money twice); a key reused for another
movement, an amount out of range or an overdraft is refused with nothing moved."""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.errors import (
    AccountExistsError,
    IdempotencyConflictError,
    InsufficientFundsError,
    InvalidAmountError,
    StoreUnavailable,
    UnknownAccountError,
)
from orchestrator.shell.store import Accounts, Store, open_store
from orchestrator.shell.store.accounts import MAX_CENTS


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "redis":
        url = request.getfixturevalue("redis_server").url
    else:
        url = f"sqlite:///{tmp_path / 'store.db'}"
    opened = open_store(url)
    yield opened
    opened.close()


@pytest.fixture
def wallet(store: Store) -> Accounts:
    return store.accounts


def test_open_balance_and_credential(wallet: Accounts) -> None:
    wallet.open("ann", balance=5_000, credential_digest=digest("ann-secret"))
    assert wallet.balance("ann") == 5_000
    assert wallet.authenticate("ann", digest("ann-secret"))
    assert not wallet.authenticate("ann", digest("bob-secret"))
    assert not wallet.authenticate("nobody", digest("ann-secret"))
    with pytest.raises(AccountExistsError):  # the name is taken: balance and secret unchanged
        wallet.open("ann", balance=1, credential_digest=digest("other"))
    assert wallet.balance("ann") == 5_000 and wallet.authenticate("ann", digest("ann-secret"))
    with pytest.raises(UnknownAccountError):
        wallet.balance("bob")


def test_debit_and_credit_are_idempotent_by_key(wallet: Accounts) -> None:
    wallet.open("ann", balance=5_000, credential_digest=digest("s"))
    assert wallet.debit("ann", 1_100, key="fri/entry/ann/1") == 3_900
    assert wallet.debit("ann", 1_100, key="fri/entry/ann/1") == 3_900  # a retry: nothing moves
    assert wallet.credit("ann", 990, key="fri/refund/ann/1") == 4_890
    assert wallet.credit("ann", 990, key="fri/refund/ann/1") == 4_890
    assert wallet.balance("ann") == 4_890


def test_replayed_key_with_another_amount_account_or_kind_is_refused(wallet: Accounts) -> None:
    wallet.open("ann", balance=5_000, credential_digest=digest("s"))
    wallet.open("bob", balance=5_000, credential_digest=digest("t"))
    wallet.debit("ann", 1_100, key="k1")
    with pytest.raises(IdempotencyConflictError):
        wallet.debit("ann", 1_200, key="k1")
    with pytest.raises(IdempotencyConflictError):
        wallet.debit("bob", 1_100, key="k1")
    with pytest.raises(IdempotencyConflictError):
        wallet.credit("ann", 1_100, key="k1")
    assert (wallet.balance("ann"), wallet.balance("bob")) == (3_900, 5_000)


def test_overdraft_moves_nothing_and_leaves_the_key_free(wallet: Accounts) -> None:
    wallet.open("ann", balance=1_000, credential_digest=digest("s"))
    with pytest.raises(InsufficientFundsError):
        wallet.debit("ann", 1_100, key="fri/entry/ann/1")
    assert wallet.balance("ann") == 1_000
    wallet.credit("ann", 100, key="top-up/1")
    assert wallet.debit("ann", 1_100, key="fri/entry/ann/1") == 0  # now it goes through


@pytest.mark.parametrize("amount", [0, -1, -(10**15), MAX_CENTS + 1, 2**63, True, 1.5, "10"])
def test_amounts_outside_whole_cents_1_to_max_are_refused(wallet: Accounts, amount: object) -> None:
    wallet.open("ann", balance=1_000, credential_digest=digest("s"))
    for call in (wallet.debit, wallet.credit):
        with pytest.raises(InvalidAmountError):
            call("ann", amount, key="k")  # type: ignore[arg-type]
    assert wallet.balance("ann") == 1_000
    wallet.credit("ann", 1, key="k")  # the key was not used up by the refusals


def test_no_balance_above_the_ceiling_or_opening_out_of_range(wallet: Accounts) -> None:
    wallet.open("rich", balance=MAX_CENTS, credential_digest=digest("s"))
    with pytest.raises(InvalidAmountError):
        wallet.credit("rich", 1, key="k")
    assert wallet.balance("rich") == MAX_CENTS
    for balance in (-1, MAX_CENTS + 1):
        with pytest.raises(InvalidAmountError):
            wallet.open("poor", balance=balance, credential_digest=digest("s"))
    with pytest.raises(UnknownAccountError):
        wallet.balance("poor")


def test_unknown_or_malformed_accounts_and_keys(wallet: Accounts) -> None:
    with pytest.raises(UnknownAccountError):
        wallet.debit("ghost", 1, key="k")
    with pytest.raises(UnknownAccountError):
        wallet.balance("../etc" + "x" * 40)
    wallet.open("ann", balance=10, credential_digest=digest("s"))
    with pytest.raises(ValueError, match="idempotency key"):
        wallet.debit("ann", 1, key="")
    with pytest.raises(ValueError, match="digest"):
        wallet.open("bob", balance=1, credential_digest="plain-secret")


def test_concurrent_retries_move_money_once(store: Store) -> None:
    """Many threads repeating one debit (retries racing each other), and many distinct debits
    on one account: each key moves money once and no debit overdraws."""
    wallet = store.accounts
    wallet.open("ann", balance=1_000, credential_digest=digest("s"))

    def hammer(n: int) -> None:
        for k in range(20):
            wallet.debit("ann", 7, key="same-debit")
            with contextlib.suppress(InsufficientFundsError):
                wallet.debit("ann", 50, key=f"debit-{n}-{k}")

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    left = wallet.balance("ann")
    assert 0 <= left < 50 and (1_000 - 7 - left) % 50 == 0


def test_an_unreachable_redis_is_store_unavailable() -> None:
    store = open_store("redis://127.0.0.1:1/0")
    with pytest.raises(StoreUnavailable):
        store.accounts.balance("ann")
    store.close()


def test_sat3_tickets_per_target_spent_once_apart_from_cash(wallet: Accounts) -> None:
    wallet.open("ann", balance=500, credential_digest=digest("a"))
    assert wallet.tickets("ann") == {}
    assert wallet.credit_ticket("ann", "main-event", 11_000, key="sat/ticket/7") == 11_000
    assert wallet.credit_ticket("ann", "main-event", 11_000, key="sat/ticket/7") == 11_000
    assert wallet.tickets("ann") == {"main-event": 11_000}
    assert wallet.balance("ann") == 500  # a ticket is never cash
    with pytest.raises(InsufficientFundsError, match="in tickets to other"):
        wallet.debit_ticket("ann", "other", 11_000, key="other/ticket-entry/ann/1")
    assert wallet.debit_ticket("ann", "main-event", 11_000, key="main-event/ticket/ann/1") == 0
    assert wallet.debit_ticket("ann", "main-event", 11_000, key="main-event/ticket/ann/1") == 0
    with pytest.raises(InsufficientFundsError):  # spent once
        wallet.debit_ticket("ann", "main-event", 11_000, key="main-event/ticket/ann/2")
    assert wallet.tickets("ann") == {"main-event": 0}
    with pytest.raises(IdempotencyConflictError):  # a cash key is not a ticket's
        wallet.credit("ann", 11_000, key="main-event/ticket/ann/1")
    with pytest.raises(IdempotencyConflictError):  # nor one target's another's
        wallet.debit_ticket("ann", "other", 11_000, key="main-event/ticket/ann/1")
    assert wallet.balance("ann") == 500 and wallet.tickets("ann") == {"main-event": 0}
    with pytest.raises(UnknownAccountError):
        wallet.credit_ticket("bob", "main-event", 11_000, key="sat/ticket/8")
    with pytest.raises(UnknownAccountError):
        wallet.tickets("bob")
    with pytest.raises(UnknownAccountError):  # a target is a tournament id
        wallet.credit_ticket("ann", "no such/target", 1, key="sat/ticket/9")
    with pytest.raises(InvalidAmountError):
        wallet.credit_ticket("ann", "main-event", 0, key="sat/ticket/10")
