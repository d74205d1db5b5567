"""Errors of the table worker.

    EngineError                 anything the hand engine refuses; `rule` names the RULES.md ID
    ├── InvalidSetup            a hand that cannot start: seats, stacks, blinds, button (HE-2, HE-9)
    │   └── InvalidDeck         a deck that is not the 52 codes once each (a fouled deck)
    └── IllegalAction           an action the rules do not allow now; the hand is unchanged
        ├── NotYourTurn         acting out of turn, for an unknown seat, or after the hand ended
        └── InvalidAmount       a bet outside the legal range, or not a whole number of chips

Every error leaves the hand exactly as it was: the engine checks before it changes anything.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of the hand engine's refusals."""

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(f"{rule}: {message}" if rule else message)
        self.rule = rule


class InvalidSetup(EngineError):
    """The hand cannot start as described."""


class InvalidDeck(InvalidSetup):
    """The deck is fouled: wrong size, a repeated or missing card, or not card codes."""

    def __init__(self, message: str) -> None:
        super().__init__(message, rule="DECK")


class IllegalAction(EngineError):
    """The action is not allowed at this point of the hand."""


class NotYourTurn(IllegalAction):
    """The seat is not the one to act (or the hand is over)."""


class InvalidAmount(IllegalAction):
    """The amount is outside the legal range or not an integer number of chips."""
