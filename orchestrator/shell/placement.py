"""Where table actors go, decided without Ray (the CRASH decision: a node's loss is survived).

Every table is pinned to one node (`TableFleet.create`, hard node affinity): the live node
hosting the fewest tables. Balanced that way, the node that hosts the most holds
`ceil(tables / nodes)`, and when it dies its tables can all be re-seated on warm spares only
if the other nodes keep that many between them; `uncovered` says how many would have to start
a new process instead, and `spares_to_cover` how many spares a node would then need.

Ray's "SPREAD" strategy only prefers nodes with fewer actors: session 7 saw 6 of 10 tables on
one node of three, with 4 spares on the others, and two restarts that started processes.

    >>> hosted = []
    >>> for _ in range(10):
    ...     hosted.append(least_loaded(["a", "b", "c"], hosted))
    >>> sorted((n, hosted.count(n)) for n in set(hosted))
    [('a', 4), ('b', 3), ('c', 3)]
    >>> uncovered(hosted, {"a": 2, "b": 2, "c": 2}), spares_to_cover(10, nodes=3)
    (0, 2)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["least_loaded", "spares_to_cover", "uncovered"]


def least_loaded(live: Sequence[str], hosted: Iterable[str]) -> str | None:
    """The node of `live` hosting the fewest of `hosted` (each table's node), the lowest id
    among equals (so a placement can be replayed); None when no node is live."""
    counts = Counter(hosted)
    return min(live, key=lambda node: (counts[node], node), default=None)


def uncovered(hosted: Iterable[str], spares: Mapping[str, int], *, node: str | None = None) -> int:
    """How many of `node`'s tables the warm spares on the other nodes (`spares`: ready ones,
    by node) could not take if it died: those restart as new processes. Without `node`, the
    worst over every node hosting a table.

    >>> uncovered(["a"] * 6 + ["b"] * 2 + ["c"] * 2, {"a": 2, "b": 2, "c": 2})
    2
    >>> uncovered(["a"] * 6 + ["b"] * 2, {"a": 2, "b": 2, "c": 2}, node="b")
    0
    """
    counts = Counter(hosted)
    total = sum(spares.values())
    nodes = [node] if node is not None else list(counts)
    return max((max(0, counts[n] - (total - spares.get(n, 0))) for n in nodes), default=0)


def spares_to_cover(tables: int, *, nodes: int) -> int:
    """The warm spares each node must keep so that, with `tables` balanced over `nodes`, the
    loss of any one is re-seated on the others' spares (0 with one node: nothing survives it).

    >>> spares_to_cover(10, nodes=3), spares_to_cover(13, nodes=3), spares_to_cover(40, nodes=5)
    (2, 3, 2)
    """
    if nodes < 2:
        return 0
    most = -(-tables // nodes)
    return -(-most // (nodes - 1))
