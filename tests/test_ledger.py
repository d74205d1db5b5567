"""The money ledger by rule: REG-1 entries, REG-2 refunds with the cancellation charge, CRASH-1
full refunds, prizes, the CRASH-2 roll-forward and its remainder rule; typed refusals that
change nothing; and a hypothesis property: any sequence of operations keeps the books balanced
to the cent with no account below zero."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.core.ledger import Ledger
from orchestrator.core.ledger_amounts import cancellation_charge
from orchestrator.core.ledger_records import (
    OPERATOR,
    POOL,
    EntryStatus,
    Reason,
    player_account,
    posting_event,
)
from orchestrator.errors import (
    AccountExistsError,
    InsufficientFundsError,
    InvalidAmountError,
    LedgerError,
    NoEntryError,
    UnknownAccountError,
)

BUY_IN, FEE = 10_000, 1_000


def funded(*players: str, balance: int = 100_000) -> Ledger:
    ledger = Ledger()
    for player in players:
        ledger.open_account(player, balance, now=0.0)
    return ledger


def entered(*players: str) -> Ledger:
    ledger = funded(*players)
    for player in players:
        ledger.entry(player, buy_in=BUY_IN, fee=FEE, now=1.0)
    return ledger


def test_reg1_entry_pays_buy_in_to_pool_and_fee_to_operator() -> None:
    ledger = funded("ann")
    postings = ledger.entry("ann", buy_in=BUY_IN, fee=FEE, now=5.0)
    assert [(p.source, p.target, p.amount, p.reason) for p in postings] == [
        (player_account("ann"), POOL, BUY_IN, Reason.BUY_IN),
        (player_account("ann"), OPERATOR, FEE, Reason.FEE),
    ]
    assert all(p.rule == "REG-1" and p.player == "ann" and p.at == 5.0 for p in postings)
    assert (ledger.pool, ledger.operator, ledger.balance_of("ann")) == (BUY_IN, FEE, 89_000)
    ledger.check()


def test_reg1_reentry_is_another_full_entry() -> None:
    ledger = entered("ann")
    ledger.entry("ann", buy_in=BUY_IN, fee=FEE, now=2.0)
    assert [e.number for e in ledger.entries] == [1, 2]
    assert (ledger.pool, ledger.operator) == (2 * BUY_IN, 2 * FEE)


def test_rb2_prepaid_rebuys_add_nothing_beyond_the_entry() -> None:
    # RB-2: three rebuys are inside the entry; the ledger has no rebuy posting at all
    ledger = entered("ann", "bob")
    assert ledger.pool == 2 * BUY_IN
    assert not hasattr(ledger, "rebuy")


def test_reg2_unregister_refunds_entry_less_cancellation_charge() -> None:
    ledger = entered("ann")
    refund = ledger.refund_entry("ann", charge_bp=1_000, now=3.0)  # 10%
    assert (refund.refund, refund.charge) == (9_900, 1_100)
    assert ledger.balance_of("ann") == 100_000 - 1_100
    # the pool holds only entries in play; the charge is the operator's
    assert (ledger.pool, ledger.operator) == (0, 1_100)
    assert [p.reason for p in refund.postings] == [
        Reason.REFUND_BUY_IN,
        Reason.REFUND_FEE,
        Reason.CANCELLATION_CHARGE,
    ]
    assert ledger.entries[0].status is EntryStatus.REFUNDED
    ledger.check()


def test_reg2_charge_rounds_down_in_the_players_favour() -> None:
    assert cancellation_charge(999, 250) == 24  # 24.975
    assert cancellation_charge(11_000, 0) == 0
    ledger = entered("ann")
    assert ledger.refund_entry("ann", now=2.0).refund == BUY_IN + FEE


def test_crash1_cancel_in_registration_refunds_every_entry_in_full() -> None:
    ledger = entered("ann", "bob", "cy")
    ledger.refund_entry("cy", charge_bp=500, now=2.0)
    postings = ledger.refund_all(now=3.0)
    assert {p.player for p in postings} == {"ann", "bob"}
    assert all(p.rule == "CRASH-1" for p in postings)
    assert ledger.balance_of("ann") == ledger.balance_of("bob") == 100_000
    assert ledger.pool == 0 and ledger.operator == 550  # only cy's REG-2 charge
    ledger.check()


def test_prize_comes_from_the_pool_and_cannot_overdraw_it() -> None:
    ledger = entered("ann", "bob")
    posting = ledger.award_prize("ann", 15_000, now=9.0)
    assert posting is not None and posting.source == POOL and posting.amount == 15_000
    assert ledger.award_prize("bob", 0, now=9.0) is None
    before = ledger.snapshot()
    with pytest.raises(InsufficientFundsError, match="pool"):
        ledger.award_prize("bob", 5_001, now=9.0)
    assert ledger.snapshot() == before


def test_crash2_roll_forward_splits_half_equally_half_by_chips() -> None:
    ledger = entered("ann", "bob", "cy", "dee")  # pool 40,000; dee is already eliminated
    rolled = ledger.roll_forward({"ann": 6_000, "bob": 3_000, "cy": 1_000}, now=10.0)
    shares = {s.player: (s.fee, s.equal_share, s.chip_share) for s in rolled.shares}
    # equal half 20,000 / 3 = 6,666 r 2 -> one cent each to the two biggest stacks
    assert shares == {
        "ann": (FEE, 6_667, 12_000),
        "bob": (FEE, 6_667, 6_000),
        "cy": (FEE, 6_666, 2_000),
    }
    assert ledger.pool == 0
    assert ledger.operator == FEE  # dee's commission stays: dee gets nothing more
    assert ledger.balance_of("dee") == 100_000 - BUY_IN - FEE
    assert {p.rule for p in rolled.postings} == {"CRASH-2"}
    ledger.check()


def test_crash2_prizes_already_won_are_kept() -> None:
    ledger = entered("ann", "bob", "cy")  # pool 30,000
    ledger.award_prize("cy", 9_001, now=5.0)  # cy finished 3rd in the money
    ledger.roll_forward({"ann": 2, "bob": 1}, now=6.0)
    assert ledger.balance_of("cy") == 100_000 - BUY_IN - FEE + 9_001
    # pool 20,999: chip half 10,499 -> 6,999.33 / 3,499.67, equal half 10,500 -> 5,250 each;
    # the cent left goes to the largest remainder, bob's .67 (CRASH-2 Decision; it went to the
    # bigger stack, ann, before the Decision)
    assert ledger.balance_of("ann") - (100_000 - BUY_IN) == 5_250 + 6_999
    assert ledger.balance_of("bob") - (100_000 - BUY_IN) == 5_250 + 3_500
    assert ledger.pool == 0
    ledger.check()


def test_crash2_remainder_cents_go_to_the_biggest_stacks_ties_by_name() -> None:
    ledger = funded("a", "b", "c")
    for player in "abc":
        ledger.entry(player, buy_in=3, fee=0, now=1.0)
    ledger.award_prize("a", 2, now=2.0)  # pool 7: chip half 3, equal half 4
    rolled = ledger.roll_forward({"a": 10, "b": 10, "c": 10}, now=3.0)
    assert [(s.player, s.equal_share, s.chip_share) for s in rolled.shares] == [
        ("a", 2, 1),
        ("b", 1, 1),
        ("c", 1, 1),
    ]


def test_crash2_leftover_cents_go_to_the_largest_remainders_then_chips_then_the_button() -> None:
    ledger = funded("a", "b", "c", "d")
    for player in "abcd":
        ledger.entry(player, buy_in=25, fee=0, now=1.0)
    # pool 100: equal half 50 (12.5 each), chip half 50 by 3:3:2:2 (15, 15, 10, 10): exact
    # shares 27.5, 27.5, 22.5, 22.5, all .5 left over: two cents to the two bigger stacks.
    rolled = ledger.roll_forward({"a": 3, "b": 3, "c": 2, "d": 2}, now=2.0)
    totals = {s.player: s.equal_share + s.chip_share for s in rolled.shares}
    assert totals == {"a": 28, "b": 28, "c": 22, "d": 22}
    # equal chips everywhere: nearer the button clockwise first (d on it, then b).
    ledger = funded("a", "b", "c", "d")
    for player in "abcd":
        ledger.entry(player, buy_in=25, fee=0, now=1.0)
    ledger.award_prize("a", 2, now=1.5)  # pool 98: 24.5 each
    rolled = ledger.roll_forward(
        {p: 5 for p in "abcd"}, now=2.0, button_distance={"a": 3, "b": 1, "c": 2, "d": 0}
    )
    totals = {s.player: s.equal_share + s.chip_share for s in rolled.shares}
    assert totals == {"a": 24, "b": 25, "c": 24, "d": 25}


@settings(max_examples=300, deadline=None)
@given(
    stacks=st.lists(st.integers(0, 50_000), min_size=1, max_size=9),
    pool=st.integers(0, 1_000_000),
    data=st.data(),
)
def test_crash2_no_share_above_its_exact_value_rounded_up(
    stacks: list[int], pool: int, data: st.DataObject
) -> None:
    names = [f"p{k}" for k in range(len(stacks))]
    ledger = funded(*names, balance=1_000_000)
    for k, name in enumerate(names):  # the pool as entries, the first paying the rest
        ledger.entry(name, buy_in=pool if k == 0 else 0, fee=0, now=1.0)
    distances = data.draw(st.permutations(range(len(names))))
    rolled = ledger.roll_forward(
        dict(zip(names, stacks, strict=True)),
        now=2.0,
        button_distance=dict(zip(names, distances, strict=True)),
    )
    n, total = len(stacks), sum(stacks)
    weights = stacks if total else [1] * n
    chip_half, equal_half = pool // 2, pool - pool // 2
    got = {s.player: (s.equal_share, s.chip_share) for s in rolled.shares}
    assert sum(e for e, _ in got.values()) == equal_half
    assert sum(c for _, c in got.values()) == chip_half
    exact = {}
    for name, weight in zip(names, weights, strict=True):
        numerator = equal_half * sum(weights) + chip_half * weight * n  # over n * sum(weights)
        exact[name] = numerator
        share = sum(got[name])
        low = numerator // (n * sum(weights))
        assert low <= share <= -(-numerator // (n * sum(weights)))
    # the cents above the rounded-down shares went to the largest remainders
    denominator = n * sum(weights)
    lucky = [p for p in names if sum(got[p]) * denominator > exact[p]]
    unlucky = [p for p in names if sum(got[p]) * denominator < exact[p] and p not in lucky]
    if lucky and unlucky:
        assert min(exact[p] % denominator for p in lucky) >= max(
            exact[p] % denominator for p in unlucky
        )
    assert ledger.pool == 0


def test_crash2_all_stacks_zero_split_the_chip_half_equally() -> None:
    ledger = entered("a", "b")
    rolled = ledger.roll_forward({"a": 0, "b": 0}, now=3.0)
    assert [s.equal_share + s.chip_share for s in rolled.shares] == [BUY_IN, BUY_IN]


def test_crash2_roll_forward_twice_is_refused() -> None:
    ledger = entered("a", "b")
    ledger.roll_forward({"a": 1, "b": 1}, now=3.0)
    before = ledger.snapshot()
    with pytest.raises(NoEntryError):
        ledger.roll_forward({"a": 1, "b": 1}, now=4.0)
    assert ledger.snapshot() == before


def test_postings_go_to_the_log_as_ledger_posted_events() -> None:
    ledger = entered("ann")
    event = posting_event(ledger.postings[1])
    assert event.EVENT_TYPE == "ledger_posted"
    assert event.fields() == {
        "posting": 2,
        "source": "player:ann",
        "target": "operator",
        "amount": FEE,
        "reason": "fee",
    }


BAD: dict[str, Callable[[Ledger], object]] = {
    "negative buy-in": lambda lg: lg.entry("ann", buy_in=-1, fee=0, now=1.0),
    "bool fee": lambda lg: lg.entry("ann", buy_in=1, fee=True, now=1.0),
    "float prize": lambda lg: lg.award_prize("ann", 1.5, now=1.0),  # type: ignore[arg-type]
    "negative prize": lambda lg: lg.award_prize("ann", -5, now=1.0),
    "unknown account": lambda lg: lg.entry("zed", buy_in=1, fee=1, now=1.0),
    "account twice": lambda lg: lg.open_account("ann", 5, now=1.0),
    "charge above 100%": lambda lg: lg.refund_entry("ann", charge_bp=10_001, now=1.0),
    "player overdrawn": lambda lg: lg.entry("ann", buy_in=200_000, fee=0, now=1.0),
    "pool overdrawn": lambda lg: lg.award_prize("ann", BUY_IN + 1, now=1.0),
    "refund without entry": lambda lg: lg.refund_entry("bob", now=1.0),
    "roll forward unknown": lambda lg: lg.roll_forward({"zed": 5}, now=1.0),
    "roll forward negative chips": lambda lg: lg.roll_forward({"ann": -1}, now=1.0),
    "roll forward nobody": lambda lg: lg.roll_forward({}, now=1.0),
}
BAD_TYPES = {
    "negative buy-in": InvalidAmountError,
    "bool fee": InvalidAmountError,
    "float prize": InvalidAmountError,
    "negative prize": InvalidAmountError,
    "unknown account": UnknownAccountError,
    "account twice": AccountExistsError,
    "charge above 100%": InvalidAmountError,
    "player overdrawn": InsufficientFundsError,
    "pool overdrawn": InsufficientFundsError,
    "refund without entry": NoEntryError,
    "roll forward unknown": UnknownAccountError,
    "roll forward negative chips": InvalidAmountError,
    "roll forward nobody": NoEntryError,
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_impossible_postings_raise_typed_errors_and_change_nothing(case: str) -> None:
    ledger = entered("ann")
    ledger.open_account("bob", 50, now=0.5)
    before = ledger.snapshot()
    with pytest.raises(BAD_TYPES[case]):
        BAD[case](ledger)
    assert ledger.snapshot() == before
    ledger.check()


# --- property: any sequence keeps the books balanced ---------------------------------------

PLAYERS = ("p0", "p1", "p2", "p3", "p4")
operation = st.one_of(
    st.tuples(
        st.just("entry"), st.sampled_from(PLAYERS), st.integers(0, 3_000), st.integers(0, 500)
    ),
    st.tuples(st.just("refund"), st.sampled_from(PLAYERS), st.integers(0, 10_000), st.just(0)),
    st.tuples(st.just("prize"), st.sampled_from(PLAYERS), st.integers(0, 4_000), st.just(0)),
    st.tuples(st.just("refund_all"), st.just(""), st.just(0), st.just(0)),
    st.tuples(
        st.just("roll_forward"),
        st.sets(st.sampled_from(PLAYERS), min_size=1).map(lambda s: ",".join(sorted(s))),
        st.integers(0, 5_000),
        st.integers(0, 5_000),
    ),
)


def apply(ledger: Ledger, op: tuple[str, str, int, int], now: float) -> None:
    kind, player, x, y = op
    if kind == "entry":
        ledger.entry(player, buy_in=x, fee=y, now=now)
    elif kind == "refund":
        ledger.refund_entry(player, charge_bp=x, now=now)
    elif kind == "prize":
        ledger.award_prize(player, x, now=now)
    elif kind == "refund_all":
        ledger.refund_all(now=now)
    else:
        names = player.split(",")
        ledger.roll_forward({p: (x + k * y) % 7_001 for k, p in enumerate(names)}, now=now)


@settings(max_examples=200, deadline=None)
@given(
    balances=st.lists(st.integers(0, 8_000), min_size=len(PLAYERS), max_size=len(PLAYERS)),
    ops=st.lists(operation, max_size=40),
)
def test_any_sequence_keeps_the_ledger_balanced_to_the_cent(
    balances: list[int], ops: list[tuple[str, str, int, int]]
) -> None:
    ledger = Ledger()
    for player, balance in zip(PLAYERS, balances, strict=True):
        ledger.open_account(player, balance, now=0.0)
    opened = sum(balances)
    for step, op in enumerate(ops, start=1):
        before = ledger.snapshot()
        try:
            apply(ledger, op, float(step))
        except LedgerError:
            assert ledger.snapshot() == before
        ledger.check()
        assert ledger.total() == opened
        assert min(ledger.balances().values()) >= 0
        # the pool never holds more than the buy-ins of the entries still paid
        live = sum(e.buy_in for e in ledger.entries if e.status is EntryStatus.PAID)
        assert ledger.pool <= live
        assert [p.number for p in ledger.postings] == list(range(1, len(ledger.postings) + 1))


def test_wallet_deposits_and_cash_outs_keep_the_books_balanced() -> None:
    """Money from a player's wallet comes in as an opening (`deposit`, the first one opening
    his account) and leaves to it as a posting to `wallet` (`cash_out`): the ledger still counts
    it, so `check()` holds; an overdrawn cash-out moves nothing."""
    ledger = Ledger()
    ledger.deposit("ann", BUY_IN + FEE, now=0.0)  # opens her account
    ledger.entry("ann", buy_in=BUY_IN, fee=FEE, now=1.0)
    refund = ledger.refund_entry("ann", charge_bp=1_000, now=2.0)
    posting = ledger.cash_out("ann", refund.refund, now=3.0)
    assert posting is not None and posting.reason is Reason.CASH_OUT and posting.rule == "WALLET"
    assert ledger.balance_of("ann") == 0 and ledger.operator == 1_100
    ledger.deposit("ann", BUY_IN + FEE, now=4.0)  # a second deposit into the same account
    ledger.entry("ann", buy_in=BUY_IN, fee=FEE, now=5.0)
    assert ledger.paid_entries() == {"ann": BUY_IN + FEE}
    before = ledger.snapshot()
    with pytest.raises(InsufficientFundsError):
        ledger.cash_out("ann", 1, now=6.0)
    with pytest.raises(InvalidAmountError):
        ledger.deposit("ann", -1, now=6.0)
    assert ledger.snapshot() == before
    assert ledger.cash_out("ann", 0, now=6.0) is None
    ledger.check()
    assert ledger.total() == 2 * (BUY_IN + FEE)  # all it was brought, the cash-out included
