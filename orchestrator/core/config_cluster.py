"""`[cluster]`: how the run is hosted, no rule of play (the shell reads it, the core never).

[cluster]
spare_tables = 2   # warm spare table actors each node keeps (0: none; default 1)
"""

from __future__ import annotations

from collections.abc import Mapping

from orchestrator.core.config import SPARE_TABLES
from orchestrator.core.config_checks import unknown, whole
from orchestrator.errors import ConfigError

__all__ = ["parse_spare_tables"]


def parse_spare_tables(raw: object) -> int:
    """`[cluster] spare_tables`: warm spare table actors per node, so a lost table restarts
    without a process start (`orchestrator.shell.tables.SparePool`); 0 turns them off.

    >>> parse_spare_tables({"spare_tables": 3}), parse_spare_tables({})
    (3, 1)
    """
    if not isinstance(raw, Mapping):
        raise ConfigError("[cluster] must be a table of settings, not a single value")
    unknown("cluster", raw, {"spare_tables"})
    return whole(raw.get("spare_tables", SPARE_TABLES), "cluster.spare_tables", high=16)
