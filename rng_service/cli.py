"""`mtt rng ...` and `mtt bench rng` (filled in by the deck service work)."""

from __future__ import annotations

import argparse


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add the deck service's commands to `mtt`."""
