"""A multi-day event between its days: the flights' bags to Day 2, and the event's places (FL-1..
FL-3). Pure.

Each Day 1 flight is a tournament of its own that ends bagging its survivors (`core.bagging`);
what it leaves is a `FlightResult`. From them:

- FL-2 `day2_start`: a player who bagged in several flights keeps only his largest bag (equal
  bags: the earlier flight's); the others are void (`VoidBag`), their chips leave play and their
  entries end unplaced; the entry fee is not refunded, since the entry was played (FL-2 says
  nothing of money back: its buy-in stays in the pool it was paid into).
- FL-3 `day2_start`: Day 2 starts with every qualified player's bag, at the highest level any
  flight stopped at (no bag faces lower blinds than it already played), with the pool of every
  flight's entries.
- FL-3 `event_places`: places over the whole event. Day 2 gives places 1..N to its N players.
  **Decision (RULES.md FL-3 counts places over all entries but does not order the Day 1 busts of
  different flights):** each player who bagged nowhere takes one place, below every Day 2
  player, by his best flight place (fewest players left in his flight when he busted: ELIM-1
  within the flight); equal flight places in different flights go to the earlier flight first.
  His other busted entries, like the void bags, end unplaced (FL-2). So the places are a
  permutation of 1..the number of different players, and none of them below Day 2 is paid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from orchestrator.core.config import Day2Start

__all__ = [
    "EventPlace",
    "FlightResult",
    "VoidBag",
    "day2_start",
    "event_places",
    "event_results",
    "flight_result",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class FlightResult:
    """A Day 1 flight as it ended (FL-1): who entered, the stacks bagged, the places of the
    busted (within the flight), the level it stopped at, and the pool it carried to Day 2."""

    flight: str
    entries: tuple[str, ...]
    bags: tuple[tuple[str, int], ...]  # (player, chips)
    places: tuple[tuple[str, int], ...]  # (player, place in the flight)
    level: int
    pool: int


@dataclass(frozen=True, slots=True, kw_only=True)
class VoidBag:
    """FL-2: a bag that does not go forward (its player has a larger one)."""

    flight: str
    player: str
    chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EventPlace:
    place: int
    player: str
    flight: str  # the flight of the entry that holds the place


def day2_start(results: Sequence[FlightResult]) -> tuple[Day2Start, tuple[VoidBag, ...]]:
    """FL-2, FL-3: Day 2's start from the flights' bags, and the bags made void.

    >>> a = FlightResult(flight="1A", entries=("ann", "bob", "cy"), bags=(("ann", 900),
    ...     ("bob", 300)), places=(("cy", 3),), level=4, pool=300)
    >>> b = FlightResult(flight="1B", entries=("ann", "dan"), bags=(("ann", 1200),),
    ...     places=(("dan", 2),), level=5, pool=200)
    >>> start, void = day2_start([a, b])
    >>> start.stacks, start.level, start.pool, start.entries
    ((('ann', 1200), ('bob', 300)), 5, 500, 5)
    >>> void
    (VoidBag(flight='1A', player='ann', chips=900),)
    """
    if not results:
        raise ValueError("FL-3: a Day 2 needs at least one flight")
    best = _best_bags(results)
    void = tuple(
        VoidBag(flight=r.flight, player=player, chips=chips)
        for k, r in enumerate(results)
        for player, chips in r.bags
        if best[player][1] != k
    )
    start = Day2Start(
        stacks=tuple(sorted((player, chips) for player, (chips, _) in best.items())),
        level=max(r.level for r in results),
        pool=sum(r.pool for r in results),
        entries=sum(len(r.entries) for r in results),
    )
    return start, void


def event_places(
    results: Sequence[FlightResult], day2_places: Mapping[str, int]
) -> list[EventPlace]:
    """FL-3 and its Decision (module docstring): every player's one place over the event, best
    first; `day2_places` are Day 2's own (1..N).

    >>> a = FlightResult(flight="1A", entries=("ann", "bob", "cy"), bags=(("ann", 900),),
    ...     places=(("bob", 2), ("cy", 3)), level=4, pool=300)
    >>> b = FlightResult(flight="1B", entries=("bob", "dan", "eve"), bags=(("dan", 1500),),
    ...     places=(("bob", 3), ("eve", 2)), level=4, pool=300)
    >>> [(p.place, p.player, p.flight) for p in event_places([a, b], {"dan": 1, "ann": 2})]
    [(1, 'dan', '1B'), (2, 'ann', '1A'), (3, 'bob', '1A'), (4, 'eve', '1B'), (5, 'cy', '1A')]
    """
    best = _best_bags(results)
    if set(day2_places) != set(best):
        raise ValueError("FL-3: Day 2's places must be those of the players it seated")
    if sorted(day2_places.values()) != list(range(1, len(best) + 1)):
        raise ValueError(f"FL-3: Day 2's places must be 1..{len(best)}")
    places = [
        EventPlace(place=place, player=player, flight=results[best[player][1]].flight)
        for player, place in sorted(day2_places.items(), key=lambda item: item[1])
    ]
    busts: dict[str, tuple[int, int]] = {}  # player -> (his best flight place, flight index)
    for k, r in enumerate(results):
        for player, place in r.places:
            if player not in best and (player not in busts or (place, k) < busts[player]):
                busts[player] = (place, k)
    ordered = sorted(busts.items(), key=lambda item: item[1])
    for n, (player, (_, k)) in enumerate(ordered, start=len(places) + 1):
        places.append(EventPlace(place=n, player=player, flight=results[k].flight))
    return places


def flight_result(flight: str, results: Mapping[str, Any]) -> FlightResult:
    """A bagged flight's `FlightResult` from its results.json (`Play.results`)."""
    bagged = results["flight"]
    places = tuple((row["player"], row["place"]) for row in results["places"])
    bags = tuple((row["player"], row["chips"]) for row in bagged["bagged"])
    return FlightResult(
        flight=flight,
        entries=tuple(sorted({p for p, _ in places} | {p for p, _ in bags})),
        bags=bags,
        places=places,
        level=bagged["level"],
        pool=bagged["pool"],
    )


def event_results(
    event: str,
    flights: Sequence[FlightResult],
    day2: Mapping[str, Any],
    *,
    void: Sequence[VoidBag],
    hands: int,
    seconds: float,
) -> dict[str, Any]:
    """The event's results.json (DESIGN.md's shape): places and prizes over every entry of every
    flight (FL-3), each place's flight, the flights' bags and pools, and the void bags (FL-2).
    `day2` is Day 2's own results.json."""
    prizes = {row["player"]: row["prize"] for row in day2["places"]}
    day2_places = {row["player"]: row["place"] for row in day2["places"]}
    return {
        "tournament": event,
        "players": sum(len(f.entries) for f in flights),
        "prize_pool": day2["prize_pool"],  # GTD-1: with Day 2's overlay, if any
        "overlay": day2.get("ledger", {}).get("overlay", 0),
        "hands": hands,
        "seconds": round(seconds, 3),
        "places": [
            {"place": p.place, "player": p.player, "prize": prizes.get(p.player, 0)}
            | {"flight": p.flight}
            for p in event_places(flights, day2_places)
        ],
        "flights": [
            {
                "flight": f.flight,
                "entries": len(f.entries),
                "bagged": len(f.bags),
                "level": f.level,
                "pool": f.pool,
            }
            for f in flights
        ],
        "void": [{"flight": b.flight, "player": b.player, "chips": b.chips} for b in void],
        "day2": {"players": len(day2_places), "hands": day2["hands"]},
    }


def _best_bags(results: Sequence[FlightResult]) -> dict[str, tuple[int, int]]:
    """FL-2: each bagging player's largest bag and its flight's index (equal: the earlier)."""
    best: dict[str, tuple[int, int]] = {}
    for k, r in enumerate(results):
        for player, chips in r.bags:
            if player not in best or chips > best[player][0]:
                best[player] = (chips, k)
    return best
