"""DEAL-1..DEAL-3: chip chop, ICM (Malmuth-Harville) and equal deals at the final table."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.core.deals import (
    Deal,
    DealKind,
    DealVote,
    chip_chop,
    icm,
    icm_equities,
    propose_deal,
)
from orchestrator.errors import DealError


@st.composite
def tables(draw: st.DrawFn, max_players: int = 7) -> tuple[list[int], list[int]]:
    """Stacks of 2..max_players players and the prizes of their places, never rising."""
    chips = draw(st.lists(st.integers(1, 10**7), min_size=2, max_size=max_players))
    prizes = draw(
        st.lists(st.integers(0, 10**8), min_size=len(chips), max_size=len(chips)).map(
            lambda xs: sorted(xs, reverse=True)
        )
    )
    return chips, prizes


def _names(n: int) -> list[str]:
    return [f"p{k}" for k in range(n)]


@given(table=tables(), kind=st.sampled_from(list(DealKind)), left_share=st.floats(0, 1))
def test_deal2_every_proposal_pays_exactly_the_unpaid_pool_in_whole_cents(
    table: tuple[list[int], list[int]], kind: DealKind, left_share: float
) -> None:
    chips, prizes = table
    left = int((prizes[0] - prizes[1]) * left_share)
    deal = propose_deal(kind, dict(zip(_names(len(chips)), chips, strict=True)), prizes, left=left)
    assert sum(deal.amounts) == sum(prizes) - left
    assert all(type(a) is int and a >= 0 for a in deal.amounts)


@given(
    chips=st.tuples(st.integers(1, 10**7), st.integers(1, 10**7)),
    prizes=st.tuples(st.integers(0, 10**8), st.integers(0, 10**8)).map(
        lambda p: sorted(p, reverse=True)
    ),
)
def test_deal2_icm_of_two_players_is_the_closed_form(
    chips: tuple[int, int], prizes: list[int]
) -> None:
    first, second = prizes
    a, b = chips
    equities = icm_equities(list(chips), prizes)
    assert equities[0] == second + Fraction(first - second) * Fraction(a, a + b)
    assert equities[1] == second + Fraction(first - second) * Fraction(b, a + b)


@given(table=tables(max_players=6), data=st.data())
def test_deal2_icm_is_symmetric_in_the_players(
    table: tuple[list[int], list[int]], data: st.DataObject
) -> None:
    chips, prizes = table
    order = data.draw(st.permutations(range(len(chips))))
    equities = icm_equities(chips, prizes)
    shuffled = icm_equities([chips[k] for k in order], prizes)
    assert shuffled == [equities[k] for k in order]
    assert sum(equities) == sum(prizes)


@given(table=tables(max_players=6))
def test_deal2_icm_is_monotone_in_chips(table: tuple[list[int], list[int]]) -> None:
    chips, prizes = table
    equities = icm_equities(chips, prizes)
    for i in range(len(chips)):
        for j in range(len(chips)):
            if chips[i] > chips[j]:
                assert equities[i] >= equities[j]
            if chips[i] == chips[j]:
                assert equities[i] == equities[j]


def test_deal2_icm_is_exact_for_ten_players_and_refuses_more() -> None:
    prizes = [30_000, 20_000, 14_000, 10_000, 8000, 6000, 5000, 3500, 2500, 1000]
    equities = icm_equities([1000 * (k + 1) for k in range(10)], prizes)
    assert sum(equities) == sum(prizes)
    assert equities == sorted(equities)
    with pytest.raises(DealError, match="up to 10 players"):
        icm_equities([1] * 11, [*prizes, 0])


def test_deal2_chip_chop_guarantees_the_next_place_then_shares_by_chips() -> None:
    deal = chip_chop(["big", "mid", "short"], [60_000, 30_000, 10_000], [50_000, 30_000, 20_000])
    # 20,000 each, then the 40,000 left by chips: 24,000, 12,000, 4,000
    assert deal.amounts == (44_000, 32_000, 24_000)


def test_deal2_icm_is_known_three_player_values() -> None:
    # Malmuth-Harville written out for three players: first by chips, second among the rest
    equities = icm_equities([50, 30, 20], [5000, 3000, 2000])
    p1 = [Fraction(50, 100), Fraction(30, 100), Fraction(20, 100)]
    second = [
        sum(p1[j] * Fraction([50, 30, 20][i], 100 - [50, 30, 20][j]) for j in range(3) if j != i)
        for i in range(3)
    ]
    expected = [2000 + 3000 * p1[i] + 1000 * second[i] for i in range(3)]
    assert equities == expected


def test_deal2_an_amount_left_with_the_title_comes_off_first_place() -> None:
    deal = icm(["a", "b"], [3000, 1000], [7000, 3000], left=1000)
    # the deal shares 6,000 + 3,000 over a first place of 6,000: 3,000 + 3,000 * 3/4
    assert deal.amounts == (5250, 3750) and deal.left == 1000
    with pytest.raises(DealError, match=r"deal\.left must be 0\.\.4000"):
        icm(["a", "b"], [3000, 1000], [7000, 3000], left=4001)


def test_deal2_equal_split_leaves_no_cent_behind() -> None:
    deal = propose_deal("equal", {"a": 100, "b": 300, "c": 200}, [600, 301, 100])
    assert deal.amounts == (333, 334, 334)  # the 2 cents left go to more chips first


@pytest.mark.parametrize(
    ("stacks", "prizes", "message"),
    [
        ({"a": 100}, [100], "at least 2 players"),
        ({"a": 100, "b": 0}, [100, 50], "holds chips"),
        ({"a": 100, "b": 50}, [100], "need 2 prizes"),
        ({"a": 100, "b": 50}, [50, 100], "must not rise"),
    ],
)
def test_deal2_bad_proposals_are_refused_naming_the_problem(
    stacks: dict[str, int], prizes: list[int], message: str
) -> None:
    with pytest.raises(DealError, match=message):
        propose_deal("icm", stacks, prizes)
    with pytest.raises(DealError, match="one of chip_chop, icm, equal"):
        propose_deal("half", {"a": 1, "b": 1}, [2, 1])


def test_deal1_every_player_must_accept() -> None:
    deal = propose_deal("chip_chop", {"a": 300, "b": 100}, [700, 300])
    vote = DealVote(deal)
    assert vote.accept("a") is False and vote.waiting_for == ("b",)
    assert not vote.can_answer("a") and not vote.can_answer("zed")
    with pytest.raises(DealError, match="already accepted"):
        vote.accept("a")
    with pytest.raises(DealError, match="not in the deal"):
        vote.accept("zed")
    assert vote.accept("b") is True


def test_deal_records_name_every_amount() -> None:
    deal = propose_deal("icm", {"a": 3000, "b": 1000}, [700, 300])
    assert isinstance(deal, Deal) and deal.kind is DealKind.ICM
    assert (deal.amount_of("a"), deal.amount_of("b")) == (600, 400)
