"""Swiss pairing as one integer maximum-weight matching (networkx's blossom algorithm).

Every active player is a node; with an odd count a BYE node joins (SW-2). Each edge's weight
is a constant minus a penalty built from tiers, each tier's multiplier larger than the most
the tiers below it can add up to, so the matching optimises them lexicographically:

1. no second bye while an active player has had none;
2. no rematch;
3. the bye to the lowest score group (among those allowed by 1 and 2);
4. pairs within score groups: the squared points difference, summed;
5. a random weight per edge from the round's `random.Random`: who meets whom inside a score
   group, and who of the lowest group gets the bye, is drawn, reproducibly.

Because (1) and (2) are only penalties, a pairing always exists; when it must break one, the
round's log says so ("relaxed"). Integer weights keep the algorithm exact (no float ties).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import networkx as nx

from orchestrator.competition.swiss.errors import InvalidState
from orchestrator.competition.swiss.model import Pairing
from orchestrator.competition.swiss.records import PlayerRecord

__all__ = ["BYE", "PairingPlan", "pair_round"]

# Not a legal player name (names are printable), so it never collides with one.
BYE = "\x00bye"


@dataclass(frozen=True, slots=True)
class PairingPlan:
    pairings: tuple[Pairing, ...]
    log: tuple[str, ...]
    rematches: int
    second_byes: int


@dataclass(frozen=True, slots=True)
class _Weights:
    second_bye: int
    rematch: int
    bye_group: int
    score_gap: int
    offset: int


def _weights(nodes: int, max_gap: int, groups: int) -> _Weights:
    pairs = nodes // 2
    score_gap = pairs * nodes + 1  # > sum of random weights (each < nodes)
    bye_group = score_gap * (pairs * max_gap * max_gap + 1)  # > sum of squared gaps
    rematch = bye_group * (groups + 1)  # > the largest bye-group penalty
    second_bye = rematch * (pairs + 1)  # > every rematch at once
    return _Weights(second_bye, rematch, bye_group, score_gap, offset=2 * second_bye)


def pair_round(
    players: Sequence[str],
    records: Mapping[str, PlayerRecord],
    rng: random.Random,
    *,
    round_number: int,
) -> PairingPlan:
    """Pair `players` (the active ones, in standings order) for `round_number`.

    `records` gives each player's points, byes and past opponents; `rng` is the round's own.
    """
    if not players:
        raise InvalidState("no active players to pair", rule="SW-2")
    order = {name: k for k, name in enumerate(players)}
    points = {name: records[name].points for name in players}
    nodes = sorted(players)  # canonical order: the draw depends on the field, not its listing
    if len(nodes) % 2:
        nodes.append(BYE)
    scores = sorted(set(points.values()))
    group_of = {score: k for k, score in enumerate(scores)}  # 0 = lowest score group
    someone_without_bye = any(records[p].byes == 0 for p in players)
    w = _weights(len(nodes), scores[-1] - scores[0], len(scores))

    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(nodes)
    for u, v in combinations(nodes, 2):
        penalty = 0
        if BYE in (u, v):
            p = v if u == BYE else u
            if records[p].byes and someone_without_bye:
                penalty += w.second_bye  # SW-2: never a second bye while avoidable
            penalty += w.bye_group * group_of[points[p]]
        else:
            if v in records[u].faced:
                penalty += w.rematch
            gap = points[u] - points[v]
            penalty += w.score_gap * gap * gap
        graph.add_edge(u, v, weight=w.offset - penalty + rng.randrange(len(nodes)))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(nodes):  # pragma: no cover - a complete graph always matches
        raise InvalidState("no complete pairing found")

    bye_player: str | None = None
    couples: list[tuple[str, str]] = []
    for u, v in matching:
        if BYE in (u, v):
            bye_player = v if u == BYE else u
            continue
        # The higher score sits first; equal scores: the better standing.
        a, b = sorted((u, v), key=lambda p: (-points[p], order[p]))
        couples.append((a, b))
    couples.sort(key=lambda ab: (-points[ab[0]], -points[ab[1]], order[ab[0]]))

    log: list[str] = []
    pairings = [Pairing(table=k, a=a, b=b) for k, (a, b) in enumerate(couples, start=1)]
    rematches = [(a, b) for a, b in couples if b in records[a].faced]
    second_byes = 0
    if bye_player is not None:
        pairings.append(Pairing(table=len(couples) + 1, a=bye_player, b=None))
        second_byes = int(records[bye_player].byes > 0)
        log.append(_bye_reason(bye_player, players, records, points, someone_without_bye))
    # A group's size for parity: its own players (the bye aside) plus those paired down into it.
    counts = Counter(points[p] for p in players if p != bye_player)
    counts.update(points[b] for a, b in couples if points[a] != points[b])
    for table, (a, b) in enumerate(couples, start=1):
        if points[a] != points[b]:
            log.append(_pair_down_reason(table, a, b, points, counts))
    for a, b in rematches:
        log.append(
            f"relaxed: no rematch-free pairing exists for round {round_number}; "
            f"{a} and {b} meet again"
        )
    return PairingPlan(tuple(pairings), tuple(log), len(rematches), second_byes)


def _bye_reason(
    player: str,
    players: Sequence[str],
    records: Mapping[str, PlayerRecord],
    points: Mapping[str, int],
    someone_without_bye: bool,
) -> str:
    head = f"bye: {player} ({points[player]} pts)"
    if records[player].byes:
        return f"{head}, a second bye: every active player has already had one (SW-2)"
    eligible = [p for p in players if records[p].byes == 0]
    lowest = min(points[p] for p in eligible)
    if points[player] == lowest:
        return f"{head}: lowest score among the players without a bye (SW-2)"
    return (
        f"{head}: the players without a bye on {lowest} pts could not take it "
        f"without forcing a rematch (SW-2)"
    )


def _pair_down_reason(
    table: int, a: str, b: str, points: Mapping[str, int], counts: Mapping[int, int]
) -> str:
    head = f"pair-down at table {table}: {a} ({points[a]} pts) plays {b} ({points[b]} pts)"
    size = counts[points[a]]
    if size % 2:
        return (
            f"{head}: the {points[a]}-point group has an odd number of players ({size}, "
            f"counting those paired down into it)"
        )
    return f"{head}: pairing inside the {points[a]}-point group would force a rematch"
