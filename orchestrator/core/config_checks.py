"""The checks every config section's reader shares: each refusal names the key. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.errors import ConfigError

__all__ = ["choice", "unknown", "whole"]


def unknown(section: str, data: Mapping[str, Any], known: set[str]) -> None:
    extra = sorted(set(data) - known)
    if extra:
        raise ConfigError(
            f"[{section}]: unknown key{'s' if len(extra) > 1 else ''} {', '.join(extra)} "
            f"(known: {', '.join(sorted(known))})"
        )


def whole(value: object, what: str, *, low: int = 0, high: int | None = None) -> int:
    if type(value) is not int:
        raise ConfigError(f"{what} must be a whole number, not {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(f"{what} must be {bounds}, not {value}")
    return value


def choice(value: object, what: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"{what} must be one of {', '.join(choices)}, not {value!r}")
    return str(value)
