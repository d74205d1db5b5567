"""Tournament sanctions by rule: SAN-1 disqualification at the third standing warning, SAN-2
records (judge, reason, time) and the head judge's last word; the rulings the core carries out
(Disqualify, SitOut); refusals that change nothing; the SAN-1 count shared with Swiss."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.competition.swiss import sanctions as swiss_sanctions
from orchestrator.core import sanctions
from orchestrator.core.events import (
    PenaltyGiven,
    PlayerDisqualified,
    SanctionRescinded,
    WarningIssued,
)
from orchestrator.core.sanctions import Disqualify, SanctionBook, SanctionKind, SitOut
from orchestrator.errors import (
    AlreadyDisqualifiedError,
    InvalidSanctionError,
    NotInPlayError,
    SanctionError,
)

IN_PLAY = frozenset({"ann", "bob", "cy"})
HEAD = "Head"


def book() -> SanctionBook:
    return SanctionBook(head_judge=HEAD)


def test_san1_third_warning_disqualifies() -> None:
    sb = book()
    for k in (1, 2):
        ruling = sb.warn("ann", judge="Mario", reason=f"slow {k}", now=10.0 * k, in_play=IN_PLAY)
        assert ruling.actions == ()
        assert ruling.events == (
            WarningIssued(sanction=k, player="ann", judge="Mario", reason=f"slow {k}", warnings=k),
        )
    ruling = sb.warn("ann", judge="Luigi", reason="abuse", now=30.0, in_play=IN_PLAY)
    assert ruling.actions == (Disqualify("ann", 4),)
    assert ruling.events[1] == PlayerDisqualified(
        sanction=4, player="ann", judge="Luigi", reason="SAN-1: warning number 3 (abuse)"
    )
    assert sb.is_disqualified("ann") and not sb.is_disqualified("bob")


def test_san1_two_warnings_and_penalties_do_not_disqualify() -> None:
    sb = book()
    sb.warn("bob", judge="J", reason="r", now=1.0, in_play=IN_PLAY)
    sb.warn("bob", judge="J", reason="r", now=2.0, in_play=IN_PLAY)
    sb.penalize("bob", hands=3, judge="J", reason="exposed cards", now=3.0, in_play=IN_PLAY)
    assert sb.warnings_of("bob") == 2 and not sb.is_disqualified("bob")


def test_san2_every_sanction_records_judge_reason_and_time() -> None:
    sb = book()
    sb.warn("cy", judge="Mario", reason="chat abuse", now=1_700_000_000.5, in_play=IN_PLAY)
    record = sb.sanctions[0]
    assert (record.number, record.kind, record.player) == (1, SanctionKind.WARNING, "cy")
    assert (record.judge, record.reason, record.at) == ("Mario", "chat abuse", 1_700_000_000.5)


def test_san2_penalty_sits_the_player_out() -> None:
    sb = book()
    ruling = sb.penalize("cy", hands=2, judge="J", reason="slow roll", now=5.0, in_play=IN_PLAY)
    assert ruling.actions == (SitOut("cy", 2),)
    assert ruling.events == (
        PenaltyGiven(sanction=1, player="cy", judge="J", reason="slow roll", hands=2),
    )


def test_san2_only_the_head_judge_disqualifies_directly() -> None:
    sb = book()
    with pytest.raises(InvalidSanctionError, match="head judge"):
        sb.disqualify("bob", judge="Floor", reason="collusion", now=1.0, in_play=IN_PLAY)
    assert sb.sanctions == ()
    ruling = sb.disqualify("bob", judge=HEAD, reason="collusion", now=2.0, in_play=IN_PLAY)
    assert ruling.actions == (Disqualify("bob", 1),)


def test_san2_head_judge_rescinds_a_warning_which_then_does_not_count() -> None:
    sb = book()
    sb.warn("ann", judge="J", reason="r1", now=1.0, in_play=IN_PLAY)
    sb.warn("ann", judge="J", reason="r2", now=2.0, in_play=IN_PLAY)
    with pytest.raises(InvalidSanctionError, match="head judge"):
        sb.rescind(2, judge="J", reason="mistaken", now=3.0)
    ruling = sb.rescind(2, judge=HEAD, reason="mistaken", now=3.0)
    assert ruling.events == (
        SanctionRescinded(sanction=2, player="ann", judge=HEAD, reason="mistaken"),
    )
    assert sb.sanctions[1].rescinded_by == HEAD
    assert sb.warn("ann", judge="J", reason="r3", now=4.0, in_play=IN_PLAY).actions == ()
    assert sb.warnings_of("ann") == 2


def test_san2_rescinding_a_penalty_ends_the_sit_out() -> None:
    sb = book()
    sb.penalize("bob", hands=4, judge="J", reason="r", now=1.0, in_play=IN_PLAY)
    assert sb.rescind(1, judge=HEAD, reason="r", now=2.0).actions == (SitOut("bob", 0),)


def test_san1_a_disqualification_is_final() -> None:
    sb = book()
    for k in range(3):
        sb.warn("ann", judge="J", reason="r", now=float(k), in_play=IN_PLAY)
    before = sb.sanctions
    with pytest.raises(AlreadyDisqualifiedError):
        sb.warn("ann", judge="J", reason="again", now=9.0, in_play=IN_PLAY)
    with pytest.raises(InvalidSanctionError, match="final"):
        sb.rescind(4, judge=HEAD, reason="appeal", now=9.0)
    with pytest.raises(InvalidSanctionError, match="final"):
        sb.rescind(1, judge=HEAD, reason="appeal", now=9.0)
    assert sb.sanctions == before


BAD: dict[str, tuple[type[SanctionError], Callable[[SanctionBook], object]]] = {
    "no judge": (
        InvalidSanctionError,
        lambda sb: sb.warn("ann", judge=" ", reason="r", now=1.0, in_play=IN_PLAY),
    ),
    "no reason": (
        InvalidSanctionError,
        lambda sb: sb.penalize("ann", hands=1, judge="J", reason="", now=1.0, in_play=IN_PLAY),
    ),
    "not in play": (
        NotInPlayError,
        lambda sb: sb.warn("zed", judge="J", reason="r", now=1.0, in_play=IN_PLAY),
    ),
    "zero hands": (
        InvalidSanctionError,
        lambda sb: sb.penalize("ann", hands=0, judge="J", reason="r", now=1.0, in_play=IN_PLAY),
    ),
    "no such sanction": (
        InvalidSanctionError,
        lambda sb: sb.rescind(99, judge=HEAD, reason="r", now=1.0),
    ),
    "rescinded twice": (
        InvalidSanctionError,
        lambda sb: sb.rescind(1, judge=HEAD, reason="r", now=1.0),
    ),
    "disqualified already": (
        AlreadyDisqualifiedError,
        lambda sb: sb.disqualify("cy", judge=HEAD, reason="r", now=1.0, in_play=IN_PLAY),
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_refused_sanctions_raise_typed_errors_and_change_nothing(case: str) -> None:
    sb = book()
    sb.warn("bob", judge="J", reason="r", now=0.0, in_play=IN_PLAY)
    sb.rescind(1, judge=HEAD, reason="r", now=0.5)
    sb.disqualify("cy", judge=HEAD, reason="r", now=0.7, in_play=IN_PLAY)
    before = sb.sanctions
    error, command = BAD[case]
    with pytest.raises(error):
        command(sb)
    assert sb.sanctions == before


def test_book_needs_a_head_judge() -> None:
    with pytest.raises(InvalidSanctionError):
        SanctionBook(head_judge="")


def test_san1_count_is_shared_with_the_swiss_sanctions() -> None:
    assert swiss_sanctions.WARNINGS_TO_DISQUALIFY is sanctions.WARNINGS_TO_DISQUALIFY == 3


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["warn", "penalize", "rescind"]),
            st.sampled_from(sorted(IN_PLAY)),
            st.integers(1, 12),
        ),
        max_size=30,
    )
)
def test_san1_disqualified_exactly_at_three_standing_warnings(
    script: list[tuple[str, str, int]],
) -> None:
    sb = book()
    dq_actions: list[str] = []
    for step, (command, player, k) in enumerate(script):
        now = float(step)
        try:
            if command == "warn":
                ruling = sb.warn(player, judge="J", reason="r", now=now, in_play=IN_PLAY)
            elif command == "penalize":
                ruling = sb.penalize(
                    player, hands=k, judge="J", reason="r", now=now, in_play=IN_PLAY
                )
            else:
                ruling = sb.rescind(k, judge=HEAD, reason="r", now=now)
        except SanctionError:
            continue
        dq_actions += [a.player for a in ruling.actions if isinstance(a, Disqualify)]
    for player in IN_PLAY:
        disqualified = sb.is_disqualified(player)
        assert disqualified == (player in dq_actions)
        assert dq_actions.count(player) <= 1
        assert sb.warnings_of(player) <= 3 and (sb.warnings_of(player) == 3) == disqualified
    assert [s.number for s in sb.sanctions] == list(range(1, len(sb.sanctions) + 1))
