"""Commands of `mtt` (filled in by the issue that builds them)."""

from __future__ import annotations

import argparse


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add this module's commands to `mtt`."""
