"""What every check of the audit returns (`Violation`), and the two helpers they share: where in
events.jsonl a record is, and the type test of the values read from JSON and TOML files."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Kind", "Violation", "at_seq", "is_a"]

Kind = type | tuple[type, ...]


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which rule, where in the run's files, and what was found."""

    rule: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: [{self.rule}] {self.detail}"


def at_seq(seq: int) -> str:
    return f"events.jsonl seq {seq}"


def is_a(value: object, kind: Kind) -> bool:
    """`isinstance`, except that a bool is no int (JSON's `true` is not a count)."""
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))
