"""The hand's records (table_worker/events.py) are named tuples that keep a record's
interface: equal only to the same kind of record with the same fields, immutable, matched
by field name."""

from __future__ import annotations

import pytest

from table_worker.events import BetOrRaised, Called, Checked, Folded, HandEvent, Mucked


def _equal(a: object, b: object) -> bool:
    return a == b


def _unequal(a: object, b: object) -> bool:
    return a != b


def test_records_equal_by_kind_and_fields() -> None:
    assert _equal(Folded(3), Folded(3))
    assert _unequal(Folded(3), Folded(4))
    assert _unequal(Folded(3), Checked(3))  # a tuple alone would call these equal
    assert not _equal(Folded(3), Checked(3))
    assert _unequal(Checked(3), Mucked(3))
    assert _unequal(Called(2, 100, False), BetOrRaised(2, 100, False))
    assert _unequal(Folded(3), (3,))
    assert _unequal((3,), Folded(3))  # the tuple on the left: the reflected comparison
    assert not _equal((3,), Folded(3))
    assert _unequal([Folded(1), Checked(2)], [Checked(1), Checked(2)])
    assert len({Folded(3), Folded(3), Checked(3)}) == 2


def test_records_are_immutable() -> None:
    event = Called(seat=2, amount=100, all_in=False)
    with pytest.raises(AttributeError):
        event.amount = 200  # type: ignore[misc]
    assert event == Called(2, 100, False)


def test_records_match_by_field_name_and_position() -> None:
    def describe(event: HandEvent) -> str:
        match event:
            case Called(seat=seat, amount=amount, all_in=True):
                return f"{seat} calls {amount} all-in"
            case BetOrRaised(seat, to, _):
                return f"{seat} to {to}"
            case Folded(seat=seat):
                return f"{seat} folds"
        return repr(event)

    assert describe(Called(2, 100, True)) == "2 calls 100 all-in"
    assert describe(BetOrRaised(4, 300, False)) == "4 to 300"
    assert describe(Folded(1)) == "1 folds"
    assert describe(Checked(5)) == "Checked(seat=5)"
