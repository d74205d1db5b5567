"""What the ledger takes as money: whole cents and whole basis points (both refused with a
typed error otherwise), and REG-2's cancellation charge. Pure."""

from __future__ import annotations

from orchestrator.errors import InvalidAmountError

__all__ = ["BASIS_POINTS", "basis_points", "cancellation_charge", "cents"]

BASIS_POINTS = 10_000  # 100% (percentages are whole basis points, as in payouts.py)


def cancellation_charge(entry: int, charge_bp: int) -> int:
    """REG-2: the charge for unregistering, rounded down (the cent goes to the player).

    >>> cancellation_charge(11_000, 1_000), cancellation_charge(999, 250)
    (1100, 24)
    """
    cents(entry, "entry")
    basis_points(charge_bp)
    return entry * charge_bp // BASIS_POINTS


def cents(amount: object, what: str) -> int:
    # bool is an int subclass; True cents is a bug, not money
    if type(amount) is not int or amount < 0:
        raise InvalidAmountError(f"{what} must be a whole number of cents >= 0, not {amount!r}")
    return amount


def basis_points(value: object) -> int:
    if type(value) is not int or not 0 <= value <= BASIS_POINTS:
        raise InvalidAmountError(
            f"a percentage must be whole basis points 0..{BASIS_POINTS}, not {value!r}"
        )
    return value
