"""The season league by rule: LG-1/LG-2 points with the source's worked examples as vectors,
LG-3 dense ranks and tie-breaks, LG-4 sanctioning with reasons, and the season file."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest

from orchestrator.competition.league import (
    LeagueTournament,
    Season,
    TournamentResult,
    check_sanctioning,
    league_standings,
    parse_season,
    participant_points,
    tournament_points,
)
from orchestrator.competition.swiss import InvalidInput, dense_ranks

DAY = dt.timedelta(days=1)
START = dt.date(2011, 10, 1)


def tournament(
    tid: str = "t",
    *,
    results: tuple[TournamentResult, ...] = (),
    players: int | None = None,
    major: bool = False,
    on: dt.date = START,
    notice: int = 20,
    organiser: str = "Shop",
    judge: str = "Mario",
    public_venue: bool = True,
    prize_places: int = 2,
) -> LeagueTournament:
    return LeagueTournament(
        id=tid,
        name=tid,
        date=on,
        announced=on - notice * DAY,
        organiser=organiser,
        major=major,
        judge=judge,
        public_venue=public_venue,
        prize_places=prize_places,
        players=players if players is not None else max(len(results), 6),
        results=results,
    )


def field(n: int, *, wins: int | None = None, draws: int = 0) -> tuple[TournamentResult, ...]:
    """n results with no match points; the first three placed 1, 2, 3."""
    rows = [
        TournamentResult(player=f"p{k}", wins=0, place=k if k <= 3 else None)
        for k in range(1, n + 1)
    ]
    if wins is not None:
        rows[0] = TournamentResult(player="p1", place=1, wins=wins, draws=draws)
    return tuple(rows)


def season(*tournaments: LeagueTournament) -> Season:
    return Season(name="s", start=None, end=None, tournaments=tournaments)


def extras(t: LeagueTournament) -> list[int]:
    return [r.participant + r.placing_bonus + r.top8_bonus for r in tournament_points(t)]


def test_lg1_25_players_top_three_get_12_10_9_others_4() -> None:
    assert extras(tournament(results=field(25))) == [12, 10, 9] + [4] * 22


def test_lg1_26_players_13_swiss_points_then_wins_top8_scores_34() -> None:
    # 13 Swiss points = 4 wins and a draw; 3 cut wins -> 7 wins, 1 draw = 22 (+ 4 + 8).
    rows = tournament_points(tournament(results=field(26, wins=7, draws=1)))
    assert rows[0].match_points == 22 and rows[0].total == 34


@pytest.mark.parametrize(
    ("players", "podium"),
    [
        (6, 0),
        (8, 0),
        (9, 1),
        (12, 1),
        (13, 3),
        (16, 3),
        (17, 5),
        (22, 5),
        (23, 8),
        (30, 8),
        (31, 9),
        (40, 9),
        (41, 10),
        (55, 11),
    ],
)
def test_lg1_participant_points_by_field_size(players: int, podium: int) -> None:
    assert participant_points(players, podium=True) == podium


@pytest.mark.parametrize(("players", "others"), [(6, 1), (8, 1), (9, 2), (16, 2), (25, 4)])
def test_lg1_everyone_else_one_point_per_started_eight(players: int, others: int) -> None:
    assert participant_points(players, podium=False) == others


def test_lg2_major_26_players_13_swiss_points_then_wins_top8_scores_42() -> None:
    rows = tournament_points(tournament(results=field(26, wins=7, draws=1), major=True))
    assert rows[0].total == 42  # 22 + 10 + (8 + 2): the source's "19" is a slip for 20
    assert (rows[0].placing_bonus, rows[0].participant) == (10, 10)


def test_lg2_major_bonuses_10_8_7_top8_bonus_and_national_final_halves() -> None:
    results = tuple(TournamentResult(player=f"p{k}", wins=0, place=k) for k in range(1, 13))
    rows = tournament_points(tournament(results=results, major=True))
    assert [r.placing_bonus for r in rows[:3]] == [10, 8, 7]
    assert [r.participant for r in rows[:3]] == [3, 3, 3]  # 12 players: 1 + 2 extra
    assert [r.top8_bonus for r in rows] == [0, 0, 0] + [1] * 5 + [0] * 4
    assert [r.national_bonus for r in rows[:4]] == [
        Fraction(3, 2),
        Fraction(1),
        Fraction(1, 2),
        Fraction(0),
    ]


def test_lg2_player_who_drops_from_a_major_earns_nothing() -> None:
    results = (*field(12)[:11], TournamentResult(player="quit", wins=3, dropped=True))
    rows = tournament_points(tournament(results=results, major=True))
    assert rows[-1].total == 0 and "LG-2" in rows[-1].note
    standard = tournament_points(tournament(results=results))
    assert standard[-1].total == 9 + 2  # a standard tournament still pays a dropped player


def test_lg2_major_needs_12_players_else_scored_as_standard() -> None:
    rows = tournament_points(tournament(results=field(11), major=True))
    assert rows[0].placing_bonus == 4 and "12+" in rows[0].note


def test_lg3_dense_ranks_71_65_54_54_42_42() -> None:
    assert dense_ranks([71, 65, 54, 54, 42, 42]) == [1, 2, 3, 3, 4, 4]
    # The same through a season: 6 players, no places, 1 participant point each.
    wins_draws = {
        "Tizio": (23, 1),
        "Caio": (21, 1),
        "Sempronio": (17, 2),
        "Platone": (17, 2),
        "Aristotele": (13, 2),
        "Ulisse": (13, 2),
    }
    results = tuple(TournamentResult(player=p, wins=w, draws=d) for p, (w, d) in wins_draws.items())
    table = league_standings(season(tournament(results=results)))
    assert [(s.player, s.points) for s in table][:2] == [("Tizio", 71), ("Caio", 65)]
    assert [s.rank for s in table] == [1, 2, 3, 3, 4, 4]


def test_lg3_tie_breaks_won_seconds_majors_won_best_major_place_played() -> None:
    # Equal points: A won a tournament, B did not -> A first.
    t1 = tournament(
        "t1",
        results=(
            TournamentResult(player="A", wins=0, place=1),  # 0 + 4 bonus + 0 participant
            TournamentResult(player="B", wins=1, draws=1, place=None),  # 3 + 1 + 1 = 5... see below
            *(TournamentResult(player=f"x{k}", wins=0) for k in range(4)),
        ),
    )
    rows = {r.player: r.total for r in tournament_points(t1)}
    assert rows["A"] == 4 and rows["B"] == 5
    t2 = tournament(
        "t2",
        on=START + 20 * DAY,
        results=(
            TournamentResult(player="A", wins=0, place=3),  # 1 placing: A totals 5, as B
            *(TournamentResult(player=f"y{k}", wins=0) for k in range(5)),
        ),
    )
    table = league_standings(season(t1, t2))
    top = [s for s in table if s.player in "AB"]
    assert [(s.player, s.points, s.rank) for s in top] == [("A", 5, 1), ("B", 5, 1)]
    assert top[0].won == 1 and top[0].position < top[1].position


def test_lg3_more_tournaments_played_wins_the_last_tie() -> None:
    def six(tid: str, day: int, row: TournamentResult) -> LeagueTournament:
        others = (TournamentResult(player=f"{tid}{k}", wins=0) for k in range(5))
        return tournament(tid, on=START + day * DAY, results=(row, *others))

    # A: one win + 1 participant point = 4 in one tournament; B: a draw + 1, twice = 4.
    one = six("t1", 0, TournamentResult(player="A", wins=1))
    two = six("t2", 20, TournamentResult(player="B", wins=0, draws=1))
    three = six("t3", 40, TournamentResult(player="B", wins=0, draws=1))
    table = [s for s in league_standings(season(one, two, three)) if s.player in "AB"]
    assert [(s.player, s.points, s.played, s.rank) for s in table] == [
        ("B", 4, 2, 1),
        ("A", 4, 1, 1),
    ]
    assert table[0].position < table[1].position


def test_lg4_counting_tournament_has_no_reasons() -> None:
    (verdict,) = check_sanctioning(season(tournament(results=field(8))))
    assert verdict.counts and verdict.reasons == ()


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"notice": 13}, "announced 13 day(s) ahead, needs 14"),
        ({"players": 5}, "5 players, needs at least 6"),
        ({"judge": ""}, "no judge named"),
        ({"public_venue": False}, "not at a public venue"),
        ({"prize_places": 1}, "prizes for 1 place(s), needs at least 2"),
    ],
)
def test_lg4_each_requirement_gives_its_reason(options: dict[str, object], reason: str) -> None:
    results = field(5) if options.get("players") == 5 else field(6)
    (verdict,) = check_sanctioning(season(tournament(results=results, **options)))  # type: ignore[arg-type]
    assert not verdict.counts and verdict.reasons == (f"LG-4: {reason}",)


def test_lg4_at_most_two_a_month_per_organiser() -> None:
    ts = [tournament(f"t{k}", results=field(6), on=START + k * 7 * DAY) for k in range(3)]
    other = tournament("o", results=field(6), on=START + 2 * DAY, organiser="Other")
    verdicts = {v.tournament: v for v in check_sanctioning(season(*ts, other))}
    assert verdicts["t0"].counts and verdicts["t1"].counts and verdicts["o"].counts
    assert not verdicts["t2"].counts
    assert "at most 2 a month per organiser" in verdicts["t2"].reasons[0]


def test_lg4_failed_tournament_does_not_use_a_monthly_slot() -> None:
    bad = tournament("bad", results=field(6), judge="")
    ts = [tournament(f"t{k}", results=field(6), on=START + (k + 1) * 7 * DAY) for k in range(2)]
    verdicts = {v.tournament: v.counts for v in check_sanctioning(season(bad, *ts))}
    assert verdicts == {"bad": False, "t0": True, "t1": True}


def test_lg4_none_within_7_days_of_a_major() -> None:
    major = tournament("major", results=field(12), major=True, organiser="Fed", on=START)
    near = tournament("near", results=field(6), on=START + 6 * DAY, organiser="A")
    week = tournament("week", results=field(6), on=START - 7 * DAY, organiser="B")
    verdicts = {v.tournament: v for v in check_sanctioning(season(major, near, week))}
    assert verdicts["major"].counts and verdicts["week"].counts  # exactly 7 days: allowed
    assert not verdicts["near"].counts and "major major" in verdicts["near"].reasons[0]


def test_lg4_tournaments_that_do_not_count_score_nothing() -> None:
    good = tournament("good", results=field(6))
    bad = tournament("bad", results=field(6), on=START + 40 * DAY, notice=3)
    table = {s.player: s for s in league_standings(season(good, bad))}
    assert table["p1"].points == 4 and table["p1"].played == 1


SEASON = """
season = "2011-2012"
start = 2011-09-18
end = 2012-06-30

[[tournament]]
id = "a"
date = 2011-10-08
announced = 2011-09-20
organiser = "Shop A"
judge = "Mario"
public_venue = true
prize_places = 2
players = 25
results = [
  { player = "Tizio", place = 1, wins = 6, draws = 1 },
  { player = "Caio", place = 2, wins = 5 },
]
"""


def test_season_file_parses() -> None:
    parsed = parse_season(SEASON)
    (t,) = parsed.tournaments
    assert (t.players, t.date, len(t.results)) == (25, dt.date(2011, 10, 8), 2)
    assert t.results[0].draws == 1 and not t.major


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('judge = "Mario"', 'judge = "Mario"\ncolour = "red"'), "unknown key"),
        (('{ player = "Caio"', '{ player = "Tizio"'), "listed twice"),
        (("place = 2", "place = 30"), "outside 1..25"),
        (("place = 2", "place = 1"), "more than one"),
        (("wins = 5", "wins = -1"), "negative"),
        (("players = 25", "players = 1"), "players = 1 but 2 results"),
        (("date = 2011-10-08", 'date = "soon"'), "date must be a date"),
        (("announced = 2011-09-20", "announced = 2011-10-20"), "after its date"),
        (("prize_places = 2", "prize_places = true"), "prize_places must be a int"),
        (("season = ", "seasons = "), "unknown key"),
    ],
)
def test_season_file_errors_are_clear(edit: tuple[str, str], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_season(SEASON.replace(*edit, 1))


def test_season_outside_dates_do_not_count() -> None:
    text = SEASON.replace("date = 2011-10-08", "date = 2012-07-08").replace(
        "announced = 2011-09-20", "announced = 2012-06-01"
    )
    (verdict,) = check_sanctioning(parse_season(text))
    assert not verdict.counts and "outside the season" in verdict.reasons[0]
