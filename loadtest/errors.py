"""The load tester's errors.

LoadTestError            anything the load tester refuses or cannot do
├── ProfileError         a bad profile value (TOML or flag); the message names the key
└── GeneratorError       a generator process died or broke the coordinator's protocol
"""

from __future__ import annotations

__all__ = ["GeneratorError", "LoadTestError", "ProfileError"]


class LoadTestError(Exception):
    """Anything the load tester refuses or cannot do."""


class ProfileError(LoadTestError, ValueError):
    """A bad profile value; the message names the key (`think.median.fold`, `ramp.seconds`)."""


class GeneratorError(LoadTestError):
    """A generator process died or sent something the coordinator did not expect."""
