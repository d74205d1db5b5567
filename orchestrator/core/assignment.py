"""Exact minimum-cost assignment (the Hungarian method), used by FO-5 table closings.

Pure and dependency-free: the matrices are tiny (a closing table's players against the open
seats, at most a few dozen), so an O(n^2 m) solver in plain Python is plenty.

>>> min_cost_assignment([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
(1, 0, 2)
>>> min_cost_assignment([[7, 1, 9]])
(1,)
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["assignment_cost", "min_cost_assignment"]


def min_cost_assignment(cost: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """Assign each row a distinct column minimising the total cost; return the column of each
    row. Needs rows <= columns (every row is assigned, some columns may stay free).

    Shortest augmenting paths with potentials (Kuhn-Munkres, as in e-maxx's formulation),
    integers only, so the optimum is exact.
    """
    n = len(cost)
    if n == 0:
        return ()
    m = len(cost[0])
    if any(len(row) != m for row in cost):
        raise ValueError("cost matrix rows differ in length")
    if n > m:
        raise ValueError(f"{n} rows cannot be assigned to {m} columns")
    # A sentinel above any reduced cost: potentials stay within the sum of |costs|.
    inf = 2 * (1 + sum(abs(c) for row in cost for c in row)) + 1
    u = [0] * (n + 1)  # row potentials (1-based)
    v = [0] * (m + 1)  # column potentials; column 0 is the virtual start
    match = [0] * (m + 1)  # match[j] = row assigned to column j, 0 = free
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        match[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = match[j0]
            delta = inf
            j1 = 0
            row = cost[i0 - 1]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while j0:  # augment along the path back to the virtual column
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
    result = [0] * n
    for j in range(1, m + 1):
        if match[j]:
            result[match[j] - 1] = j - 1
    return tuple(result)


def assignment_cost(cost: Sequence[Sequence[int]], columns: Sequence[int]) -> int:
    """Total cost of assigning row i to `columns[i]`."""
    return sum(cost[i][j] for i, j in enumerate(columns))
