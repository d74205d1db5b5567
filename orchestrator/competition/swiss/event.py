"""Operations on a Swiss event: each takes a state (and a `random.Random` where chance is
involved), checks everything first, and returns the new state; a refusal changes nothing.

The round's randomness comes from `event_rng(config, purpose, round)`: a `random.Random`
seeded from the event's seed and what it is for, so the same seed gives the same pairings,
byes, deck checks and poker games, whatever else was run in between.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from orchestrator.competition.swiss.errors import (
    ImpossibleResult,
    InvalidInput,
    InvalidState,
    UnknownPlayer,
)
from orchestrator.competition.swiss.model import (
    EventConfig,
    MatchResult,
    Pairing,
    Player,
    Round,
    Stage,
    SwissState,
)
from orchestrator.competition.swiss.pairing import pair_round
from orchestrator.competition.swiss.records import fold_records
from orchestrator.competition.swiss.standings import Status, standings
from orchestrator.competition.swiss.structure import structure_for
from orchestrator.competition.swiss.topcut import first_cut_round, next_cut_round

__all__ = [
    "MAX_NAME_LENGTH",
    "advance_cut",
    "check_name",
    "current_round",
    "drop",
    "enter_late",
    "event_rng",
    "new_event",
    "pair_next_round",
    "report_results",
    "start_cut",
]

MAX_NAME_LENGTH = 64
_LOT_RANGE = 1 << 30


def event_rng(config: EventConfig, purpose: str, round_number: int) -> random.Random:
    """The reproducible RNG for one purpose in one round of this event."""
    return random.Random(f"{config.seed}:{purpose}:{round_number}")


def check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(f"a player name must be a non-empty string, not {name!r}")
    if name != name.strip() or not name.isprintable() or len(name) > MAX_NAME_LENGTH:
        raise InvalidInput(
            f"player name {name!r}: printable, no surrounding spaces, at most "
            f"{MAX_NAME_LENGTH} characters"
        )
    return name


def _draw_lots(count: int, taken: set[int], rng: random.Random) -> list[int]:
    lots: list[int] = []
    while len(lots) < count:
        lot = rng.randrange(_LOT_RANGE)
        if lot not in taken:
            taken.add(lot)
            lots.append(lot)
    return lots


def _check_new_names(names: Sequence[str], known: Sequence[str]) -> None:
    seen = set(known)
    for name in names:
        check_name(name)
        if name in seen:
            raise InvalidInput(f"player {name!r} is listed twice")
        seen.add(name)


def new_event(config: EventConfig, names: Sequence[str], rng: random.Random) -> SwissState:
    if len(names) < 2:
        raise InvalidInput(f"a Swiss event needs at least 2 players, not {len(names)}", rule="SW-1")
    _check_new_names(names, ())
    lots = _draw_lots(len(names), set(), rng)
    players = tuple(Player(name=n, lot=lot) for n, lot in zip(names, lots, strict=True))
    return SwissState(config=config, players=players)


def current_round(state: SwissState) -> Round | None:
    return state.rounds[-1] if state.rounds else None


def enter_late(state: SwissState, names: Sequence[str], rng: random.Random) -> SwissState:
    """Late entries join from the next round with no points (missed rounds are not losses)."""
    if state.cut_seeds:
        raise InvalidState("the top cut has started: no more entries")
    joined = len(state.swiss_rounds) + 1
    if state.structure is not None and joined > state.structure.rounds:
        raise InvalidState("every Swiss round has been paired: no more entries")
    _check_new_names(names, [p.name for p in state.players])
    lots = _draw_lots(len(names), {p.lot for p in state.players}, rng)
    added = tuple(
        Player(name=n, lot=lot, joined_round=joined) for n, lot in zip(names, lots, strict=True)
    )
    return replace(state, players=state.players + added)


def drop(state: SwissState, names: Sequence[str]) -> SwissState:
    """Dropped players are never paired again; a match already paired still needs its result."""
    after = len(state.rounds)
    players = {p.name: p for p in state.players}
    for name in names:
        player = players.get(name)
        if player is None:
            raise UnknownPlayer(f"no player named {name!r} in this event")
        if player.dropped_after is not None or name in state.disqualified():
            raise InvalidState(f"{name} is no longer in the event")
        players[name] = replace(player, dropped_after=after)
    return replace(state, players=tuple(players[p.name] for p in state.players))


def _deck_check(
    state: SwissState, round_: Round, rng: random.Random
) -> tuple[int | None, tuple[str, ...]]:
    """SW-6: one table drawn at random before the round; a bye can be drawn too."""
    if not state.config.deck_checks or not round_.pairings:
        return None, ()
    table = rng.choice(round_.pairings)
    who = table.a if table.b is None else f"{table.a} and {table.b}"
    return table.table, (f"deck check (SW-6): table {table.table} ({who})",)


def pair_next_round(state: SwissState, rng: random.Random) -> SwissState:
    """Pair the next Swiss round (SW-1 fixes the number of rounds at round 1)."""
    if state.cut_seeds:
        raise InvalidState("the top cut has started: Swiss rounds are over")
    last = current_round(state)
    if last is not None and not last.is_complete:
        missing = ", ".join(str(p.table) for p in last.pairings if not p.is_reported)
        raise InvalidState(f"round {last.number} is not fully reported (tables {missing})")
    number = len(state.rounds) + 1
    table = standings(state)
    active = [s.player for s in table if state.is_active(s.player, number)]
    if len(active) < 2:
        raise InvalidState(f"only {len(active)} active player(s): nothing to pair")
    structure = state.structure or structure_for(
        len(active), fewer_rounds_top16=state.config.fewer_rounds_top16
    )
    if number > structure.rounds:
        raise InvalidState(
            f"all {structure.rounds} Swiss rounds are played: start the top cut",
            rule="SW-1",
        )
    records = fold_records([p.name for p in state.players], state.rounds)
    plan = pair_round(active, records, rng, round_number=number)
    round_ = Round(number=number, stage=Stage.SWISS, pairings=plan.pairings, log=plan.log)
    check, note = _deck_check(state, round_, rng)
    round_ = replace(round_, deck_check=check, log=round_.log + note)
    return replace(state, rounds=(*state.rounds, round_), structure=structure)


def report_results(
    state: SwissState,
    round_number: int,
    results: Mapping[int, MatchResult],
    *,
    amend: bool = False,
) -> SwissState:
    """Record results by table. A reported table changes only with `amend`, and only while
    no later round has been paired (later pairings depend on it)."""
    if not 1 <= round_number <= len(state.rounds):
        raise InvalidInput(f"there is no round {round_number} (rounds paired: {len(state.rounds)})")
    round_ = state.rounds[round_number - 1]
    if amend and round_number != len(state.rounds):
        raise InvalidState(
            f"round {round_number} cannot be amended: round {round_number + 1} was paired "
            f"from its results"
        )
    updated: dict[int, Pairing] = {}
    for table, result in results.items():
        pairing = round_.table(table)
        if pairing is None:
            raise InvalidInput(f"round {round_number} has no table {table}")
        if pairing.b is None:
            raise InvalidInput(f"table {table} is a bye (SW-2): it has no result to report")
        if pairing.result is not None and not amend:
            raise InvalidState(
                f"table {table} of round {round_number} is already reported "
                f"({pairing.result.score}); use --amend to correct it"
            )
        if round_.stage is Stage.CUT:
            _check_cut_result(table, result)
        updated[table] = replace(pairing, result=result)
    pairings = tuple(updated.get(p.table, p) for p in round_.pairings)
    rounds = list(state.rounds)
    rounds[round_number - 1] = replace(round_, pairings=pairings)
    return replace(state, rounds=tuple(rounds))


def _check_cut_result(table: int, result: MatchResult) -> None:
    # SW-4: top-cut matches have no time limit, so they end with a winner of two games.
    if result.intentional_draw or max(result.games_a, result.games_b) != 2:
        raise ImpossibleResult(
            f"table {table}: a top-cut match is played to two game wins ({result.score})",
            rule="SW-4",
        )


def start_cut(state: SwissState, choices: Mapping[int, int], rng: random.Random) -> SwissState:
    """Seed the cut from the standings (dropped and disqualified players give up their place)
    and pair its first round; the cut shrinks to a smaller power of two if too few remain."""
    if state.cut_seeds:
        raise InvalidState("the top cut has already started")
    structure = state.structure
    swiss = state.swiss_rounds
    if structure is None or len(swiss) < structure.rounds or not swiss[-1].is_complete:
        planned = structure.rounds if structure else "the"
        raise InvalidState(f"the top cut starts after {planned} Swiss rounds are reported")
    eligible = [s.player for s in standings(state) if s.status is Status.ACTIVE]
    size = structure.cut
    log: list[str] = []
    while size > len(eligible):
        size //= 2
    if size < 2:
        raise InvalidState("fewer than 2 active players: no top cut")
    if size != structure.cut:
        log.append(f"top {structure.cut} shrunk to top {size}: {len(eligible)} players remain")
    seeds = tuple(eligible[:size])
    round_, cut_log = first_cut_round(
        seeds, state.config.cut_rule, choices, round_number=len(state.rounds) + 1
    )
    check, note = _deck_check(state, round_, rng)
    round_ = replace(round_, deck_check=check, log=cut_log + note)
    return replace(
        state, rounds=(*state.rounds, round_), cut_seeds=seeds, cut_log=tuple(log) + cut_log
    )


def advance_cut(state: SwissState, rng: random.Random) -> SwissState:
    if not state.cut_seeds:
        raise InvalidState("the top cut has not started")
    round_ = next_cut_round(
        state.rounds[-1],
        state.cut_seeds,
        third_place=state.config.third_place,
        round_number=len(state.rounds) + 1,
    )
    check, note = _deck_check(state, round_, rng)
    return replace(state, rounds=(*state.rounds, replace(round_, deck_check=check, log=note)))
