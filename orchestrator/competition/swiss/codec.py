"""Plain-data forms of the event: the event file, the players list, the results file and the
saved state. Pure: text and dicts in, records out (the CLI reads and writes the files).
Every input is checked strictly: unknown keys, wrong types and impossible values are refused
with a message that names the place, before anything is built.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from orchestrator.competition.swiss.errors import InvalidInput, UnknownPlayer
from orchestrator.competition.swiss.event import check_name
from orchestrator.competition.swiss.model import (
    CutRule,
    EventConfig,
    MatchResult,
    Pairing,
    Player,
    PokerConfig,
    Round,
    Sanction,
    SanctionKind,
    Stage,
    SwissState,
    Tiebreaker,
)
from orchestrator.competition.swiss.structure import Structure
from table_worker.bots import BOT_POLICIES

__all__ = [
    "STATE_VERSION",
    "parse_event_config",
    "parse_players",
    "parse_results",
    "state_from_dict",
    "state_to_dict",
]

STATE_VERSION = 1

_EVENT_KEYS = {
    "name",
    "seed",
    "fewer_rounds_top16",
    "cut_rule",
    "third_place",
    "deck_checks",
    "tiebreakers",
    "head_judge",
    "poker",
}
_POKER_KEYS = {"starting_stack", "small_blind", "big_blind", "double_every", "hand_cap", "bots"}
_RESULT_KEYS = {"table", "games", "intentional_draw", "players"}


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _no_unknown(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InvalidInput(
            f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})"
        )


def _typed(data: Mapping[str, Any], key: str, kind: type, where: str, default: Any) -> Any:
    value = data.get(key, default)
    # bool is an int in Python; a count must not be `true`.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidInput(f"{where}: {key} must be {kind.__name__}, not {value!r}")
    return value


def _positive(data: Mapping[str, Any], key: str, where: str, default: int) -> int:
    value: int = _typed(data, key, int, where, default)
    if value <= 0:
        raise InvalidInput(f"{where}: {key} must be positive, not {value}")
    return value


def _parse_poker(raw: object) -> PokerConfig:
    where = "event file, poker"
    data = _object(raw, where)
    _no_unknown(data, _POKER_KEYS, where)
    default = PokerConfig()
    bots = _object(data.get("bots", dict(default.bots)), f"{where}.bots")
    for player, policy in bots.items():
        if policy not in BOT_POLICIES:
            known = ", ".join(sorted(BOT_POLICIES))
            raise InvalidInput(f"{where}.bots: {player!r} has unknown policy {policy!r} ({known})")
    config = PokerConfig(
        starting_stack=_positive(data, "starting_stack", where, default.starting_stack),
        small_blind=_positive(data, "small_blind", where, default.small_blind),
        big_blind=_positive(data, "big_blind", where, default.big_blind),
        double_every=_positive(data, "double_every", where, default.double_every),
        hand_cap=_positive(data, "hand_cap", where, default.hand_cap),
        bots=dict(bots),
    )
    if config.small_blind > config.big_blind:
        raise InvalidInput(f"{where}: the small blind cannot exceed the big blind")
    return config


def parse_event_config(text: str) -> EventConfig:
    """The event file (JSON): `name` and `seed` required, the rest optional."""
    where = "event file"
    try:
        data = _object(json.loads(text), where)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where}: not valid JSON ({exc})") from exc
    _no_unknown(data, _EVENT_KEYS, where)
    for key in ("name", "seed"):
        if key not in data:
            raise InvalidInput(f"{where}: {key} is required")
    name: str = _typed(data, "name", str, where, "")
    if not name.strip():
        raise InvalidInput(f"{where}: name must not be empty")
    breakers_raw = _typed(data, "tiebreakers", list, where, ["omw", "gw", "ogw"])
    try:
        breakers = tuple(Tiebreaker(b) for b in breakers_raw)
        cut_rule = CutRule(_typed(data, "cut_rule", str, where, "seed"))
    except ValueError as exc:
        raise InvalidInput(
            f"{where}: {exc} (cut_rule: seed|choice; tiebreakers: "
            f"{', '.join(t.value for t in Tiebreaker)})"
        ) from exc
    if len(set(breakers)) != len(breakers):
        raise InvalidInput(f"{where}: a tie-breaker is listed twice")
    return EventConfig(
        name=name,
        seed=_typed(data, "seed", int, where, 0),
        fewer_rounds_top16=_typed(data, "fewer_rounds_top16", bool, where, False),
        cut_rule=cut_rule,
        third_place=_typed(data, "third_place", bool, where, True),
        deck_checks=_typed(data, "deck_checks", bool, where, True),
        tiebreakers=breakers,
        head_judge=_typed(data, "head_judge", str, where, ""),
        poker=_parse_poker(data.get("poker", {})),
    )


def parse_players(text: str) -> list[str]:
    """A players file: a JSON list of names, or plain text with one name per line
    (blank lines and lines starting with # are skipped)."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            names = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"players file: not valid JSON ({exc})") from exc
        if not isinstance(names, list):  # pragma: no cover - starts with "["
            raise InvalidInput("players file: expected a list of names")
    else:
        names = [
            line.strip()
            for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
    return [check_name(n) for n in names]


def _parse_games(value: object, where: str) -> tuple[int, int, int]:
    parts: list[object]
    if isinstance(value, str):
        try:
            parts = [int(p) for p in value.split("-")]
        except ValueError as exc:
            raise InvalidInput(f"{where}: games {value!r} is not like 2-1 or 1-1-1") from exc
    elif isinstance(value, list):
        parts = list(value)
    else:
        raise InvalidInput(f'{where}: games must be like "2-1" or [2, 1], not {value!r}')
    counts = [p for p in parts if type(p) is int]
    if len(parts) not in (2, 3) or len(counts) != len(parts):
        raise InvalidInput(f"{where}: games needs won-lost or won-lost-drawn, not {value!r}")
    a, b, *drawn = counts
    return a, b, (drawn[0] if drawn else 0)


def parse_results(text: str, round_: Round) -> dict[int, MatchResult]:
    """A results file (JSON): `{"results": [{"table": 1, "games": "2-1"}, {"table": 2,
    "intentional_draw": true}, ...]}`; games are the first-listed player's wins first.
    An optional `players: [a, b]` must match the table, to catch a report for the wrong table.
    """
    where = "results file"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where}: not valid JSON ({exc})") from exc
    data = _object(data, where)
    _no_unknown(data, {"results"}, where)
    entries = data.get("results")
    if not isinstance(entries, list) or not entries:
        raise InvalidInput(f"{where}: results must be a non-empty list")
    results: dict[int, MatchResult] = {}
    for k, raw in enumerate(entries, start=1):
        at = f"{where}, entry {k}"
        entry = _object(raw, at)
        _no_unknown(entry, _RESULT_KEYS, at)
        table: int = _typed(entry, "table", int, at, None)
        if table in results:
            raise InvalidInput(f"{at}: table {table} is reported twice")
        pairing = round_.table(table)
        if pairing is None:
            raise InvalidInput(f"{at}: round {round_.number} has no table {table}")
        if "players" in entry:
            _check_players(entry["players"], pairing, at)
        intentional = _typed(entry, "intentional_draw", bool, at, False)
        if intentional:
            if "games" in entry:
                raise InvalidInput(f"{at}: an intentional draw (SW-3) has no games")
            results[table] = MatchResult(games_a=0, games_b=0, intentional_draw=True)
            continue
        if "games" not in entry:
            raise InvalidInput(f'{at}: give games (like "2-1") or intentional_draw: true')
        a, b, drawn = _parse_games(entry["games"], at)
        try:
            results[table] = MatchResult(games_a=a, games_b=b, games_drawn=drawn)
        except InvalidInput as exc:
            raise type(exc)(f"{at}: {exc}") from exc
    return results


def _check_players(value: object, pairing: Pairing, where: str) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"{where}: players must be a list of names")
    if value != [pairing.a, pairing.b]:
        listed = f"{pairing.a} v {pairing.b}" if pairing.b else f"{pairing.a} (bye)"
        raise UnknownPlayer(f"{where}: table {pairing.table} is {listed}, not {' v '.join(value)}")


# --- the saved state -------------------------------------------------------------------


def _result_to_dict(result: MatchResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "games_a": result.games_a,
        "games_b": result.games_b,
        "games_drawn": result.games_drawn,
        "intentional_draw": result.intentional_draw,
    }


def state_to_dict(state: SwissState) -> dict[str, Any]:
    config = state.config
    return {
        "version": STATE_VERSION,
        "config": {
            "name": config.name,
            "seed": config.seed,
            "fewer_rounds_top16": config.fewer_rounds_top16,
            "cut_rule": config.cut_rule.value,
            "third_place": config.third_place,
            "deck_checks": config.deck_checks,
            "tiebreakers": [t.value for t in config.tiebreakers],
            "head_judge": config.head_judge,
            "poker": {
                "starting_stack": config.poker.starting_stack,
                "small_blind": config.poker.small_blind,
                "big_blind": config.poker.big_blind,
                "double_every": config.poker.double_every,
                "hand_cap": config.poker.hand_cap,
                "bots": dict(config.poker.bots),
            },
        },
        "players": [
            {
                "name": p.name,
                "lot": p.lot,
                "joined_round": p.joined_round,
                "dropped_after": p.dropped_after,
            }
            for p in state.players
        ],
        "structure": None
        if state.structure is None
        else {"rounds": state.structure.rounds, "cut": state.structure.cut},
        "rounds": [
            {
                "number": r.number,
                "stage": r.stage.value,
                "deck_check": r.deck_check,
                "log": list(r.log),
                "pairings": [
                    {
                        "table": p.table,
                        "a": p.a,
                        "b": p.b,
                        "label": p.label,
                        "chooser": p.chooser,
                        "result": _result_to_dict(p.result),
                    }
                    for p in r.pairings
                ],
            }
            for r in state.rounds
        ],
        "sanctions": [
            {
                "player": s.player,
                "kind": s.kind.value,
                "judge": s.judge,
                "reason": s.reason,
                "at": s.at,
                "round": s.round,
            }
            for s in state.sanctions
        ],
        "cut_seeds": list(state.cut_seeds),
        "cut_log": list(state.cut_log),
    }


def state_from_dict(data: Mapping[str, Any]) -> SwissState:
    """Rebuild the state written by `state_to_dict`; a file from elsewhere is refused."""
    if data.get("version") != STATE_VERSION:
        raise InvalidInput(f"state file: version {data.get('version')!r} is not {STATE_VERSION}")
    try:
        config_text = json.dumps(data["config"])
        config = parse_event_config(config_text)
        structure = data["structure"]
        return SwissState(
            config=config,
            players=tuple(Player(**p) for p in data["players"]),
            structure=None if structure is None else Structure(**structure),
            rounds=tuple(
                Round(
                    number=r["number"],
                    stage=Stage(r["stage"]),
                    deck_check=r["deck_check"],
                    log=tuple(r["log"]),
                    pairings=tuple(
                        Pairing(
                            table=p["table"],
                            a=p["a"],
                            b=p["b"],
                            label=p["label"],
                            chooser=p["chooser"],
                            result=None if p["result"] is None else MatchResult(**p["result"]),
                        )
                        for p in r["pairings"]
                    ),
                )
                for r in data["rounds"]
            ),
            sanctions=tuple(
                Sanction(**{**s, "kind": SanctionKind(s["kind"])}) for s in data["sanctions"]
            ),
            cut_seeds=tuple(data["cut_seeds"]),
            cut_log=tuple(data["cut_log"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInput(f"state file is damaged: {exc!r}") from exc
