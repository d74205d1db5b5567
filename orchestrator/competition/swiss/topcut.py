"""The top cut: a single-elimination bracket seeded from the Swiss standings.

SW-5: seed 1 plays seed N, 2 plays N-1, ... placed so that 1 and 2 can only meet in the final;
the better seed of every cut match chooses who starts (`Pairing.chooser`). With the "choice"
rule, the better half in seed order each pick an opponent from the lower half; a seed who
names nobody gets the worst seed still free (the 1vN spirit), and the log says so.
SW-4: cut matches have no time limit, so each has a winner; the semifinal losers play for third.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from orchestrator.competition.swiss.errors import InvalidInput, InvalidState
from orchestrator.competition.swiss.model import CutRule, Pairing, Round, Stage

__all__ = [
    "FINAL",
    "THIRD_PLACE",
    "bracket_order",
    "cut_places",
    "first_cut_round",
    "label_for",
    "next_cut_round",
]

FINAL = "final"
THIRD_PLACE = "third place"


def bracket_order(size: int) -> list[int]:
    """Seeds in bracket order, adjacent pairs meeting first (SW-5: 1v8, 4v5, 2v7, 3v6).

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 2 or size & (size - 1):
        raise InvalidInput(f"a bracket needs a power of two players, not {size}", rule="SW-5")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return order


def label_for(matches: int) -> str:
    return {1: FINAL, 2: "semifinal", 4: "quarterfinal"}.get(matches, f"round of {2 * matches}")


def first_cut_round(
    seeds: Sequence[str],
    rule: CutRule,
    choices: Mapping[int, int],
    *,
    round_number: int,
) -> tuple[Round, tuple[str, ...]]:
    """The cut's first round for `seeds` (best first) and the log of how it was drawn."""
    size = len(seeds)
    order = bracket_order(size)
    half = size // 2
    log: list[str] = []
    if rule is CutRule.SEED:
        if choices:
            raise InvalidInput("choices are only for the 'choice' cut rule", rule="SW-5")
        opponent = {s: size + 1 - s for s in range(1, half + 1)}
    else:
        opponent = _choose(size, choices, log)
    # Each match sits where its better seed sits in the bracket; tables numbered by that seed.
    uppers = [s for s in order if s <= half]
    label = label_for(half)
    pairings = tuple(
        Pairing(
            table=s,
            a=seeds[s - 1],
            b=seeds[opponent[s] - 1],
            label=label,
            chooser=seeds[s - 1],
        )
        for s in uppers
    )
    for s in range(1, half + 1):
        log.append(
            f"{label}: seed {s} {seeds[s - 1]} v seed {opponent[s]} {seeds[opponent[s] - 1]}"
        )
    return Round(number=round_number, stage=Stage.CUT, pairings=pairings), tuple(log)


def _choose(size: int, choices: Mapping[int, int], log: list[str]) -> dict[int, int]:
    half = size // 2
    for chooser, picked in choices.items():
        if not 1 <= chooser <= half:
            raise InvalidInput(
                f"seed {chooser} does not choose: only seeds 1..{half} do", rule="SW-5"
            )
        if not half < picked <= size:
            raise InvalidInput(
                f"seed {chooser} may pick only from seeds {half + 1}..{size}, not {picked}",
                rule="SW-5",
            )
    if len(set(choices.values())) != len(choices):
        raise InvalidInput("two seeds picked the same opponent", rule="SW-5")
    free = list(range(half + 1, size + 1))
    opponent: dict[int, int] = {}
    for seed in range(1, half + 1):
        picked = choices.get(seed, 0)
        if not picked:
            picked = max(free)
            log.append(f"seed {seed} named no opponent: gets the worst free seed {picked}")
        free.remove(picked)
        opponent[seed] = picked
    return opponent


def next_cut_round(
    previous: Round, seeds: Sequence[str], *, third_place: bool, round_number: int
) -> Round:
    """Winners of adjacent matches meet; after the semifinals, the final and (SW-4) the
    match for third place between the semifinal losers."""
    if not previous.is_complete:
        raise InvalidState(f"round {previous.number} is not fully reported yet", rule="SW-5")
    bracket = [p for p in previous.pairings if p.label != THIRD_PLACE]
    if len(bracket) == 1:
        raise InvalidState("the top cut is over: the final has been played", rule="SW-5")
    seed_of = {name: k for k, name in enumerate(seeds, start=1)}

    def match(table: int, x: str, y: str, label: str) -> Pairing:
        better, worse = sorted((x, y), key=seed_of.__getitem__)
        return Pairing(table=table, a=better, b=worse, label=label, chooser=better)

    winners = [_decided(p)[0] for p in bracket]
    label = label_for(len(bracket) // 2)
    pairings = [
        match(k + 1, winners[2 * k], winners[2 * k + 1], label) for k in range(len(bracket) // 2)
    ]
    if len(bracket) == 2 and third_place:
        losers = [_decided(p)[1] for p in bracket]
        pairings.append(match(2, losers[0], losers[1], THIRD_PLACE))
    return Round(number=round_number, stage=Stage.CUT, pairings=tuple(pairings))


def _decided(pairing: Pairing) -> tuple[str, str]:
    winner, loser = pairing.winner(), pairing.loser()
    if winner is None or loser is None:
        raise InvalidState(f"table {pairing.table} has no winner", rule="SW-4")
    return winner, loser


def cut_places(rounds: Sequence[Round], seeds: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """Places decided by the cut so far: winner 1, finalist 2, the third-place match 3 and 4
    (both semifinal losers 3 without it); earlier losers after them, by seed (better seed,
    better place). Players still in the bracket are not placed yet."""
    seed_of = {name: k for k, name in enumerate(seeds, start=1)}
    places: list[tuple[int, str]] = []
    eliminated: list[list[str]] = []  # per cut round, losers of bracket matches
    last = rounds[-1] if rounds else None
    for round_ in rounds:
        bracket = [p for p in round_.pairings if p.label != THIRD_PLACE]
        eliminated.append([name for p in bracket if (name := p.loser()) is not None])
    if last is None:
        return ()
    final = next((p for p in last.pairings if p.label == FINAL), None)
    third = next((p for p in last.pairings if p.label == THIRD_PLACE), None)
    if final is None or not last.is_complete:
        return ()
    winner, finalist = _decided(final)
    places += [(1, winner), (2, finalist)]
    semifinal_losers = sorted(
        eliminated[-2] if len(eliminated) > 1 else [], key=seed_of.__getitem__
    )
    if third is not None:
        third_winner, fourth = _decided(third)
        places += [(3, third_winner), (4, fourth)]
    else:
        places += [(3, name) for name in semifinal_losers]
    place = 5
    for losers in reversed(eliminated[:-2]):
        for name in sorted(losers, key=seed_of.__getitem__):
            places.append((place, name))
            place += 1
    return tuple(places)
