"""`mtt swiss ...` and `mtt league ...`: argument parsing, file reading and writing, and the
clock; the decisions are the pure core's (`orchestrator.competition.swiss`,
`orchestrator.competition.league`).

The Swiss event lives in one JSON state file (`--state`, default `swiss-state.json`), written
atomically (a temporary file in the same directory, then a rename), so a crash or a refused
command never leaves it half-written or changed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from orchestrator.cli.args import positive_int
from orchestrator.competition import league
from orchestrator.competition.swiss import codec, event, poker, sanctions
from orchestrator.competition.swiss.errors import CompetitionError, InvalidInput, InvalidState
from orchestrator.competition.swiss.model import SwissState
from orchestrator.competition.swiss.render import (
    Format,
    Table,
    bracket_table,
    pairings_table,
    render,
    sanctions_table,
    standings_table,
)
from orchestrator.competition.swiss.standings import standings
from orchestrator.competition.swiss.structure import structure_for

__all__ = ["DEFAULT_STATE", "register"]

DEFAULT_STATE = Path("swiss-state.json")

Handler = Callable[[argparse.Namespace], int]


# --- files --------------------------------------------------------------------------------


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"{what} {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {what} {path}: {exc}") from exc


def _load(path: Path) -> SwissState:
    if not path.exists():
        raise InvalidInput(f"no event state at {path}: start one with `mtt swiss new`")
    try:
        data = json.loads(_read(path, "state file"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"state file {path} is not JSON: {exc}") from exc
    return codec.state_from_dict(data)


def _save(path: Path, state: SwissState) -> None:
    """Write temp + fsync + rename: readers see the old file or the new one, never a mix."""
    text = json.dumps(codec.state_to_dict(state), indent=1, ensure_ascii=False) + "\n"
    directory = path.resolve().parent
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _print(table: Table, args: argparse.Namespace) -> None:
    fmt = Format.JSON if args.json else Format.CSV if args.csv else Format.TEXT
    sys.stdout.write(render(table, fmt))


def _guarded(handler: Handler) -> Handler:
    """Domain refusals and unreadable files become one line on stderr and exit code 1."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except CompetitionError as exc:
            print(f"mtt {args.command}: error: {exc}", file=sys.stderr)
            return 1

    return run


# --- mtt swiss ----------------------------------------------------------------------------


def _new(args: argparse.Namespace) -> int:
    config = codec.parse_event_config(_read(args.event, "event file"))
    names = codec.parse_players(_read(args.players, "players file"))
    if args.state.exists() and not args.force:
        raise InvalidState(f"{args.state} exists: pass --force to start over")
    state = event.new_event(config, names, event.event_rng(config, "lots", 0))
    _save(args.state, state)
    plan = structure_for(len(names), fewer_rounds_top16=config.fewer_rounds_top16)
    print(
        f"{config.name}: {len(names)} players, {plan.rounds} Swiss rounds + top {plan.cut} "
        f"(SW-1, fixed when round 1 is paired); state in {args.state}"
    )
    return 0


def _structure(args: argparse.Namespace) -> int:
    plan = structure_for(args.players, fewer_rounds_top16=args.fewer_rounds_top16)
    print(f"{args.players} players: {plan.rounds} Swiss rounds + top {plan.cut} (SW-1)")
    return 0


def _enter(args: argparse.Namespace) -> int:
    state = _load(args.state)
    rng = event.event_rng(state.config, "late", len(state.rounds) + 1)
    state = event.enter_late(state, args.names, rng)
    _save(args.state, state)
    print(f"entered from round {len(state.swiss_rounds) + 1}: {', '.join(args.names)}")
    return 0


def _drop(args: argparse.Namespace) -> int:
    state = event.drop(_load(args.state), args.names)
    _save(args.state, state)
    print(f"dropped after round {len(state.rounds)}: {', '.join(args.names)}")
    return 0


def _pair(args: argparse.Namespace) -> int:
    state = _load(args.state)
    number = len(state.rounds) + 1
    state = event.pair_next_round(state, event.event_rng(state.config, "pair", number))
    _save(args.state, state)
    _print(pairings_table(state, state.rounds[-1]), args)
    return 0


def _round_of(state: SwissState, number: int | None) -> int:
    if not state.rounds:
        raise InvalidState("no round has been paired yet: run `mtt swiss pair`")
    chosen = len(state.rounds) if number is None else number
    if not 1 <= chosen <= len(state.rounds):
        raise InvalidInput(f"there is no round {chosen} (rounds paired: {len(state.rounds)})")
    return chosen


def _pairings(args: argparse.Namespace) -> int:
    state = _load(args.state)
    _print(pairings_table(state, state.rounds[_round_of(state, args.round) - 1]), args)
    return 0


def _report(args: argparse.Namespace) -> int:
    state = _load(args.state)
    number = _round_of(state, args.round)
    results = codec.parse_results(_read(args.results, "results file"), state.rounds[number - 1])
    state = event.report_results(state, number, results, amend=args.amend)
    _save(args.state, state)
    _print(pairings_table(state, state.rounds[number - 1]), args)
    return 0


def _play(args: argparse.Namespace) -> int:
    state = _load(args.state)
    number = _round_of(state, None)
    round_ = state.rounds[number - 1]
    config = state.config.poker
    results = {}
    matches = [
        (
            pairing,
            (config.bot_for(pairing.a), config.bot_for(pairing.b)),
            config,
            event.event_rng(state.config, f"poker:{pairing.table}", number),
        )
        for pairing in round_.pairings
        if not pairing.is_reported and pairing.b is not None
    ]
    if args.ray:  # one table actor per match, the round's matches at once
        from orchestrator.shell.driver import local_ray
        from orchestrator.shell.heads_up import play_round_on_ray

        with local_ray(None, logs=False):
            played = play_round_on_ray(matches)
    else:
        played = [poker.play_match(*match) for match in matches]
    for (pairing, *_), match in zip(matches, played, strict=True):
        results[pairing.table] = match.result
        games = "; ".join(
            f"game {k}: {g.winner} in {g.hands} hands ({g.decided.value})"
            for k, g in enumerate(match.games, 1)
        )
        print(f"table {pairing.table}: {pairing.a} v {pairing.b} {match.result.score}: {games}")
    if not results:
        raise InvalidState(f"round {number} has no unreported match to play")
    state = event.report_results(state, number, results)
    _save(args.state, state)
    return 0


def _standings(args: argparse.Namespace) -> int:
    state = _load(args.state)
    _print(standings_table(state, standings(state)), args)
    return 0


def _choice(text: str) -> tuple[int, int]:
    try:
        seed, picked = (int(part) for part in text.split("="))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected SEED=OPPONENT like 1=6, not {text!r}") from None
    return seed, picked


def _cut(args: argparse.Namespace) -> int:
    state = _load(args.state)
    rng = event.event_rng(state.config, "cut", len(state.rounds) + 1)
    if state.cut_seeds:
        if args.choice:
            raise InvalidInput("choices are made when the cut starts (SW-5)")
        state = event.advance_cut(state, rng)
    else:
        choices = dict(args.choice)
        if len(choices) != len(args.choice):
            raise InvalidInput("a seed chooses once (SW-5)")
        state = event.start_cut(state, choices, rng)
    _save(args.state, state)
    _print(pairings_table(state, state.rounds[-1]), args)
    return 0


def _bracket(args: argparse.Namespace) -> int:
    state = _load(args.state)
    if not state.cut_seeds:
        raise InvalidState("the top cut has not started: run `mtt swiss cut`")
    _print(bracket_table(state), args)
    return 0


def _at(args: argparse.Namespace) -> datetime:
    if args.at is None:
        return datetime.now(UTC)  # the shell reads the clock; the core is given the time
    try:
        return datetime.fromisoformat(args.at)
    except ValueError:
        raise InvalidInput(f"--at {args.at!r} is not an ISO date-time") from None


def _warn(args: argparse.Namespace) -> int:
    state = _load(args.state)
    state = sanctions.warn(state, args.player, judge=args.judge, reason=args.reason, at=_at(args))
    _save(args.state, state)
    count = sanctions.warnings_of(state, args.player)
    out = f"warning {count} for {args.player} (judge {args.judge})"
    if args.player in state.disqualified():
        out += f": disqualified (SAN-1, {sanctions.WARNINGS_TO_DISQUALIFY} warnings)"
    print(out)
    return 0


def _disqualify(args: argparse.Namespace) -> int:
    state = _load(args.state)
    state = sanctions.disqualify(
        state, args.player, judge=args.judge, reason=args.reason, at=_at(args)
    )
    _save(args.state, state)
    print(f"{args.player} disqualified (judge {args.judge})")
    return 0


def _sanctions(args: argparse.Namespace) -> int:
    _print(sanctions_table(_load(args.state)), args)
    return 0


# --- mtt league ---------------------------------------------------------------------------


def _season(args: argparse.Namespace) -> league.Season:
    return league.parse_season(_read(args.season, "season file"))


def _league_standings(args: argparse.Namespace) -> int:
    _print(league.standings_view(_season(args)), args)
    return 0


def _league_points(args: argparse.Namespace) -> int:
    _print(league.points_view(_season(args), args.tournament), args)
    return 0


def _league_check(args: argparse.Namespace) -> int:
    _print(league.check_view(_season(args)), args)
    return 0


# --- parsers ------------------------------------------------------------------------------


def _formats(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--csv", action="store_true", help="CSV instead of a text table")
    group.add_argument("--json", action="store_true", help="JSON instead of a text table")


def _state(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state",
        type=Path,
        default=DEFAULT_STATE,
        help=f"the event's state file ({DEFAULT_STATE})",
    )


def _judge(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("player", help="the player sanctioned")
    parser.add_argument("--judge", required=True, help="the judge who gives it (SAN-2)")
    parser.add_argument("--reason", required=True, help="why (SAN-2)")
    parser.add_argument("--at", help="ISO date-time (default: now, UTC)")


def _register_swiss(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    swiss = commands.add_parser(
        "swiss",
        help="Swiss rounds, top cut and sanctions (SW-*, SAN-*)",
        description="Run a Swiss event with a top cut: pair rounds, record results (reported "
        "or played as heads-up poker between bots), standings, the bracket, judges' sanctions.",
    )
    actions = swiss.add_subparsers(dest="action", required=True, metavar="ACTION")

    def add(
        name: str, handler: Handler, help_: str, *, state: bool = True
    ) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=help_, description=help_)
        if state:
            _state(parser)
        parser.set_defaults(handler=_guarded(handler))
        return parser

    p = add("new", _new, "start an event from an event file and a players file")
    p.add_argument("event", type=Path, help="event file (JSON: name, seed, options)")
    p.add_argument("--players", type=Path, required=True, help="players: one name a line, or JSON")
    p.add_argument("--force", action="store_true", help="overwrite an existing state file")

    p = add("structure", _structure, "rounds and top cut for a field size (SW-1)", state=False)
    p.add_argument("--players", type=positive_int, required=True, help="number of players")
    p.add_argument("--fewer-rounds-top16", action="store_true", help="24+: one round less, top 16")

    p = add("enter", _enter, "late entries: join from the next round with no points")
    p.add_argument("names", nargs="+", help="player names")

    p = add("drop", _drop, "players who leave: never paired again")
    p.add_argument("names", nargs="+", help="player names")

    _formats(add("pair", _pair, "pair the next Swiss round (and draw its deck check, SW-6)"))

    p = add("pairings", _pairings, "show a round's pairings and results")
    p.add_argument("round", type=positive_int, nargs="?", help="round number (default: the last)")
    _formats(p)

    p = add("report", _report, "record a round's results from a results file")
    p.add_argument("round", type=positive_int, help="round number")
    p.add_argument("results", type=Path, help='results file (JSON: {"results": [...]})')
    p.add_argument("--amend", action="store_true", help="correct tables already reported")
    _formats(p)

    p = add("play", _play, "play the last round's open matches as heads-up poker between bots")
    p.add_argument(
        "--ray", action="store_true", help="play each match in its own table actor on local Ray"
    )

    _formats(add("standings", _standings, "standings with tie-breakers and dense ranks"))

    p = add("cut", _cut, "start the top cut, or pair its next round (SW-4, SW-5)")
    p.add_argument(
        "--choice",
        type=_choice,
        action="append",
        default=[],
        metavar="SEED=OPPONENT",
        help="'choice' rule: seed SEED picks seed OPPONENT (repeat)",
    )
    _formats(p)

    _formats(add("bracket", _bracket, "the top-cut bracket and the places decided"))

    _judge(add("warn", _warn, "give a warning (the third disqualifies, SAN-1)"))
    _judge(add("disqualify", _disqualify, "disqualify a player (SAN-2)"))
    _formats(add("sanctions", _sanctions, "every sanction with judge, reason and time (SAN-2)"))


def _register_league(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "league",
        help="season league points and standings (LG-*)",
        description="Season league from a season file (TOML): points (LG-1, LG-2), "
        "standings (LG-3) and the sanctioning check (LG-4).",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, handler, help_ in (
        ("standings", _league_standings, "standings with dense ranks and LG-3 tie-breaks"),
        ("points", _league_points, "points of every counting tournament, item by item"),
        ("check", _league_check, "which tournaments count (LG-4), with reasons"),
    ):
        p = actions.add_parser(name, help=help_, description=help_)
        p.add_argument("season", type=Path, help="season file (TOML)")
        if name == "points":
            p.add_argument("--tournament", help="only this tournament id")
        _formats(p)
        p.set_defaults(handler=_guarded(handler))


def register(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    bench: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Add `mtt swiss` and `mtt league` to `mtt`."""
    _register_swiss(commands)
    _register_league(commands)
