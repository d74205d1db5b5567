"""Argument types and the benchmark-figures printer shared by every `mtt` command."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping

__all__ = ["non_negative_int", "port_number", "positive_float", "positive_int", "print_figures"]


def print_figures(
    figures: Mapping[str, object], *, as_json: bool, hide: tuple[str, ...] = ()
) -> None:
    """A benchmark's figures: one JSON object (the contract scripts read), or aligned lines
    for a person (without the keys in `hide`)."""
    if as_json:
        print(json.dumps(figures))
        return
    shown = {key: value for key, value in figures.items() if key not in hide}
    width = max(map(len, shown), default=0)
    for key, value in shown.items():
        print(f"{key:>{width}}  {value}")


def positive_int(text: str) -> int:
    """argparse type: a whole number above zero (shared by every `mtt` command)."""
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a number above zero (seconds)."""
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above zero, not {text}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: a whole number, 0 or more (a seq to start after, a count)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def port_number(text: str) -> int:
    """argparse type: a TCP port, 0..65535 (0: any free port)."""
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535, not {text}")
    return value
