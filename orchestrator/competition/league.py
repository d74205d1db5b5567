"""The season league (LG-*): points per tournament, the LG-4 sanctioning check, standings.

Pure: a season file's text in, records out. Season points are integers; the national-final
bonuses of major podiums (LG-2: 1.5 / 1 / 0.5) are exact `Fraction`s, kept apart from the points.

Decisions (RULES.md and the source, 003):
- LG-1 counts every match won, the top cut's final included: the source's own worked example
  does (26 players, 13 Swiss points + 3 cut wins = 22, + 4 + 8 = 34).
- LG-1 "1 point per 8 players" is per *started* group of 8 (25 players -> 4), as the example.
- LG-2 a tournament flagged major with fewer than 12 players is scored as a standard one,
  and the points table says so.
- LG-4 "none within 7 days of a major" follows the source literally: a non-major tournament
  less than 7 days from a counting major does not count (exactly 7 days apart is allowed).
  The monthly limit (2 per organiser per calendar month) is applied in date order, and only
  tournaments that pass every other check use up a slot.

>>> participant_points(25, podium=True), participant_points(25, podium=False)
(8, 4)
>>> participant_points(31, podium=True), participant_points(41, podium=True)
(9, 10)
"""

from __future__ import annotations

import datetime as dt
import tomllib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from orchestrator.competition.swiss.errors import InvalidInput
from orchestrator.competition.swiss.render import Table
from orchestrator.competition.swiss.standings import dense_ranks

__all__ = [
    "MAJOR_MIN_PLAYERS",
    "LeagueStanding",
    "LeagueTournament",
    "Sanctioning",
    "Season",
    "TournamentPoints",
    "TournamentResult",
    "check_sanctioning",
    "check_view",
    "is_major",
    "league_standings",
    "parse_season",
    "participant_points",
    "points_view",
    "season_points",
    "standings_view",
    "tournament_points",
]

WIN_POINTS = 3  # LG-1
DRAW_POINTS = 1  # LG-1
PLACING_BONUS = {1: 4, 2: 2, 3: 1}  # LG-1
MAJOR_PLACING_BONUS = {1: 10, 2: 8, 3: 7}  # LG-2
MAJOR_PODIUM_EXTRA = 2  # LG-2: extra participant points for the top three
MAJOR_TOP8_BONUS = 1  # LG-2: 4th to 8th place
NATIONAL_BONUS = {1: Fraction(3, 2), 2: Fraction(1), 3: Fraction(1, 2)}  # LG-2
MAJOR_MIN_PLAYERS = 12  # LG-2
# LG-1: the top three's participant points by field size, (up to, points); 31+ below.
PODIUM_BANDS: tuple[tuple[int, int], ...] = ((8, 0), (12, 1), (16, 3), (22, 5), (30, 8))
# LG-4
MIN_NOTICE_DAYS = 14
MIN_PLAYERS = 6
MIN_PRIZE_PLACES = 2
MAX_PER_MONTH = 2
MAJOR_CLEARANCE_DAYS = 7


def participant_points(players: int, *, podium: bool) -> int:
    """LG-1: points for the field size; the top three by the bands, everyone else 1 per
    started group of 8 players."""
    if not podium:
        return -(-players // 8)
    for upto, points in PODIUM_BANDS:
        if players <= upto:
            return points
    return 8 + -(-(players - 30) // 10)  # 31+: 8 plus 1 for each started ten above 30


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentResult:
    player: str
    wins: int
    draws: int = 0
    place: int | None = None
    dropped: bool = False  # LG-2: left before their last round


@dataclass(frozen=True, slots=True, kw_only=True)
class LeagueTournament:
    """One tournament of the season as the season file lists it (not the poker tournament
    the orchestrator runs, `orchestrator.core.tournament.Tournament`)."""

    id: str
    name: str
    date: dt.date
    announced: dt.date
    organiser: str
    major: bool
    judge: str
    public_venue: bool
    prize_places: int
    players: int
    results: tuple[TournamentResult, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Season:
    name: str
    start: dt.date | None
    end: dt.date | None
    tournaments: tuple[LeagueTournament, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sanctioning:
    """LG-4's verdict on one tournament; `reasons` says why it does not count."""

    tournament: str
    counts: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentPoints:
    tournament: str
    player: str
    place: int | None
    match_points: int
    participant: int
    placing_bonus: int
    top8_bonus: int
    national_bonus: Fraction
    note: str = ""
    dropped: bool = False

    @property
    def total(self) -> int:
        return self.match_points + self.participant + self.placing_bonus + self.top8_bonus


@dataclass(frozen=True, slots=True, kw_only=True)
class LeagueStanding:
    rank: int  # LG-3: dense by points (71, 65, 54, 54 -> 1, 2, 3, 3)
    position: int  # dense by the full LG-3 tie-break order, for qualification
    player: str
    points: int
    won: int
    seconds: int
    majors_won: int
    best_major_place: int | None
    played: int
    national_bonus: Fraction


def is_major(tournament: LeagueTournament) -> bool:
    return tournament.major and tournament.players >= MAJOR_MIN_PLAYERS


def tournament_points(tournament: LeagueTournament) -> tuple[TournamentPoints, ...]:
    """LG-1 and LG-2 for every result of one tournament."""
    major = is_major(tournament)
    note = ""
    if tournament.major and not major:
        note = f"scored as standard: a major needs {MAJOR_MIN_PLAYERS}+ players (LG-2)"
    rows: list[TournamentPoints] = []
    n = tournament.players
    for r in tournament.results:
        podium = r.place in (1, 2, 3)
        if major and r.dropped:
            rows.append(
                TournamentPoints(
                    tournament=tournament.id,
                    player=r.player,
                    place=r.place,
                    match_points=0,
                    participant=0,
                    placing_bonus=0,
                    top8_bonus=0,
                    national_bonus=Fraction(0),
                    note="dropped from a major: no points (LG-2)",
                    dropped=True,
                )
            )
            continue
        participant = participant_points(n, podium=podium)
        bonus, top8, national = 0, 0, Fraction(0)
        if podium and r.place is not None:
            if major:
                participant += MAJOR_PODIUM_EXTRA
                bonus = MAJOR_PLACING_BONUS[r.place]
                national = NATIONAL_BONUS[r.place]
            else:
                bonus = PLACING_BONUS[r.place]
        elif major and r.place is not None and 4 <= r.place <= 8:
            top8 = MAJOR_TOP8_BONUS
        rows.append(
            TournamentPoints(
                tournament=tournament.id,
                player=r.player,
                place=r.place,
                match_points=WIN_POINTS * r.wins + DRAW_POINTS * r.draws,
                participant=participant,
                placing_bonus=bonus,
                top8_bonus=top8,
                national_bonus=national,
                note=note,
            )
        )
    return tuple(rows)


def check_sanctioning(season: Season) -> tuple[Sanctioning, ...]:
    """LG-4 for every tournament, in the season file's order."""
    # STEP 1: each tournament on its own.
    reasons: dict[str, list[str]] = {t.id: _own_faults(t, season) for t in season.tournaments}
    # STEP 2: non-majors too close to a major that counts.
    majors = [t for t in season.tournaments if is_major(t) and not reasons[t.id]]
    for t in season.tournaments:
        if is_major(t) or reasons[t.id]:
            continue
        for m in majors:
            gap = abs((t.date - m.date).days)
            if gap < MAJOR_CLEARANCE_DAYS:
                reasons[t.id].append(
                    f"{gap} day(s) from major {m.id} on {m.date}: none within "
                    f"{MAJOR_CLEARANCE_DAYS} days of a major"
                )
                break
    # STEP 3: at most two a month per organiser, in date order, among those still counting.
    seen: dict[tuple[str, int, int], int] = defaultdict(int)
    for t in sorted(season.tournaments, key=lambda t: (t.date, t.id)):
        if reasons[t.id]:
            continue
        month = (t.organiser, t.date.year, t.date.month)
        seen[month] += 1
        if seen[month] > MAX_PER_MONTH:
            reasons[t.id].append(
                f"tournament number {seen[month]} of {t.organiser} in "
                f"{t.date.year}-{t.date.month:02d}: at most {MAX_PER_MONTH} a month per organiser"
            )
    return tuple(
        Sanctioning(
            tournament=t.id,
            counts=not reasons[t.id],
            reasons=tuple(f"LG-4: {r}" for r in reasons[t.id]),
        )
        for t in season.tournaments
    )


def _own_faults(t: LeagueTournament, season: Season) -> list[str]:
    faults: list[str] = []
    notice = (t.date - t.announced).days
    if notice < MIN_NOTICE_DAYS:
        faults.append(f"announced {notice} day(s) ahead, needs {MIN_NOTICE_DAYS}")
    if t.players < MIN_PLAYERS:
        faults.append(f"{t.players} players, needs at least {MIN_PLAYERS}")
    if not t.judge.strip():
        faults.append("no judge named")
    if not t.public_venue:
        faults.append("not at a public venue")
    if t.prize_places < MIN_PRIZE_PLACES:
        faults.append(f"prizes for {t.prize_places} place(s), needs at least {MIN_PRIZE_PLACES}")
    if (season.start and t.date < season.start) or (season.end and t.date > season.end):
        faults.append(f"on {t.date}, outside the season ({season.start} to {season.end})")
    return faults


def season_points(season: Season) -> tuple[TournamentPoints, ...]:
    """Points of every tournament that counts (LG-4), in the season file's order."""
    counting = {s.tournament for s in check_sanctioning(season) if s.counts}
    return tuple(
        row for t in season.tournaments if t.id in counting for row in tournament_points(t)
    )


def league_standings(season: Season) -> tuple[LeagueStanding, ...]:
    """LG-3: ordered by points, tournaments won, second places, majors won, best major
    placing, tournaments played (more is better); ranks dense by points."""
    majors = {t.id for t in season.tournaments if is_major(t)}
    totals: dict[str, list[TournamentPoints]] = defaultdict(list)
    for row in season_points(season):
        totals[row.player].append(row)

    def summary(player: str) -> LeagueStanding:
        rows = totals[player]
        major_places = [
            r.place
            for r in rows
            if r.tournament in majors and r.place is not None and not r.dropped
        ]
        return LeagueStanding(
            rank=0,
            position=0,
            player=player,
            points=sum(r.total for r in rows),
            won=sum(r.place == 1 for r in rows),
            seconds=sum(r.place == 2 for r in rows),
            majors_won=sum(p == 1 for p in major_places),
            best_major_place=min(major_places, default=None),
            played=len(rows),
            national_bonus=sum((r.national_bonus for r in rows), Fraction(0)),
        )

    def key(s: LeagueStanding) -> tuple[int, ...]:
        best = s.best_major_place if s.best_major_place is not None else 1 << 30
        return (-s.points, -s.won, -s.seconds, -s.majors_won, best, -s.played)

    rows = sorted((summary(p) for p in totals), key=lambda s: (key(s), s.player))
    ranks = dense_ranks([s.points for s in rows])
    positions = dense_ranks([key(s) for s in rows])
    return tuple(
        LeagueStanding(**{**_fields(s), "rank": rank, "position": position})
        for s, rank, position in zip(rows, ranks, positions, strict=True)
    )


def _fields(s: LeagueStanding) -> dict[str, Any]:
    return {name: getattr(s, name) for name in LeagueStanding.__dataclass_fields__}


# --- the season file ---------------------------------------------------------------------

_SEASON_KEYS = {"season", "start", "end", "tournament"}
_TOURNAMENT_KEYS = {
    "id",
    "name",
    "date",
    "announced",
    "organiser",
    "major",
    "judge",
    "public_venue",
    "prize_places",
    "players",
    "results",
}
_RESULT_KEYS = {"player", "wins", "draws", "place", "dropped"}
_MISSING = object()


def _get(data: Mapping[str, Any], key: str, kind: type, where: str, default: Any = _MISSING) -> Any:
    if key not in data:
        if default is _MISSING:
            raise InvalidInput(f"{where}: {key} is required")
        return default
    value = data[key]
    # bool is an int in Python, and a datetime is a date: neither may stand in for the other.
    wrong_bool = kind is int and isinstance(value, bool)
    wrong_date = kind is dt.date and type(value) is not dt.date
    if not isinstance(value, kind) or wrong_bool or wrong_date:
        raise InvalidInput(f"{where}: {key} must be a {kind.__name__}, not {value!r}")
    return value


def _check_keys(data: Any, allowed: set[str], where: str) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise InvalidInput(f"{where}: expected a table")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InvalidInput(
            f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})"
        )
    return data


def _parse_result(raw: Any, where: str, players: int) -> TournamentResult:
    data = _check_keys(raw, _RESULT_KEYS, where)
    player: str = _get(data, "player", str, where)
    if not player.strip():
        raise InvalidInput(f"{where}: player must not be empty")
    result = TournamentResult(
        player=player,
        wins=_get(data, "wins", int, where),
        draws=_get(data, "draws", int, where, 0),
        place=_get(data, "place", int, where, None) if "place" in data else None,
        dropped=_get(data, "dropped", bool, where, False),
    )
    if result.wins < 0 or result.draws < 0:
        raise InvalidInput(f"{where}: wins and draws cannot be negative")
    if result.place is not None and not 1 <= result.place <= players:
        raise InvalidInput(f"{where}: place {result.place} is outside 1..{players}")
    return result


def _parse_tournament(raw: Any, where: str) -> LeagueTournament:
    data = _check_keys(raw, _TOURNAMENT_KEYS, where)
    tid: str = _get(data, "id", str, where)
    where = f"tournament {tid!r}"
    entries = _get(data, "results", list, where)
    players: int = _get(data, "players", int, where, len(entries))
    if players < len(entries):
        raise InvalidInput(f"{where}: players = {players} but {len(entries)} results")
    results = tuple(
        _parse_result(r, f"{where}, result {k}", players) for k, r in enumerate(entries, 1)
    )
    names = [r.player for r in results]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InvalidInput(f"{where}: player(s) listed twice: {', '.join(twice)}")
    places = [r.place for r in results if r.place is not None]
    for place in (1, 2):
        if places.count(place) > 1:
            raise InvalidInput(f"{where}: place {place} is given to more than one player")
    if places.count(3) > 2:  # two semifinal losers share third without a third-place match
        raise InvalidInput(f"{where}: place 3 is given to more than two players")
    tournament = LeagueTournament(
        id=tid,
        name=_get(data, "name", str, where, tid),
        date=_get(data, "date", dt.date, where),
        announced=_get(data, "announced", dt.date, where),
        organiser=_get(data, "organiser", str, where),
        major=_get(data, "major", bool, where, False),
        judge=_get(data, "judge", str, where, ""),
        public_venue=_get(data, "public_venue", bool, where),
        prize_places=_get(data, "prize_places", int, where),
        players=players,
        results=results,
    )
    if tournament.announced > tournament.date:
        raise InvalidInput(f"{where}: announced {tournament.announced}, after its date")
    return tournament


def parse_season(text: str) -> Season:
    """A season file (TOML): `season`, optional `start`/`end`, and `[[tournament]]` tables,
    each with its `results = [{player, wins, draws, place, dropped}, ...]`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"season file: not valid TOML ({exc})") from exc
    _check_keys(data, _SEASON_KEYS, "season file")
    raw_tournaments = _get(data, "tournament", list, "season file", [])
    tournaments = tuple(
        _parse_tournament(t, f"tournament {k}") for k, t in enumerate(raw_tournaments, 1)
    )
    ids = [t.id for t in tournaments]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise InvalidInput(f"season file: tournament id(s) used twice: {', '.join(twice)}")
    return Season(
        name=_get(data, "season", str, "season file"),
        start=_get(data, "start", dt.date, "season file", None) if "start" in data else None,
        end=_get(data, "end", dt.date, "season file", None) if "end" in data else None,
        tournaments=tournaments,
    )


# --- views -------------------------------------------------------------------------------


def _bonus(value: Fraction) -> str:
    """1.5, 1, 0.5: the national-final bonuses are halves at most, so this is exact."""
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def standings_view(season: Season) -> Table:
    rows: list[list[str | int | None]] = [
        [
            s.rank,
            s.position,
            s.player,
            s.points,
            s.won,
            s.seconds,
            s.majors_won,
            s.best_major_place,
            s.played,
            _bonus(s.national_bonus),
        ]
        for s in league_standings(season)
    ]
    columns = ["rank", "position", "player", "points", "W", "S", "MW", "MP", "T", "final_bonus"]
    return Table(f"{season.name}: league standings (LG-3)", columns, rows)


def points_view(season: Season, tournament: str | None = None) -> Table:
    known = {t.id for t in season.tournaments}
    if tournament is not None and tournament not in known:
        raise InvalidInput(f"no tournament {tournament!r} in the season file")
    rows: list[list[str | int | None]] = [
        [
            r.tournament,
            r.place,
            r.player,
            r.match_points,
            r.participant,
            r.placing_bonus,
            r.top8_bonus,
            r.total,
            _bonus(r.national_bonus),
            r.note,
        ]
        for r in season_points(season)
        if tournament is None or r.tournament == tournament
    ]
    columns = [
        "tournament",
        "place",
        "player",
        "matches",
        "participant",
        "placing",
        "top8",
        "total",
        "final_bonus",
        "note",
    ]
    return Table(f"{season.name}: points by tournament (LG-1, LG-2)", columns, rows)


def check_view(season: Season) -> Table:
    by_id = {t.id: t for t in season.tournaments}
    rows: list[list[str | int | None]] = [
        [
            s.tournament,
            str(by_id[s.tournament].date),
            by_id[s.tournament].organiser,
            "major" if is_major(by_id[s.tournament]) else "",
            "yes" if s.counts else "no",
            "; ".join(s.reasons),
        ]
        for s in check_sanctioning(season)
    ]
    columns = ["tournament", "date", "organiser", "major", "counts", "reasons"]
    return Table(f"{season.name}: sanctioning check (LG-4)", columns, rows)
